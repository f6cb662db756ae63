#!/usr/bin/env bash
# bench/ffsb: fsplan's ffsb phase (lua/ffsb.lua) against fio 3.33 doing
# the same I/O, both in one fsplan run on one ext4 loop mount, as issue
# 12's benchmarks ask; the ratio ffsb/fio (target 0.9-1.1) for
#
#   large   the large-file profile: N threads each create one file of
#           TOTAL_MIB/N in 64 KiB writes, then the final sync (ffsb:
#           create_weight 1, min = max file size, max_ops 1; fio:
#           rw=write bs=64k numjobs=N size=TOTAL_MIB/N, a new file a job,
#           end_fsync=1). Figure: write MiB/s (write_mbs, write_bw_mbs).
#   small   random reads and writes of 4 KiB over a fileset of NFILES
#           files of FILE_MIB, half reads, half writes, for SECONDS_RUN
#           (ffsb: read_weight 1, write_weight 1, read_random and
#           write_random, alignio, read_size = write_size = 256 KiB: 64
#           blocks a file before it picks another; fio: rw=randrw
#           rwmixread=50 bs=4k, NFILES/N files a job, file_service_type=
#           random:64: 64 I/Os on a file before it picks another; the
#           files stay open (with openfiles=1, fio 3.33 ran at 0.5-1.3M
#           I/Os a second from the cache: not the same I/O); time_based,
#           end_fsync=1 (fio counts the fsync in its runtime)). Both lay
#           the fileset out first, untimed, in the same order, and sync
#           it (ffsb's setup; dd and sync -f for fio: fio's own layout
#           would drop the files' cache). The order matters: what the
#           cache holds at the start is the last files written, and
#           written job by job, two of fio's four jobs found all their
#           files there and kept them (a ratio of 0.41-0.52). The threads
#           own NFILES/N files each in both. Figure: 4 KiB I/Os a second
#           (transactions_per_s; read_iops + write_iops).
#
# Both tools make plain system calls, one at a time a thread (ffsb's
# engine: sync, its default; fio ioengine=psync), at nice BENCH_NICE, after
# between: [sync, drop_caches]; ROUNDS rounds, the order of the two tools
# alternating; each figure is the median of the rounds (spread = (max -
# min) / max), each ratio taken within a round. Every phase child, fio's
# included, sits in a memory cgroup of RAM_MIB made by fsplan (ram:); the
# small fileset is twice that by
# default, so reads reach the disk; the loop device does direct I/O on its
# image. Beside each figure, the CPU microseconds per I/O of both (ffsb's
# %CPU over its seconds; fio's usr+sys over its jobs' runtime), which
# other load on a shared machine moves much less than the rates. A missed
# target is printed, not a failure. Needs root and fio.
# Last figures (ROUNDS=2, make bench): large 0.95 / 0.90 at 1 / 4
# threads, small 1.05 / 1.06; CPU per I/O 0.81-0.96 of fio's.
# Environment: ROUNDS (3), THREADS ("1 4"), TOTAL_MIB (512), NFILES (64),
# FILE_MIB (8), SECONDS_RUN (10), RAM_MIB (256), BENCH_NICE (-10), FSPLAN,
# KEEP=1 keeps the run directory.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${FSPLAN:-$root/fsplan}
rounds=${ROUNDS:-3}
threads=${THREADS:-1 4}
total=${TOTAL_MIB:-512}
nfiles=${NFILES:-64}
fmib=${FILE_MIB:-8}
secs=${SECONDS_RUN:-10}
ram=${RAM_MIB:-256}
prio=${BENCH_NICE:--10}
if [ "$(id -u)" != 0 ]; then
	echo "ffsb: skipped (needs root)"
	exit 0
fi
if ! command -v fio > /dev/null; then
	echo "ffsb: skipped (fio is not installed: make deps)"
	exit 0
fi
for n in $threads; do
	if ((nfiles % n || total % n)); then
		echo "ffsb: NFILES $nfiles and TOTAL_MIB $total must split over $n threads" >&2
		exit 2
	fi
done
# shellcheck source=bench/memcg.bash
. "$root/bench/memcg.bash"

bench_tmpdir ffsb

# ---- the plan ---------------------------------------------------------------

