/* expdesign: an entry's screening design made into its configs' options. */
#ifndef FSPLAN_EXPDESIGN_H
#define FSPLAN_EXPDESIGN_H

#include "cells/cell.h"
#include "util/diag.h"

/* Every entry's design and run order in e->designs (d.n 0 for an
 * entry without factors). 0, or -1 with d at the entry's design:. */
int expdesign_make(struct expansion *e, struct diag *d);
void expdesign_free(struct expansion *e);
/* The seed of entry f's run order: the plan's seed mixed with f. */
uint64_t expdesign_seed(const struct plan *p, int f);
/* fc's mkfs, mount, label, design_row and levels for row (0-based, the
 * design's own order) of its entry's design ed, at at. -1 out of
 * memory. */
int expdesign_conf(const struct cell_at *at, struct fsconf *fc,
		   const struct expdesign *ed, int row);

#endif
