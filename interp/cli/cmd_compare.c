/* cmd_compare: fsplan compare — options, help; report/compare.c compares. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cmd.h"
#include "report/compare.h"
#include "util/exitcode.h"

static const char compare_help[] =
"Compare two runs of one plan (or of two plans with the same phases),\n"
"or, with --label twice, two filesystem configs of one run (the\n"
"mount-option A/B). Phase runs are paired by filesystem config, phase\n"
"and parameters (the cell id without its repetition; with --label, by\n"
"phase and parameters); the repetitions of a cell are its samples, and\n"
"only phase runs whose status is ok count, and not a value bonnie++\n"
"timed too fast to give (test_fast 1: report's +++++).\n"
"\n"
"For each phase's key metrics (as report shows them) and each pair:\n"
"A's and B's n, mean and stdev; the change of B against A in percent;\n"
"the confidence interval of the difference B - A (Welch-Satterthwaite\n"
"degrees of freedom, Student's t), also in percent of A's mean; the\n"
"two-sided p-value of Welch's t-test; and a verdict: better or worse\n"
"when p < alpha (which way is better comes from the metric, as report\n"
"says it), 'no significant difference' otherwise, 'cannot tell' when\n"
"either side has fewer than 2 samples. The interval's level is 1 -\n"
"alpha (95% by default), so it leaves out 0 exactly when the verdict\n"
"is better or worse. Two runs whose phases differ are refused, with\n"
"what differs.\n"
"\n"
"  --label CONFIG  twice: compare config A with config B (of RUNDIR, or\n"
"                  of A's and B's runs)\n"
"  --metric GLOB   instead of the key metrics, those whose name matches\n"
"                  GLOB (repeat for more)\n"
"  --alpha A       the significance level, 0 < A < 0.5 (default 0.05)\n"
"  --format text   a table per phase (default)\n"
"  --format csv    one row per comparison, every figure unrounded\n"
"  --format html   one self-contained page: the tables, and per comparison\n"
"                  A's and B's means as bars with their 95% CI, B coloured\n"
"                  by the verdict\n"
"  -o, --output FILE\n"
"                  write to FILE instead of standard output\n"
"  --fail-on-regression\n"
"                  exit 1 when a metric is significantly worse in B, or\n"
"                  a cell's runs failed or were skipped in B and not in\n"
"                  A, or (two runs, no --label) a cell ok in A has no\n"
"                  result in B\n"
"\n"
"Exit 0; 1 with --fail-on-regression and a regression; 2 on\n"
"a usage error, unreadable or mismatched runs, or an unwritable output.\n";

static int take_alpha(const char *arg, void *slot, struct diag *d)
{
	char *end;
	double a;

	errno = 0;
	a = strtod(arg, &end);
	if (errno || end == arg || *end || !(a > 0) || !(a < 0.5))
		return diag_fail(d, DIAG_INPUT, 0, "--alpha takes a level "
				 "between 0 and 0.5, e.g. 0.05 or 0.01, not "
				 "'%s'", arg);
	*(double *)slot = a;
	return 0;
}

static const struct opt compare_opts_table[] = {
	OPT_LIST_OF("label", 0, struct compare_opts, label),
	OPT_LIST_OF("metric", 0, struct compare_opts, metric),
	OPT_CALL_OF("alpha", 0, struct compare_opts, alpha, take_alpha),
	OPT_CALL_OF("format", 0, struct compare_opts, fmt, outfmt_take),
	OPT_STRING_OF("output", 'o', struct compare_opts, out),
	OPT_FLAG_OF("fail-on-regression", 0, struct compare_opts,
		    fail_on_regression),
	OPT_END
};

const struct opts_cmd compare_cmd = {
	"compare",
	"compare RUNDIR_A RUNDIR_B [--metric GLOB]... [--alpha A]\n"
	"[--format text|csv|html] [-o FILE] [--fail-on-regression]\n"
	"compare RUNDIR --label CONFIG_A --label CONFIG_B [OPTION]...",
	compare_help, compare_opts_table, "RUNDIR", OPERANDS_MANY,
	offsetof(struct compare_opts, dirs),
	"B against A, cell by cell: change, CI, Welch's t-test, verdict"
};

static int check_args(const struct compare_opts *o)
{
	if (o->dirs.n > 2)
		return opts_usage("compare", "compares two runs, not %d "
				  "(fsplan merge joins shards into one)",
				  o->dirs.n);
	if (o->label.n && o->label.n != 2)
		return opts_usage("compare", "--label names config A and "
				  "config B: give it twice, not %s",
				  o->label.n == 1 ? "once" : "more");
	if (o->dirs.n == 1 && !o->label.n)
		return opts_usage("compare", "one RUNDIR: name its two "
				  "configs with --label A --label B");
	return OPTS_GO;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = { .alpha = 0.05, .fmt = FMT_TEXT };
	int rc = opts_parse(&compare_cmd, argc, argv, &o);

	if (rc == OPTS_GO)
		rc = check_args(&o);
	if (rc == OPTS_GO)
		rc = compare_run(&o);
	opts_free(&compare_cmd, &o);
	return rc;
}
