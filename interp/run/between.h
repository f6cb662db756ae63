/* between: the actions between phase runs: sync, drop caches, remount. */
#ifndef FSPLAN_BETWEEN_H
#define FSPLAN_BETWEEN_H

#include "run/conf.h"
#include "util/diag.h"

/* The between actions (sync, drop_caches, remount) of b on l's
 * filesystems before a phase run. 0, or -1 with d. */
int between_run(struct live *l, const struct between *b, struct diag *d);

#endif
