#!/usr/bin/env bash
# bench/agecost: what aging a filesystem costs against dd, as issue 33
# asks: on a 1 GiB sparse ext4 loop image, host/age (build/agebench)
# ages to 60% with churn 1 (seed 33) as nobody; on a fresh filesystem of
# the same image, a shell loop as nobody writes with dd (bs=1M,
# conv=notrunc, from /dev/zero, one process a file) the aged tree's final
# file sizes as plain files, pass after pass (each pass removing the one
# before with one rm -rf), until it has written as many bytes as the
# aging did (the last file cut to it); both end with a syncfs (sync -f).
# mkfs and mount are outside both times. Each round runs both, in
# alternating order, on a fresh filesystem each; every aging must give
# the first one's trace sha256 (the same seed). For information, each
# round also times the write floor: the same bytes by one dd per 256 MiB
# file. Printed: per round the times, age/dd and age/one, then the
# medians [lowest-highest]; target age/dd <= 1.5. A missed target is printed, not a failure. Needs root (skipped
# otherwise) and build/agebench (`make build/agebench`).
# The image is in /dev/shm when that is a tmpfs with 2 GiB free (the
# shared machine's disk out of the figures), else in the bench's tmpdir.
# Last figures (ROUNDS=3, 2026-12-04, a shared machine: load 2.2 -> 3.4
# on 2 cores; image on /dev/shm): 1168 MiB written, 1049 files left;
# age 1.75 s median (669 MiB/s), dd 7.36 s, age/dd 0.22 [0.19-0.26];
# age/one 1.22 [0.50-2.27], for information.
# Environment: ROUNDS (3), AGEBENCH, KEEP=1 keeps the directory.
set -Eeuo pipefail	# -E: the ERR trap in functions too
cd "$(dirname "$0")/.."
root=$PWD
agebench=${AGEBENCH:-$root/build/agebench}
rounds=${ROUNDS:-3}
if [ "$(id -u)" != 0 ]; then
	echo "agecost: skipped (needs root to make filesystems)"
	exit 0
fi
if [ ! -x "$agebench" ]; then
	echo "agecost: no $agebench (make build/agebench)" >&2
	exit 1
fi
# shellcheck source=bench/memcg.bash
. "$root/bench/memcg.bash"
bench_tmpdir agecost
bench_shm_workdir 2
imgdir=${shm:-$tmp}
chmod 755 "$imgdir"
mnt=$imgdir/mnt
mkdir -p "$mnt"
cp "$agebench" "$tmp/agebench"	# nobody may not reach the build tree
dev=

fail() {
	echo "agecost: $*" >&2
	KEEP=1
	exit 1
}

# A fresh ext4 on a fresh 1 GiB sparse image, mounted, $mnt/a nobody's.
fs_fresh() {
	fs_gone
	rm -f "$imgdir/img"
	truncate -s 1G "$imgdir/img"
	dev=$(losetup --find --show "$imgdir/img")
	mkfs.ext4 -q "$dev"
	mount "$dev" "$mnt"
	mkdir "$mnt/a"
	chown nobody: "$mnt/a"
}

fs_gone() {
	if mountpoint -q "$mnt"; then umount "$mnt"; fi
	if [ -n "$dev" ]; then losetup -d "$dev"; dev=; fi
}
trap 'fs_gone; bench_tmpdir_cleanup' EXIT
trap 'KEEP=1' ERR	# any failed step keeps the directory

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

# Age; sets age_s (wall seconds), written, sha; the sizes in $tmp/sizes.
age_once() {
	local t0 out
	fs_fresh
	t0=$EPOCHREALTIME
	out=$(as_nobody "$tmp/agebench" "$mnt/a" 0.6 1 33) ||
		fail "agebench failed: $out"
	age_s=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
	written=$(awk '$1 == "bytes_written" { print $2 }' <<< "$out")
	sha=$(awk '$1 == "trace_sha256" { print $2 }' <<< "$out")
	files=$(awk '$1 == "files" { print $2 }' <<< "$out")
	full=$(awk '$1 == "full" { print $2 }' <<< "$out")
	find "$mnt/a" -type f -printf '%s\n' > "$tmp/sizes.new"
	fs_gone
}

# The dd loop as nobody: $1 the sizes file, $2 the bytes to write.
# shellcheck disable=SC2016
dd_loop='
left=$2; p=0
while [ "$left" -gt 0 ]; do
	rm -rf "$3/p$((p - 1))"; mkdir "$3/p$p"; i=0
	while read -r s && [ "$left" -gt 0 ]; do
		[ "$s" -gt "$left" ] && s=$left
		dd if=/dev/zero of="$3/p$p/f$i" bs=1M count="$s" \
			iflag=count_bytes conv=notrunc status=none
		left=$((left - s)); i=$((i + 1))
	done < "$1"
	p=$((p + 1))
