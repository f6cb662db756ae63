/* cellopts: -D, --only and --shard, parsed once for check, expand and run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells/cellopts.h"
#include "cells/select.h"

/* A name given twice is an error in every command: which one would win
 * is not something to guess from the order on the line. */
int cellopts_define(const char *arg, void *slot, struct diag *d)
{
	struct cell_opts *o = slot;
	const char *eq = strchr(arg, '=');
	struct plan_define *nd;
	char *name;

	if (!eq || eq == arg)
		return diag_fail(d, DIAG_INPUT, 0, "-D takes name=value, not "
				 "'%s'", arg);
	for (int i = 0; i < o->n_defs; i++)
		if (strlen(o->defs[i].name) == (size_t)(eq - arg) &&
		    !strncmp(o->defs[i].name, arg, eq - arg))
			return diag_fail(d, DIAG_INPUT, 0, "-D %s is given "
					 "twice", o->defs[i].name);
	name = strndup(arg, eq - arg);
	nd = name ? realloc(o->defs, (o->n_defs + 1) * sizeof(*nd)) : NULL;
	if (!nd) {
		free(name);
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	}
	o->defs = nd;
	o->defs[o->n_defs].name = name;
	o->defs[o->n_defs].value = eq + 1;
	o->n_defs++;
	return 0;
}

int cellopts_shard(const char *arg, void *slot, struct diag *d)
{
	struct cell_opts *o = slot;

	if (select_parse_shard(arg, &o->shard_k, &o->shard_n))
		return diag_fail(d, DIAG_INPUT, 0, "--shard takes K/N with 1 <= "
				 "K <= N, not '%s'", arg);
	return 0;
}

void cellopts_release(void *slot)
{
	struct cell_opts *o = slot;

	for (int i = 0; i < o->n_defs; i++)
		free((char *)o->defs[i].name);
	free(o->defs);
	o->defs = NULL;
	o->n_defs = 0;
}
