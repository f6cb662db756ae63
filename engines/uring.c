/* uring: the io_uring engine, one ring per worker, batched submit and reap. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <liburing.h>

#include "engine_impl.h"
#include "uring_setup.h"
#include "util/clock.h"

/* The biggest ring io_uring_setup accepts (IORING_MAX_ENTRIES). */
#define URING_MAX_ENTRIES	32768u

/*
 * A request the engine holds. user_data points here rather than at the
 * request because an open's struct open_how must stay put until the
 * kernel has read it, and the caller's request has no room for it.
 */
struct slot {
	struct engine_req *r;
	struct slot *next;	/* on the free, ready or retry list */
	struct open_how how;
};

struct slot_list {
	struct slot *head, *tail;
	unsigned n;
};

struct uring_engine {
	struct engine base;
	struct io_uring ring;
	unsigned depth;
	unsigned inflight;	/* queued and not yet handed back by reap */
	bool have_ftruncate;
	bool resubmitted;	/* reap prepared SQEs not yet submitted */
	struct slot *free;
	struct slot_list ready;	/* complete, not yet handed back */
	struct slot_list retry;	/* to resubmit when an SQE frees up */
	struct slot slots[];
};

static void list_add(struct slot_list *l, struct slot *s)
{
	s->next = NULL;
	if (l->tail)
		l->tail->next = s;
	else
		l->head = s;
	l->tail = s;
	l->n++;
}

static struct slot *list_pop(struct slot_list *l)
{
	struct slot *s = l->head;

	if (s) {
		l->head = s->next;
		if (!l->head)
			l->tail = NULL;
		l->n--;
	}
	return s;
}

/*
 * The ring is made here and nowhere else: init runs in the worker thread
 * after the privilege drop, so every request carries the worker's
 * credentials. No SQPOLL and no registered personality — both would keep
 * the credentials of whoever set them up.
 */
static int uring_init(struct engine **out, unsigned depth, struct diag *d)
{
	struct uring_engine *e;
	unsigned entries = 8, i;
	int ret;

	*out = NULL;
	ret = engine_alloc(&e, &engine_uring, sizeof(*e), sizeof(e->slots[0]),
			   depth, URING_MAX_ENTRIES, d);
	if (ret)
		return ret;
	while (entries < depth)
		entries <<= 1;
	ret = uring_setup_ring(&e->ring, entries, &e->have_ftruncate, d);
	if (ret) {
		free(e);
		return ret;
	}
	e->depth = depth;
	for (i = depth; i-- > 0;) {
		e->slots[i].next = e->free;
		e->free = &e->slots[i];
	}
	*out = &e->base;
	return 0;
}

/* Fill sqe for the request in s; a read or write from where it got to. */
static void prep(struct slot *s, struct io_uring_sqe *sqe)
{
	struct engine_req *r = s->r;
	/* only reads and writes have a buffer (others' is NULL: no
	 * arithmetic on it) */
	char *buf = r->buf ? (char *)r->buf + r->done : NULL;

	switch (r->op) {
	case ENGINE_READ:
		io_uring_prep_read(sqe, r->fd, buf, engine_rw_left(r),
				   r->off + r->done);
		break;
	case ENGINE_WRITE:
		io_uring_prep_write(sqe, r->fd, buf, engine_rw_left(r),
				    r->off + r->done);
		break;
	case ENGINE_FSYNC:
		io_uring_prep_fsync(sqe, r->fd, 0);
		break;
	case ENGINE_FDATASYNC:
		io_uring_prep_fsync(sqe, r->fd, IORING_FSYNC_DATASYNC);
		break;
	case ENGINE_FALLOCATE:
		io_uring_prep_fallocate(sqe, r->fd, r->flags, (off_t)r->off,
					(off_t)r->len);
		break;
	case ENGINE_FTRUNCATE:
		io_uring_prep_rw(URING_OP_FTRUNCATE, sqe, r->fd, NULL, 0,
				 r->off);
		break;
	case ENGINE_OPEN:
		engine_open_how(&s->how, r);
		io_uring_prep_openat2(sqe, r->dirfd, r->path, &s->how);
		break;
	case ENGINE_CLOSE:
		io_uring_prep_close(sqe, r->fd);
		break;
	case ENGINE_STATX:
		io_uring_prep_statx(sqe, r->dirfd, r->path, r->flags,
				    STATX_BASIC_STATS, r->stx);
		break;
	case ENGINE_UNLINK:
		io_uring_prep_unlinkat(sqe, r->dirfd, r->path, r->flags);
		break;
	case ENGINE_MKDIR:
		io_uring_prep_mkdirat(sqe, r->dirfd, r->path, r->mode);
		break;
	case ENGINE_RENAME:
		io_uring_prep_renameat(sqe, r->dirfd, r->path, r->dirfd2,
				       r->path2, 0);
		break;
	case ENGINE_LINK:
		io_uring_prep_linkat(sqe, r->dirfd, r->path, r->dirfd2,
				     r->path2, r->flags);
		break;
	case ENGINE_SYMLINK:
		io_uring_prep_symlinkat(sqe, r->path, r->dirfd2, r->path2);
		break;
	case ENGINE_NOPS:
		break;
	}
	io_uring_sqe_set_data(sqe, s);
}

