#!/usr/bin/env bash
# bench/tiobench: fsplan's tiobench phase (lua/tiobench.lua) against fio
# 3.33 with the same access pattern on one ext4 loop mount, as issue 5's
# benchmarks ask: seq_read, rand_read, seq_write, rand_write for 1 and 8
# threads; the ratio tiobench rate_mbs / fio MiB/s (target 0.9-1.1).
#
# The pattern, both tools (N threads, file size F):
#   - each thread its own file of int(F/N) MiB, 4 KiB blocks, one op in
#     flight per thread (fio: ioengine=psync, numjobs=N, bs=4k, size=F/N,
#     files tio.$jobnum);
#   - seq_* read or write each whole file; rand_* do int(RANDOM_OPS/N) ops
#     a thread at uniform random blocks, repeats allowed (fio: number_ios,
#     norandommap; the phase: random_ops, tiobench's --random). tiobench's
#     default is 4000: a few tenths of a second here, too short for the
#     ratio to mean anything, so RANDOM_OPS defaults to 40000;
#   - writes end with an fsync inside the timed run (fio: end_fsync=1);
#     no preallocation (fio: fallocate=none), no fadvise hints (fio:
#     fadvise_hint=0: fio would otherwise declare SEQUENTIAL or RANDOM,
#     which tiotest and the phase do not);
#   - seq_write creates new files; the other modes first write each file
#     in full in 1 MiB blocks and fsync it, one file after the other,
#     untimed, and run right after that with whatever of the files the
#     cache still holds, as tiobench.lua's setup does (and tiotest, whose
#     reads follow its writes). fio gets the same from dd (bs=1M
#     conv=fsync, one file after the other) and invalidate=0 - not from its
#     own layout, which drops the files' cache (POSIX_FADV_DONTNEED) after
#     writing them whatever invalidate says. Each phase run starts from no
#     files (the native phase unlinks its own; fio's are removed before and
#     after) after between: [sync, drop_caches].
#
# Three contenders per case, in a rotating order, ROUNDS rounds:
#   auto   the tiobench phase as a plan gets it (engine: auto, its
#          default: one op in flight per thread, as tiotest, through the
#          ring where the kernel serves it inline, else pread/pwrite) -
#          the figure the target is for
#   fio    fio with ioengine=psync, parse: fio (read_bw_mbs / write_bw_mbs,
#          merged over the jobs like group_reporting)
#   sync   the tiobench phase with engine: sync (pread/pwrite), for
#          comparison
#
# Memory: every phase run, fio's included, says `ram:` RAM_MIB, so fsplan
# runs its child in a memory cgroup of that size (bench/memcg.bash; the
# output says which limit applied), file size SIZE_MIB at least twice it
# (4x by default); dev_read_bytes of the loop device, per case and tool,
# shows that the reads reached it. fsplan's loop devices do direct
# I/O on their images (loop_io: direct) so reads that miss the limited
# cache reach the disk.
#
# The machine may be shared (2 CPUs, other benchmarks): both tools run at
# nice BENCH_NICE, each figure is the median of the rounds with the spread
# (max-min)/max beside it; each ratio fsplan/fio is taken within a round
# (the contenders of a case run back to back) and the median and range of
# those per-round ratios are printed. A missed target is printed, not a
# failure.
# Needs root (skipped otherwise) and fio.
# Environment: ROUNDS (4), RAM_MIB (256), SIZE_MIB (1024), THREADS ("1 8"),
# MODES (all four), RANDOM_OPS (40000), BENCH_NICE (-10), FSPLAN, KEEP=1
# keeps the run directory.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${FSPLAN:-$root/fsplan}
rounds=${ROUNDS:-4}
ram=${RAM_MIB:-256}
size=${SIZE_MIB:-1024}
threads=${THREADS:-1 8}
prio=${BENCH_NICE:--10}
modes=${MODES:-seq_read rand_read seq_write rand_write}
rops=${RANDOM_OPS:-40000}
if [ "$(id -u)" != 0 ]; then
	echo "tiobench: skipped (needs root)"
	exit 0
fi
if ! command -v fio > /dev/null; then
	echo "tiobench: skipped (fio is not installed: make deps)"
	exit 0
fi
if [ "$size" -lt $((2 * ram)) ]; then
	echo "tiobench: SIZE_MIB $size is less than twice RAM_MIB $ram" >&2
	exit 2
fi
# shellcheck source=bench/memcg.bash
. "$root/bench/memcg.bash"

bench_tmpdir tiobench

# ---- the plan ---------------------------------------------------------------