done
sync -f "$3"'

dd_once() {
	local t0
	fs_fresh
	t0=$EPOCHREALTIME
	as_nobody bash -c "$dd_loop" dd "$tmp/sizes" "$1" "$mnt/a" ||
		fail "the dd loop failed"
	dd_s=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
	fs_gone
}

# For information, the write floor: the same bytes in 256 MiB files by
# one dd each (a file two back removed), then sync -f. Sets one_s.
# shellcheck disable=SC2016
one_loop='
left=$1; i=0
while [ "$left" -gt 0 ]; do
	s=$((left < 268435456 ? left : 268435456))
	rm -f "$2/s$((i - 2))"
	dd if=/dev/zero of="$2/s$i" bs=1M count="$s" iflag=count_bytes \
		conv=notrunc status=none
	left=$((left - s)); i=$((i + 1))
done
sync -f "$2"'

one_once() {
	local t0
	fs_fresh
	t0=$EPOCHREALTIME
	as_nobody bash -c "$one_loop" dd "$1" "$mnt/a" ||
		fail "the one-stream dd failed"
	one_s=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
	fs_gone
}

# ---- the rounds -------------------------------------------------------------

# an untimed aging first: the sizes, the bytes and the trace every round
# must repeat
age_once
mv "$tmp/sizes.new" "$tmp/sizes"
want=$sha
bytes=$written
nfiles=$files
load0=$(cut -d' ' -f1 /proc/loadavg)
declare -a A D O
for r in $(seq 1 "$rounds"); do
	if ((r % 2)); then
		age_once; A[r]=$age_s
		dd_once "$bytes"; D[r]=$dd_s
	else
		dd_once "$bytes"; D[r]=$dd_s
		age_once; A[r]=$age_s
	fi
	one_once "$bytes"; O[r]=$one_s
	[ "$sha" = "$want" ] || fail "round $r: trace $sha, not $want"
	[ "$written" = "$bytes" ] || fail "round $r: $written bytes, not $bytes"
done
load1=$(cut -d' ' -f1 /proc/loadavg)
bench_leftovers "$imgdir"

# ---- the table --------------------------------------------------------------

for r in $(seq 1 "$rounds"); do
	echo "$r ${A[r]} ${D[r]} ${O[r]}"
done | awk -v load0="$load0" -v load1="$load1" -v bytes="$bytes" \
	-v files="$nfiles" -v full="$full" -v backing="$backing" \
	-f "$root/bench/note.awk" -f "$root/bench/table.awk" -f <(cat <<'AWK'
{ n++; a[n] = $2; d[n] = $3; o[n] = $4; q[n] = a[n] / d[n]; p[n] = a[n] / o[n] }
END {
	printf "agecost: aging a 1 GiB ext4 loop image (image on %s) to 60%%,\n", backing
	printf "  churn 1, seed 33 (%.0f MiB written, %d files left, full %d) against dd\n", bytes / 1048576, files, full
	printf "  writing the same sizes and bytes; load %s -> %s\n", load0, load1
	printf "  %-6s %10s %10s %8s %12s %10s\n", "round", "age s", "dd s",
	       "age/dd", "one dd s", "age/one"
	for (i = 1; i <= n; i++) {
		printf "  %-6d %10.2f %10.2f %8.2f %12.2f %10.2f\n", i, a[i],
		       d[i], q[i], o[i], p[i]
		ar[i] = a[i]; dr[i] = d[i]; qr[i] = q[i]; pr[i] = p[i]
	}
	ma = median(ar, n); md = median(dr, n); mq = median(qr, n)
	mp = median(pr, n)
	lo = hi = qr[1]
	for (i = 2; i <= n; i++) { if (qr[i] < lo) lo = qr[i]; if (qr[i] > hi) hi = qr[i] }
	printf "  median: age %.2f s (%.0f MiB/s), dd %.2f s, age/dd %.2f [%.2f-%.2f] (target <= 1.5: %s)\n",
	       ma, bytes / 1048576 / ma, md, mq, lo, hi, mq <= 1.5 ? "ok" : "MISS"
	printf "  (dd: a process a file, as the aged tree's sizes; one dd: the same bytes\n"
	printf "  in 256 MiB files, the write floor: age/one %.2f, for information)\n", mp
	note("age/dd, 1 GiB ext4 to 60% churn 1", mq, lo, hi, "<= 1.5",
	     mq <= 1.5 ? "ok" : "MISS", joined(q, n))
}
AWK
)
