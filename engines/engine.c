/* engine: finding an engine by name, one-shot requests, and the clock. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "engine.h"

static const struct engine_ops *const engines[] = {
	&engine_uring,
	&engine_sync,
};

const struct engine_ops *engine_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!strcmp(engines[i]->name, name))
			return engines[i];
	return NULL;
}

/*
 * Only on an idle engine: reap(1, 1) must hand back r and nothing else, or
 * a request of the caller's would be lost in here.
 */
int64_t engine_do(const struct engine_ops *ops, struct engine *e,
		  struct engine_req *r)
{
	struct engine_req *got = NULL;
	int ret;

	if (ops->inflight(e))
		return r->res = -EBUSY;
	ret = ops->queue(e, r);
	if (ret)
		return r->res = ret;
	/* submit first: an op the kernel completes inline (a cached read)
	 * is then reaped from the CQ without a second, waiting syscall */
	ret = ops->commit(e);
	if (ret < 0)
		return r->res = ret;
	while (!got) {
		ret = ops->reap(e, 1, &got, 1);
		if (ret < 0)
			return r->res = ret;
	}
	return r->res;
}

