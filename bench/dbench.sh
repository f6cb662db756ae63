#!/usr/bin/env bash
# bench/dbench: fsplan's dbench phase (lua/dbench.lua) against the real
# dbench 4.0 (Debian's /usr/bin/dbench, its fileio backend) on ext4 and
# xfs loop mounts in one fsplan run, as issues 11 and 29 ask: the same
# loadfile (/usr/share/dbench/client.txt), 1, 4 and 16 clients, the same
# time; per filesystem the throughput ratio fsplan/dbench (target 0.9-1.1)
# and the CPU per op ratio (target at most 1.2), and per client count
# whether fsplan orders the filesystems as dbench does wherever dbench's
# rounds separate them (Welch's t at alpha 0.05; a pair they do not
# separate, e.g. ext4 and xfs within a few percent, has no order to
# match, and its line says so).
#
# ROUNDS rounds, each running both tools for each client count, the order
# alternating, each phase run after between: [sync, drop_caches]:
#   fsplan   use: dbench, with: {workers: N, seconds: T}
#   real     exec: dbench -D . -t T N, parse: dbench
# CPU per op: the phase's replay_cpu_s (its clients' CPU, warm-up and
# cleanup included, not setup's parse of the loadfile) and dbench's
# cpu_user_s + cpu_sys_s (the whole process group: warm-up and cleanup
# included too), each over the ops of dbench's table (the measured time).
#
# Memory: each phase run, dbench's included, sits in a memory cgroup of
# RAM_MIB made by fsplan (ram:; bench/memcg.bash; without a memory
# controller it goes on unlimited and the output says so): dbench's working set is small (a client's files
# are a few tens of MiB), so what the limit keeps honest is the Flush
# (fsync) traffic rather than reads. The machine may be shared: both
# tools run at nice BENCH_NICE, each figure is the median of the rounds,
# each ratio taken within a round. Needs root and dbench.
# Last figures (ROUNDS=5, 10 s, a quiet machine): throughput ratio at 1 /
# 4 / 16 clients ext4 1.01 / 1.08 / 1.05, xfs 1.01 / 1.05 / 0.97; CPU per
# op 0.97 / 0.92 / 0.97 and 0.94 / 0.94 / 0.99; both tools rank xfs over
# ext4 at 1 and 4 clients, ext4 over xfs at 16.
# Environment: ROUNDS (5), SECONDS_RUN (10), CLIENTS ("1 4 16"), FSTYPES
# ("ext4 xfs"), RAM_MIB (1024), BENCH_NICE (-10), FSPLAN, KEEP=1 keeps the
# run directory.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${FSPLAN:-$root/fsplan}
rounds=${ROUNDS:-5}
secs=${SECONDS_RUN:-10}
clients=${CLIENTS:-1 4 16}
fstypes=${FSTYPES:-ext4 xfs}
ram=${RAM_MIB:-1024}
prio=${BENCH_NICE:--10}
dbench=/usr/bin/dbench
loadfile=/usr/share/dbench/client.txt
if [ "$(id -u)" != 0 ]; then
	echo "dbench: skipped (needs root)"
	exit 0
fi
if [ ! -x "$dbench" ] || [ ! -r "$loadfile" ]; then
	echo "dbench: skipped (dbench is not installed: make deps)"
	exit 0
fi
# shellcheck source=bench/memcg.bash
. "$root/bench/memcg.bash"

bench_tmpdir dbench

# ---- the plan ---------------------------------------------------------------

{
	bench_plan_head bench-dbench "4G" "$fstypes"
	for r in $(seq 1 "$rounds"); do
		for n in $clients; do
			a="  - {name: fsplan_n${n}_r$r, use: dbench, with: {workers: $n, seconds: $secs, loadfile: $loadfile, ram: ${ram}M}}"
			b="  - {name: real_n${n}_r$r, exec: '$dbench -D . -c $loadfile -t $secs $n', parse: dbench, with: {ram: ${ram}M}}"
			if ((r % 2)); then printf '%s\n%s\n' "$a" "$b"; else printf '%s\n%s\n' "$b" "$a"; fi
		done
	done
} > "$tmp/dbench.yaml"
"$bin" check "$tmp/dbench.yaml"

