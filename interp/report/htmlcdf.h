/* htmlcdf: ops' latency distributions (CDF) from histograms.csv, per config. */
#ifndef FSPLAN_REPORT_HTMLCDF_H
#define FSPLAN_REPORT_HTMLCDF_H

#include <stdio.h>

#include "results/results.h"

/* histograms.csv's rows, each cell's last block. */
struct htmlcdf {
	struct hrow *row;
	size_t n, cap;
};

/* The rows of rundir/histograms.csv (none when it is absent; a torn
 * last row left out). 0, or -1 out of memory. */
int htmlcdf_load(struct htmlcdf *h, const char *rundir);
void htmlcdf_free(struct htmlcdf *h);
/*
 * For runs (a phase's ok runs): per op with at least 20 ops in a
 * parameter set, a chart of its latency distribution for that set: the
 * share of ops at or below a latency (log scale), a line per config,
 * its runs' histograms added. 0, or -1 out of memory.
 */
int htmlcdf_phase(FILE *f, const struct htmlcdf *h,
		  const struct res_run *const *runs, size_t n);

#endif