large_fio() {	# threads
	local n=$1 c
	c="fio --output-format=json --name=L --ioengine=psync --rw=write --bs=64k"
	c="$c --numjobs=$n --size=$((total / n))M --filename_format=L.\\\$jobnum"
	c="$c --fallocate=none --end_fsync=1 --fadvise_hint=0"
	echo "rm -f L.*; $c; rc=\$?; rm -f L.*; exit \$rc"
}
small_fio() {	# threads
	local n=$1 per=$((nfiles / $1)) c fill='' j k
	# in ffsb's order: its setup writes file i (of thread (i-1) % n + 1)
	# i-th, so each job's files are as spread over the layout (and over
	# what stays in the cache after it) as each ffsb thread's
	for ((k = 0; k < per; k++)); do
		for ((j = 0; j < n; j++)); do
			fill="${fill}dd if=/dev/zero of=S.$j.$k bs=1M count=$fmib status=none && "
		done
	done
	c="fio --output-format=json --name=S --ioengine=psync --rw=randrw"
	c="$c --rwmixread=50 --bs=4k --numjobs=$n --nrfiles=$per"
	c="$c --filesize=${fmib}M --size=$((per * fmib))M"
	c="$c --filename_format=S.\\\$jobnum.\\\$filenum"
	c="$c --file_service_type=random:64 --norandommap --time_based"
	c="$c --runtime=$secs --end_fsync=1 --invalidate=0 --fadvise_hint=0"
	echo "rm -f S.*; ${fill}sync -f . && $c; rc=\$?; rm -f S.*; exit \$rc"
}
{
	bench_plan_head bench-ffsb "$(((total + nfiles * fmib) * 2 / 1024 + 2))G"
	for r in $(seq 1 "$rounds"); do
		for n in $threads; do
			la="  - {name: large_ffsb_n${n}_r$r, use: ffsb, with: {workers: $n, seconds: 3600s, max_ops: 1, num_files: 0, min_filesize: $((total / n))M, max_filesize: $((total / n))M, create_weight: 1, write_size: 64k, write_blocksize: 64k, ram: ${ram}M}}"
			lb="  - {name: large_fio_n${n}_r$r, parse: fio, exec: '$(large_fio "$n")', with: {ram: ${ram}M}}"
			sa="  - {name: small_ffsb_n${n}_r$r, use: ffsb, with: {workers: $n, seconds: ${secs}s, num_files: $nfiles, min_filesize: ${fmib}M, max_filesize: ${fmib}M, read_weight: 1, write_weight: 1, read_random: true, write_random: true, alignio: true, read_size: 256k, write_size: 256k, read_blocksize: 4k, write_blocksize: 4k, ram: ${ram}M}}"
			sb="  - {name: small_fio_n${n}_r$r, parse: fio, exec: '$(small_fio "$n")', with: {ram: ${ram}M}}"
			if ((r % 2)); then
				printf '%s\n%s\n%s\n%s\n' "$la" "$lb" "$sa" "$sb"
			else
				printf '%s\n%s\n%s\n%s\n' "$lb" "$la" "$sb" "$sa"
			fi
		done
	done
} > "$tmp/ffsb.yaml"
"$bin" check "$tmp/ffsb.yaml"

# ---- the run ----------------------------------------------------------------

load0=$(cut -d' ' -f1 /proc/loadavg)
bench_run ffsb "$ram" "$prio" "$bin" "$tmp/ffsb.yaml" "$tmp/run"
load1=$(cut -d' ' -f1 /proc/loadavg)

# ---- the figures ------------------------------------------------------------

