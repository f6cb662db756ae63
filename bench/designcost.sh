#!/usr/bin/env bash
# bench/designcost: what a screening design costs per config outside its
# phases, as issue 31 asks: a 32-config design (five two-level ext4
# factors, full) on 1 GiB loop images spends at most 0.5 s per config on
# mkfs, mount, the probe, umount and fsplan's bookkeeping, and at most
# 1.2 times what a shell loop of `truncate; losetup; mkfs; mount; umount;
# losetup -d` spends on the same 32 configs. Each round runs both, in
# alternating order; fsplan's cost per config is its run's wall time
# less its phase runs' own seconds, over 32 (its one phase is `true`).
# The plan says `between: none` and `interval: 0` (no sync, no cache
# drop, no sampler between configs: the shell loop does neither).
# Printed: per round both costs and their ratio, then the medians
# [lowest-highest]. A missed target is printed, not a failure. Needs
# root (skipped otherwise).
# Last figures (ROUNDS=5, a quiet machine, 2026-12-03): fsplan 28.9 ms a
# config (25.4-30.7), the shell 24.4-28.7 ms; fsplan/shell 1.11
# [1.00-1.16]. The probe's share: 16 distinct sets of a 16-row plan in
# about 0.2 s (mkfs once per mkfs words on a sparse image of at most
# 512 MiB, a mount per set).
# Environment: ROUNDS (5), FSPLAN, KEEP=1 keeps the run directories.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${FSPLAN:-$root/fsplan}
rounds=${ROUNDS:-5}
if [ "$(id -u)" != 0 ]; then
	echo "designcost: skipped (needs root to make filesystems)"
	exit 0
fi
# shellcheck source=bench/memcg.bash
. "$root/bench/memcg.bash"
bench_tmpdir designcost

# ---- the design, as a plan and as the shell's list of configs -------------

mkfs_a=("-I 256" "-I 512")
mkfs_b=("-J size=16" "-J size=64")
mount_c=(relatime noatime)
mount_d=(commit=5 commit=60)
mount_e=(data=ordered data=writeback)
cat > "$tmp/design.yaml" <<PLAN
fsplan: 1
name: bench-designcost
target: {image: 1G}
between: none
interval: 0
filesystems:
  - type: ext4
    factors:
      - {name: inode, mkfs: ["${mkfs_a[0]}", "${mkfs_a[1]}"]}
      - {name: journal, mkfs: ["${mkfs_b[0]}", "${mkfs_b[1]}"]}
      - {name: atime, mount: [${mount_c[0]}, ${mount_c[1]}]}
      - {name: commit, mount: [${mount_d[0]}, ${mount_d[1]}]}
      - {name: data, mount: [${mount_e[0]}, ${mount_e[1]}]}
    design: full
phases:
  - {name: nothing, exec: "true"}
PLAN
"$bin" check "$tmp/design.yaml" > /dev/null

# The shell's loop over the same 32 configs: seconds on stdout.
shell_loop() {
	local d=$1 t0 a b c e f dev
	mkdir -p "$d/mnt"
	t0=$EPOCHREALTIME
	for a in 0 1; do for b in 0 1; do for c in 0 1; do for e in 0 1; do
	for f in 0 1; do
		truncate -s 1G "$d/img"
		dev=$(losetup -f --show "$d/img")
		# shellcheck disable=SC2086
		mkfs.ext4 -q -F ${mkfs_a[a]} ${mkfs_b[b]} "$dev"
		mount -o "${mount_c[c]},${mount_d[e]},${mount_e[f]}" "$dev" \
			"$d/mnt"
		umount "$d/mnt"
		losetup -d "$dev"
		rm -f "$d/img"
	done; done; done; done; done
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }'
}

# fsplan's run of the design: seconds outside its phase runs on stdout.
fsplan_run() {
	local out=$1 t0 wall
	t0=$EPOCHREALTIME
	"$bin" run "$tmp/design.yaml" -o "$out" -q || {
		echo "designcost: fsplan run failed; its log's end:" >&2
		tail -n 10 "$out/log.txt" >&2 || true
		KEEP=1
		exit 1
	}
	wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
	# the cell ids hold commas (factor levels): fields as csv
	awk -v wall="$wall" -f "$root/bench/note.awk" -f <(cat <<'AWK'
FNR > 1 { csv($0, f) }
f[10] == "seconds" { s += f[11] }
f[10] == "status" && f[11] != "ok" { bad++ }
END { if (bad) exit 1; printf "%.3f %.3f\n", wall - s, s }
AWK
) "$out/results.csv" || {
		echo "designcost: a phase run failed in $out" >&2
		KEEP=1
		exit 1
	}
}

# ---- the rounds -------------------------------------------------------------

load0=$(cut -d' ' -f1 /proc/loadavg)
declare -a F S P
for r in $(seq 1 "$rounds"); do
	if ((r % 2)); then
		read -r F[r] P[r] < <(fsplan_run "$tmp/run$r")
		S[r]=$(shell_loop "$tmp/shell$r")
	else
		S[r]=$(shell_loop "$tmp/shell$r")
		read -r F[r] P[r] < <(fsplan_run "$tmp/run$r")
	fi
done
load1=$(cut -d' ' -f1 /proc/loadavg)
bench_leftovers "$tmp"

# ---- the table --------------------------------------------------------------

for r in $(seq 1 "$rounds"); do
	echo "$r ${F[r]} ${S[r]} ${P[r]}"
done | awk -v load0="$load0" -v load1="$load1" -f "$root/bench/note.awk" \
	-f "$root/bench/table.awk" -f <(cat <<'AWK'
{ n++; f[n] = $2 / 32; s[n] = $3 / 32; ph[n] = $4 / 32; q[n] = f[n] / s[n] }
END {
	printf "designcost: a 32-config ext4 design (5 factors, full) on 1 GiB loop images;\n"
	printf "  per config, outside the phases: fsplan (mkfs, mount, probe, umount,\n"
	printf "  bookkeeping) against a shell loop of mkfs; mount; umount; load %s -> %s\n", load0, load1
	printf "  %-6s %12s %12s %8s %14s\n", "round", "fsplan ms", "shell ms", "ratio", "phase ms"
	for (i = 1; i <= n; i++) {
		printf "  %-6d %12.1f %12.1f %8.2f %14.1f\n", i, f[i] * 1e3,
		       s[i] * 1e3, q[i], ph[i] * 1e3
		each = each (i > 1 ? " " : "") sprintf("%.2f", q[i])
		fr[i] = f[i]; qr[i] = q[i]
	}
	mf = median(fr, n); mq = median(qr, n)
	lo = hi = qr[1]
	for (i = 2; i <= n; i++) { if (qr[i] < lo) lo = qr[i]; if (qr[i] > hi) hi = qr[i] }
	printf "  median: fsplan %.1f ms a config (target <= 500: %s), fsplan/shell %.2f [%.2f-%.2f] (target <= 1.2: %s)\n",
	       mf * 1e3, mf <= 0.5 ? "ok" : "MISS", mq, lo, hi, mq <= 1.2 ? "ok" : "MISS"
	note("fsplan/shell per config, outside phases", mq, lo, hi, "<= 1.2",
	     mq <= 1.2 ? "ok" : "MISS", each)
}
AWK
)
