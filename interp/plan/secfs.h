/* secfs: the plan's target and filesystems sections. */
#ifndef FSPLAN_SECFS_H
#define FSPLAN_SECFS_H

#include "plan/field.h"

/* Field handlers for the plan's table; obj is the struct plan. */
int secfs_target(struct loader *L, yaml_node_t *n, void *obj);
int secfs_filesystems(struct loader *L, yaml_node_t *n, void *obj);
/* target.dir without filesystems: the one filesystem "dir". */
int secfs_dir_fs(struct loader *L);

#endif
