/* plan: a YAML test plan (DESIGN.md section 2) loaded, typed and checked. */
#ifndef FSPLAN_PLAN_H
#define FSPLAN_PLAN_H

#include "plan/types.h"

/*
 * Load and check a plan from its text alone: nothing here reads the host
 * (users, /proc, the library), so the loader is fuzzed whole. On error
 * returns -1 with d naming the place; a plan that loads is ready to
 * expand: every ${name} it holds resolves. run/resolve.h checks it
 * against this machine before it runs.
 */
int plan_load(struct plan **out, const char *path,
	      const struct plan_define *defs, int n_defs, struct diag *d);
/* The same from text in memory (tests, fuzzing); path names it. */
int plan_load_text(struct plan **out, const char *path, const char *text,
		   size_t len, const struct plan_define *defs, int n_defs,
		   struct diag *d);
void plan_free(struct plan *p);

const char *plan_param(const struct plan *p, const char *name);

#endif
