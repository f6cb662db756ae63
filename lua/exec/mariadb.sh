# mariadb.sh: lua/mariadb.lua's script — a MariaDB server of its own in
# ./mariadb, sysbench oltp_read_write against it, the server stopped on
# every way out. Run by fsplan as runas in the work directory, with the
# module's parameters as FSPLAN_P_<name> (sizes in bytes, durations in
# seconds). Only sysbench's run report and InnoDB's counters of the run
# go to stdout.
set -u

me=mariadb.sh
dir=$PWD/mariadb
server=
watcher=

say() { printf '%s: %s\n' "$me" "$*" >&2; }

# The server down and its directory gone; the status it leaves with.
stop() {
	[ -z "$watcher" ] || kill "$watcher" 2>/dev/null
	watcher=
	if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
		kill -TERM "$server" 2>/dev/null
		wait "$server" 2>/dev/null
	fi
	server=
	rm -rf "$dir"
}

# mariadbd does not fail on a full disk: it logs "Disk is full" and
# waits for space, for ever. Watch log; when it says so, kill pid (and
# its children: install-db's bootstrap server), so that the step fails
# at once instead of at the phase's timeout.
watch_full() {
	until grep -q 'Disk is full' "$1" 2>/dev/null; do
		sleep 0.2
	done
	pkill -KILL -P "$2" 2>/dev/null
	kill -KILL "$2" 2>/dev/null
}

# A step failed: the full disk, if the logs say that is why, as the last
# word (read, not written: nothing more fits there).
failed() {
	full=$(grep -h -m 1 -e 'Disk is full' -e 'No space left on device' \
		-e 'Errcode: 28' -e 'error 28' "$dir/install.log" \
		"$dir/err.log" 2>/dev/null | head -n 1)
	if [ -n "$full" ]; then
		say "$1: the filesystem under test is full (mariadbd:" \
		    "$(printf '%s' "$full" | sed 's/^.*\] //'))"
	else
		say "$1"
	fi
	exit 1
}
trap 'stop' EXIT
trap 'stop; trap - EXIT; exit 143' TERM
trap 'stop; trap - EXIT; exit 130' INT

for tool in mariadb-install-db mariadbd mariadb sysbench; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		say "'$tool' is not installed (Debian: apt-get install" \
		    "mariadb-server sysbench)"
		exit 127
	fi
done

workers=${FSPLAN_P_workers:?}
secs=$(awk -v s="${FSPLAN_P_seconds:?}" \
	'BEGIN { n = int(s); if (n < s) n++; if (n < 1) n = 1; print n }')
bp=${FSPLAN_P_buffer_pool:?}
log=${FSPLAN_P_log_size:?}
ready=${FSPLAN_P_ready_s:?}
events=${FSPLAN_P_events:-0}
# InnoDB's settings (lua/mariadb.lua checked their values)
innodb="--innodb-buffer-pool-size=$bp --innodb-log-file-size=$log
--innodb-flush-method=${FSPLAN_P_flush_method:-O_DIRECT}
--innodb-flush-log-at-trx-commit=${FSPLAN_P_flush_log_at_trx_commit:-1}
--innodb-doublewrite=${FSPLAN_P_doublewrite:-1}"
if [ "$events" -gt 0 ] 2>/dev/null; then
	limit="--events=$events --time=0"
else
	limit="--time=$secs"
