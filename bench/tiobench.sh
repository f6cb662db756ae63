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
#   - seq_* read or write each whole file; rand_* do int(4000/N) ops a
#     thread at uniform random blocks, repeats allowed (fio: number_ios,
#     norandommap);
#   - writes end with an fsync inside the timed run (fio: end_fsync=1);
#     no preallocation (fio: fallocate=none);
#   - seq_write creates new files; the other modes first write each file
#     in full, one after the other, and fsync it, untimed, and run right
#     after that with whatever of the files the cache still holds, as
#     tiobench.lua's setup does (and tiotest, which runs its reads after
#     its writes): fio lays its files out the same way (a read job, or a
#     write job with overwrite=1, on files that do not exist: serialized,
#     with create_fsync) and keeps their cache (invalidate=0). Each phase
#     run starts from no files (the native phase unlinks its own; fio's
#     are removed before and after) after between: [sync, drop_caches].
#
# Three contenders per case, in a rotating order, ROUNDS rounds:
#   uring  the tiobench phase as a plan gets it (io_uring engine, default)
#   fio    fio with ioengine=psync, parse: fio (read_bw_mbs / write_bw_mbs,
#          summed over the jobs like group_reporting)
#   sync   the tiobench phase with engine: sync (pread/pwrite)
#
# Memory: the whole fsplan run sits in a memory cgroup of RAM_MIB, file
# size F = 2 x RAM_MIB, `ram:` says RAM_MIB; without a usable memory
# controller, the `ram` override alone (the output says which). The loop
# device does direct I/O on its image (losetup --direct-io=on in the setup
# hook) so reads that miss the limited cache reach the disk.
#
# Prints the best rate of the rounds, the spread (max-min)/max, and the
# ratios. Needs root (skipped otherwise) and fio.
# Environment: ROUNDS (2), RAM_MIB (512), THREADS ("1 8"), FSPLAN,
# KEEP=1 keeps the run directory.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${FSPLAN:-$root/fsplan}
rounds=${ROUNDS:-2}
ram=${RAM_MIB:-512}
threads=${THREADS:-1 8}
size=$((2 * ram))
modes="seq_read rand_read seq_write rand_write"
if [ "$(id -u)" != 0 ]; then
	echo "tiobench: skipped (needs root)"
	exit 0
fi
if ! command -v fio > /dev/null; then
	echo "tiobench: skipped (fio is not installed: make deps)"
	exit 0
fi
# shellcheck source=bench/memcg.bash
. "$root/bench/memcg.bash"

tmp=$(mktemp -d)
chmod 755 "$tmp"
cleanup() {
	memcg_remove || true
	if [ -n "${KEEP:-}" ]; then
		echo "tiobench: kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- the plan ---------------------------------------------------------------

fio_cmd() {	# threads mode: fio's command line for that case
	local n=$1 m=$2 per=$((size / $1)) ops=$((4000 / $1))
	local c="fio --output-format=json --ioengine=psync --bs=4k --numjobs=$n"
	c="$c --size=${per}M --filename_format=tio.\\\$jobnum --fallocate=none"
	c="$c --invalidate=0 --name=t"
	case $m in
	seq_read) c="$c --rw=read" ;;
	rand_read) c="$c --rw=randread --norandommap --number_ios=$ops" ;;
	seq_write) c="$c --rw=write --end_fsync=1" ;;
	rand_write) c="$c --rw=randwrite --norandommap --number_ios=$ops --overwrite=1 --end_fsync=1" ;;
	esac
	echo "rm -f tio.*; $c; rc=\$?; rm -f tio.*; exit \$rc"
}
{
	cat <<PLAN
fsplan: 1
name: bench-tiobench
target: {image: $((size * 2 / 1024 + 2))G}
between: [sync, drop_caches]
filesystems:
  - type: ext4
    setup: "losetup --direct-io=on \$FSPLAN_DEV; echo bench: loop dio=\$(cat /sys/block/\$(basename \$FSPLAN_DEV)/loop/dio)"
phases:
PLAN
	tools=(uring fio sync)
	k=0
	for r in $(seq 1 "$rounds"); do
		for n in $threads; do
			for m in $modes; do
				for i in 0 1 2; do
					t=${tools[(i + k) % 3]}
					p="t${n}_${m}_${t}_r$r"
					w="workers: $n, file_size: ${size}M, ram: ${ram}M, mode: $m"
					case $t in
					uring) echo "  - {name: $p, use: tiobench, with: {$w}}" ;;
					sync) echo "  - {name: $p, use: tiobench, with: {engine: sync, $w}}" ;;
					fio) echo "  - {name: $p, parse: fio, exec: '$(fio_cmd "$n" "$m")'}" ;;
					esac
				done
				k=$((k + 1))
			done
		done
	done
} > "$tmp/tiobench.yaml"
"$bin" check "$tmp/tiobench.yaml"

