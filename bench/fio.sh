#!/usr/bin/env bash
# bench/fio: fsplan side by side with fio (3.33) in one fsplan run on one
# ext4 loop image, as the Lua-phases issue asks:
#   4 KiB random reads of one 1 GiB file, 1 worker, depth 1 and 32,
#   buffered with the file cached and O_DIRECT: fio (ioengine=io_uring)
#   against the C stream (bench/randread.lua); at depth 1 buffered also an
#   op-by-op Lua loop (bench/randread_ops.lua) against the stream; both
#   with engine: uring, ring against ring (auto, the default, takes a
#   syscall for a lone op);
#   1 MiB sequential writes of a new 1 GiB file, buffered, no fsync (what
#   f:stream{op="write"} does): fio against the stream (bench/seqwrite.lua);
#   8 KiB random writes each followed by fsync over a 64 MiB file, one op
#   at a time (issue 29's fsync loop): fsplan's loop (bench/fsyncloop.lua,
#   engine sync, over a file its setup wrote and synced) against the same
#   loop in plain C (build/fsyncloop, bench/fsyncloop.c: the same calls,
#   file and layout; the target is fsplan/C), and, for information, fio
#   like for like (--ioengine=psync --fsync=1 --overwrite=1 --norandommap,
#   which lays the file out, written and synced, before the job) and fio's
#   defaults (--fallocate=native: every first write into an unwritten
#   extent splits it); see fsplan-lua(7), "Comparing fsync loops with
#   fio", for why fio like for like runs faster than both loops here (it
#   is woken on the other CPU; the C loop prints its migrations); each run
#   on a file made anew, after a syncfs, FSYNC_ROUNDS rounds;
# then, in a second short run, 256 workers running bench/many.lua to
# completion (each writes a 64 KiB file): the phase child's peak RSS.
#
# The machine may be shared, so:
# - every case runs ROUNDS times, interleaved and in rotating order, and
#   the best run counts (other load only ever lowers a figure);
# - the cached cases read the file once right before they run;
# - a watcher notes every drop of the page cache (/proc/vmstat
#   drop_pagecache, e.g. another user's between: drop_caches): a read run
#   one overlaps is not counted while a clean run of its case exists;
# - the loop image lives in /dev/shm when that is a tmpfs with room, so
#   the loop device's backing store cannot be dropped (O_DIRECT reads
#   reach it) and the VM's disk adds no noise; BENCH_WORKDIR=run puts it
#   in the run directory instead, as plain `fsplan run` does;
# - both tools run at nice $BENCH_NICE (default -10);
# - besides IOPS, the CPU time per op (usr+sys over ops), which other load
#   moves much less, is printed.
# Prints raw figures and ratios against the targets (stream/fio >= 1.0,
# aim 1.05; Lua/stream >= 0.8; fsync loop fsplan/C 0.9-1.1, the median of
# the rounds' ratios; RSS beyond I/O buffers <= 64 MiB). A missed
# target is printed, not a failure. Needs root (skipped otherwise) and fio.
# With the image in /dev/shm a flush costs the device nothing: the fsync
# case's figures say most about the device with BENCH_WORKDIR=run.
# Last fsync figures (2026-12-04, 5 rounds of 3 s, image in tmpfs):
# fsplan/C 1.06 [0.93-1.41]; fsplan/fio like for like 0.72 [0.53-0.80],
# the C loop's migrations per op 0.03-0.96 by round and its rate with
# them (4,017 at 0.03, 9,290 at 0.96).
# Environment: SECONDS_EACH (5), ROUNDS (3), FSYNC_ROUNDS (7),
# WRITE_ROUNDS (5), BENCH_NICE (-10), BENCH_WORKDIR (shm|run), CASES (the
# cases to run, default all: c1 c32 d1 d32 w fsync many; e.g. CASES=fsync),
# FSPLAN, FSYNCLOOP (build/fsyncloop), KEEP=1 keeps the run directories.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${FSPLAN:-$root/fsplan}
secs=${SECONDS_EACH:-5}
rounds=${ROUNDS:-3}
wrounds=${WRITE_ROUNDS:-5}
frounds=${FSYNC_ROUNDS:-7}
cloop=${FSYNCLOOP:-$root/build/fsyncloop}
prio=${BENCH_NICE:--10}
where=${BENCH_WORKDIR:-shm}
cases=" ${CASES:-c1 c32 d1 d32 w fsync many} "
for c in $cases; do
	case " c1 c32 d1 d32 w fsync many " in
	*" $c "*) ;;
	*) echo "fio: CASES: no case '$c' (c1 c32 d1 d32 w fsync many)" >&2
	   exit 2 ;;
	esac
