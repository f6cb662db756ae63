# shellcheck shell=bash disable=SC2034
# bench/memcg.bash: sourced by the benches (not run by `make bench`: it is
# not a *.sh). The memory limit of a bench is fsplan's own: every phase of
# a bench plan says `ram:` (native phases in their with, exec phases with
# `with: {ram: ...}`), so each phase child, the real tool's included, runs
# in a memory cgroup of that size made by fsplan (cgroup v2 memory.max, or
# the v1 memory controller's limit_in_bytes on hybrid hosts), and the rows
# say what applied (ram_limit) and what the device saw (dev_read_bytes).
#
#   bench_run LABEL RAM_MIB PRIO BIN PLAN OUT [ARG...]
#                           run the plan at nice PRIO (ARGs go to fsplan
#                           run, e.g. --workdir); exits with the
#                           log's tail if the run or a phase run failed;
#                           sets memory (what limit applied), peak (the
#                           highest memory_peak_bytes of a phase run),
#                           dio, wall
#   bench_load CSV          the line saying how busy the machine was
#   bench_leftovers DIR     the line saying what of DIR is still mounted,
#                           attached, or which of fsplan's cgroups is left
#   bench_tmpdir NAME       $tmp, removed at exit (below)
#   bench_plan_head NAME IMAGE [TYPES]  a plan's head up to "phases:": one
#                           config per type (ext4) on a loop image of IMAGE (fsplan's loop
#                           devices do direct I/O on their images: reads
#                           that miss the limited cache reach the disk;
#                           bench_run sets dio from the loop_io rows),
#                           between: [sync, drop_caches]

bench_run() {
	local label=$1 ram=$2 prio=$3 bin=$4 plan=$5 out=$6 t0 bad kinds
	shift 6
	t0=$EPOCHREALTIME
	nice -n "$prio" "$bin" run "$plan" -o "$out" -q "$@" || {
		echo "$label: fsplan run failed; its failed phase runs and its log's end:" >&2
		awk -F, '$10 == "status" && $11 != "ok" { print "  " $2 ": " $11 " " $12 }' \
			"$out/results.csv" >&2 || true
		tail -n 10 "$out/log.txt" >&2 || true
		KEEP=1	# the run directory stays to be read
		exit 1
	}
	wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
	peak=$(awk -F, '$10 == "memory_peak_bytes" && $11 > p { p = $11 } END { printf "%.0f", p }' "$out/results.csv")
	kinds=$(awk -F, '$10 == "ram_limit" { k[$11] = 1 } END { for (x in k) printf "%s%s", n++ ? "+" : "", x }' "$out/results.csv")
	case $kinds in
	cgroup-v1|cgroup-v2)
		memory="memory cgroup per phase run: $ram MiB (fsplan's ram, $kinds; swap 0)" ;;
	*)
		memory="ram $ram MiB NOT enforced for every phase run (ram_limit: ${kinds:-no rows}): the page cache is not limited" ;;
	esac
	dio=$(awk -F, '$10 == "loop_io" { k[$11] = 1 } END { for (x in k) printf "%s%s", n++ ? "+" : "", x }' "$out/results.csv")
	bad=$(awk -F, '$10 == "status" && $11 != "ok" { print $7 ": " $11 " " $12 }' "$out/results.csv")
	if [ -n "$bad" ]; then
		echo "$label: phase runs did not succeed:" >&2
		echo "$bad" >&2
		KEEP=1
		exit 1
	fi
}

# The machine while the phases ran: the mean 1-minute load average, the
# cores used outside the phase child (others_cores) and those the
# hypervisor took (steal_cores).
bench_load() {
	awk -F, '$10 == "load_1m" { s += $11; n++ }
		$10 == "others_cores" { o += $11; if ($11 > 0.25) busy++ }
		$10 == "steal_cores" { st += $11; if ($11 > 0.25) stolen++ }
		END { if (n) printf "  load: 1-min load average %.2f, outside the phase child %.2f cores, taken by the hypervisor %.2f cores (means over the %d phase runs; over a quarter core: %d and %d)\n", s / n, o / n, st / n, n, busy, stolen }' "$1"
}

# The cgroups of fsplan runs that have ended (fsplan-<pid>-<n>, pid gone)
# where fsplan makes them: our own v1 memory cgroup, the unified root.
bench_cgroups_left() {
	local d pid own
	own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
	for d in "/sys/fs/cgroup/memory${own%/}"/fsplan-[0-9]* \
		 /sys/fs/cgroup/unified/fsplan-[0-9]* /sys/fs/cgroup/fsplan-[0-9]*; do
		[ -d "$d" ] || continue
		pid=${d##*/fsplan-}
		pid=${pid%%-*}
		kill -0 "$pid" 2> /dev/null || echo "$d"
	done
}

bench_plan_head() {
	local t
	cat <<PLAN
fsplan: 1
name: $1
target: {image: $2}
between: [sync, drop_caches]
filesystems:
PLAN
	for t in ${3:-ext4}; do
		echo "  - type: $t"
	done
	echo "phases:"
}

bench_leftovers() {
	local left=
	if losetup -a | grep -qF "$1"; then left="$left loop"; fi
	if findmnt -rn -o TARGET | grep -qF "$1"; then left="$left mount"; fi
	if [ -n "$(bench_cgroups_left)" ]; then left="$left cgroup"; fi
	echo "  leftovers: ${left:-none} (loop devices, mounts, cgroup)"
}

# $tmp: a fresh directory for a bench named $1, removed at exit unless
# KEEP is set (a failed bench sets it, so
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
	if [ -n "${KEEP:-}" ]; then
		echo "$bench_name: kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
	bench_shm_cleanup
}

# The loop images' directory: a fresh one in /dev/shm when that is a
# tmpfs with more than $1 GiB free (its pages cannot be dropped, so an
# O_DIRECT read reaches the tmpfs, not a disk), else the run directory.
# Sets shm (the directory, or empty), workdir (fsplan run's --workdir
# arguments) and backing (in words); bench_tmpdir_cleanup removes shm.
shm=
bench_shm_workdir() {
	workdir=()
	backing="the run directory's filesystem"
	if [ "$(stat -f -c %T /dev/shm 2> /dev/null)" = tmpfs ] &&
	   [ "$(df -k --output=avail /dev/shm | tail -n 1)" -gt $(($1 << 20)) ]; then
		shm=$(mktemp -d "/dev/shm/fsplan-$bench_name.XXXXXX")
		workdir=(--workdir "$shm")
		backing="tmpfs (/dev/shm)"
	fi
}

bench_shm_cleanup() {
	if [ -n "$shm" ]; then rm -rf "$shm"; fi
}
