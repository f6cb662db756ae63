/* compare: `fsplan compare` — which differences between two runs (or two
 * configs) are real. */
#ifndef FSPLAN_COMPARE_H
#define FSPLAN_COMPARE_H

#include "report/outfmt.h"
#include "util/diag.h"
#include "util/opts.h"
#include "util/strbuf.h"

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
 * parsed and checked into o. Returns 0; 1 with --fail-on-regression when
 * a key metric is significantly worse in B (or a cell not ok or missing
 * in B), a line each in notes; -1 with d filled: runs that cannot be read
 * or compared (different phases, nothing in common), -o inside a run, an
 * unwritable output. notes also gets lines the user must see either way
 * (results.csv rows left out), each ended by a newline.
 */
int compare_run(const struct compare_opts *o, struct strbuf *notes,
		struct diag *d);

/*
 * What a rerun's verdict rests on: o's runs paired and tested as
 * compare_run does, then Holm's correction (cmprows_holm) over every
 * metric that could be tested, so that "no metric differs" holds at
 * o->alpha for them all together, not for each alone. Returns 0, or -1
 * with d filled (as compare_run); fam->which is freed by the caller.
 */
struct compare_family {
	size_t compared;	/* metrics of pairs both sides ran */
	size_t untold;		/* of them, not testable (n < 2 a side) */
	size_t marked;		/* better or worse at alpha each */
	size_t marked_better;	/* of them, better */
	size_t differ;		/* better or worse after the correction */
	struct strbuf which;	/* "label/phase params metric (worse)", ... */
};
int compare_family(const struct compare_opts *o, struct compare_family *fam,
		   struct diag *d);
/* Whether fam's rows marked at alpha each are more than chance marks:
 * 3 or more, and 10% or more of the rows tested (twice 0.05). */
int compare_family_leans(const struct compare_family *fam);

#endif
