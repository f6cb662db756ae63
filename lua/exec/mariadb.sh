# mariadb.sh: lua/mariadb.lua's script — a MariaDB server of its own in
# ./mariadb, sysbench oltp_read_write against it, the server stopped on
# every way out. Run by fsplan as runas in the work directory, with the
# module's parameters as FSPLAN_P_<name> (sizes in bytes, durations in
# seconds). Only sysbench's run report goes to stdout.
set -u

me=mariadb.sh
dir=$PWD/mariadb
server=

say() { printf '%s: %s\n' "$me" "$*" >&2; }

# The server down and its directory gone; the status it leaves with.
stop() {
	if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
		kill -TERM "$server" 2>/dev/null
		wait "$server" 2>/dev/null
	fi
	server=
	rm -rf "$dir"
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
# a unix socket's path has room for 107 bytes
sock=$dir/sock
if [ ${#sock} -gt 107 ]; then
	say "the socket's path $sock is over 107 bytes: use a shorter" \
	    "--workdir"
	exit 2
fi

mkdir "$dir" || exit 1
if ! mariadb-install-db --no-defaults --datadir="$dir/data" \
	--skip-test-db --auth-root-authentication-method=socket \
	--innodb-log-file-size="$log" >"$dir/install.log" 2>&1; then
	cat "$dir/install.log" >&2
	say "mariadb-install-db failed"
	exit 1
fi

mariadbd --no-defaults --datadir="$dir/data" --socket="$sock" \
	--pid-file="$dir/pid" --log-error="$dir/err.log" \
	--skip-networking --skip-grant-tables \
	--innodb-buffer-pool-size="$bp" --innodb-log-file-size="$log" \
	</dev/null >/dev/null 2>&1 &
server=$!

# ready when its log says so; a server that died or is slow fails here
waited=0
until grep -q 'ready for connections' "$dir/err.log" 2>/dev/null; do
	if ! kill -0 "$server" 2>/dev/null; then
		tail -n 20 "$dir/err.log" >&2 2>/dev/null
		say "mariadbd exited before it was ready (its log above)"
		server=
		exit 1
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
	{ say "CREATE DATABASE sbtest failed"; exit 1; }

sb() {
	sysbench oltp_read_write --db-driver=mysql --mysql-socket="$sock" \
		--mysql-user=root --mysql-db=sbtest \
		--tables="${FSPLAN_P_tables:?}" \
		--table-size="${FSPLAN_P_table_size:?}" "$@"
}
sb prepare >&2 || { say "sysbench prepare failed"; exit 1; }
sb --threads="$workers" --time="$secs" run
rc=$?
[ $rc = 0 ] || say "sysbench run failed (exit status $rc)"
sb cleanup >&2 || { say "sysbench cleanup failed"; [ $rc != 0 ] || rc=1; }
exit $rc