fio_cmd() {	# threads mode: fio's command line for that case
	local n=$1 m=$2 per=$((size / $1)) ops=$((rops / $1)) fill='' i
	local c="fio --output-format=json --ioengine=psync --bs=4k --numjobs=$n"
	c="$c --size=${per}M --filename_format=tio.\\\$jobnum --fallocate=none"
	c="$c --invalidate=0 --fadvise_hint=0 --name=t"
	case $m in
	seq_read) c="$c --rw=read" ;;
	rand_read) c="$c --rw=randread --norandommap --number_ios=$ops" ;;
	seq_write) c="$c --rw=write --end_fsync=1" ;;
	rand_write) c="$c --rw=randwrite --norandommap --number_ios=$ops --end_fsync=1" ;;
	esac
	# tiobench.lua's setup: each file written in full and fsync'd, one
	# after the other, in 1 MiB blocks (not fio's layout: it drops the
	# files' cache afterwards, whatever invalidate says)
	if [ "$m" != seq_write ]; then
		for ((i = 0; i < n; i++)); do
			fill="${fill}dd if=/dev/zero of=tio.$i bs=1M count=$per conv=fsync status=none && "
		done
	fi
	echo "rm -f tio.*; ${fill}$c; rc=\$?; rm -f tio.*; exit \$rc"
}
{
	bench_plan_head bench-tiobench "$((size * 2 / 1024 + 2))G"
	tools=(auto fio sync)
	k=0
	for r in $(seq 1 "$rounds"); do
		for n in $threads; do
			for m in $modes; do
				for i in 0 1 2; do
					t=${tools[(i + k) % 3]}
					p="t${n}_${m}_${t}_r$r"
					w="workers: $n, file_size: ${size}M, ram: ${ram}M, mode: $m, random_ops: $rops"
					case $t in
					auto) echo "  - {name: $p, use: tiobench, with: {$w}}" ;;
					sync) echo "  - {name: $p, use: tiobench, with: {engine: sync, $w}}" ;;
					fio) echo "  - {name: $p, parse: fio, with: {ram: ${ram}M}, exec: '$(fio_cmd "$n" "$m")'}" ;;
					esac
				done
				k=$((k + 1))
			done
		done
	done
} > "$tmp/tiobench.yaml"
"$bin" check "$tmp/tiobench.yaml"

# ---- the run ----------------------------------------------------------------

bench_run tiobench "$ram" "$prio" "$bin" "$tmp/tiobench.yaml" "$tmp/run"

# ---- the figures ------------------------------------------------------------

csv=$tmp/run/results.csv
echo "tiobench: fsplan tiobench vs fio 3.33 (psync), ext4 on a loop image (loop direct I/O: ${dio:-?})"
echo "  $memory; peak use $((peak >> 20)) MiB"
echo "  file size ${size} MiB ($(awk -v a="$size" -v b="$ram" 'BEGIN { printf "%g", a / b }') x the ${ram} MiB allowed) over the threads (file_size: ${size}M,"
echo "  ram: ${ram}M; fio --size=${size}M/N), 4 KiB blocks, $rops/N random ops a thread, nice $prio,"
echo "  $rounds rounds, order rotating"
awk -F, -v modes="$modes" -v threads="$threads" \
    -f "$root/bench/note.awk" -f "$root/bench/table.awk" -f <(cat <<'AWK'
NF >= 12 && $7 ~ /^t[0-9]+_[a-z_]+_(auto|fio|sync)_r[0-9]+$/ &&
($10 == "rate_mbs" || $10 == "read_bw_mbs" || $10 == "write_bw_mbs") {
	k = match($7, /_r[0-9]+$/); r = substr($7, k + 2) + 0
	t = m = substr($7, 1, k - 1)	# t8_rand_read_fio_r3: t fio, m t8_rand_read
	sub(/.*_/, "", t); sub(/_[a-z]+$/, "", m)
	v[t, m, r] = $11 + 0
	if (r > R) R = r
}
END {
	header("mode, threads", "fio", 13)
	nm = split(modes, M, " "); nt = split(threads, T, " ")
	for (j = 1; j <= nt; j++)
		for (i = 1; i <= nm; i++)
			row(M[i] ", " T[j], "fio", "t" T[j] "_" M[i], 13, 1)
	printf "  MiB/s, the median of the rounds (spread = (max-min)/max); fsplan = the\n"
	printf "  tiobench phase as plans get it (engine: auto), fsplan sync = engine: sync;\n"
	printf "  ratio = fsplan/fio within each round: the median [lowest-highest] of n\n"
	printf "  rounds, ok/MISS against 0.9-1.1\n"
}
AWK
) "$csv"
# what the loop device saw: the reads reached it, not the page cache
awk -F, -v modes="$modes" -v threads="$threads" '
NF >= 12 && $7 ~ /^t[0-9]+_[a-z_]+_(auto|fio|sync)_r[0-9]+$/ && $10 == "dev_read_bytes" {
	k = match($7, /_r[0-9]+$/); t = m = substr($7, 1, k - 1)
	sub(/.*_/, "", t); sub(/_[a-z]+$/, "", m)
	s[t, m] += $11 / 1048576; n[t, m]++
}
END {
	printf "  device reads (dev_read_bytes, MiB, mean of the rounds):\n"
	nm = split(modes, M, " "); nt = split(threads, T, " ")
	for (j = 1; j <= nt; j++)
		for (i = 1; i <= nm; i++) {
			m = "t" T[j] "_" M[i]
			if (M[i] !~ /read/ || !n["auto", m]) continue
			printf "    %-16s fsplan %7.0f  fio %7.0f  fsplan sync %7.0f\n", M[i] ", " T[j],
			    s["auto", m] / n["auto", m], n["fio", m] ? s["fio", m] / n["fio", m] : -1,
			    n["sync", m] ? s["sync", m] / n["sync", m] : -1
		}
}' "$csv"
bench_load "$csv"
printf '  wall time %s s\n' "$wall"
bench_leftovers "$tmp"
