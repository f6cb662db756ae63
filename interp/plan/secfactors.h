/* secfactors: a filesystems entry's screening factors and design. */
#ifndef FSPLAN_SECFACTORS_H
#define FSPLAN_SECFACTORS_H

#include "plan/field.h"

/* Field handlers of a filesystems entry; obj is the struct plan_fs. */
int secfactors_factors(struct loader *L, yaml_node_t *n, void *obj);
int secfactors_design(struct loader *L, yaml_node_t *n, void *obj);
/* A design's name in plans and the manifest: "full", ... ("none"). */
const char *secfactors_kind_name(enum design_kind k);
/* An entry's factors and design together, once its keys are read. */
int secfactors_check(struct loader *L, struct plan_fs *fs);
/* Factor names against parameters and every matrix axis. */
int secfactors_names(struct loader *L);

#endif
