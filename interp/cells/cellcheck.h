/* cellcheck: an expanded plan's checks — unique configs and ids, values. */
#ifndef FSPLAN_CELLCHECK_H
#define FSPLAN_CELLCHECK_H

#include "cells/cell.h"
#include "util/diag.h"

/*
 * What only the expansion shows, in this order: two configs alike (the
 * same label and axes), two cells of one id, a workers or engine value
 * that ${...} made wrong, mount options with spaces. 0, or -1 with d
 * pointing into the plan.
 */
int cellcheck_expansion(struct expansion *e, struct diag *d);

#endif