# ---- the run ----------------------------------------------------------------

bench_run dbench "$ram" "$prio" "$bin" "$tmp/dbench.yaml" "$tmp/run"

# ---- the figures ------------------------------------------------------------

csv=$tmp/run/results.csv
echo "dbench: fsplan dbench vs dbench 4.0 (fileio), $fstypes on loop images (loop direct I/O: ${dio:-?})"
echo "  $memory; peak use $((peak >> 20)) MiB"
echo "  $loadfile, -t $secs (warm-up $((secs / 5)) s before it), nice $prio, $rounds rounds"
awk -F, -v clients="$clients" -v fstypes="$fstypes" -f "$root/bench/note.awk" -f "$root/bench/welch.awk" -f <(cat <<'AWK'
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
NF >= 12 && $7 ~ /^(fsplan|real)_n[0-9]+_r[0-9]+$/ {
	split($7, p, "_")
	t = p[1]; n = substr(p[2], 2) + 0; r = substr(p[3], 2) + 0
	fs = $3	# the config's label: its type here
	if ($10 == "throughput_mbs") mbs[fs, t, n, r] = $11
	else if ($10 == "replay_cpu_s") cpu[fs, t, n, r] = $11
	else if ($10 == "cpu_user_s" || $10 == "cpu_sys_s") pcpu[fs, t, n, r] += $11
	else if ($10 ~ DBOPS)
		ops[fs, t, n, r] += $11
	if (r > R) R = r
}
BEGIN {
	DBOPS = "^(ntcreatex|close|rename|unlink|deltree|mkdir|rmdir|qpathinfo|" \
		"qfileinfo|qfsinfo|sfileinfo|find|writex|readx|lockx|unlockx|" \
		"flush|sleep)_ops$"
}
# one filesystem's row for n clients; med[fs, tool, n] and its rounds kept
function fsrow(fs, n,    r, m, j, a, b, q, c, fu, du, lo, hi, clo, chi,
	       eq, ec, mq, mc) {
	m = 0
	for (r = 1; r <= R; r++) {
		if (!(((fs, "fsplan", n, r) in mbs) && ((fs, "real", n, r) in mbs)))
			continue
		m++
		a[m] = mbs[fs, "fsplan", n, r]; b[m] = mbs[fs, "real", n, r]
		q[m] = a[m] / b[m]
		fu[m] = 1e6 * cpu[fs, "fsplan", n, r] / ops[fs, "fsplan", n, r]
		du[m] = 1e6 * pcpu[fs, "real", n, r] / ops[fs, "real", n, r]
		c[m] = fu[m] / du[m]
		each[fs, n] = each[fs, n] sprintf(" %.1f/%.1f", a[m], b[m])
	}
	if (!m) { printf "  %-6s %-8s (no figures)\n", fs, n; return }
	lo = hi = q[1]; clo = chi = c[1]
	for (j = 1; j <= m; j++) {
		if (q[j] < lo) lo = q[j]; if (q[j] > hi) hi = q[j]
		if (c[j] < clo) clo = c[j]; if (c[j] > chi) chi = c[j]
	}
	eq = joined(q, m); ec = joined(c, m)
	mq = median(q, m); mc = median(c, m)
	note(fs " " n " clients MB/s fsplan/dbench", mq, lo, hi, "0.9-1.1",
	     (mq >= 0.9 && mq <= 1.1) ? "ok" : "MISS", eq)
	note(fs " " n " clients CPU/op fsplan/dbench", mc, clo, chi, "<= 1.2",
	     mc <= 1.2 ? "ok" : "MISS", ec)
	med[fs, "fsplan", n] = median(a, m); med[fs, "real", n] = median(b, m)
	printf "  %-6s %-8s %12.1f %12.1f  %5.2f [%.2f-%.2f] %-4s %10.2f %10.2f  %5.2f [%.2f-%.2f] %s\n",
	       fs, n, med[fs, "fsplan", n], med[fs, "real", n], mq, lo, hi,
	       (mq >= 0.9 && mq <= 1.1) ? "ok" : "MISS",
	       median(fu, m), median(du, m), mc, clo, chi,
	       mc <= 1.2 ? "ok" : "MISS"
}
# the filesystems best first by tool's medians at n clients
function ranking(t, n,    i, j, x, o, s) {
	for (i = 1; i <= nf; i++) o[i] = F[i]
	for (i = 2; i <= nf; i++)
		for (j = i; j > 1 && med[o[j - 1], t, n] < med[o[j], t, n]; j--) {
			x = o[j]; o[j] = o[j - 1]; o[j - 1] = x
		}
	s = o[1]
	for (i = 2; i <= nf; i++) s = s " > " o[i]
	return s
}
# tool t's rounds of fs at n clients as x[1..]; their count
function rounds_of(fs, t, n, x,    r, m) {
	m = 0
	for (r = 1; r <= R; r++)
		if ((fs, t, n, r) in mbs) x[++m] = mbs[fs, t, n, r]
	return m
}
# at n clients: both rankings, and for every pair of filesystems whose
# dbench rounds differ (Welch, alpha 0.05, bench/welch.awk) whether
# fsplan orders them alike; a pair dbench does not separate has no order
# to match
function orders(n,    i, j, x, y, nx, ny, hi, lo, rf, rr, s, np, bad) {
	rf = ranking("fsplan", n); rr = ranking("real", n)
	for (i = 1; i <= nf; i++)
		for (j = i + 1; j <= nf; j++) {
			nx = rounds_of(F[i], "real", n, x)
			ny = rounds_of(F[j], "real", n, y)
			hi = F[i]; lo = F[j]
			if (med[lo, "real", n] > med[hi, "real", n]) { hi = F[j]; lo = F[i] }
			if (welch(x, nx, y, ny) != 1) {
				s = s sprintf("; dbench does not separate %s and %s", hi, lo)
				continue
			}
			np++
			if (med[hi, "fsplan", n] > med[lo, "fsplan", n]) {
				s = s sprintf("; %s > %s: fsplan agrees", hi, lo)
			} else {
				bad++
				s = s sprintf("; %s > %s: fsplan DISAGREES", hi, lo)
			}
		}
	printf "  %2d clients, ranking: fsplan %s; dbench %s%s\n", n, rf, rr, s
	note(n " clients order where dbench differs (fsplan " rf ", dbench " rr ")",
	     "", "", "", "same", np ? (bad ? "MISS" : "ok") : "info")
}
END {
	printf "  %-6s %-8s %12s %12s  %-22s %10s %10s  %s\n", "fs", "clients",
	       "fsplan MB/s", "dbench MB/s", "ratio [low-high]", "fsplan us", "dbench us",
	       "CPU/op ratio [low-high]"
	k = split(clients, C, " "); nf = split(fstypes, F, " ")
	for (f = 1; f <= nf; f++)
		for (i = 1; i <= k; i++)
			fsrow(F[f], C[i])
	if (nf > 1)
		for (i = 1; i <= k; i++)
			orders(C[i])
	printf "  every round, MB/s fsplan/dbench:\n"
	for (f = 1; f <= nf; f++)
		for (i = 1; i <= k; i++)
			printf "    %-6s %2d clients:%s\n", F[f], C[i], each[F[f], C[i]]
	printf "  MB = 10^6 bytes of ReadX and WriteX; ratio = fsplan/dbench within each\n"
	printf "  round, the median [lowest-highest]; CPU per op in microseconds: the\n"
	printf "  phase's replay_cpu_s, dbench's user+sys, over the ops of the table\n"
}
AWK
) "$csv"
printf '  wall time %s s\n' "$wall"
bench_leftovers "$tmp"
