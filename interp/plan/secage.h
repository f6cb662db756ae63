/* secage: the age: alternatives of a filesystems entry and of the plan. */
#ifndef FSPLAN_SECAGE_H
#define FSPLAN_SECAGE_H

#include "plan/field.h"

/* The refusal of age: for a nodev type (%s): the loader's, by the
 * type's name, and resolve_plan's, by the kernel's list, say the same. */
#define SECAGE_NODEV "%s has no device: nothing to age (leave out 'age' " \
		     "or give this entry 'age: none')"

/* Field handlers: obj is the struct plan_fs (an entry's age:) or the
 * struct plan (the top level's, which entries without their own take). */
int secage_fs(struct loader *L, yaml_node_t *n, void *obj);
int secage_plan(struct loader *L, yaml_node_t *n, void *obj);
/* After an entry is read: without an age: of its own, a copy of the
 * top level's, else the one alternative none; a nodev type refused
 * unless every alternative is none. 0, or -1 with L's diag. */
int secage_take(struct loader *L, struct plan_fs *fs);
/* Whether any of fs's alternatives ages (is not none). */
int secage_any(const struct plan_fs *fs);
void secage_free(struct plan_age *a, int n);

#endif