fi
# a unix socket's path has room for 107 bytes
sock=$dir/sock
if [ ${#sock} -gt 107 ]; then
	say "the socket's path $sock is over 107 bytes: use a shorter" \
	    "--workdir"
	exit 2
fi

# a run killed at its timeout (no trap runs then) leaves its directory
if [ -e "$dir" ]; then
	say "removing ./mariadb, which a killed run left"
	rm -rf "$dir"
fi
mkdir "$dir" || exit 1
mariadb-install-db --no-defaults --datadir="$dir/data" \
	--skip-test-db --auth-root-authentication-method=socket \
	--innodb-log-file-size="$log" >"$dir/install.log" 2>&1 &
install=$!
watch_full "$dir/install.log" "$install" &
watcher=$!
if ! wait "$install"; then
	cat "$dir/install.log" >&2
	failed "mariadb-install-db failed"
fi
kill "$watcher" 2>/dev/null

mariadbd --no-defaults --datadir="$dir/data" --socket="$sock" \
	--pid-file="$dir/pid" --log-error="$dir/err.log" \
	--skip-networking --skip-grant-tables $innodb \
	</dev/null >/dev/null 2>&1 &
server=$!
watch_full "$dir/err.log" "$server" &
watcher=$!

# ready when its log says so; a server that died or is slow fails here
waited=0
until grep -q 'ready for connections' "$dir/err.log" 2>/dev/null; do
	if ! kill -0 "$server" 2>/dev/null; then
		tail -n 20 "$dir/err.log" >&2 2>/dev/null
		server=
		failed "mariadbd exited before it was ready (its log above)"
	fi
	if [ "$(awk -v w="$waited" -v r="$ready" 'BEGIN { print (w >= r) }')" = 1 ]
	then
		tail -n 20 "$dir/err.log" >&2 2>/dev/null
		say "mariadbd was not ready after ${ready} s"
		exit 1
	fi
	sleep 0.1
	waited=$(awk -v w="$waited" 'BEGIN { print w + 0.1 }')
done

mariadb --no-defaults --socket="$sock" -e 'CREATE DATABASE sbtest' >&2 ||
	failed "CREATE DATABASE sbtest failed"
# the settings the server runs with, as it reports them (exec/*.err)
got=$(mariadb --no-defaults --socket="$sock" -N -B -e "SELECT CONCAT(
	'flush_method=', @@innodb_flush_method,
	' flush_log_at_trx_commit=', @@innodb_flush_log_at_trx_commit,
	' doublewrite=', @@innodb_doublewrite,
	' log_file_size=', @@innodb_log_file_size,
	' buffer_pool_size=', @@innodb_buffer_pool_size)") ||
	failed "reading the server's InnoDB settings failed"
say "InnoDB: $got"

sb() {
	sysbench oltp_read_write --db-driver=mysql --mysql-socket="$sock" \
		--mysql-user=root --mysql-db=sbtest \
		--tables="${FSPLAN_P_tables:?}" \
		--table-size="${FSPLAN_P_table_size:?}" \
		--rand-seed="${FSPLAN_SEED:-0}" "$@"
}
# InnoDB's I/O counters, "name value" a line, then the writes and bytes
# the block device under ./mariadb had (its stat file: writes completed,
# 512-byte sectors written) when there is one to read: fsplan's own
# dev_write_ios and dev_write_bytes take in the server's start and
# sysbench prepare, these only the run
status() {
	mariadb --no-defaults --socket="$sock" -N -B -e "SHOW GLOBAL STATUS
	WHERE Variable_name IN ($counters)" || failed "SHOW GLOBAL STATUS failed"
	[ -r "$devstat" ] && awk '{ print "Device_writes", $5
		print "Device_write_bytes", $7 * 512 }' "$devstat"
	return 0
}
counters="'Innodb_os_log_fsyncs', 'Innodb_os_log_written',
'Innodb_log_writes', 'Innodb_data_fsyncs', 'Innodb_pages_written',
'Innodb_dblwr_pages_written'"
dev=$(findmnt -n -o SOURCE -T "$dir" 2>/dev/null | sed 's/\[.*//')
devstat=/sys/class/block/${dev##*/}/stat

sb prepare >&2 || failed "sysbench prepare failed"
before=$(status) || exit 1
# $limit and $innodb unquoted: words without blanks (checked values)
sb --threads="$workers" $limit run ||
	failed "sysbench run failed (exit status $?)"
after=$(status) || exit 1
# what the run alone did, after sysbench's report (parse/sysbench.lua)
printf '%s\n' "$before" "--" "$after" | awk '
	$0 == "--" { late = 1; next }
	!late { was[$1] = $2; next }
	{ now[++n] = $1; v[$1] = $2 - was[$1] }
	END {
		print "InnoDB status (the run'"'"'s):"
		for (i = 1; i <= n; i++) printf "    %s: %.0f\n", now[i], v[now[i]]
	}'
sb cleanup >&2 || failed "sysbench cleanup failed"
