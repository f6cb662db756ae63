/* htmlchart: a phase's charts on the html page: bars, tiobench's lines. */
#ifndef FSPLAN_REPORT_HTMLCHART_H
#define FSPLAN_REPORT_HTMLCHART_H

#include <stdio.h>

#include "results/results.h"

/*
 * For each metric of runs (a phase's ok runs) whose name matches globs
 * (as rank_each picks them), a bar chart per parameter set, best first,
 * the configs with no value of it named in the note. 0, or -1 out of
 * memory.
 */
int htmlchart_bars(FILE *f, const struct res_run *const *runs, size_t n,
		   const char *const *globs);

/* tiobench's rate against threads, a line chart per section and a line
 * per identifier (with_mode as classic_tio_mode); 0, or -1 out of
 * memory. */
int htmlchart_tio(FILE *f, const struct res_run *const *runs, size_t n,
		  const char *with_mode);

#endif
