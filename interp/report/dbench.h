/* dbench: the 2003 study's dbench table — throughput per client count, average, high and low. */
#ifndef FSPLAN_REPORT_DBENCH_H
#define FSPLAN_REPORT_DBENCH_H

#include <stdio.h>

#include "report/classic.h"
#include "results/results.h"

/*
 * The 2003 study's dbench table for runs with throughput_mbs and
 * clients (lua/dbench.lua's and lua/parse/dbench.lua's): "dbench N
 * processes" and a row per config (its label and parameters but
 * workers) with the Average, High and Low of its repetitions. Returns 1 when it printed a
 * table, 0 when no run had one, -1 on error (as classic_tiobench).
 */
int dbench_table(FILE *f, const struct res_run *const *runs, size_t n);
/* The same tables as grids, one per client count (see classic_grid_fn). */
int dbench_grids(const struct res_run *const *runs, size_t n,
		 classic_grid_fn fn, void *ctx);

#endif
