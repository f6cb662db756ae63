/* secphase: the plan's phases section. */
#ifndef FSPLAN_SECPHASE_H
#define FSPLAN_SECPHASE_H

#include "plan/field.h"

/* Field handler for the plan's table; obj is the struct plan. */
int secphase_phases(struct loader *L, yaml_node_t *n, void *obj);

#endif
