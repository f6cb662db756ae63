#!/usr/bin/env bash
# bench/tree: lua/tree.lua's create and copy steps against `cp -a` + sync
# of the same tree on the same mount, as issue 11's benchmarks ask (target
# 0.9-1.1: the phase's speed over cp -a's).
#
# One fsplan run, one ext4 config with target.volumes [source, target]:
# tree prepare once (SIZE_MIB of home in source/home), then ROUNDS rounds,
# each of, in an order that alternates by round:
#   tree    tree create (source/home -> target/home, syncfs of target/)
#           and tree copy (target/home -> target/home.copy, syncfs)
#   cp      exec `cp -a source/home target/home && sync -f target` (syncfs
#           of target/, as the phase syncs it), then
#           exec `cp -a target/home target/home.copy && sync -f target`
# with `rm -rf target/*; sync` phases between, and between: [sync,
# remount, drop_caches] before every phase run (the study's). The figure
# is each phase run's seconds (fsplan's clock for both: the workers' span
# for the tree phase, the command's for cp); per round the ratio
# cp_seconds / tree_seconds (> 1: the phase is faster), median and range.
#
# Memory: each timed phase run, cp's included, sits in a memory cgroup of
# RAM_MIB made by fsplan (ram:; bench/memcg.bash; without one, only the
# machine's RAM limits the cache, and the output says so); remount + drop_caches before each step empties the cache
# anyway, so the cgroup keeps the copies' own cache from growing past it.
# Both loop devices do direct I/O to their images (setup hook), so cache
# outside the cgroup serves no reads.
# Needs root (skipped otherwise). Environment: ROUNDS (3), SIZE_MIB (1024),
# RAM_MIB (256), BENCH_NICE (-10), FSPLAN, KEEP=1 keeps the run directory.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${FSPLAN:-$root/fsplan}
rounds=${ROUNDS:-3}
size=${SIZE_MIB:-1024}
ram=${RAM_MIB:-256}
prio=${BENCH_NICE:--10}
if [ "$(id -u)" != 0 ]; then
	echo "tree: skipped (needs root)"
	exit 0
fi
# shellcheck source=bench/memcg.bash
. "$root/bench/memcg.bash"
export FSPLAN_LIB=${FSPLAN_LIB:-$root/lua}

bench_tmpdir tree

plan() {
	local with="size: ${size}M, ram: ${ram}M"
	cat <<PLAN
fsplan: 1
name: bench-tree
seed: 3
target: {image: $((size * 3 / 1024 + 1))G, volumes: [source, target]}
between: [sync, remount, drop_caches]
filesystems:
  - type: ext4
phases:
  - {name: prepare, use: tree, with: {step: prepare, $with}}
PLAN
	for r in $(seq 1 "$rounds"); do
		tools=(tree cp)
		[ $((r % 2)) = 0 ] && tools=(cp tree)
		for t in "${tools[@]}"; do
			case $t in
			tree)
				echo "  - {name: tree_create_r$r, use: tree, with: {step: create, $with}}"
				echo "  - {name: tree_copy_r$r, use: tree, with: {step: copy, $with}}" ;;
			cp)
				echo "  - {name: cp_create_r$r, exec: 'cp -a source/home target/home && sync -f target', with: {ram: ${ram}M}}"
				echo "  - {name: cp_copy_r$r, exec: 'cp -a target/home target/home.copy && sync -f target', with: {ram: ${ram}M}}" ;;
			esac
			echo "  - {name: clean_${t}_r$r, exec: 'rm -rf target/home target/home.copy && sync', between: none, with: {ram: ${ram}M}}"
		done
	done
}
plan > "$tmp/tree.yaml"
bench_run tree "$ram" "$prio" "$bin" "$tmp/tree.yaml" "$tmp/run"

echo "tree: fsplan tree (f:copy per file as cp does: copy_file_range, or read+write across volumes; utime) vs cp -a + sync, ext4 on two loop images (loop direct I/O: ${dio:-?})"
echo "  $memory; peak use $((peak >> 20)) MiB"
echo "  a ${size} MiB home (seed 3: $(awk -F, '$10 == "files" && $7 == "prepare" { print $11 }' "$tmp/run/results.csv") files), $rounds rounds, order alternating, between: sync, remount, drop_caches, nice $prio"
awk -F, -v tests="create copy" -f "$root/bench/note.awk" -f "$root/bench/table.awk" -f <(cat <<'AWK'
$10 == "seconds" && match($7, /^(tree|cp)_(create|copy)_r[0-9]+$/) {
	split($7, p, "_")
	r = substr(p[3], 2) + 0
	if (r > R) R = r
	v[p[1], p[2], r] = $11
}
END {
	n = split(tests, t, " ")
	printf "  %-8s %18s %18s   %s\n", "step", "tree s", "cp -a s", "cp_s/tree_s (median, range; target 0.9-1.1)"
	for (i = 1; i <= n; i++) {
		c = t[i]
		if (!ratios("cp", "tree", c)) continue
		verdict = (rmed < 0.9) ? "SLOWER" : ((rmed > 1.1) ? "faster" : "ok")
		note(c " cp_s/tree_s", rmed, rlo, rhi, "0.9-1.1",
		     verdict == "ok" ? "ok" : "MISS", reach)
		printf "  %-8s %18s %18s   %.2f (%.2f-%.2f) %s\n", c,
		       fig("tree", c, 18, 2), fig("cp", c, 18, 2), rmed, rlo, rhi,
		       verdict
	}
}
AWK
) "$tmp/run/results.csv"
bench_leftovers "$tmp"
