/* studies: the seed studies' tables that span phases — the 2008 home tree's steps. */
#ifndef FSPLAN_STUDIES_H
#define FSPLAN_STUDIES_H

#include <jansson.h>
#include <stdio.h>

#include "report/classic.h"
#include "results/results.h"

/*
 * The copy/move/rm study's table for the phases that use the tree module
 * (manifest.json's phases, given as phases; "use": "tree"): per
 * filesystem config its mkfs and mount seconds, then a row per step
 * (phase, in the plan's order) with the means over the ok repetitions of
 * seconds, files/s, MB/s (MiB) and the MiB used on the source and target
 * volumes after it (df). Returns 1 printed, 0 nothing to print.
 */
int studies_tree(FILE *f, const struct results *r, json_t *phases);
/* The same tables as grids, one per config, titled with its label and
 * its mkfs and mount seconds (see classic_grid_fn); -1 on error. */
int studies_tree_grids(const struct results *r, json_t *phases,
		       classic_grid_fn fn, void *ctx);

#endif
