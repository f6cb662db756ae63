#!/usr/bin/env bash
# bench/series: what the time series of DESIGN.md section 8 costs a phase,
# as issue 30 asks: at most 2% of the op rate at `interval: 1s` and 5% at
# 100ms, in bench/limit.sh's cached cases. In ONE fsplan run, on one
# 256 MiB file of one ext4 loop mount (image in /dev/shm when there is
# room), 4 KiB random reads, 1 worker, engine uring:
#   c1, c32  f:stream at depth 1 and 32 (bench/randread.lua), the limit
#            bench's cached cases
#   lua      the op-by-op Lua loop (bench/randread_ops.lua), depth 1: every
#            op crosses the worker's op record, which keeps the series
# each with interval 0 (no series), 1s and 100ms, the three in a rotating
# order within each round, the file read right before each run. Printed:
# per case the median IOPS of each interval, and 1s/off and 100ms/off
# taken within each round (median [lowest-highest]); then what
# timeseries.csv holds per op class and per hour of phase at 1 s (its
# bytes over the phase runs' seconds), and every round's figures. A missed
# target is printed, not a failure. Needs root (skipped otherwise).
# Last figures (ROUNDS=9, a quiet machine, 2026-12-03): 1s/off 0.97
# [0.77-1.05] stream depth 1, 0.97 [0.86-1.14] depth 32, 0.99 [0.87-1.03]
# the Lua loop; 100ms/off 1.01, 0.99, 0.96. Each round's ratio moves by
# 10-20% here, so the 2% target is below what this machine resolves:
# 100ms (ten times the closing work of 1s) came out at or above 1s in
# two of three cases. The series adds ~3 ns to an op's record (timed
# directly), of the ~2 us an op takes here. timeseries.csv at 1 s: about
# 1.4 MiB an hour per op class, 2.6 MiB for root's series of one volume.
# Environment: SECONDS_EACH (3), ROUNDS (5), BENCH_NICE (-10), FSPLAN,
# KEEP=1 keeps the run directory.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${FSPLAN:-$root/fsplan}
secs=${SECONDS_EACH:-3}
rounds=${ROUNDS:-5}
prio=${BENCH_NICE:--10}
if [ "$(id -u)" != 0 ]; then
	echo "series: skipped (needs root to run plans)"
	exit 0
fi
# shellcheck source=bench/memcg.bash
. "$root/bench/memcg.bash"
bench_tmpdir series
cp "$root"/bench/randread.lua "$root"/bench/randread_ops.lua \
   "$root"/bench/seqwrite.lua "$tmp/"
bench_shm_workdir 2

# ---- the plan ---------------------------------------------------------------

ivs=(0 1s 100ms)
phases() {	# case round: the three intervals, rotating
	local c=$1 r=$2 i iv n=${#ivs[@]}
	for ((i = 0; i < n; i++)); do
		iv=${ivs[(i + r) % n]}
		echo "  - {name: warm_${c}_${iv}_$r, exec: 'cat data > /dev/null'}"
		case $c in
		lua) echo "  - {name: ${c}_${iv}_$r, use: randread_ops.lua, interval: $iv, with: {engine: uring, size: 256M, seconds: ${secs}s}}" ;;
		*) echo "  - {name: ${c}_${iv}_$r, use: randread.lua, interval: $iv, with: {engine: uring, depth: ${c#c}, size: 256M, seconds: ${secs}s}}" ;;
		esac
	done
}
{
	cat <<PLAN
fsplan: 1
name: bench-series
target: {image: 1G}
between: none
filesystems: [{type: ext4}]
phases:
  - {name: prep, use: seqwrite.lua, with: {file: data, size: 256M, fsync: true}}
PLAN
	for r in $(seq 1 "$rounds"); do
		for c in c1 c32 lua; do phases "$c" "$r"; done
	done
} > "$tmp/series.yaml"
"$bin" check "$tmp/series.yaml" > /dev/null

# ---- the run ----------------------------------------------------------------

load0=$(cut -d' ' -f1 /proc/loadavg)
bench_run series none "$prio" "$bin" "$tmp/series.yaml" "$tmp/run" "${workdir[@]}"
load1=$(cut -d' ' -f1 /proc/loadavg)
bench_leftovers "$tmp"
if [ -n "$shm" ]; then bench_leftovers "$shm"; fi