done
want() { [[ $cases == *" $1 "* ]]; }
if [ "$(id -u)" != 0 ]; then
	echo "fio: skipped (needs root to run plans)"
	exit 0
fi
if ! command -v fio > /dev/null; then
	echo "fio: skipped (fio is not installed: make deps)"
	exit 0
fi
if want fsync && [ ! -x "$cloop" ]; then
	echo "fio: $cloop is not built (make bench builds it)" >&2
	exit 1
fi
# shellcheck source=bench/memcg.bash
. "$root/bench/memcg.bash"	# bench_run
tmp=$(mktemp -d)
chmod 755 "$tmp"	# the phases (nobody) load modules and work beneath it
bench_name=fio
watcher=
cleanup() {
	if [ -n "$watcher" ]; then
		touch "$tmp/stop"
		wait "$watcher" 2> /dev/null || true
	fi
	if [ -n "${KEEP:-}" ]; then
		echo "fio: kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
	bench_shm_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cp "$root"/bench/randread.lua "$root"/bench/randread_ops.lua \
   "$root"/bench/seqwrite.lua "$root"/bench/many.lua \
   "$root"/bench/fsyncloop.lua "$tmp/"
if want fsync; then cp "$cloop" "$tmp/fsyncloop"; fi

# The images: 4G sparse, of which ~2.1 GiB get written.
workdir=()
backing="the run directory's filesystem"
if [ "$where" = shm ]; then bench_shm_workdir 6; fi

# ---- the plans --------------------------------------------------------------

# fio as the stream runs: the same file and span, offsets uniform with
# repeats (norandommap), for a time; buffered cases keep the file's cache
# (fio drops it by default: invalidate=1). Otherwise fio's defaults.
rr="--filename=data --size=1G --bs=4k --rw=randread --ioengine=io_uring"
rr="$rr --norandommap --time_based --runtime=$secs --output-format=json"
sw="--filename=seq.dat --size=1G --bs=1M --rw=write --ioengine=io_uring"
sw="$sw --iodepth=1 --fallocate=none --end_fsync=0 --output-format=json"
warm='cat data > /dev/null'
# the fsync loop: like for like, and fio's defaults (information)
fs="--size=64M --bs=8k --rw=randwrite --ioengine=psync --fsync=1"
fs="$fs --time_based --runtime=$secs --output-format=json"
case_phases() {	# case round: the phase entries of one case, tools rotating
	local c=$1 r=$2 tools t i n
	case $c in
	c1) tools=(fio stream lua) ;;
	fsync) tools=(fio stream c fiodef) ;;
	*) tools=(fio stream) ;;
	esac
	n=${#tools[@]}
	for ((i = 0; i < n; i++)); do
		t=${tools[(i + r) % n]}
		case $c in
		c*) echo "  - {name: warm_${c}_${t}_$r, exec: '$warm'}" ;;
		fsync) echo "  - {name: rmfs_${t}_$r, exec: 'rm -f fsync.dat'}" ;;
		esac
		case $c/$t in
		c1/fio) echo "  - {name: c1_fio_$r, parse: fio, exec: 'fio --name=c1 $rr --iodepth=1 --direct=0 --invalidate=0'}" ;;
		c1/stream) echo "  - {name: c1_stream_$r, use: randread.lua, with: {engine: uring, depth: 1, seconds: ${secs}s}}" ;;
		c1/lua) echo "  - {name: c1_lua_$r, use: randread_ops.lua, with: {engine: uring, seconds: ${secs}s}}" ;;
		c32/fio) echo "  - {name: c32_fio_$r, parse: fio, exec: 'fio --name=c32 $rr --iodepth=32 --direct=0 --invalidate=0'}" ;;
		c32/stream) echo "  - {name: c32_stream_$r, use: randread.lua, with: {engine: uring, depth: 32, seconds: ${secs}s}}" ;;
		d1/fio) echo "  - {name: d1_fio_$r, parse: fio, exec: 'fio --name=d1 $rr --iodepth=1 --direct=1'}" ;;
		d1/stream) echo "  - {name: d1_stream_$r, use: randread.lua, with: {engine: uring, depth: 1, direct: true, seconds: ${secs}s}}" ;;
		d32/fio) echo "  - {name: d32_fio_$r, parse: fio, exec: 'fio --name=d32 $rr --iodepth=32 --direct=1'}" ;;
		d32/stream) echo "  - {name: d32_stream_$r, use: randread.lua, with: {engine: uring, depth: 32, direct: true, seconds: ${secs}s}}" ;;
		# a new file each time, written from an empty, clean cache
		w/fio) echo "  - {name: w_fio_$r, between: [sync, drop_caches], parse: fio, exec: 'fio --name=w $sw'}" ;;
		w/stream) echo "  - {name: w_stream_$r, between: [sync, drop_caches], use: seqwrite.lua, with: {file: seq.dat}}" ;;
		# each on a file made anew (removed above), after a syncfs
		fsync/fio) echo "  - {name: fsync_fio_$r, between: [sync], parse: fio, exec: 'fio --name=fsync --filename=fsync.dat $fs --overwrite=1 --norandommap'}" ;;
		fsync/stream) echo "  - {name: fsync_stream_$r, between: [sync], use: fsyncloop.lua, with: {file: fsync.dat, seconds: ${secs}s}}" ;;
		fsync/c) echo "  - {name: fsync_c_$r, between: [sync], exec: '$tmp/fsyncloop fsync.dat $secs'}" ;;
		fsync/fiodef) echo "  - {name: fsync_fiodef_$r, between: [sync], parse: fio, exec: 'fio --name=fsync --filename=fsync.dat $fs'}" ;;
		esac
		if [ "$c" = w ]; then
			echo "  - {name: rm_${t}_$r, exec: 'rm -f seq.dat'}"
		fi
	done
}
{
	cat <<PLAN
fsplan: 1
name: bench-fio
target: {image: 4G}
between: none
filesystems: [{type: ext4}]
phases:
PLAN
	# the file the reads read: on the device, and in the page cache
	if want c1 || want c32 || want d1 || want d32; then
		echo "  - {name: prep, use: seqwrite.lua, with: {file: data, fsync: true}}"
	fi
	for r in $(seq 1 "$rounds"); do
		for c in c1 c32 d1 d32; do
			if want $c; then case_phases $c "$r"; fi
		done
	done
	if want fsync; then
		for r in $(seq 1 "$frounds"); do case_phases fsync "$r"; done
	fi
	if want w; then
		for r in $(seq 1 "$wrounds"); do case_phases w "$r"; done
	fi
} > "$tmp/fio.yaml"

