/* compare: `fsplan compare` — which differences between two runs (or two configs) are real. */
#ifndef FSPLAN_COMPARE_H
#define FSPLAN_COMPARE_H

#include "report/outfmt.h"
#include "util/opts.h"

/* fsplan compare's operands and options (cli/cmd_compare.c parses them). */
struct compare_opts {
	struct opt_list dirs;		/* one or two RUNDIRs */
	struct opt_list label;
	struct opt_list metric;
	double alpha;
	enum out_format fmt;
	const char *out;
	int fail_on_regression;
};

/*
 * fsplan compare RUNDIR_A RUNDIR_B | RUNDIR --label A --label B [...],
 * parsed and checked into o. Returns the exit status: 0; 1 with
 * --fail-on-regression when a key metric is significantly worse in B;
 * 2 on a usage error, runs that cannot be read or compared (different
 * phases, nothing in common), an unwritable output, --format html.
 */
int compare_run(const struct compare_opts *o);

#endif
