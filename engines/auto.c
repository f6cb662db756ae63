/* auto: the default engine: a syscall for a lone op, the ring for several. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "engine_impl.h"
#include "util/clock.h"

/*
 * One op in flight goes through a plain syscall; several go to the ring,
 * where the kernel overlaps them (inline or in its io-wq threads) as a
 * loop of syscalls cannot. The ring has nothing to overlap for a lone op
 * and its round trip costs more than the call: here (Linux 6.18, ext4,
 * 2 CPUs) a cached 8 KiB read took 1.9 us of CPU as a pread and 2.8-3.4
 * us through the ring, a 64 KiB one 7.6 against 8.5-9.0, a 1-byte read
 * 0.75 against 1.6 (bonnie's getc ran at 0.43 of bonnie++'s read(2) of a
 * byte) — and a lone op the ring cannot run inline (a buffered write on
 * ext4, an fsync, a creating open) would go to an io-wq thread besides.
 * The classic tools make one call at a time: at depth 1 this engine makes
 * the same calls, so it never adds the ring's cost to a filesystem's
 * figure. engine_probe_fd, below, still says what the ring would do with
 * a file (the manifest records it per config, for engine: uring).
 */
struct auto_engine {
	struct engine base;
	struct engine *ring, *sys;	/* ring: NULL while depth is 1 */
	unsigned depth;
	struct engine_req *held;	/* a lone op not yet given to either */
};

/*
 * The probe: an offset past any filesystem's limit and a buffer no
 * process maps (below mmap_min_addr), so a filesystem that would go on
 * stops at EFBIG, EAGAIN or EFAULT without moving a byte, also on an
 * O_APPEND file. The RWF_NOWAIT refusal (EOPNOTSUPP: "only through a
 * kernel thread") comes before all of those.
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
	 * Several in flight need the ring (its failure is the caller's to
	 * report); one at a time never takes it: a worker of plain syscalls
	 * holds no ring, and io_uring counts every ring against the user's
	 * RLIMIT_MEMLOCK, where a thousand idle workers would not fit.
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

/*
 * An op with nothing in flight is held: alone at the commit, it is a
 * syscall; another queued before that takes it to the ring.
 */
static int auto_queue(struct engine *eng, struct engine_req *r)
{
	struct auto_engine *e = engine_of(eng, struct auto_engine);
	int ret;

	if ((unsigned)r->op >= ENGINE_NOPS)
		return -EINVAL;
	if (!auto_inflight(eng)) {
		r->res = 0;
		r->done = 0;
		r->t_done = 0;
		r->t_submit = r->untimed ? 0 : r->t_now ? r->t_now :
			      clock_ns();
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
	return n;
}

/*
 * A lone op (engine_do): the syscall, without the holding and counting
 * that several in flight need (a cached 4 KiB read is about a
 * microsecond, and those layers were a few percent of it).
 */
static int64_t auto_run(struct engine *eng, struct engine_req *r)
{
	struct auto_engine *e = engine_of(eng, struct auto_engine);

	if ((unsigned)r->op >= ENGINE_NOPS)
		return -EINVAL;
	/* engine_do found nothing in flight here, so none in either */
	return engine_sync.run(e->sys, r);
}

static void auto_cleanup(struct engine *eng)
{
	struct auto_engine *e = engine_of(eng, struct auto_engine);

	if (!e)
		return;
	if (e->ring)
		engine_uring.cleanup(e->ring);
	engine_sync.cleanup(e->sys);
	free(e);
}

const struct engine_ops engine_auto = {
	.name = "auto",
	.version = ENGINE_OPS_VERSION,
	.flags = ENGINE_ASYNC | ENGINE_REAP_SUBMITS | ENGINE_LONE_PLAIN,
	.init = auto_init,
	.queue = auto_queue,
	.commit = auto_commit,
	.reap = auto_reap,
	.inflight = auto_inflight,
	.cleanup = auto_cleanup,
	.run = auto_run,
};
