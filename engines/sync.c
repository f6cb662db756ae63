/* sync: the plain-syscall engine, a reference and io_uring's fallback. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine_impl.h"
#include "util/clock.h"

/*
 * Requests in a ring of depth slots, oldest first: ndone finished ones
 * waiting for reap, then nqueued ones waiting for commit.
 */
struct sync_engine {
	struct engine base;
	unsigned depth;
	unsigned head, ndone, nqueued;
	struct engine_req *q[];
};

static int sync_init(struct engine **out, unsigned depth, struct diag *d)
{
	struct sync_engine *e;
	int ret;

	*out = NULL;
	ret = engine_alloc(&e, &engine_sync, sizeof(*e), sizeof(e->q[0]),
			   depth, 1u << 20, d);
	if (ret)
		return ret;
	e->depth = depth;
	*out = &e->base;
	return 0;
}

/* A request as queue takes it: nothing moved yet, its submit time. */
static void start(struct engine_req *r)
{
	r->res = 0;
	r->done = 0;
	r->t_done = 0;
	r->ring = 0;
	r->t_submit = r->untimed ? 0 : r->t_now ? r->t_now : clock_ns();
}

static int sync_queue(struct engine *eng, struct engine_req *r)
{
	struct sync_engine *e = engine_of(eng, struct sync_engine);

	if ((unsigned)r->op >= ENGINE_NOPS)
		return -EINVAL;
	if (e->ndone + e->nqueued >= e->depth)
		return -EBUSY;
	start(r);
	e->q[(e->head + e->ndone + e->nqueued) % e->depth] = r;
	e->nqueued++;
	return 0;
}

/*
 * A whole read or write (engine.h): EAGAIN retries after poll, so a
 * non-blocking fd does not spin. On a pipe or socket the offset is
 * ignored, as io_uring ignores it.
 */
int64_t engine_plain_rw(struct engine_req *r)
{
	int rd = r->op == ENGINE_READ;
	int stream = 0;
	ssize_t got;

	do {
		char *buf = (char *)r->buf + r->done;
		unsigned int n = engine_rw_left(r);
		off_t off = (off_t)(r->off + r->done);

		/* syscall(2), not pread(2): libc's wrappers are thread
		 * cancellation points, and in a process with threads each
		 * call then marks itself cancellable and back (6% of a
		 * 1-byte read's time; fsplan cancels no thread) */
		if (stream)
			got = syscall(rd ? SYS_read : SYS_write, r->fd, buf, n);
		else
			got = syscall(rd ? SYS_pread64 : SYS_pwrite64, r->fd,
				      buf, n, off);
		if (got < 0) {
			struct pollfd p = { r->fd, rd ? POLLIN : POLLOUT, 0 };

			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				poll(&p, 1, -1);
				continue;
			}
			if (errno == ESPIPE && !stream) {
				stream = 1;
				continue;
			}
			return -errno;
		}
		r->done += (uint64_t)got;
	} while (got && r->done < r->len);
	return (int64_t)r->done;
}

/* Everything but a transfer: one syscall, restarted after a signal. */
static int64_t do_call(struct engine_req *r)
{
	struct open_how how;
	long ret;

	if (r->op == ENGINE_CLOSE)	/* never retried: the fd is gone */
		return close(r->fd) ? -errno : 0;
	do {
		switch (r->op) {
		case ENGINE_FSYNC:
			ret = fsync(r->fd);
			break;
		case ENGINE_FDATASYNC:
			ret = fdatasync(r->fd);
			break;
		case ENGINE_FALLOCATE:
			ret = fallocate(r->fd, r->flags, (off_t)r->off,
					(off_t)r->len);
			break;
		case ENGINE_FTRUNCATE:
			ret = ftruncate(r->fd, (off_t)r->off);
			break;
		case ENGINE_OPEN:
			engine_open_how(&how, r);
			ret = syscall(SYS_openat2, r->dirfd, r->path, &how,
				      sizeof(how));
			break;
		case ENGINE_STATX:
			ret = statx(r->dirfd, r->path, r->flags,
				    STATX_BASIC_STATS, r->stx);
			break;
		case ENGINE_UNLINK:
			ret = unlinkat(r->dirfd, r->path, r->flags);
			break;
		case ENGINE_MKDIR:
			ret = mkdirat(r->dirfd, r->path, r->mode);
			break;
		case ENGINE_RENAME:
			ret = renameat(r->dirfd, r->path, r->dirfd2, r->path2);
			break;
		case ENGINE_LINK:
			ret = linkat(r->dirfd, r->path, r->dirfd2, r->path2,
				     r->flags);
			break;
		case ENGINE_SYMLINK:
			ret = symlinkat(r->path, r->dirfd2, r->path2);
			break;
		default:
			return -EINVAL;
		}
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

/* The syscall of a queued request, and the time it came back. */
static void run_queued(struct engine_req *r)
{
	if (r->op == ENGINE_READ || r->op == ENGINE_WRITE)
		r->res = engine_plain_rw(r);
	else
		r->res = do_call(r);
	r->t_done = r->untimed ? 0 : clock_ns();
}

static int sync_commit(struct engine *eng)
{
	struct sync_engine *e = engine_of(eng, struct sync_engine);

	while (e->nqueued) {
		run_queued(e->q[(e->head + e->ndone) % e->depth]);
		e->nqueued--;
		e->ndone++;
	}
	return 0;
}

/* Nothing is ever in flight: waiting for min means running the queue. */
static int sync_reap(struct engine *eng, unsigned min,
		     struct engine_req **done, unsigned max)
{
	struct sync_engine *e = engine_of(eng, struct sync_engine);
	unsigned n = 0;

	if (e->ndone < min)
		sync_commit(eng);
	while (n < max && e->ndone) {
		done[n++] = e->q[e->head];
		e->head = (e->head + 1) % e->depth;
		e->ndone--;
	}
	return (int)n;
}

static unsigned sync_inflight(struct engine *eng)
{
	struct sync_engine *e = engine_of(eng, struct sync_engine);

	return e->ndone + e->nqueued;
}

/* A lone request: queued, committed and reaped in one, without the queue. */
static int64_t sync_run(struct engine *eng, struct engine_req *r)
{
	(void)eng;
	if ((unsigned)r->op >= ENGINE_NOPS)
		return -EINVAL;
	start(r);
	run_queued(r);
	return r->res;
}

static void sync_cleanup(struct engine *eng)
{
	free(engine_of(eng, struct sync_engine));
}

const struct engine_ops engine_sync = {
	.name = "sync",
	.version = ENGINE_OPS_VERSION,
	.flags = ENGINE_REAP_SUBMITS | ENGINE_LONE_PLAIN,
	.init = sync_init,
	.queue = sync_queue,
	.commit = sync_commit,
	.reap = sync_reap,
	.inflight = sync_inflight,
	.cleanup = sync_cleanup,
	.run = sync_run,
};
