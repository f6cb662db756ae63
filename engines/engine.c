/* engine: the engine contract checked, finding an engine by name, and one-shot requests. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_impl.h"

static const struct engine_ops *const builtin[] = {
	&engine_auto,
	&engine_uring,
	&engine_sync,
};

#define MAX_REGISTERED 8

static const struct engine_ops *registered[MAX_REGISTERED];
static size_t n_registered;

int engine_check(const struct engine_ops *ops, char *why, size_t len)
{
	static const char *const hooks[] = { "init", "queue", "commit",
					     "reap", "inflight", "cleanup" };
	const char *missing = NULL;
	int present[6];

	if (!ops || !ops->name || !*ops->name) {
		snprintf(why, len, "an engine without a name");
		return -1;
	}
	if (ops->version != ENGINE_OPS_VERSION) {
		snprintf(why, len, "engine '%s' is written for version %d of "
			 "the engine contract, this fsplan has version %d",
			 ops->name, ops->version, ENGINE_OPS_VERSION);
		return -1;
	}
	present[0] = ops->init != NULL;
	present[1] = ops->queue != NULL;
	present[2] = ops->commit != NULL;
	present[3] = ops->reap != NULL;
	present[4] = ops->inflight != NULL;
	present[5] = ops->cleanup != NULL;
	for (size_t i = 0; i < 6 && !missing; i++)
		if (!present[i])
			missing = hooks[i];
	if (missing) {
		snprintf(why, len, "engine '%s' has no %s hook (every hook of "
			 "struct engine_ops is required)", ops->name, missing);
		return -1;
	}
	return 0;
}

static const struct engine_ops *lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (!strcmp(builtin[i]->name, name))
			return builtin[i];
	for (size_t i = 0; i < n_registered; i++)
		if (!strcmp(registered[i]->name, name))
			return registered[i];
	return NULL;
}

int engine_register(const struct engine_ops *ops, char *why, size_t len)
{
	if (engine_check(ops, why, len))
		return -1;
	if (lookup(ops->name)) {
		snprintf(why, len, "engine '%s' is already registered",
			 ops->name);
		return -1;
	}
	if (n_registered == MAX_REGISTERED) {
		snprintf(why, len, "engine '%s': no room for more than %d "
			 "registered engines", ops->name, MAX_REGISTERED);
		return -1;
	}
	registered[n_registered++] = ops;
	return 0;
}

const struct engine_ops *engine_find(const char *name)
{
	const struct engine_ops *ops = name ? lookup(name) : NULL;
	char why[256];

	/* registered ones were checked on the way in; built-ins here */
	if (ops && engine_check(ops, why, sizeof(why))) {
		fprintf(stderr, "fsplan: %s\n", why);
		return NULL;
	}
	return ops;
}

int engine_alloc(void *out, size_t head, size_t slot, unsigned depth,
		 unsigned max, char *why, size_t whylen)
{
	void *p;

	*(void **)out = NULL;
	if (!depth || depth > max) {
		if (why && whylen)
			snprintf(why, whylen, "depth %u is out of range "
				 "(1..%u)", depth, max);
		return -EINVAL;
	}
	p = calloc(1, head + (size_t)depth * slot);
	if (!p) {
		if (why && whylen)
			snprintf(why, whylen, "out of memory for %u requests",
				 depth);
		return -ENOMEM;
	}
	*(void **)out = p;
	return 0;
}

int engine_known(const char *name, char *names, size_t len)
{
	size_t nb = sizeof(builtin) / sizeof(builtin[0]);
	size_t n = nb + n_registered, at = 0;

	for (size_t i = 0; names && len && i < n; i++) {
		const char *sep = i == 0 ? "" : i + 1 < n ? ", " : " or ";
		const char *nm = i < nb ? builtin[i]->name :
				 registered[i - nb]->name;
		int w = snprintf(names + at, len - at, "%s%s", sep, nm);

		if (w < 0 || (size_t)w >= len - at)
			break;	/* cut at the caller's length */
		at += (size_t)w;
	}
	if (names && len && !n)
		names[0] = '\0';
	return engine_find(name) != NULL;
}

/*
 * Only on an idle engine: reap(1, 1) must hand back r and nothing else, or
 * a request of the caller's would be lost in here.
 */
int64_t engine_do(const struct engine_ops *ops, struct engine *e,
		  struct engine_req *r)
{
	int ret;

	if (ops->inflight(e))
		return r->res = -EBUSY;
	if (ops->run)
		return r->res = ops->run(e, r);
	ret = ops->queue(e, r);
	if (ret)
		return r->res = ret;
	/* one syscall submits and waits, as the limit's loop does: an op
	 * the kernel completes inline (a cached read) is back when it
	 * returns, and one that is not (O_DIRECT) needs no second one */
	if (!(ops->flags & ENGINE_REAP_SUBMITS)) {
		ret = ops->commit(e);
		if (ret < 0)
			return r->res = ret;
	}
	return r->res = engine_reap_one(ops->reap, e, r);
}

