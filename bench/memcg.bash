# shellcheck shell=bash disable=SC2034
# bench/memcg.bash: sourced by the bench scripts that run plans (not
# run by `make bench`: it is not a *.sh). A memory cgroup for one fsplan run,
# so the page cache of the filesystem under test really is limited to what
# the phases' `ram` says, plus the loop image set up the same way for both
# tools.
#
#   memcg_make NAME BYTES   make the cgroup; 1 (memcg_why says why) if there
#                           is no memory controller to use
#   "${memcg_run[@]}" CMD...  run CMD inside it (a command prefix: only CMD
#                           and its children move in, the calling shell
#                           stays where it is)
#   memcg_peak              the most it held, in bytes
#   memcg_remove            remove it (waits for its processes to go)
#   memcg_desc              how it was made, for the output
#   bench_run LABEL RAM_MIB PRIO BIN PLAN OUT
#                           run the plan in such a cgroup (the `ram`
#                           override alone without one) at nice PRIO; exits
#                           with the log's tail if the run or a phase run
#                           failed; sets memory, peak, dio, wall
#   bench_leftovers DIR     the line saying what of DIR is still mounted,
#                           attached or in a cgroup
#   bench_plan_head NAME IMAGE  a plan's head up to "phases:": one ext4
#                           config on a loop image of IMAGE whose loop
#                           device does direct I/O on its image (reads
#                           that miss the limited cache reach the disk;
#                           the log says "bench: loop dio=1", bench_run
#                           sets dio from it), between: [sync, drop_caches]
#
# cgroup v2 (memory in /sys/fs/cgroup/cgroup.controllers): /sys/fs/cgroup/
# NAME with memory.max, +memory enabled in the root's subtree_control when
# it is not (and left enabled). cgroup v1 (a memory hierarchy mounted at
# /sys/fs/cgroup/memory, as on hybrid systems): a child of this shell's own
# memory cgroup with memory.limit_in_bytes, so whatever limits the caller
# still applies.
memcg_dir=
memcg_kind=
memcg_why=
memcg_run=()

memcg_make() {
	local name=$1 bytes=$2 rel
	if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2> /dev/null; then
		if ! grep -qw memory /sys/fs/cgroup/cgroup.subtree_control &&
		   ! echo +memory > /sys/fs/cgroup/cgroup.subtree_control; then
			memcg_why="cannot enable +memory in /sys/fs/cgroup"
			return 1
		fi
		memcg_dir=/sys/fs/cgroup/$name
		memcg_kind=v2
		mkdir "$memcg_dir" || { memcg_dir=; memcg_why="mkdir failed"; return 1; }
		if ! echo "$bytes" > "$memcg_dir/memory.max"; then
			memcg_why="cannot set memory.max"
			rmdir "$memcg_dir"
			memcg_dir=
			return 1
		fi
		if [ -e "$memcg_dir/memory.swap.max" ]; then
			echo 0 > "$memcg_dir/memory.swap.max" || true
		fi
		memcg_prefix
		return 0
	fi
	if [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
		rel=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
		memcg_dir=/sys/fs/cgroup/memory${rel%/}/$name
		memcg_kind=v1
		mkdir "$memcg_dir" || { memcg_dir=; memcg_why="mkdir failed"; return 1; }
		if ! echo "$bytes" > "$memcg_dir/memory.limit_in_bytes"; then
			memcg_why="cannot set memory.limit_in_bytes"
			rmdir "$memcg_dir"
			memcg_dir=
			return 1
		fi
		memcg_prefix
		return 0
	fi
	memcg_why="no cgroup memory controller (v2 or v1)"
	return 1
}

memcg_prefix() {
	# shellcheck disable=SC2016
	memcg_run=(sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$memcg_dir")
}

memcg_peak() {
	local f
	for f in memory.peak memory.max_usage_in_bytes; do
		if [ -r "$memcg_dir/$f" ]; then
			cat "$memcg_dir/$f"
			return 0
		fi
	done
	echo 0
}

memcg_desc() {
	case $memcg_kind in
	v2) echo "cgroup v2 $memcg_dir, memory.max" ;;
	v1) echo "cgroup v1 $memcg_dir, memory.limit_in_bytes (page cache charged)" ;;
	esac
}

memcg_remove() {
	[ -n "$memcg_dir" ] && [ -d "$memcg_dir" ] || return 0
	for _ in $(seq 1 100); do
		if [ -z "$(cat "$memcg_dir/cgroup.procs" 2> /dev/null)" ] &&
		   rmdir "$memcg_dir" 2> /dev/null; then
			memcg_dir=
			return 0
		fi
		sleep 0.1
	done
	echo "memcg: could not remove $memcg_dir" >&2
	return 1
}

bench_run() {
	local label=$1 ram=$2 prio=$3 bin=$4 plan=$5 out=$6 t0 bad
	local run
	if memcg_make "fsplan-bench-$$" $((ram << 20)); then
		memory="memory cgroup: $ram MiB ($(memcg_desc))"
		run=("${memcg_run[@]}" "$bin")
	else
		memory="ram override: $ram MiB (the page cache is not limited: both tools see the same cache; $memcg_why)"
		run=("$bin")
	fi
	t0=$EPOCHREALTIME
	nice -n "$prio" "${run[@]}" run "$plan" -o "$out" -q || {
		echo "$label: fsplan run failed; its log:" >&2
		tail -n 30 "$out/log.txt" >&2 || true
		exit 1
	}
	wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
	peak=$(memcg_peak 2> /dev/null || echo 0)
	memcg_remove
	dio=$(sed -n 's/^bench: loop dio=//p' "$out/log.txt" | head -n 1)
	bad=$(awk -F, '$10 == "status" && $11 != "ok" { print $7 ": " $11 " " $12 }' "$out/results.csv")
	if [ -n "$bad" ]; then
		echo "$label: phase runs did not succeed:" >&2
		echo "$bad" >&2
		exit 1
	fi
}

bench_plan_head() {
	cat <<PLAN
fsplan: 1
name: $1
target: {image: $2}
between: [sync, drop_caches]
filesystems:
  - type: ext4
    setup: "losetup --direct-io=on \$FSPLAN_DEV; echo bench: loop dio=\$(cat /sys/block/\$(basename \$FSPLAN_DEV)/loop/dio)"
phases:
PLAN
}

bench_leftovers() {
	local left=
	if losetup -a | grep -qF "$1"; then left="$left loop"; fi
	if findmnt -rn -o TARGET | grep -qF "$1"; then left="$left mount"; fi
	if [ -n "$memcg_dir" ]; then left="$left cgroup"; fi
	echo "  leftovers: ${left:-none} (loop devices, mounts, cgroup)"
}

# $tmp: a fresh directory for a bench named $1, removed at exit with the
# bench's memory cgroup unless KEEP is set (a failed bench sets it, so
# its run directory can be read); INT and TERM exit 130 and 143.
bench_tmpdir() {
	bench_name=$1
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	trap bench_tmpdir_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

bench_tmpdir_cleanup() {
	memcg_remove || true
	if [ -n "${KEEP:-}" ]; then
		echo "$bench_name: kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}
