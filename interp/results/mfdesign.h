/* mfdesign: the manifest's screening-design keys (cells/design.h's end). */
#ifndef FSPLAN_MFDESIGN_H
#define FSPLAN_MFDESIGN_H

#include <jansson.h>

#include "cells/expand.h"

/* The top-level "designs": one object per entry with factors; NULL
 * when no entry has any. */
json_t *mfdesign_designs(const struct expansion *e);
/* A config's "design": {entry, row, levels}; NULL when it has none. */
json_t *mfdesign_conf(const struct expansion *e, const struct fsconf *fc);

#endif
