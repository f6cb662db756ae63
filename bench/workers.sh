#!/usr/bin/env bash
# bench/workers: thousands of workers in one phase run, as issue 16 asks:
# 1, 1024 and 4096 workers of tests/fixtures/lua/idle.lua, all alive at once for HOLD
# seconds, engine auto (a worker holds no ring until an op takes one), on
# one ext4 loop mount in one fsplan run. Printed: the phase child's peak
# RSS (rss_peak_kib) and what each worker adds beyond the one-worker run;
# targets <= 96 MiB for 1024 workers and <= 384 MiB for 4096, beyond the
# I/O buffers (idle workers have none; the 3 MiB seeded write source is
# the one-worker run's too). Needs root (skipped otherwise).
# Environment: HOLD (5), ROUNDS (3), BENCH_NICE (-10), FSPLAN, KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${FSPLAN:-$root/fsplan}
hold=${HOLD:-5}
rounds=${ROUNDS:-3}
prio=${BENCH_NICE:--10}
if [ "$(id -u)" != 0 ]; then
	echo "workers: skipped (needs root to run plans)"
	exit 0
fi
# shellcheck source=bench/memcg.bash
. "$root/bench/memcg.bash"
bench_tmpdir workers
cp "$root/tests/fixtures/lua/idle.lua" "$tmp/"
cat > "$tmp/workers.yaml" <<PLAN
fsplan: 1
name: bench-workers
target: {image: 64M}
between: none
repeat: $rounds
filesystems: [{type: ext4}]
phases:
  - use: idle.lua
    matrix: {workers: [1, 1024, 4096]}
    with: {hold: $hold}
PLAN
load0=$(cut -d' ' -f1 /proc/loadavg)
if ! nice -n "$prio" "$bin" run "$tmp/workers.yaml" -o "$tmp/run" -q; then
	echo "workers: the run failed; its log ends:" >&2
	tail -n 20 "$tmp/run/log.txt" >&2 || true
	grep ',status,failed' "$tmp/run/results.csv" >&2 || true
	exit 1
fi
load1=$(cut -d' ' -f1 /proc/loadavg)
bench_leftovers "$tmp"
awk -F, -v load0="$load0" -v load1="$load1" -v hold="$hold" \
    -f "$root/bench/note.awk" -f "$root/bench/table.awk" -f <(cat <<'AWK'
$10 == "rss_peak_kib" && match($8, /workers=[0-9]+/) {
	n = substr($8, RSTART + 8, RLENGTH - 8) + 0
	split($2, a, "#"); r = a[2] + 0
	v["rss", n, r] = $11 / 1024
	if (r > R) R = r
}
function med(n,    r, x, m) {
	m = 0
	for (r = 1; r <= R; r++) if (("rss", n, r) in v) x[++m] = v["rss", n, r]
	return m ? median(x, m) : 0
}
END {
	printf "workers: idle workers (idle.lua, %ss all alive at once), engine auto,\n", hold
	printf "  ext4 on a loop image, %d rounds, load average %s -> %s\n", R, load0, load1
	printf "  %-8s %16s %18s %10s  %s\n", "workers", "peak RSS MiB", "KiB per worker",
	       "target", ""
	base = med(1)
	printf "  %-8d %16.1f %18s %10s\n", 1, base, "-", "-"
	split("1024 4096", W, " "); split("96 384", T, " ")
	for (i = 1; i <= 2; i++) {
		m = med(W[i] + 0)
		ok = m && m <= T[i] ? "ok" : "MISS"
		printf "  %-8d %16.1f %18.1f %10s  %s\n", W[i], m,
		       (m - base) * 1024 / W[i], "<= " T[i], ok
		note(W[i] " idle workers, peak RSS MiB / target", m / T[i], "", "",
		     "<= 1.0", ok)
	}
}
AWK
) "$tmp/run/results.csv"
