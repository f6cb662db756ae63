/* expand: a plan's matrix unrolled into filesystem configs and cells. */
#ifndef FSPLAN_EXPAND_H
#define FSPLAN_EXPAND_H

#include <stddef.h>

#include "cells/cell.h"
#include "util/diag.h"
#include "plan/plan.h"

/*
 * Unroll p in the order of DESIGN.md section 2, drop excluded cells and
 * configs left with none, give every cell its id, and check what only
 * expansion can show (duplicate configs, values made by ${...}).
 */
int expand_plan(const struct plan *p, struct expansion **out,
		struct diag *d);
void expansion_free(struct expansion *e);

/* order: rounds. How many rounds (the highest repetition of a cell),
 * and round's j-th config (j from 0): round k starts at the k-th. */
int expansion_rounds(const struct expansion *e);
struct fsconf *expansion_round_conf(const struct expansion *e, int round,
				    int j);
/* A warning on stderr for every exclude rule, or value of one, that
 * excludes nothing (a typo such as 'noatme'). Returns how many. */
int expand_warn(const struct expansion *e);

#endif
