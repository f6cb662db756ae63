/* secmatrix: the plan's matrix axes and exclude rules. */
#ifndef FSPLAN_SECMATRIX_H
#define FSPLAN_SECMATRIX_H

#include "plan/field.h"

/* A matrix: the plan's (ph NULL) or a phase's, whose axes must not
 * shadow the plan's. */
int secmatrix_axes(struct loader *L, yaml_node_t *n, const char *key,
		   struct plan_axis **out, int *n_out,
		   const struct plan_phase *ph);
/* Field handler for the plan's table; obj is the struct plan. Runs after
 * filesystems, matrix and phases: rules name what they hold. */
int secmatrix_excludes(struct loader *L, yaml_node_t *n, void *obj);

#endif
