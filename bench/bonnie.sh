#!/usr/bin/env bash
# bench/bonnie: fsplan's bonnie phase (lua/bonnie.lua) against the real
# bonnie++ 2.00a on one ext4 loop mount, as issue 5's benchmarks ask:
# block write, rewrite, block read, sequential create and delete, and the
# ratio fsplan/bonnie++ for each (target 0.9-1.1).
#
# One fsplan run, one filesystem, ROUNDS rounds of three phase runs in a
# rotating order, each after between: [sync, drop_caches]:
#   uring  the bonnie phase as a plan gets it (the default io_uring engine)
#   real   /usr/sbin/bonnie++ -q -f -s SIZE -r RAM -n FILES, parse: bonnie
#   sync   the bonnie phase with engine: sync (plain syscalls), which shows
#          how much of a gap is the engine's
# The native phase gets the same shape: size, ram, files, skip_char (-f),
# default chunk 8k, seeks 8192 with 5 in flight.
#
# Memory: the whole fsplan run sits in a memory cgroup of RAM_MIB (the page
# cache it may use is limited for real) and both tools are told that RAM
# (ram: / -r) with a file of twice it. Without a usable memory controller
# the figures fall back to the `ram` override alone, and the output says
# so. The loop device reads and writes its image with O_DIRECT (losetup
# --direct-io=on in the filesystem's setup hook): otherwise a read that
# misses the limited cache would be served from the image's page cache,
# outside the cgroup, at memory speed.
#
# Prints the best (highest) figure of the rounds (other load on a shared
# machine only ever lowers a rate), the spread (max-min)/max over the
# rounds, and the ratios. Needs root (skipped otherwise).
# Environment: ROUNDS (3), RAM_MIB (512), FILES (32, x1024 files), FSPLAN,
# KEEP=1 keeps the run directory.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${FSPLAN:-$root/fsplan}
rounds=${ROUNDS:-3}
ram=${RAM_MIB:-512}
files=${FILES:-32}
size=$((2 * ram))
bonniepp=/usr/sbin/bonnie++
if [ "$(id -u)" != 0 ]; then
	echo "bonnie: skipped (needs root)"
	exit 0
fi
if [ ! -x "$bonniepp" ]; then
	echo "bonnie: skipped (bonnie++ is not installed: make deps)"
	exit 0
fi
# shellcheck source=bench/memcg.bash
. "$root/bench/memcg.bash"

tmp=$(mktemp -d)
chmod 755 "$tmp"
cleanup() {
	memcg_remove || true
	if [ -n "${KEEP:-}" ]; then
		echo "bonnie: kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- the plan ---------------------------------------------------------------

native="size: ${size}M, ram: ${ram}M, files: $files, skip_char: true"
real="$bonniepp -q -f -d . -s $size -r $ram -n $files"
{
	cat <<PLAN
fsplan: 1
name: bench-bonnie
target: {image: $((size * 2 / 1024 + 2))G}
between: [sync, drop_caches]
filesystems:
  - type: ext4
    setup: "losetup --direct-io=on \$FSPLAN_DEV; echo bench: loop dio=\$(cat /sys/block/\$(basename \$FSPLAN_DEV)/loop/dio)"
phases:
PLAN
	tools=(uring real sync)
	for r in $(seq 1 "$rounds"); do
		for i in 0 1 2; do
			t=${tools[(i + r - 1) % 3]}
			case $t in
			uring) echo "  - {name: uring_r$r, use: bonnie, with: {$native}}" ;;
			sync) echo "  - {name: sync_r$r, use: bonnie, with: {engine: sync, $native}}" ;;
			real) echo "  - {name: real_r$r, exec: '$real', parse: bonnie}" ;;
			esac
		done
	done
} > "$tmp/bonnie.yaml"
"$bin" check "$tmp/bonnie.yaml"

# ---- the run ----------------------------------------------------------------

if memcg_make "fsplan-bench-$$" $((ram << 20)); then
	memory="memory cgroup: $ram MiB ($(memcg_desc))"
	run=(memcg_exec "$bin")
else
	memory="ram override: $ram MiB (the page cache is not limited: both tools see the same cache; $memcg_why)"
	run=("$bin")
