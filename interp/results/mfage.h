/* mfage: the manifest's age object of an aged config (DESIGN.md s.10). */
#ifndef FSPLAN_MFAGE_H
#define FSPLAN_MFAGE_H

#include <jansson.h>

#include "cells/cell.h"

/* A config's "age": {name, fill, churn, seed, dirs, reuse[, sizes]};
 * NULL when its age is none. The run adds image, sha256, trace_sha256. */
json_t *mfage_conf(const struct fsconf *fc);

#endif
