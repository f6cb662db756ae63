/*
 * bench/fsyncloop: bench/fsyncloop.lua's loop in plain C, the floor under
 * fsplan's for bench/fio.sh: the same file laid out the same way (8 KiB
 * pwrites, then fsync), the same open flags, then for SECONDS one pwrite
 * of 8 KiB at a uniformly random block and one fsync at a time, each
 * write's bytes different for different offsets, as fsplan's are.
 *
 *   fsyncloop FILE SECONDS
 *
 * Prints "write_iops N" and "migrations N" (the times the scheduler moved
 * this process to another CPU, from /proc/self/sched; -1 if unreadable).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "timing.h"

#define BLOCK 8192u
#define SIZE (64u << 20)
#define SRC (1u << 20)

static void die(const char *what, const char *path)
{
	perror(what);
	fprintf(stderr, "fsyncloop: %s: %s\n", what, path);
	exit(1);
}

static uint64_t next(uint64_t *x)	/* xorshift64 */
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static long migrations(void)
{
	char line[256];
	long n = -1;
	FILE *f = fopen("/proc/self/sched", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "se.nr_migrations", 16))
			n = strtol(strchr(line, ':') + 1, NULL, 10);
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	static unsigned char src[SRC] __attribute__((aligned(4096)));
	uint64_t x = 0x9e3779b97f4a7c15ull, ops = 0;
	double secs, t0, t;
	int fd;

	/* !(> 0) refuses NaN too; a day at most */
	if (argc != 3 || !((secs = atof(argv[2])) > 0) || secs > 86400) {
		fprintf(stderr, "usage: fsyncloop FILE SECONDS\n");
		return 2;
	}
	for (size_t i = 0; i < SRC; i += 8) {
		uint64_t v = next(&x);

		memcpy(src + i, &v, 8);
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("open", argv[1]);
	for (uint64_t off = 0; off < SIZE; off += BLOCK)
		if (pwrite(fd, src + off % SRC, BLOCK, (off_t)off) != BLOCK)
			die("pwrite", argv[1]);
	if (fsync(fd) || close(fd))
		die("fsync", argv[1]);
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open", argv[1]);
	t0 = now();
	do {
		uint64_t off = next(&x) % (SIZE / BLOCK) * BLOCK;

		if (pwrite(fd, src + off % SRC, BLOCK, (off_t)off) != BLOCK)
			die("pwrite", argv[1]);
		if (fsync(fd))
			die("fsync", argv[1]);
		ops++;
		t = now();
	} while (t - t0 < secs);
	printf("write_iops %.1f\nmigrations %ld\n", (double)ops / (t - t0),
	       migrations());
	return close(fd) ? 1 : 0;
}