# ---- the run ----------------------------------------------------------------

if memcg_make "fsplan-bench-$$" $((ram << 20)); then
	memory="memory cgroup: $ram MiB ($(memcg_desc))"
	run=(memcg_exec "$bin")
else
	memory="ram override: $ram MiB (the page cache is not limited: both tools see the same cache; $memcg_why)"
	run=("$bin")
fi
t0=$EPOCHREALTIME
"${run[@]}" run "$tmp/tiobench.yaml" -o "$tmp/run" -q || {
	echo "tiobench: fsplan run failed; its log:" >&2
	tail -n 30 "$tmp/run/log.txt" >&2 || true
	exit 1
}
t1=$EPOCHREALTIME
peak=$(memcg_peak 2> /dev/null || echo 0)
memcg_remove
dio=$(sed -n 's/^bench: loop dio=//p' "$tmp/run/log.txt" | head -n 1)

# ---- the figures ------------------------------------------------------------

csv=$tmp/run/results.csv
bad=$(awk -F, '$10 == "status" && $11 != "ok" { print $7 ": " $11 " " $12 }' "$csv")
if [ -n "$bad" ]; then
	echo "tiobench: phase runs did not succeed:" >&2
	echo "$bad" >&2
	exit 1
fi

echo "tiobench: fsplan tiobench vs fio 3.33 (psync), ext4 on a loop image (loop direct I/O: ${dio:-?})"
echo "  $memory; peak use $((peak >> 20)) MiB"
echo "  file size ${size} MiB = 2 x ${ram} MiB over the threads (file_size: ${size}M, ram: ${ram}M;"
echo "  fio --size=${size}M/N), 4 KiB blocks, 4000/N random ops a thread, $rounds rounds, order"
echo "  rotating; each figure the best rate of the rounds in MiB/s, spread = (max-min)/max"
awk -F, -v modes="$modes" -v threads="$threads" '
NF >= 12 && $7 ~ /^t[0-9]+_[a-z_]+_(uring|fio|sync)_r[0-9]+$/ {
	key = $7; sub(/_r[0-9]+$/, "", key)
	if ($10 == "rate_mbs" || $10 == "read_bw_mbs" || $10 == "write_bw_mbs")
		v[key, ++n[key]] = $11
}
function best(k,    i, b) {
	for (i = 1; i <= n[k]; i++) if (i == 1 || v[k, i] + 0 > b) b = v[k, i] + 0
	return b
}
function spread(k,    i, lo, hi) {
	for (i = 1; i <= n[k]; i++) {
		if (i == 1 || v[k, i] + 0 < lo) lo = v[k, i] + 0
		if (i == 1 || v[k, i] + 0 > hi) hi = v[k, i] + 0
	}
	return hi > 0 ? 100 * (hi - lo) / hi : 0
}
function fig(k) {
	if (!n[k]) return sprintf("%13s", "-")
	return sprintf("%7.1f (%2.0f%%)", best(k), spread(k))
}
function ratio(a, b) {
	if (!n[a] || !n[b] || best(b) == 0) return "    -"
	return sprintf("%5.2f", best(a) / best(b))
}
function mark(a, b,    x) {
	if (!n[a] || !n[b] || best(b) == 0) return "n/a"
	x = best(a) / best(b)
	return (x >= 0.9 && x <= 1.1) ? "ok" : "MISS"
}
END {
	printf "  %-10s %3s %13s %13s %13s %6s %7s %6s\n", "mode", "thr",
	       "fsplan", "fio", "fsplan sync", "ratio", "0.9-1.1", "sync"
	nm = split(modes, M, " "); nt = split(threads, T, " ")
	for (j = 1; j <= nt; j++)
		for (i = 1; i <= nm; i++) {
			p = "t" T[j] "_" M[i] "_"
			printf "  %-10s %3s %13s %13s %13s %6s %7s %6s\n", M[i], T[j],
			       fig(p "uring"), fig(p "fio"), fig(p "sync"),
			       ratio(p "uring", p "fio"), mark(p "uring", p "fio"),
			       ratio(p "sync", p "fio")
		}
	printf "  fsplan = the tiobench phase (io_uring engine, the default); sync = engine: sync;\n"
	printf "  ratio = fsplan/fio, sync = fsplan sync/fio\n"
}' "$csv"
printf '  wall time %.0f s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"

# ---- nothing left behind ----------------------------------------------------

left=
if losetup -a | grep -qF "$tmp"; then left="$left loop"; fi
if findmnt -rn -o TARGET | grep -qF "$tmp"; then left="$left mount"; fi
if [ -n "$memcg_dir" ]; then left="$left cgroup"; fi
echo "  leftovers: ${left:-none} (loop devices, mounts, cgroup)"
