/* engine_impl: what the engines share and their callers need not see. */
#ifndef FSPLAN_ENGINE_IMPL_H
#define FSPLAN_ENGINE_IMPL_H

#include "engine.h"

/* The engine's own struct (type) that the common header e begins: its
 * first member is `struct engine base`, so the cast is exact (and NULL
 * stays NULL for a cleanup of nothing). */
#define engine_of(e, type)	((type *)(void *)(e))

/* The most one read or write moves (the kernel's MAX_RW_COUNT). */
#define ENGINE_MAX_RW	0x7ffff000u

/*
 * The one place the open policy lives, so both engines open alike: never
 * above dirfd, no /proc magic links, no fd leaking into exec'd programs.
 * openat2 refuses a mode without O_CREAT or O_TMPFILE, so it is dropped.
 */
static inline void engine_open_how(struct open_how *how,
				   const struct engine_req *r)
{
	int creat = (r->flags & O_CREAT) ||
		    (r->flags & O_TMPFILE) == O_TMPFILE;

	how->flags = (unsigned int)(r->flags | O_CLOEXEC);
	how->mode = creat ? (r->mode & 07777) : 0;
	how->resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
}

/*
 * init's allocation: *out zeroed, head bytes (a struct that begins with
 * struct engine, whose ops it sets) then depth slots of slot bytes, for a
 * depth from 1 to max. 0, -EINVAL or -ENOMEM with d (may be NULL) saying
 * which.
 */
int engine_alloc(void *out, const struct engine_ops *ops, size_t head,
		 size_t slot, unsigned depth, unsigned max, struct diag *d);

/* The part of a read or write still to move, at most ENGINE_MAX_RW. */
static inline unsigned int engine_rw_left(const struct engine_req *r)
{
	uint64_t left = r->len - r->done;

	return left > ENGINE_MAX_RW ? ENGINE_MAX_RW : (unsigned int)left;
}

/*
 * Reap until r is handed back, on an engine that holds r alone (reap(1, 1)
 * can return nothing else). Returns r's res, or -errno from the reap.
 */
static inline int64_t engine_reap_one(int (*reap)(struct engine *,
						  unsigned,
						  struct engine_req **,
						  unsigned),
				      struct engine *e, struct engine_req *r)
{
	struct engine_req *got = NULL;
	int ret;

	while (!got) {
		ret = reap(e, 1, &got, 1);
		if (ret < 0)
			return ret;
	}
	return r->res;
}

#endif
