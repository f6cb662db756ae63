/* coord: the names that pick out a cell: fixed coordinates, plan axes. */
#ifndef FSPLAN_COORD_H
#define FSPLAN_COORD_H

#include "plan/types.h"

/* Whether name is a fixed cell coordinate (type, label, ... rep). */
int coord_reserved(const char *name);
/* The coordinates a filter or exclude may name: the fixed ones, then
 * every axis (top-level, then each phase's), then every screening
 * factor's name; at most max. */
int coord_names(const struct plan *p, const char **names, int max);
/* Whether name is a factor of one of the first `before` filesystems
 * entries (p->n_fs: any); its cells have the values "+" and "-". */
int coord_factor(const struct plan *p, const char *name, int before);

#endif