cat > "$tmp/many.yaml" <<'PLAN'
fsplan: 1
name: bench-many
target: {image: 256M}
between: none
repeat: 5
filesystems: [{type: ext4}]
phases: [{name: many, use: many.lua, with: {workers: 256, size: 64k}}]
PLAN

main=0
for c in c1 c32 d1 d32 w fsync; do if want $c; then main=1; fi; done
if [ $main = 1 ]; then "$bin" check "$tmp/fio.yaml"; fi
if want many; then "$bin" check "$tmp/many.yaml"; fi

# ---- the watcher: page-cache drops; peak RSS while $tmp/rss exists ----------

# Bash builtins only (no fork per sample), so it costs the runs next to
# nothing. Appends "t_before t_after" to $tmp/drops for each change of the
# drop counter; writes "VmHWM_kB threads", the largest seen over processes
# named fsplan, to $tmp/rss.peak.
watch() {
	local k v prev=-1 cur t_prev=$EPOCHREALTIME p comm hwm thr
	local best_hwm=0 best_thr=0
	mkfifo "$tmp/tick"
	exec 3<> "$tmp/tick"	# never readable: read -t is a sleep
	while [ ! -e "$tmp/stop" ]; do
		cur=0
		while read -r k v; do
			if [ "$k" = drop_pagecache ]; then cur=$v; break; fi
		done < /proc/vmstat
		if [ "$prev" -ge 0 ] && [ "$cur" != "$prev" ]; then
			echo "$t_prev $EPOCHREALTIME" >> "$tmp/drops"
		fi
		prev=$cur
		t_prev=$EPOCHREALTIME
		if [ -e "$tmp/rss" ]; then
			for p in /proc/[0-9]*; do
				{ read -r comm < "$p/comm"; } 2> /dev/null || continue
				[ "$comm" = fsplan ] || continue
				hwm=0 thr=0
				{ while read -r k v _; do
					case $k in
					VmHWM:) hwm=$v ;;
					Threads:) thr=$v ;;
					esac
				done < "$p/status"; } 2> /dev/null || continue
				[ "$hwm" -gt "$best_hwm" ] && best_hwm=$hwm
				[ "$thr" -gt "$best_thr" ] && best_thr=$thr
			done
			echo "$best_hwm $best_thr" > "$tmp/rss.new"
			mv "$tmp/rss.new" "$tmp/rss.peak"
			read -r -t 0.005 -u 3 _ || true
		else
			read -r -t 0.05 -u 3 _ || true
		fi
	done
}
: > "$tmp/drops"
watch &
watcher=$!

