/* secfs: the plan's target and filesystems sections. */
#ifndef FSPLAN_SECFS_H
#define FSPLAN_SECFS_H

#include "plan/field.h"

/* Field handlers for the plan's table; obj is the struct plan. */
int secfs_target(struct loader *L, yaml_node_t *n, void *obj);
int secfs_filesystems(struct loader *L, yaml_node_t *n, void *obj);
/* A device named by a word of options v (key mkfs or mount): -1 with
 * the error at the word. */
int secfs_no_device(struct loader *L, const char *key,
		    const struct pstr *v, int n);
/* target.dir without filesystems: the one filesystem "dir". */
int secfs_dir_fs(struct loader *L);

#endif
