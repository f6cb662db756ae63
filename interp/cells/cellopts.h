/* cellopts: -D, --only and --shard as util/opts entries. */
#ifndef FSPLAN_CELLOPTS_H
#define FSPLAN_CELLOPTS_H

#include <stddef.h>

#include "plan/plan.h"
#include "util/opts.h"

struct cell_opts {
	struct plan_define *defs;	/* -D name=value, names unique */
	int n_defs;
	struct opt_list only;		/* --only FILTER, in order */
	int shard_k, shard_n;		/* --shard K/N; 0/0 without */
};

/* For OPT_CALL entries whose slot is a struct cell_opts. */
int cellopts_define(const char *arg, void *slot, struct diag *d);
int cellopts_shard(const char *arg, void *slot, struct diag *d);
void cellopts_release(void *slot);

/* The -D entry, for a command that takes no filters (check). */
#define CELLOPTS_DEFINE(type, member) \
	{ "define", 'D', OPT_CALL, offsetof(type, member), \
	  cellopts_define, 1, cellopts_release }

/* -D, --only and --shard, for a command's table: member is its struct
 * cell_opts inside type. */
#define CELLOPTS(type, member) \
	CELLOPTS_DEFINE(type, member), \
	OPT_LIST_OF("only", 0, type, member.only), \
	OPT_CALL_OF("shard", 0, type, member, cellopts_shard)

#endif
