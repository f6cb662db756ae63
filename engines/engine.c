/* engine: the contract checked, engines found by name, one-shot requests. */
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

int engine_check(const struct engine_ops *ops, struct diag *d)
{
	static const char *const hooks[] = { "init", "queue", "commit",
					     "reap", "inflight", "cleanup" };
	const char *missing = NULL;
	int present[6];

	if (!ops || !ops->name || !*ops->name)
		return diag_fail(d, DIAG_INPUT, 0, "an engine without a name");
	if (ops->version != ENGINE_OPS_VERSION)
		return diag_fail(d, DIAG_INPUT, 0, "engine '%s' is written for "
				 "version %d of the engine contract, this "
				 "fsplan has version %d", ops->name,
				 ops->version, ENGINE_OPS_VERSION);
	present[0] = ops->init != NULL;
	present[1] = ops->queue != NULL;
	present[2] = ops->commit != NULL;
	present[3] = ops->reap != NULL;
	present[4] = ops->inflight != NULL;
	present[5] = ops->cleanup != NULL;
	for (size_t i = 0; i < 6 && !missing; i++)
		if (!present[i])
			missing = hooks[i];
	if (missing)
		return diag_fail(d, DIAG_INPUT, 0, "engine '%s' has no %s hook "
				 "(every hook of struct engine_ops is "
				 "required)", ops->name, missing);
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

int engine_register(const struct engine_ops *ops, struct diag *d)
{
	if (engine_check(ops, d))
		return -1;
	if (lookup(ops->name))
		return diag_fail(d, DIAG_INPUT, 0, "engine '%s' is already "
				 "registered", ops->name);
	if (n_registered == MAX_REGISTERED)
		return diag_fail(d, DIAG_LIMIT, 0, "engine '%s': no room for "
				 "more than %d registered engines", ops->name,
				 MAX_REGISTERED);
	registered[n_registered++] = ops;
	return 0;
}

const struct engine_ops *engine_find(const char *name)
{
	const struct engine_ops *ops = name ? lookup(name) : NULL;
	struct diag d = { 0 };

	/* registered ones were checked on the way in; built-ins here. A
	 * built-in that breaks the contract is fsplan's own bug, found by
	 * whoever looks it up first: said where it is met, as an assert
	 * would, rather than passed up as a missing engine */
	if (ops && engine_check(ops, &d)) {
		fprintf(stderr, "fsplan: %s\n", d.msg);
		diag_release(&d);
		return NULL;
	}
	return ops;
}

int engine_alloc(void *out, const struct engine_ops *ops, size_t head,
		 size_t slot, unsigned depth, unsigned max, struct diag *d)
{
	struct engine *p;

	*(void **)out = NULL;
	if (!depth || depth > max) {
		diag_fail(d, DIAG_INPUT, 0, "depth %u is out of range (1..%u)",
			  depth, max);
		return -EINVAL;
	}
	p = calloc(1, head + (size_t)depth * slot);
	if (!p) {
		diag_fail(d, DIAG_SYSTEM, 0, "out of memory for %u requests",
			  depth);
		return -ENOMEM;
	}
	p->ops = ops;
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

