/* htmlpage: `fsplan report --format html` — a run directory as one self-
 * contained page. */
#ifndef FSPLAN_REPORT_HTMLPAGE_H
#define FSPLAN_REPORT_HTMLPAGE_H

#include <stdio.h>

#include "report/view.h"
#include "results/results.h"

/*
 * The page of the run in rundir (r: its results.csv; manifest.json read
 * here when there is one): the machine, kernel, tool versions and the
 * configs' requested and applied mount options; per phase a bar chart
 * per key metric (per parameter set) with 95% CI whiskers and n, best
 * first, tiobench's rate against threads per mode, the study tables and
 * bonnie++'s blocks, the metric tables; the runs that did not count,
 * with their reasons. Everything from the plan or the results is
 * escaped. Returns 0, or -1 out of memory.
 */
int htmlpage_write(FILE *f, const char *rundir, const struct results *r,
		   struct pick *pick);

#endif
