/* bench/limit: the least a program can do for random 4 KiB reads through io_uring — the bar for fsplan's stream and Lua loop. */
/*
 *   limit FILE DEPTH SECONDS [direct] [flags]
 *
 * One ring; DEPTH reads at uniformly random 4 KiB-aligned offsets of
 * FILE prepared and submitted, then: submit and wait for one completion,
 * drain every completion there is, prepare as many new reads, repeat —
 * what fio's t/io_uring does. No latency is taken (one clock read per
 * reaped batch, for the time limit); the offsets come from xorshift64*.
 * `direct` opens FILE with O_DIRECT. `flags` is a comma list of ring
 * setup flags to try: single_issuer, defer_taskrun, coop_taskrun.
 * Prints one line:
 *   limit: depth=D ops=N seconds=S iops=I cpu_us_per_op=C
 * (CPU: user + system of the process, io_uring's kernel threads
 * included). Exit status 1 on any error, with the reason on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>

#include "timing.h"

#define BLOCK 4096u

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_block(uint64_t blocks)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (rng * 0x2545f4914f6cdd1dull) % blocks;
}

static unsigned ring_flags(const char *list)
{
	unsigned f = 0;
	char *dup = strdup(list), *tok, *save = NULL;

	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "single_issuer"))
			f |= IORING_SETUP_SINGLE_ISSUER;
		else if (!strcmp(tok, "defer_taskrun"))
			f |= IORING_SETUP_SINGLE_ISSUER |
			     IORING_SETUP_DEFER_TASKRUN;
		else if (!strcmp(tok, "coop_taskrun"))
			f |= IORING_SETUP_COOP_TASKRUN;
		else if (strcmp(tok, "none")) {
			fprintf(stderr, "limit: unknown flag '%s' "
				"(single_issuer, defer_taskrun, "
				"coop_taskrun, none)\n", tok);
			exit(2);
		}
	}
	free(dup);
	return f;
}

static void prep(struct io_uring *ring, int fd, char *buf, unsigned slot,
		 uint64_t blocks)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_read(sqe, fd, buf + (size_t)slot * BLOCK, BLOCK,
			   next_block(blocks) * BLOCK);
	io_uring_sqe_set_data64(sqe, slot);
}

int main(int argc, char **argv)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct stat st;
	unsigned depth, flags = 0, head, n, i;
	uint64_t blocks, ops = 0;
	double secs, t0, t1, c0, c1;
	int fd, ret, direct = 0;
	char *buf;

	if (argc < 4) {
		fprintf(stderr, "usage: limit FILE DEPTH SECONDS [direct] "
			"[flags]\n");
		return 2;
	}
	depth = (unsigned)atoi(argv[2]);
	secs = atof(argv[3]);
	for (i = 4; i < (unsigned)argc; i++) {
		if (!strcmp(argv[i], "direct"))
			direct = 1;
		else if (strcmp(argv[i], "buffered"))
			flags = ring_flags(argv[i]);
	}
	if (depth < 1 || depth > 4096 || secs <= 0) {
		fprintf(stderr, "limit: depth 1..4096 and seconds > 0\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | (direct ? O_DIRECT : 0));
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "limit: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	blocks = (uint64_t)st.st_size / BLOCK;
	if (!blocks) {
		fprintf(stderr, "limit: %s is smaller than a block\n", argv[1]);
		return 1;
	}
	if (posix_memalign((void **)&buf, 4096, (size_t)depth * BLOCK)) {
		fprintf(stderr, "limit: out of memory\n");
		return 1;
	}
	memset(buf, 0, (size_t)depth * BLOCK);
	ret = io_uring_queue_init(depth, &ring, flags);
	if (ret < 0) {
		fprintf(stderr, "limit: io_uring_queue_init(%u): %s\n", depth,
			strerror(-ret));
		return 1;
	}
	c0 = cpu_s();
	t0 = now();
	for (i = 0; i < depth; i++)
		prep(&ring, fd, buf, i, blocks);
	for (;;) {
		ret = io_uring_submit_and_wait(&ring, 1);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN) {
			fprintf(stderr, "limit: submit: %s\n", strerror(-ret));
			return 1;
		}
		/* drain, refilling each slot that came back (in any order) */
		n = 0;
		io_uring_for_each_cqe(&ring, head, cqe) {
			if (cqe->res != (int)BLOCK) {
				fprintf(stderr, "limit: read: %s\n",
					cqe->res < 0 ? strerror(-cqe->res) :
					"short read");
				return 1;
			}
			prep(&ring, fd, buf, (unsigned)cqe->user_data, blocks);
			n++;
		}
		io_uring_cq_advance(&ring, n);
		ops += n;
		t1 = now();
		if (t1 - t0 >= secs)
			break;
	}
	c1 = cpu_s();
	printf("limit: depth=%u ops=%llu seconds=%.3f iops=%.0f "
	       "cpu_us_per_op=%.3f\n", depth, (unsigned long long)ops,
	       t1 - t0, (double)ops / (t1 - t0),
	       ops ? (c1 - c0) * 1e6 / (double)ops : 0.0);
	io_uring_queue_exit(&ring);
	close(fd);
	return 0;
}
