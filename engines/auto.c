/* auto: the default engine: the ring for what runs inline, else a syscall. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "engine_impl.h"
#include "util/clock.h"

/*
 * io_uring first issues an op non-blocking in the submitting task; what
 * cannot go that way goes to an io-wq kernel thread, a round trip that
 * costs more than a cached 4 KiB read. Which ops can, per file:
 * - reads and writes: the filesystem's own answer to a non-blocking
 *   request (IOCB_NOWAIT). The probe below asks it the same question
 *   through preadv2/pwritev2 with RWF_NOWAIT: EOPNOTSUPP is "never
 *   without a thread" (a buffered write on ext4 or tmpfs, any read on a
 *   filesystem without FMODE_NOWAIT); any other answer is "yes".
 * - io_uring itself always runs fsync, fallocate, ftruncate, statx, the
 *   directory ops and a creating or truncating open in io-wq; an open
 *   without O_CREAT/O_TRUNC and a close are done inline.
 * An op whose lone path is io-wq goes through a plain syscall when it
 * would be alone in flight; several in flight go to the ring, where
 * io-wq overlaps them as a syscall loop cannot.
 *
 * A lone read or write of under a sector (bonnie's per-char bytes) takes
 * the syscall too: there the ring's round trip is most of the op. Here
 * (Linux 6.18, ext4, cached) a 1-byte pread took 0.75 us and the same
 * read through the ring 1.6 us, so getc ran at 0.43 of bonnie++'s
 * read(2) of a byte; a 4 KiB op pays the same ~0.9 us on top of a larger
 * copy, and keeps the ring.
 */
#define SMALL_OP	512

/* A file's two answers, learnt once per fd (reset when it is opened). */
#define FD_KNOWN	1u
#define FD_READ_RING	2u
#define FD_WRITE_RING	4u

struct auto_engine {
	struct engine base;
	struct engine *ring, *sys;	/* ring: NULL until an op needs it */
	unsigned depth;
	int no_ring;			/* depth 1 and the ring did not fit */
	struct engine_req *held;	/* a lone op not yet given to either */
	unsigned char *fds;		/* per fd: FD_* */
	int n_fds;
};

/*
 * The probe: an offset past any filesystem's limit and a buffer no
 * process maps (below mmap_min_addr), so a filesystem that would go on
 * stops at EFBIG, EAGAIN or EFAULT without moving a byte, also on an
 * O_APPEND file. The RWF_NOWAIT refusal comes before all of those.
 */
#define PROBE_OFF	((off_t)1 << 62)
#define PROBE_BUF	((void *)(uintptr_t)16)

unsigned engine_probe_fd(int fd)
{
	struct iovec iov = { PROBE_BUF, 1 };
	unsigned got = 0;

	if (preadv2(fd, &iov, 1, PROBE_OFF, RWF_NOWAIT) >= 0 ||
	    errno != EOPNOTSUPP)
		got |= ENGINE_PROBE_READ;
	if (pwritev2(fd, &iov, 1, PROBE_OFF, RWF_NOWAIT) >= 0 ||
	    errno != EOPNOTSUPP)
		got |= ENGINE_PROBE_WRITE;
	return got;
}

/* The probe's answers for fd, kept (fd_class asks once per fd). */
static unsigned fd_learn(struct auto_engine *e, int fd)
{
	unsigned got = engine_probe_fd(fd);

	got = FD_KNOWN | (got & ENGINE_PROBE_READ ? FD_READ_RING : 0) |
	      (got & ENGINE_PROBE_WRITE ? FD_WRITE_RING : 0);
	if (fd >= e->n_fds) {
		int n = e->n_fds ? e->n_fds : 64;
		unsigned char *p;

		while (n <= fd)
			n *= 2;
		p = realloc(e->fds, (size_t)n);
		if (!p)
			return got;	/* asked again next time */
		memset(p + e->n_fds, 0, (size_t)(n - e->n_fds));
		e->fds = p;
		e->n_fds = n;
	}
	e->fds[fd] = (unsigned char)got;
	return got;
}

static inline unsigned fd_class(struct auto_engine *e, int fd)
{
	if (fd < 0)
		return FD_KNOWN | FD_READ_RING | FD_WRITE_RING;
	if (fd < e->n_fds && (e->fds[fd] & FD_KNOWN))
		return e->fds[fd];
	return fd_learn(e, fd);
}

/* Whether r, alone in flight, would go to io-wq on the ring. */
static inline int lone_to_syscall(struct auto_engine *e,
				  const struct engine_req *r)
{
	switch (r->op) {
	case ENGINE_READ:
		return r->len < SMALL_OP ||
		       !(fd_class(e, r->fd) & FD_READ_RING);
	case ENGINE_WRITE:
		return r->len < SMALL_OP ||
		       !(fd_class(e, r->fd) & FD_WRITE_RING);
	case ENGINE_OPEN:
		return (r->flags & (O_CREAT | O_TRUNC)) ||
		       (r->flags & O_TMPFILE) == O_TMPFILE;
	case ENGINE_CLOSE:
		return 0;
	default:
		return 1;
	}
}

static int auto_init(struct engine **out, unsigned depth, struct diag *d)
{
	struct auto_engine *e;
	int ret;

	*out = NULL;
	if (!depth || depth > 32768) {	/* the ring's: IORING_MAX_ENTRIES */
		diag_fail(d, DIAG_INPUT, 0, "depth %u is out of range "
			  "(1..32768)", depth);
		return -EINVAL;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
		return -ENOMEM;
	}
	e->base.ops = &engine_auto;
	/*
	 * Several in flight need the ring now (its failure is the caller's
	 * to report); one at a time, only once an op takes it: a worker of
	 * plain syscalls holds no ring, and io_uring counts every ring
	 * against the user's RLIMIT_MEMLOCK, where a thousand idle workers
	 * would not fit.
	 */
	e->depth = depth;
	ret = engine_sync.init(&e->sys, 1, d);
	if (!ret && depth > 1)
		ret = engine_uring.init(&e->ring, depth, d);
	if (ret) {
		if (e->sys)
			engine_sync.cleanup(e->sys);
		free(e);
		return ret;
	}
	*out = &e->base;
	return 0;
}