/* Give r the first free slot (the caller knows there is one), in flight
 * from the start of its transfer; sqe: whether the ring takes it. */
static inline struct slot *slot_take(struct uring_engine *e, struct engine_req *r,
				     bool sqe)
{
	struct slot *s = e->free;

	e->free = s->next;
	s->r = r;
	r->res = 0;
	r->done = 0;
	r->t_done = 0;
	r->ring = sqe;
	e->inflight++;
	return s;
}

static int uring_queue(struct engine *eng, struct engine_req *r)
{
	struct uring_engine *e = engine_of(eng, struct uring_engine);
	struct io_uring_sqe *sqe = NULL;
	struct slot *s;

	if ((unsigned)r->op >= ENGINE_NOPS)
		return -EINVAL;
	if (e->inflight >= e->depth)
		return -EBUSY;
	if (r->op != ENGINE_FTRUNCATE || e->have_ftruncate) {
		sqe = io_uring_get_sqe(&e->ring);
		if (!sqe)
			return -EBUSY;
	}
	s = slot_take(e, r, sqe != NULL);
	r->t_submit = r->t_now ? r->t_now : clock_ns();
	if (!sqe) {
		/* No ring op for it: done now, handed back by the next reap. */
		r->res = ftruncate(r->fd, (off_t)r->off) ? -errno : 0;
		r->t_done = clock_ns();
		list_add(&e->ready, s);
		return 0;
	}
	prep(s, sqe);
	return 0;
}

static int uring_commit(struct engine *eng)
{
	struct uring_engine *e = engine_of(eng, struct uring_engine);
	int ret = io_uring_submit(&e->ring);

	/* Whatever a busy kernel left in the SQ, the next reap submits. */
	if (ret < 0 && ret != -EAGAIN && ret != -EBUSY && ret != -EINTR)
		return ret;
	if (ret >= 0)
		e->resubmitted = false;
	return 0;
}

/* Send s to the kernel again for the rest of its transfer. */
static void resubmit(struct uring_engine *e, struct slot *s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);

	if (!sqe) {
		list_add(&e->retry, s);
		return;
	}
	prep(s, sqe);
	e->resubmitted = true;
}

static void retry_waiting(struct uring_engine *e)
{
	struct io_uring_sqe *sqe;

	while (e->retry.head && (sqe = io_uring_get_sqe(&e->ring))) {
		prep(list_pop(&e->retry), sqe);
		e->resubmitted = true;
	}
}

/* Account one completion of s: true if its request is finished. *now
 * is the clock, read once for the CQEs one drain finds (0: not yet). */
static bool complete(struct uring_engine *e, struct slot *s, int res,
		     uint64_t *now)
{
	struct engine_req *r = s->r;

	if (r->op == ENGINE_READ || r->op == ENGINE_WRITE) {
		if (res == -EAGAIN || res == -EINTR) {
			resubmit(e, s);
			return false;
		}
		if (res > 0) {
			r->done += (uint64_t)res;
			if (r->done < r->len) {
				resubmit(e, s);
				return false;
			}
		}
		/* Complete, at EOF (0), or failed. */
		r->res = res < 0 ? res : (int64_t)r->done;
	} else {
		r->res = res;
	}
	if (!*now)
		*now = clock_ns();
	r->t_done = *now;
	return true;
}

/* Hand back the request of a finished slot and free the slot. */
static struct engine_req *release(struct uring_engine *e, struct slot *s)
{
	struct engine_req *r = s->r;

	s->r = NULL;
	s->next = e->free;
	e->free = s;
	e->inflight--;
	return r;
}

/*
 * Take the CQEs there are, while there is room in done[]; the rest stay in
 * the ring for the next reap. One head update for the whole batch.
 */
static unsigned drain(struct uring_engine *e, struct engine_req **done,
		      unsigned max)
{
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0, n = 0;
	uint64_t now = 0;

	io_uring_for_each_cqe(&e->ring, head, cqe) {
		struct slot *s = io_uring_cqe_get_data(cqe);

		if (n == max)
			break;
		seen++;
		if (complete(e, s, cqe->res, &now))
			done[n++] = release(e, s);
	}
	io_uring_cq_advance(&e->ring, seen);
	return n;
}

static int uring_reap(struct engine *eng, unsigned min,
		      struct engine_req **done, unsigned max)
{
	struct uring_engine *e = engine_of(eng, struct uring_engine);
	struct io_uring_cqe *cqe;
	unsigned n = 0, want, kernel;
	bool fresh;
	int ret;

