/* htmlscale: a phase's key metrics against each numeric parameter axis. */
#ifndef FSPLAN_REPORT_HTMLSCALE_H
#define FSPLAN_REPORT_HTMLSCALE_H

#include <stdio.h>

#include "results/results.h"

/*
 * For runs (a phase's ok runs): for each parameter whose every value is
 * a number or a size (workers, threads, block, file_size) and which
 * takes two or more, a line chart per metric matching globs and per set
 * of the other parameters: the metric's mean against that parameter, a
 * line per config (a size axis in bytes, log-scaled when it spans 8x or
 * more). Nothing for a phase without such a parameter. 0, or -1 out of
 * memory.
 */
int htmlscale_phase(FILE *f, const struct res_run *const *runs, size_t n,
		    const char *const *globs);

#endif
