/* bonnie: bon_csv2txt's two blocks for the runs of a bonnie++ phase — sequential output, input and seeks, then creates. */
#ifndef FSPLAN_REPORT_BONNIE_H
#define FSPLAN_REPORT_BONNIE_H

#include <stdio.h>

#include "report/classic.h"
#include "results/results.h"

/*
 * bon_csv2txt's layout for runs with bonnie_line (the ok runs of one
 * phase): the sequential output/input and seeks block and the create
 * block, a row per filesystem config, the means over repetitions.
 * Returns 1 printed, 0 nothing to print, -1 out of memory.
 */
int bonnie_table(FILE *f, const struct res_run *const *runs, size_t n);

/* Its two blocks, a grid each (a row's Latency row under it); see
 * classic_grid_fn. */
int bonnie_grids(const struct res_run *const *runs, size_t n,
		 classic_grid_fn fn, void *ctx);

/* Whether metric name is a figure of the blocks (a test, its _cpu,
 * _latency_us or _fast), so that report need not repeat it. */
int bonnie_shows(const char *name);

#endif