# ---- the runs -------------------------------------------------------------

load0=$(cut -d' ' -f1 /proc/loadavg)
# no ram: the cached cases are meant to be cached
wall=0
if [ $main = 1 ]; then
	bench_run fio none "$prio" "$bin" "$tmp/fio.yaml" "$tmp/run" "${workdir[@]}"
else
	mkdir "$tmp/run"
	: > "$tmp/run/log.txt"
	: > "$tmp/run/results.csv"
fi
load1=$(cut -d' ' -f1 /proc/loadavg)

many_ok=1
if want many; then
	touch "$tmp/rss"
	nice -n "$prio" "$bin" run "$tmp/many.yaml" -o "$tmp/many" -q \
		"${workdir[@]}" || many_ok=0
fi
touch "$tmp/stop"
wait "$watcher" || true
watcher=
read -r hwm_kb threads 2> /dev/null < "$tmp/rss.peak" || { hwm_kb=0; threads=0; }

# ---- nothing left behind --------------------------------------------------

left=$( { losetup -a; findmnt -rn -o TARGET,SOURCE; } |
	grep -F -e "$tmp" ${shm:+-e "$shm"} || true)
if [ -n "$left" ]; then
	echo "fio: left behind:" >&2
	echo "$left" >&2
	exit 1
fi

# ---- the table --------------------------------------------------------------