fi
t0=$EPOCHREALTIME
"${run[@]}" run "$tmp/bonnie.yaml" -o "$tmp/run" -q || {
	echo "bonnie: fsplan run failed; its log:" >&2
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
	echo "bonnie: phase runs did not succeed:" >&2
	echo "$bad" >&2
	exit 1
fi

echo "bonnie: fsplan bonnie vs bonnie++ 2.00a, ext4 on a loop image (loop direct I/O: ${dio:-?})"
echo "  $memory; peak use $((peak >> 20)) MiB"
echo "  size ${size} MiB = 2 x ${ram} MiB (bonnie++ -s $size -r $ram; phase size: ${size}M, ram: ${ram}M),"
echo "  -n $files ($((files * 1024)) files), -f (no per-char tests), chunk 8 KiB, $rounds rounds,"
echo "  order rotating; each figure the best of the rounds, spread = (max-min)/max"
awk -F, -v tests="put_block rewrite get_block seq_create seq_del" '
NF >= 12 && $7 ~ /^(uring|real|sync)_r[0-9]+$/ {
	tool = $7; sub(/_r[0-9]+$/, "", tool)
	v[tool, $10, ++n[tool, $10]] = $11
	if ($12 != "") unit[$10] = $12
}
function best(t, m,    i, b) {
	for (i = 1; i <= n[t, m]; i++) if (i == 1 || v[t, m, i] + 0 > b) b = v[t, m, i] + 0
	return b
}
function spread(t, m,    i, lo, hi) {
	for (i = 1; i <= n[t, m]; i++) {
		if (i == 1 || v[t, m, i] + 0 < lo) lo = v[t, m, i] + 0
		if (i == 1 || v[t, m, i] + 0 > hi) hi = v[t, m, i] + 0
	}
	return hi > 0 ? 100 * (hi - lo) / hi : 0
}
function fig(t, m) {
	if (!n[t, m]) return sprintf("%15s", "-")
	return sprintf("%9.0f (%2.0f%%)", best(t, m), spread(t, m))
}
function ratio(a, b, m) {
	if (!n[a, m] || !n[b, m] || best(b, m) == 0) return "    -"
	return sprintf("%5.2f", best(a, m) / best(b, m))
}
function mark(a, b, m,    x) {
	if (!n[a, m] || !n[b, m] || best(b, m) == 0) return "  n/a"
	x = best(a, m) / best(b, m)
	return (x >= 0.9 && x <= 1.1) ? "   ok" : " MISS"
}
BEGIN { }
END {
	printf "  %-11s %-8s %15s %15s %15s %6s %5s %6s\n", "test", "unit",
	       "fsplan", "bonnie++", "fsplan sync", "ratio", "0.9-1.1", "sync"
	k = split(tests, T, " ")
	for (i = 1; i <= k; i++) {
		m = T[i]
		u = unit[m]; if (u == "") u = (m ~ /^seq_/ ? "files/s" : "KiB/s")
		printf "  %-11s %-8s %15s %15s %15s %6s %7s %6s\n", m, u,
		       fig("uring", m), fig("real", m), fig("sync", m),
		       ratio("uring", "real", m), mark("uring", "real", m),
		       ratio("sync", "real", m)
	}
	printf "  %-11s %-8s %15s %15s %15s\n", "(cpu %)", "", "", "", ""
	for (i = 1; i <= k; i++) {
		m = T[i] "_cpu"
		printf "  %-11s %-8s %15s %15s %15s\n", m, "%", fig("uring", m),
		       fig("real", m), fig("sync", m)
	}
	printf "  fsplan = the bonnie phase (io_uring engine, the default); sync = engine: sync;\n"
	printf "  ratio = fsplan/bonnie++, sync = fsplan sync/bonnie++\n"
}' "$csv"
printf '  wall time %.0f s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"

# ---- nothing left behind ----------------------------------------------------

left=
if losetup -a | grep -qF "$tmp"; then left="$left loop"; fi
if findmnt -rn -o TARGET | grep -qF "$tmp"; then left="$left mount"; fi
if [ -n "$memcg_dir" ]; then left="$left cgroup"; fi
echo "  leftovers: ${left:-none} (loop devices, mounts, cgroup)"