/*
 * The ring, made on first use. A depth-1 engine whose ring does not fit
 * takes syscalls from then on — what the kernel does inline through a
 * ring is the same call — and its ops' rows say syscall.
 */
static int have_ring(struct auto_engine *e)
{
	if (e->ring)
		return 1;
	if (e->no_ring)
		return 0;
	if (engine_uring.init(&e->ring, e->depth, NULL)) {
		e->ring = NULL;
		e->no_ring = 1;
		return 0;
	}
	return 1;
}

static unsigned ring_inflight(struct auto_engine *e)
{
	return e->ring ? engine_uring.inflight(e->ring) : 0;
}

static unsigned auto_inflight(struct engine *eng)
{
	struct auto_engine *e = engine_of(eng, struct auto_engine);

	return ring_inflight(e) +
	       engine_sync.inflight(e->sys) + (e->held != NULL);
}

/* A held op is no longer alone: to the ring with its queue time. */
static int unhold(struct auto_engine *e)
{
	struct engine_req *r = e->held;
	uint64_t t = r->t_submit;
	int ret;

	e->held = NULL;
	ret = engine_uring.queue(e->ring, r);
	r->t_submit = t;
	return ret;
}

static int auto_queue(struct engine *eng, struct engine_req *r)
{
	struct auto_engine *e = engine_of(eng, struct auto_engine);
	unsigned busy = auto_inflight(eng);
	int ret;

	if ((unsigned)r->op >= ENGINE_NOPS)
		return -EINVAL;
	if (!busy && (lone_to_syscall(e, r) || !have_ring(e))) {
		r->res = 0;
		r->done = 0;
		r->t_done = 0;
		r->t_submit = r->t_now ? r->t_now : clock_ns();
		e->held = r;
		return 0;
	}
	if (!e->ring)		/* depth 1: one at a time */
		return -EBUSY;
	if (e->held) {
		ret = unhold(e);
		if (ret)
			return ret;
	}
	return engine_uring.queue(e->ring, r);
}

static int auto_commit(struct engine *eng)
{
	struct auto_engine *e = engine_of(eng, struct auto_engine);

	if (e->held) {
		struct engine_req *r = e->held;
		uint64_t t = r->t_submit;

		e->held = NULL;
		engine_sync.queue(e->sys, r);	/* empty: cannot be busy */
		r->t_submit = t;
		engine_sync.commit(e->sys);
	}
	if (!ring_inflight(e))
		return 0;
	return engine_uring.commit(e->ring);
}

/* An open's new fd is a new file; a closed fd's answers are stale. */
static void note(struct auto_engine *e, const struct engine_req *r)
{
	int fd = r->op == ENGINE_OPEN ? (int)r->res :
		 r->op == ENGINE_CLOSE ? r->fd : -1;

	if (fd >= 0 && fd < e->n_fds && r->res >= 0)
		e->fds[fd] = 0;
}

static int auto_reap(struct engine *eng, unsigned min,
		     struct engine_req **done, unsigned max)
{
	struct auto_engine *e = engine_of(eng, struct auto_engine);
	int n = 0, got;

	if (e->held)
		auto_commit(eng);
	if (max && engine_sync.inflight(e->sys))
		n = engine_sync.reap(e->sys, 1, done, max);
	if ((unsigned)n < max && ring_inflight(e)) {
		unsigned want = min > (unsigned)n ? min - (unsigned)n : 0;

		got = engine_uring.reap(e->ring, want, done + n,
					max - (unsigned)n);
		if (got < 0 && !n)
			return got;
		if (got > 0)
			n += got;
	}
	for (int i = 0; i < n; i++)
		note(e, done[i]);
	return n;
}

/*
 * A lone op (engine_do), straight to the path auto_queue would give it:
 * the ring's engine or the syscalls', without the holding and counting
 * that several in flight need (a cached 4 KiB read is about a microsecond,
 * and those layers were a few percent of it).
 */
static int64_t auto_run(struct engine *eng, struct engine_req *r)
{
	struct auto_engine *e = engine_of(eng, struct auto_engine);
	int64_t res;

	if ((unsigned)r->op >= ENGINE_NOPS)
		return -EINVAL;
	/* engine_do found nothing in flight here, so none in either */
	if (lone_to_syscall(e, r) || !have_ring(e))
		res = engine_sync.run(e->sys, r);
	else
		res = engine_uring.run(e->ring, r);
	note(e, r);
	return res;
}

static void auto_cleanup(struct engine *eng)
{
	struct auto_engine *e = engine_of(eng, struct auto_engine);

	if (!e)
		return;
	if (e->ring)
		engine_uring.cleanup(e->ring);
	engine_sync.cleanup(e->sys);
	free(e->fds);
	free(e);
}

const struct engine_ops engine_auto = {
	.name = "auto",
	.version = ENGINE_OPS_VERSION,
	.flags = ENGINE_ASYNC | ENGINE_REAP_SUBMITS,
	.init = auto_init,
	.queue = auto_queue,
	.commit = auto_commit,
	.reap = auto_reap,
	.inflight = auto_inflight,
	.cleanup = auto_cleanup,
	.run = auto_run,
};