csv=$tmp/run/results.csv
echo "ffsb: fsplan ffsb vs $(fio --version) (psync), ext4 on a loop image (loop direct I/O: ${dio:-?})"
echo "  $memory; peak use $((peak >> 20)) MiB"
echo "  large: $total MiB over the threads in 64 KiB writes; small: $nfiles files of"
echo "  $fmib MiB, 4 KiB random reads and writes half and half, ${secs} s; nice $prio,"
echo "  $rounds rounds, order alternating; $(nproc) cores, load average $load0 -> $load1"
awk -F, -v threads="$threads" -f "$root/bench/note.awk" \
    -f "$root/bench/table.awk" -f <(cat <<'AWK'
NF >= 12 && $7 ~ /^(large|small)_(ffsb|fio)_n[0-9]+_r[0-9]+$/ {
	split($7, p, "_")
	c = p[1] "_" p[3]; t = p[2]; r = substr(p[4], 2) + 0
	if (p[1] == "large" && ($10 == "write_mbs" || $10 == "write_bw_mbs"))
		v[t, c, r] = $11 + 0
	else if (p[1] == "small" && t == "ffsb" && $10 == "transactions_per_s")
		v[t, c, r] = $11 + 0
	else if (p[1] == "small" && t == "fio" &&
		 ($10 == "read_iops" || $10 == "write_iops"))
		v[t, c, r] += $11
	# for the CPU per I/O
	n[c] = substr(p[3], 2) + 0
	x[t, c, r, $10] = $11 + 0
	if (r > R) R = r
}
# CPU microseconds per I/O (a 64 KiB write, a 4 KiB read or write) of
# one run: ffsb's %CPU over its seconds; fio's usr+sys over its jobs'
# runtime (the parser's CPU% is over all the jobs' runtime), the runtime
# from the bytes and the rate
function cpu_io(t, c, r,    ios, rt, cpu) {
	if (t == "ffsb") {
		ios = x[t, c, r, "transactions"]
		cpu = x[t, c, r, "test_cpu_pct"] * x[t, c, r, "seconds"]
		return ios ? 1e4 * cpu / ios : 0
	}
	if (c ~ /^large/) {
		ios = x[t, c, r, "write_bytes"] / 65536
		rt = x[t, c, r, "write_bw_mbs"]
		if (rt) rt = x[t, c, r, "write_bytes"] / 1048576 / rt
	} else {
		ios = x[t, c, r, "read_bytes"] + x[t, c, r, "write_bytes"]
		ios /= 4096
		rt = x[t, c, r, "read_iops"]
		if (rt) rt = x[t, c, r, "read_bytes"] / 4096 / rt
	}
	cpu = x[t, c, r, "usr_cpu_pct"] + x[t, c, r, "sys_cpu_pct"]
	return ios ? 1e4 * cpu * n[c] * rt / ios : 0
}
END {
	for (k in v) {
		split(k, q, SUBSEP)
		u[q[1], q[2], q[3]] = cpu_io(q[1], q[2], q[3])
	}
	printf "  %-24s %13s %13s  %-19s\n", "case, threads", "ffsb", "fio",
	       "ratio [range] n"
	nt = split(threads, T, " ")
	for (i = 1; i <= 2; i++)
		for (j = 1; j <= nt; j++) {
			c = (i == 1 ? "large" : "small") "_n" T[j]
			if (ratios("ffsb", "fio", c))
				note((i == 1 ? "large write MiB/s, " :
				      "small rw IO/s, ") T[j] " ffsb/fio", rmed,
				     rlo, rhi, "0.9-1.1", mark("ffsb", "fio", c),
				     reach)
			printf "  %-24s %s %s  %s %s\n",
			       (i == 1 ? "large write MiB/s, " : "small rw IO/s, ") T[j],
			       fig("ffsb", c, 13, i == 1 ? 1 : 0),
			       fig("fio", c, 13, i == 1 ? 1 : 0),
			       rtxt("ffsb", "fio", c), mark("ffsb", "fio", c)
		}
	# the same rows for the CPU per I/O, which other load moves less
	for (k in v) w[k] = v[k]
	for (k in u) v[k] = u[k]
	printf "  %-24s %13s %13s  %-19s\n", "CPU us per I/O", "ffsb", "fio",
	       "ratio [range] n"
	for (i = 1; i <= 2; i++)
		for (j = 1; j <= nt; j++) {
			c = (i == 1 ? "large" : "small") "_n" T[j]
			printf "  %-24s %s %s  %s\n",
			       (i == 1 ? "large 64 KiB write, " : "small 4 KiB I/O, ") T[j],
			       fig("ffsb", c, 13, 2), fig("fio", c, 13, 2),
			       rtxt("ffsb", "fio", c)
		}
	printf "  the median of the rounds (spread = (max-min)/max); ratio = ffsb/fio\n"
	printf "  within each round: the median [lowest-highest] of n rounds, ok/MISS\n"
	printf "  against 0.9-1.1\n"
}
AWK
) "$csv"
printf '  wall time %s s\n' "$wall"
bench_leftovers "$tmp"
