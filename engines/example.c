/* example: the engine to copy, a null engine: every op done at once. */
/*
 * How to add an engine: copy this file to engines/<name>.c, rename the
 * hooks, the struct (struct <name>_engine) and the table (engine_<name>,
 * .name = "<name>"), declare it extern in engine.h and add it to
 * builtin[] in engine.c: one file plus a line.
 * The Makefile builds every .c file in engines/; engine_find then finds
 * it, and the plan's checks of 'engine:' accept it and name it in their
 * messages.
 *
 * This one is not in builtin[]: it does no I/O, so a plan cannot pick it
 * and pass its figures off as a filesystem's. Tests register it with
 * engine_register(&engine_example, ...) to measure fsplan's own overhead
 * per op and to check the contract.
 *
 * Every hook returns 0 or -errno (never -1 with errno set); init's d,
 * when given, says in a sentence what went wrong (util/diag.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_impl.h"
#include "util/clock.h"

/* One per worker thread (engines are never shared between threads):
 * requests in a ring of depth slots, oldest first, all of them done.
 * It begins with the common header; every hook gets this struct back
 * from the struct engine it is given with engine_of. */
struct example_engine {
	struct engine base;
	unsigned depth;
	unsigned head, n;
	struct engine_req *q[];
};

/*
 * init: make an engine that holds up to depth requests. Fail with -EINVAL
 * for a depth of 0 and -ENOMEM when out of memory, saying why; *out is
 * NULL on failure. Anything per thread (a ring, a file) is made here, in
 * the worker, after the privilege drop.
 */
static int example_init(struct engine **out, unsigned depth,
			struct diag *d)
{
	struct example_engine *e;
	int ret;

	/* engine_alloc: the depth checked, the struct and its slots */
	*out = NULL;
	ret = engine_alloc(&e, &engine_example, sizeof(*e), sizeof(e->q[0]),
			   depth, 1u << 20, d);
	if (ret)
		return ret;
	e->depth = depth;
	*out = &e->base;
	return 0;
}

/*
 * What the op would return, without doing it: a read or write its full
 * length, everything else 0. An open hands back a real fd (a copy of the
 * directory's) and a close closes it, so the caller's fds stay its own.
 */
static int64_t example_result(struct engine_req *r)
{
	int fd;

	switch (r->op) {
	case ENGINE_READ:
	case ENGINE_WRITE:
		r->done = r->len;
		return (int64_t)r->len;
	case ENGINE_OPEN:
		fd = fcntl(r->dirfd, F_DUPFD_CLOEXEC, 0);
		return fd < 0 ? -errno : fd;
	case ENGINE_CLOSE:
		return close(r->fd) ? -errno : 0;
	case ENGINE_STATX:
		memset(r->stx, 0, sizeof(*r->stx));
		return 0;
	default:
		return 0;
	}
}

/*
 * queue: take a request, -EBUSY when depth are already held, -EINVAL for
 * an op it does not know. Set t_submit (to t_now when the caller gave
 * one); res, done and t_done start at 0. The request is the caller's
 * until reap hands it back.
 */
static int example_queue(struct engine *eng, struct engine_req *r)
{
	struct example_engine *e = engine_of(eng, struct example_engine);

	if ((unsigned)r->op >= ENGINE_NOPS)
		return -EINVAL;
	if (e->n == e->depth)
		return -EBUSY;
	r->done = 0;
	r->ring = 0;
	r->t_submit = r->t_now ? r->t_now : clock_ns();
	r->res = example_result(r);
	r->t_done = clock_ns();
	e->q[(e->head + e->n++) % e->depth] = r;
	return 0;
}

/* commit: submit what is queued; 0 or -errno. Nothing to submit here. */
static int example_commit(struct engine *eng)
{
	(void)eng;
	return 0;
}

/*
 * reap: hand back up to max completed requests in done[], waiting until
 * min are (0: do not wait), with res and t_done set. A short transfer is
 * finished before it is handed back, -EAGAIN requeued. Returns the count
 * or -errno. Here every queued request is already complete.
 */
static int example_reap(struct engine *eng, unsigned min,
			struct engine_req **done, unsigned max)
{
	struct example_engine *e = engine_of(eng, struct example_engine);
	unsigned n = 0;

	(void)min;
	while (n < max && e->n) {
		done[n++] = e->q[e->head];
		e->head = (e->head + 1) % e->depth;
		e->n--;
	}
	return (int)n;
}

/* inflight: how many requests are queued or not yet reaped. */
static unsigned example_inflight(struct engine *eng)
{
	return engine_of(eng, struct example_engine)->n;
}

/* cleanup: free what init made (called with nothing in flight). */
static void example_cleanup(struct engine *eng)
{
	free(engine_of(eng, struct example_engine));
}

/* version: the contract this table is written for, checked at
 * registration; run is optional and left out. */
const struct engine_ops engine_example = {
	.name = "example",
	.version = ENGINE_OPS_VERSION,
	.flags = 0,
	.init = example_init,
	.queue = example_queue,
	.commit = example_commit,
	.reap = example_reap,
	.inflight = example_inflight,
	.cleanup = example_cleanup,
};