	want = min < max ? min : max;
	if (want > e->inflight)
		want = e->inflight;
	/* All in flight still in the SQ, unsubmitted (a lone op's engine_do):
	 * none can have a CQE yet, so the first look is the syscall's. */
	fresh = want && !e->ready.head && !e->retry.head &&
		io_uring_sq_ready(&e->ring) == e->inflight;
	for (;;) {
		if (!fresh) {
			while (n < max && e->ready.head)
				done[n++] = release(e, list_pop(&e->ready));
			retry_waiting(e);
			n += drain(e, done + n, max - n);
			if (n >= want)
				break;
		}
		fresh = false;
		/* Each request in the kernel still owes at least one CQE. */
		kernel = e->inflight - e->ready.n - e->retry.n;
		if (!kernel)
			break;
		if (kernel > want - n)
			kernel = want - n;
		if (io_uring_sq_ready(&e->ring)) {
			ret = io_uring_submit_and_wait(&e->ring, kernel);
			if (ret >= 0)
				e->resubmitted = false;
		} else {
			ret = io_uring_wait_cqe_nr(&e->ring, &cqe, kernel);
		}
		/* Hand back what is done; the error comes again next time. */
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN &&
		    ret != -EBUSY && ret != -ETIME)
			return n ? (int)n : ret;
	}
	/* The rest of a short transfer goes out now, even without waiting. */
	if (e->resubmitted && io_uring_submit(&e->ring) >= 0)
		e->resubmitted = false;
	return (int)n;
}

static unsigned uring_inflight(struct engine *eng)
{
	struct uring_engine *e = engine_of(eng, struct uring_engine);

	return e->inflight;
}

/* Whether a lone read's or write's first CQE ends it as complete() would:
 * all of it moved, EOF, or a failure that is not retried. */
static bool ends_at_once(const struct engine_req *r, int res)
{
	if (res < 0)
		return res != -EAGAIN && res != -EINTR;
	return !res || (uint64_t)res == r->len;
}

/*
 * A lone op, as the limit's loop takes it: one SQE, one submit-and-wait,
 * its CQE. The request is queued as any other (a slot, in flight), so
 * whatever does not end at the first CQE — not back yet, a short
 * transfer, EAGAIN, a failed submit — is the general reap's to finish,
 * from the state that reap expects. Other ops go that way from the start.
 */
static int64_t uring_run(struct engine *eng, struct engine_req *r)
{
	struct uring_engine *e = engine_of(eng, struct uring_engine);
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct slot *s;
	int ret;

	if ((r->op != ENGINE_READ && r->op != ENGINE_WRITE) ||
	    !(sqe = io_uring_get_sqe(&e->ring))) {
		ret = uring_queue(eng, r);
		if (ret)
			return ret;
		goto reap;
	}
	/* nothing is in flight, so a slot is free */
	s = slot_take(e, r, true);
	prep(s, sqe);
	r->t_submit = r->t_now ? r->t_now : clock_ns();
	if (io_uring_submit_and_wait(&e->ring, 1) >= 0) {
		e->resubmitted = false;
		if (!io_uring_peek_cqe(&e->ring, &cqe) &&
		    (s = io_uring_cqe_get_data(cqe)) && s->r == r &&
		    ends_at_once(r, cqe->res)) {
			r->done = cqe->res > 0 ? (uint64_t)cqe->res : 0;
			r->res = cqe->res < 0 ? cqe->res : (int64_t)r->done;
			r->t_done = clock_ns();
			io_uring_cqe_seen(&e->ring, cqe);
			release(e, s);
			return r->res;
		}
	}
reap:
	return engine_reap_one(uring_reap, eng, r);
}

/*
 * Requests still in the kernel may yet write into the caller's buffers,
 * and closing the ring does not wait for them: cancel them all and wait
 * until each has posted its CQE, so nothing lands after cleanup returns.
 */
static void cancel_all(struct uring_engine *e)
{
	unsigned left = e->inflight - e->ready.n - e->retry.n;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int ret;

	if (!left)
		return;
	sqe = io_uring_get_sqe(&e->ring);
	if (!sqe) {
		io_uring_submit(&e->ring);
		sqe = io_uring_get_sqe(&e->ring);
	}
	if (sqe) {
		io_uring_prep_cancel(sqe, NULL, IORING_ASYNC_CANCEL_ANY);
		io_uring_sqe_set_data(sqe, NULL);
	}
	io_uring_submit(&e->ring);
	while (left) {
		ret = io_uring_wait_cqe(&e->ring, &cqe);
		if (ret == -EINTR)
			continue;
		if (ret < 0)
			break;
		if (io_uring_cqe_get_data(cqe))
			left--;
		io_uring_cqe_seen(&e->ring, cqe);
	}
}

static void uring_cleanup(struct engine *eng)
{
	struct uring_engine *e = engine_of(eng, struct uring_engine);

	if (!e)
		return;
	cancel_all(e);
	io_uring_queue_exit(&e->ring);
	free(e);
}

const struct engine_ops engine_uring = {
	.name = "uring",
	.version = ENGINE_OPS_VERSION,
	.flags = ENGINE_ASYNC | ENGINE_REAP_SUBMITS,
	.init = uring_init,
	.queue = uring_queue,
	.commit = uring_commit,
	.reap = uring_reap,
	.inflight = uring_inflight,
	.cleanup = uring_cleanup,
	.run = uring_run,
};