# the C loop's figures, from what each of its runs printed
: > "$tmp/cloop.txt"
for r in $(seq 1 "$frounds"); do
	for o in "$tmp"/run/exec/*-ext4_fsync_c_"${r}"_1.out; do
		[ -e "$o" ] || continue
		awk -v p="fsync_c_$r" '{ print p, $1, $2 }' "$o" >> "$tmp/cloop.txt"
	done
done

awk -v secs="$secs" -v rounds="$rounds" -v wrounds="$wrounds" -v frounds="$frounds" \
    -v prio="$prio" -v backing="$backing" \
    -v wall="$wall" \
    -v fio="$(fio --version)" -v kernel="$(uname -r)" -v cores="$(nproc)" \
    -v load0="$load0" -v load1="$load1" -v hwm="$hwm_kb" -v thr="$threads" \
    -v many_ok="$many_ok" -v cases="$cases" -f "$root/bench/note.awk" -e '
function epoch(d, t,    s, a) {	# "2026-11-30" "06:53:11.106" -> seconds
	s = d " " t
	gsub(/[-:]/, " ", s)
	split(s, a, " ")
	return mktime(a[1] " " a[2] " " a[3] " " a[4] " " a[5] " 0") + a[6]
}
function phase(cell) {	# ext4/c1_fio_2#1 -> c1_fio_2
	sub(/^[^\/]*\//, "", cell); sub(/#[0-9]+$/, "", cell)
	return cell
}
FILENAME ~ /drops$/ { nd++; d0[nd] = $1; d1[nd] = $2; next }
FILENAME ~ /cloop.txt$/ { val[$1, $2] = $3 + 0; seen[$1] = 1; next }
FILENAME ~ /log.txt$/ {
	if ($4 == "run:") start[phase(substr($3, 1, length($3) - 1))] = epoch($1, $2)
	else if ($4 == "ok") stop[phase(substr($3, 1, length($3) - 1))] = epoch($1, $2)
	next
}
FNR > 1 { csv($0, f); val[phase(f[2]), f[10]] = f[11] + 0; seen[phase(f[2])] = 1 }
# one run: its figure (IOPS or MiB/s) and CPU us per op
function fig(c, t, p) {
	if (c == "w") return val[p, t == "fio" ? "write_bw_mbs" : "write_mbs"]
	return val[p, "read_iops"]
}
function cpu_op(c, t, p,    v, cpu) {
	v = fig(c, t, p)
	if (t == "fio") cpu = val[p, "usr_cpu_pct"] + val[p, "sys_cpu_pct"]
	else cpu = val[p, "cpu_pct"]
	return v > 0 ? cpu / v * 1e4 : 0	# %-of-a-core per op/s -> us
}
# the best of the runs of case c by tool t, and the least CPU per op:
# from the clean runs if any, else from all of them (marked *)
function best(c, t,    r, p, v, u, clean, n) {
	B[c, t] = 0; C[c, t] = 0; M[c, t] = " "; R[c, t] = ""
	n = c == "w" ? wrounds : rounds
	for (r = 1; r <= n; r++) {
		p = c "_" t "_" r
		if (!(p in seen)) continue
		v = fig(c, t, p)
		R[c, t] = R[c, t] sprintf(c == "w" ? " %4.0f%s" : " %5.1f%s",
					  c == "w" ? v : v / 1e3, hit[p] ? "!" : " ")
	}
	for (clean = 1; clean >= 0; clean--) {
		for (r = 1; r <= n; r++) {
			p = c "_" t "_" r
			if (!(p in seen) || (clean && hit[p])) continue
			v = fig(c, t, p); u = cpu_op(c, t, p)
			if (v > B[c, t]) B[c, t] = v
			if (u > 0 && (C[c, t] == 0 || u < C[c, t])) C[c, t] = u
		}
		if (B[c, t] > 0) break
		M[c, t] = "*"
	}
	return B[c, t]
}
function k(x) { return x >= 1e5 ? sprintf("%.0fk", x / 1e3) : sprintf("%.1fk", x / 1e3) }
function ok(r, t) { return r >= t ? "ok  " : "MISS" }
function row(name, c, lua,    fi, st, r, lu, rl) {
	fi = best(c, "fio"); st = best(c, "stream"); r = fi ? st / fi : 0
	printf "  %-19s %7s%s %7s%s %5.2f %s", name, k(fi), M[c, "fio"],
	       k(st), M[c, "stream"], r, ok(r, 1.0)
	note(name " stream/fio", r, "", "", ">= 1.0", ok(r, 1.0) == "ok  " ? "ok" : "MISS")
	if (lua) {
		lu = best(c, "lua"); rl = st ? lu / st : 0
		note(name " Lua/stream", rl, "", "", ">= 0.8", ok(rl, 0.8) == "ok  " ? "ok" : "MISS")
		printf " %7s%s %5.2f %s", k(lu), M[c, "lua"], rl, ok(rl, 0.8)
	} else {
		printf " %19s", ""
	}
	printf " | %5.2f %5.2f", C[c, "fio"], C[c, "stream"]
	if (lua) printf " %5.2f", C[c, "lua"]
	printf "\n"
	if (r < lo) lo = r
	runs_line[++nr] = sprintf("  %-19s fio%s  stream%s", name, R[c, "fio"], R[c, "stream"])
	if (lua) runs_line[nr] = runs_line[nr] "  Lua" R[c, "lua"]
}
# the median of a[1..n] (sorted in place), and its lowest and highest
function median(a, n,    i, j, x) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			x = a[j]; a[j] = a[j - 1]; a[j - 1] = x
		}
	mlo = a[1]; mhi = a[n]
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# the fsync loop: write IOPS of each tool per round, ratios within a round
# (fsplan/C the target; fio like for like and fio defaults information)
function fsync_case(    r, p, n, L, C, F, D, RC, RF, RD, line, mig, q, qlo, qhi, verdict,
		    jc, jf, jd) {
	for (r = 1; r <= frounds; r++) {
		if (!(("fsync_stream_" r) in seen) || !(("fsync_c_" r) in seen))
			continue
		n++
		L[n] = val["fsync_stream_" r, "write_iops"]
		C[n] = val["fsync_c_" r, "write_iops"]
		F[n] = val["fsync_fio_" r, "write_iops"]
		D[n] = val["fsync_fiodef_" r, "write_iops"]
		RC[n] = C[n] ? L[n] / C[n] : 0
		RF[n] = F[n] ? L[n] / F[n] : 0
		RD[n] = L[n] ? D[n] / L[n] : 0
		p = val["fsync_c_" r, "migrations"] / (C[n] * secs)
		mig = mig sprintf(" %.2f", p)
		line = line sprintf(" %.0f/%.0f/%.0f/%.0f", L[n], C[n], F[n], D[n])
	}
	printf "  8 KiB random writes + fsync, 64 MiB file, 1 worker, %ss a run " \
	       "(write IOPS, medians of %d rounds):\n", secs, n
	if (!n) {
		printf "    no round ran both loops: no figures\n"
		note("fsync loop fsplan/C", "", "", "", "0.9-1.1", "")
		return
	}
	jc = joined(RC, n); jf = joined(RF, n); jd = joined(RD, n)	# by round
	printf "    fsplan loop (fsyncloop.lua, engine sync, file written by " \
	       "setup) %7.0f\n", median(L, n)
	printf "    the same loop in C (build/fsyncloop)                       " \
	       "%7.0f\n", median(C, n)
	printf "    fio --overwrite=1 --norandommap --ioengine=psync --fsync=1 " \
	       "  %7.0f\n", median(F, n)
	printf "    fio defaults (--fallocate=native, random map)              " \
	       "%7.0f\n", median(D, n)
	q = median(RC, n); qlo = mlo; qhi = mhi
	verdict = q >= 0.9 && q <= 1.1 ? "ok" : "MISS"
	printf "    fsplan/C %.2f [%.2f-%.2f] (target 0.9-1.1): %s\n", q, qlo,
	       qhi, verdict
	note("fsync loop fsplan/C", q, qlo, qhi, "0.9-1.1", verdict, jc)
	q = median(RF, n); qlo = mlo; qhi = mhi
	printf "    fsplan/fio like for like %.2f [%.2f-%.2f] (information: fio " \
	       "is woken on the other CPU, fsplan-lua(7))\n", q, qlo, qhi
	note("fsync loop fsplan/fio like for like (info)", q, qlo, qhi, "-",
	     "info", jf)
	q = median(RD, n); qlo = mlo; qhi = mhi
	printf "    fio defaults/fsplan %.2f [%.2f-%.2f]: not like for like " \
	       "(fsplan-lua(7))\n", q, qlo, qhi
	note("fsync fio defaults/loop (unlike, info)", q, qlo, qhi, "-",
	     "info", jd)
	printf "    every round (fsplan/C/fio like/fio defaults):%s\n", line
	printf "    CPU migrations per op of the C loop, by round:%s\n", mig
}
function want(c) { return index(cases, " " c " ") > 0 }
END {
	lo = 99
	# which read runs a drop of the page cache overlapped (no read phase
	# drops caches itself: those drops come from other work)
	r0 = 1e12; r1 = 0
	for (p in seen) {
		if (p !~ /^(c1|c32|d1|d32)_/) continue
		runs++
		for (i = 1; i <= nd; i++)
			if (d1[i] >= start[p] && d0[i] <= stop[p]) hit[p] = 1
		hits += hit[p]
		if (start[p] < r0) r0 = start[p]
		if (stop[p] > r1) r1 = stop[p]
	}
	for (i = 1; i <= nd; i++)
		if (d1[i] >= r0 && d0[i] <= r1) drops++
	printf "fio: fsplan vs %s on ext4 (a 4G loop image on %s),\n",
	       fio, backing
	printf "  1 worker; kernel %s, %d cores, load average %s -> %s, nice %s;\n",
	       kernel, cores, load0, load1, prio
	c = cases; gsub(/^ +| +$/, "", c)
	printf "  cases: %s; %ss in all\n", c, wall
	reads = want("c1") || want("c32") || want("d1") || want("d32")
	if (reads || want("w")) {
		printf "  one 1 GiB file; reads %ss per case, best of %d " \
		       "interleaved rounds; writes best of %d\n", secs, rounds,
		       wrounds
		printf "  %-19s %8s %8s %10s %8s %10s | %s\n", "4 KiB random reads",
		       "fio", "stream", "stream/fio", "Lua ops", "Lua/stream",
		       "CPU us/op fio stream Lua"
	}
	if (want("c1")) row("cached, depth 1", "c1", 1)
	if (want("c32")) row("cached, depth 32", "c32", 0)
	if (want("d1")) row("O_DIRECT, depth 1", "d1", 0)
	if (want("d32")) row("O_DIRECT, depth 32", "d32", 0)
	if (want("w")) {
		fi = best("w", "fio"); st = best("w", "stream"); r = fi ? st / fi : 0
		note("1 MiB seq writes stream/fio", r, "", "", ">= 1.0", r >= 1.0 ? "ok" : "MISS")
		printf "  %-19s %7.0f%s %7.0f%s %5.2f %s   (MiB/s)\n", "1 MiB seq writes",
		       fi, M["w", "fio"], st, M["w", "stream"], r, ok(r, 1.0)
		if (r < lo) lo = r
		runs_line[++nr] = sprintf("  %-19s fio%s  stream%s", "1 MiB seq writes",
					  R["w", "fio"], R["w", "stream"])
	}
	if (reads || want("w")) {
		printf "  targets: stream/fio >= 1.0 (aim 1.05), Lua/stream >= 0.8; " \
		       "lowest stream/fio %.2f\n", lo
		printf "  every run (k IOPS, MiB/s; ! = a page-cache drop by someone else " \
		       "overlapped it):\n"
		for (i = 1; i <= nr; i++) print runs_line[i]
	}
	if (reads)
		printf "  page-cache drops during the reads: %d; read runs they hit: %d of %d%s\n",
		       drops, hits, runs, hits ? " (* = all runs of a case hit)" : ""
	if (want("fsync")) fsync_case()
	if (!want("many"))
		exit
	if (!many_ok) {
		printf "  256 workers: the run FAILED\n"
		exit
	}
	mib = hwm / 1024
	printf "  256 workers (many.lua, 64 KiB each) on %d cores: peak RSS of the " \
	       "phase child %.1f MiB,\n", cores, mib
	printf "    %.1f MiB beyond the 3 MiB shared write source (target <= 64): " \
	       "%s; up to %d threads at once\n", mib - 3, ok(64, mib - 3), thr
}' "$tmp/drops" "$tmp/cloop.txt" "$tmp/run/log.txt" "$tmp/run/results.csv"
