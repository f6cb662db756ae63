#!/usr/bin/env bash
# bench/overhead: the harness's own cost per phase run — what fsplan spends
# between phase runs outside mkfs, mount, between actions and the phase
# itself (rows, fsyncs, manifest, fork and privilege drop). Target <= 5 ms.
# Two runs of an exec phase `true` on tmpfs with between: none, 1 and N
# repetitions; the difference in wall time, less the difference in the
# phases' own seconds, divided by N-1. Needs root. Prints the figure.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${FSPLAN:-./fsplan}
n=${N:-301}
if [ "$(id -u)" != 0 ]; then
	echo "overhead: skipped (needs root to run plans)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan() {
	cat > "$tmp/p$1.yaml" <<PLAN
fsplan: 1
name: overhead
between: none
repeat: $1
filesystems: [{type: tmpfs, mount: size=16M}]
phases: [{name: nop, exec: 'true'}]
PLAN
}
run() {	# wall seconds; the sum of the phases' seconds in $tmp/s$1
	local t0 t1
	t0=$EPOCHREALTIME
	"$bin" run "$tmp/p$1.yaml" -o "$tmp/r$1" -q
	t1=$EPOCHREALTIME
	awk -F, '$10 == "seconds" && $7 == "nop" { s += $11 } END { printf "%.6f", s }' \
		"$tmp/r$1/results.csv" > "$tmp/s$1"
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }'
}
plan 1
plan "$n"
w1=$(run 1)
wn=$(run "$n")
awk -v w1="$w1" -v wn="$wn" -v s1="$(cat "$tmp/s1")" -v sn="$(cat "$tmp/s$n")" \
    -v n="$n" 'BEGIN {
	per = ((wn - w1) - (sn - s1)) / (n - 1) * 1000
	printf "overhead: %.2f ms per phase run outside the phase (target <= 5 ms); ", per
	printf "the phase (fork, drop, sh -c true) itself: %.2f ms\n", (sn - s1) / (n - 1) * 1000
}'
