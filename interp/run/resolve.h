/* resolve: a loaded plan checked against this machine — its users, kernel and
 * files. */
#ifndef FSPLAN_RESOLVE_H
#define FSPLAN_RESOLVE_H

#include "cells/expand.h"
#include "plan/plan.h"

/*
 * What the pure loader (plan/) cannot know: the plan's directory made
 * absolute, runas looked up, each filesystem type /proc/filesystems
 * marks nodev (refusing mkfs for it), each phase's module found and made
 * absolute (module_path), each parser found in the library. Call it
 * right after plan_load. Returns 0, or -1 with d at the place in the
 * plan, like the loader's own errors.
 */
int resolve_plan(struct plan *p, struct diag *d);

/*
 * After expansion, what ${...} (-D, a matrix axis) made of each config's
 * mkfs and mount options, and every path in them that leads to a block
 * device (fs_device_word): any word that names a device is refused, -1
 * with d at the options' place in the plan. 0 when none does.
 */
int resolve_devices(const struct expansion *e, struct diag *d);

#endif
