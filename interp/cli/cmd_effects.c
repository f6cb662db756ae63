/* cmd_effects: fsplan effects — options, help; report/effects.c computes. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cmd.h"
#include "report/effects.h"
#include "util/exitcode.h"

static const char effects_help[] =
"Read RUNDIR (results.csv and manifest.json) of a plan whose filesystems\n"
"entry gave factors: and design: (fsplan-plan(5)), and say which factors\n"
"moved each phase's key metrics. Per design, phase, parameter set and\n"
"metric, with y a config's mean over its ok repetitions:\n"
"\n"
"  - each factor's main effect: mean(y at +) - mean(y at -), in the\n"
"    metric's unit and in % of the mean, with a 95% confidence\n"
"    interval: with repetitions (repeat: 2 or more), effect +- t(0.975,\n"
"    df) * s * sqrt(1/N+ + 1/N-), s^2 pooled over the repetitions about\n"
"    their configs' means; unreplicated, Lenth's pseudo standard error\n"
"    over the estimable contrasts (m of them, t with m/3 df; none under\n"
"    3). Significant (*): the interval excludes 0;\n"
"  - two-factor interactions (term 'a:b') where the design separates\n"
"    them from the main effects; an interaction whose column is another\n"
"    one's is estimated once and its alias named, one whose column is a\n"
"    main effect's is named as aliased. Plackett-Burman and oat designs\n"
"    have none; oat's effects are each row less the baseline;\n"
"  - the best combination (each factor with a significant effect at the\n"
"    level that improves the metric, the others at -), its predicted\n"
"    value, and the command that runs it to confirm.\n"
"\n"
"A config with no ok repetition of a metric leaves that metric's design\n"
"incomplete: it is named and no effects are computed.\n"
"\n"
"  --format text   a table per metric, largest effect first (default)\n"
"  --format csv    phase, params, metric, term, effect, effect_pct,\n"
"                  ci_low, ci_high, significant (1, 0, empty: no CI)\n"
"  --format html   a page: a Pareto chart of |effect| with CIs and a\n"
"                  main-effects plot per metric, and the tables\n"
"  -o, --output FILE\n"
"                  write to FILE instead of standard output\n"
"  --metric GLOB   instead of the key metrics, those whose name matches\n"
"                  GLOB (repeat for more)\n"
"\n"
"Exit 0; 1 when some design is incomplete; 2 when RUNDIR cannot be\n"
"read, has no design, --metric matches none of its metrics, or on a\n"
"usage error.\n";

static const struct opt effects_opts_table[] = {
	OPT_CALL_OF("format", 0, struct effects_opts, fmt, outfmt_take),
	OPT_STRING_OF("output", 'o', struct effects_opts, out),
	OPT_LIST_OF("metric", 0, struct effects_opts, metric),
	OPT_END
};

const struct opts_cmd effects_cmd = {
	"effects",
	"effects RUNDIR [--format text|csv|html] [-o FILE]\n"
	"[--metric GLOB]...",
	effects_help, effects_opts_table, "RUNDIR", 0,
	offsetof(struct effects_opts, rundir),
	"a screening design's effects: which factors matter, with CIs"
};

int cmd_effects(int argc, char **argv)
{
	struct effects_opts o = { FMT_TEXT, NULL, NULL, { NULL, 0 } };
	struct diag d = { 0 };
	int rc = opts_parse(&effects_cmd, argc, argv, &o);

	if (rc == OPTS_GO) {
		rc = effects_run(&o, &d);
		if (rc < 0)
			cmd_fail_named(stderr, "effects", &d);
		rc = rc < 0 ? EXIT_USAGE : rc ? EXIT_FAILED : EXIT_OK;
	}
	diag_release(&d);
	opts_free(&effects_cmd, &o);
	return rc;
}