# ---- the table --------------------------------------------------------------

awk -v secs="$secs" -v prio="$prio" -v backing="$backing" -v wall="$wall" \
    -v load0="$load0" -v load1="$load1" -f "$root/bench/note.awk" \
    -f "$root/bench/table.awk" -f <(cat <<'AWK'
# results.csv: c1_1s_3 -> v["1s", "c1", 3]; timeseries.csv: its bytes
# per op class over the 1 s phase runs' seconds
FILENAME ~ /results.csv$/ && FNR > 1 {
	csv($0, f)
	if (split(f[7], a, "_") != 3 || a[1] !~ /^(c1|c32|lua)$/) next
	if (f[10] == "read_iops") {
		v[a[2], a[1], a[3] + 0] = f[11] + 0
		if (a[3] + 0 > R) R = a[3] + 0
	}
	if (f[10] == "seconds" && a[2] == "1s") secs1 += f[11]
	next
}
FILENAME ~ /timeseries.csv$/ && FNR > 1 {
	csv($0, f)
	if (f[2] !~ /\/(c1|c32|lua)_1s_/) next
	if (f[4] ~ /^read_/) opbytes += length($0) + 1
	else rootbytes += length($0) + 1
}
function k(x) { return x ? sprintf("%7.1fk", x / 1e3) : sprintf("%8s", "-") }
function rat(iv, c, target, name,    s, verdict) {
	if (!ratios(iv, "0", c)) return sprintf("%-24s", "  -")
	verdict = rmed >= target ? "ok" : "MISS"
	note(name " " iv "/off", rmed, rlo, rhi, ">= " target, verdict, reach)
	return sprintf("%4.2f [%4.2f-%4.2f] %-4s", rmed, rlo, rhi, verdict)
}
END {
	printf "series: the op rate with the time series off, at 1s and at 100ms, ext4 (a 1G\n"
	printf "  loop image on %s), one cached 256 MiB file, 4 KiB random reads, 1 worker,\n", backing
	printf "  engine uring; load average %s -> %s, nice %s; %ss per run, %d rounds,\n", load0, load1, prio, secs, R
	printf "  order rotating; %ss in all\n", wall
	printf "  %-20s %8s %8s %8s  %-24s %-24s\n", "case", "off", "1s", "100ms",
	       "1s/off [range]", "100ms/off [range]"
	split("c1 c32 lua", C, " ")
	split("stream, depth 1|stream, depth 32|Lua loop, depth 1", N, "|")
	for (i = 1; i <= 3; i++) {
		c = C[i]
		a1 = ratios("1s", "0", c) ? 1 : 0
		printf "  %-20s %s %s %s  %s %s\n", N[i], k(medv("0", c)),
		       k(medv("1s", c)), k(medv("100ms", c)),
		       rat("1s", c, 0.98, N[i]), rat("100ms", c, 0.95, N[i])
	}
	printf "  targets: 1s/off >= 0.98, 100ms/off >= 0.95 (ratios within each round)\n"
	if (secs1 > 0)
		printf "  timeseries.csv at 1s: %.0f KiB per hour for the read op class, %.0f KiB for root's series (device, dirty, CPU)\n",
		       opbytes / secs1 * 3600 / 1024, rootbytes / secs1 * 3600 / 1024
	printf "  every round (k IOPS):\n"
	for (i = 1; i <= 3; i++)
		for (j = 1; j <= 3; j++) {
			iv = j == 1 ? "0" : j == 2 ? "1s" : "100ms"
			line = ""
			for (r = 1; r <= R; r++)
				if ((iv, C[i], r) in v)
					line = line sprintf(" %7.1f", v[iv, C[i], r] / 1e3)
			printf "  %-4s %-6s%s\n", C[i], iv, line
		}
}
function medv(iv, c,    r, a, n) {
	n = 0
	for (r = 1; r <= R; r++) if ((iv, c, r) in v) a[++n] = v[iv, c, r]
	return n ? median(a, n) : 0
}
AWK
) "$tmp/run/results.csv" "$tmp/run/timeseries.csv"
bench_load "$tmp/run/results.csv"
