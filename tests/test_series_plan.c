/* test_series_plan: the plan's interval, warmup and steady keys (DESIGN.md
 * section 8): their defaults, inheritance and every refusal with its place. */
#include <stdio.h>

#include "e2e.h"
#include "helpers.h"

#define HEAD "fsplan: 1\nfilesystems: [{type: ext4}]\n"

/* The plan of HEAD, top (top-level keys) and one phase line. */
static struct expansion *load(const char *top, const char *phases)
{
	char text[2048];

	snprintf(text, sizeof(text), "%s%sphases:\n%s", HEAD, top, phases);
	return expand_text(text, NULL, 0);
}

static void refused(const char *top, const char *phases, int line, int col,
		    const char *msg)
{
	char text[2048];

	snprintf(text, sizeof(text), "%s%sphases:\n%s", HEAD, top, phases);
	expect_error(text, line, col, msg);
}

Test(series_plan, defaults_are_one_second_no_warmup_no_rule)
{
	struct expansion *e = load("", "  - exec: 'true'\n");
	const struct plan_phase *ph = &e->plan->phases[0];

	cr_expect_eq(e->plan->interval_s, 1.0);
	cr_expect_eq(ph->interval_s, 1.0);
	cr_expect_eq(ph->warmup_s, 0);
	cr_expect_eq(ph->steady.window_s, 0);
	cr_expect_eq(ph->steady.max_s, 0);
	free_expanded(e);
}

Test(series_plan, a_phase_without_interval_takes_the_plans)
{
	struct expansion *e = load("interval: 500ms\n",
				   "  - exec: 'true'\n"
				   "  - {exec: 'false', interval: 2s}\n"
				   "  - {exec: 'echo', interval: 0}\n");
	const struct plan_phase *ph = e->plan->phases;

	cr_expect_float_eq(ph[0].interval_s, 0.5, 1e-12);
	cr_expect_float_eq(ph[1].interval_s, 2.0, 1e-12);
	cr_expect_eq(ph[2].interval_s, 0);
	free_expanded(e);
}

Test(series_plan, steady_with_its_defaults_and_all_its_keys)
{
	struct expansion *e = load("",
		"  - use: tiobench\n"
		"    with: {file_size: 64M}\n"
		"    warmup: 10s\n"
		"    steady: {window: 30s}\n"
		"  - use: tiobench\n"
		"    name: t2\n"
		"    with: {file_size: 64M}\n"
		"    interval: 100ms\n"
		"    steady: {metric: write_mbs, window: 200ms, range: 5%, "
		"slope: 2.5%, max: 10m}\n");
	const struct plan_phase *ph = e->plan->phases;

	cr_expect_eq(ph[0].warmup_s, 10);
	cr_expect_eq(ph[0].steady.window_s, 30);
	cr_expect_float_eq(ph[0].steady.range, 0.20, 1e-12);
	cr_expect_float_eq(ph[0].steady.slope, 0.10, 1e-12);
	cr_expect_eq(ph[0].steady.max_s, 0, "no max: the rule stops nothing");
	cr_expect_str_eq(ph[0].steady.metric, "");
	cr_expect_str_eq(ph[1].steady.metric, "write_mbs");
	cr_expect_float_eq(ph[1].steady.window_s, 0.2, 1e-12);
	cr_expect_float_eq(ph[1].steady.range, 0.05, 1e-12);
	cr_expect_float_eq(ph[1].steady.slope, 0.025, 1e-12);
	cr_expect_eq(ph[1].steady.max_s, 600);
	free_expanded(e);
}

Test(series_plan, a_bad_interval_is_refused_at_its_place)
{
	refused("interval: 50ms\n", "  - exec: 'true'\n", 3, 11,
		"below the shortest, 100ms");
	refused("interval: nan\n", "  - exec: 'true'\n", 3, 11,
		"'interval' is a duration");
	refused("interval: -1s\n", "  - exec: 'true'\n", 3, 11,
		"'interval' is a duration");
	refused("interval: 2d\n", "  - exec: 'true'\n", 3, 11,
		"over a day");
	refused("interval: 1e300\n", "  - exec: 'true'\n", 3, 11,
		"'interval' is a duration");
	refused("interval: [1s, 2s]\n", "  - exec: 'true'\n", 3, 11,
		"expects a single value, not a list");
	refused("", "  - {exec: 'true', interval: 10ms}\n", 4, 30,
		"below the shortest");
	refused("intervall: 1s\n", "  - exec: 'true'\n", 3, 1,
		"did you mean 'interval'");
}

Test(series_plan, a_bad_warmup_is_refused_at_its_place)
{
	refused("", "  - {exec: 'true', warmup: -5s}\n", 4, 28,
		"'warmup' is a duration");
	refused("", "  - {exec: 'true', warmup: inf}\n", 4, 28,
		"'warmup' is a duration");
	refused("", "  - {exec: 'true', warmup: 2h}\n", 4, 28,
		"not shorter than the phase's timeout (3600 s)");
	refused("", "  - {exec: 'true', timeout: 10s, warmup: 10s}\n", 4, 42,
		"not shorter than the phase's timeout (10 s)");
	refused("", "  - {exec: 'true', warmup: {a: 1}}\n", 4, 28,
		"expects a single value, not a mapping");
	refused("", "  - {exec: 'true', warmpu: 1s}\n", 4, 20,
		"did you mean 'warmup'");
}

Test(series_plan, a_bad_steady_is_refused_at_its_place)
{
	refused("", "  - {exec: 'true', steady: {max: 1m}}\n", 4, 28,
		"missing the required key 'window'");
	refused("", "  - {exec: 'true', steady: {window: 0}}\n", 4, 37,
		"'window' must be more than zero");
	refused("", "  - {exec: 'true', steady: {window: 1s}}\n", 4, 37,
		"fewer than 2 intervals of 1 s");
	refused("", "  - {exec: 'true', steady: {window: 2h}}\n", 4, 37,
		"not shorter than the phase's timeout (3600 s)");
	refused("", "  - {exec: 'true', steady: {window: 5s, range: 20}}\n",
		4, 48, "'range' is a percentage");
	refused("", "  - {exec: 'true', steady: {window: 5s, range: nan%}}\n",
		4, 48, "'range' is a percentage");
	refused("", "  - {exec: 'true', steady: {window: 5s, slope: -3%}}\n",
		4, 48, "'slope' is a percentage");
	refused("", "  - {exec: 'true', steady: {window: 5s, slope: 500%}}\n",
		4, 48, "'slope' is a percentage");
	refused("", "  - {exec: 'true', steady: {window: 5s, rang: 5%}}\n",
		4, 41, "did you mean 'range'");
	refused("", "  - {exec: 'true', steady: [5s]}\n", 4, 28,
		"must be a mapping");
	refused("", "  - {exec: 'true', steady: {window: 5s, metric: '-x'}}\n",
		4, 49, "'metric' is a series' name");
	refused("", "  - {exec: 'true', interval: 0, steady: {window: 5s}}\n",
		4, 33, "'steady' tests a series, and this phase has none");
	refused("interval: 0\n", "  - {exec: 'true', steady: {window: 5s}}\n",
		5, 20, "its interval is 0");
}

Test(series_plan, a_steady_max_is_checked_against_the_phase)
{
	refused("", "  - {exec: 'true', steady: {window: 5s, max: 1m}}\n", 4,
		46, "an exec phase runs its command to its end");
	refused("", "  - {use: tiobench, with: {file_size: 64M}, steady: "
		"{window: 5m, max: 1m}}\n", 4, 71, "shorter than the window");
	refused("", "  - {use: tiobench, with: {file_size: 64M}, steady: "
		"{window: 5s, max: 2h}}\n", 4, 71, "raise timeout");
	refused("", "  - {use: tiobench, with: {file_size: 64M}, steady: "
		"{window: 5s, max: 0}}\n", 4, 71, "'max' must be more than");
	refused("", "  - {use: tiobench, with: {file_size: 64M}, steady: "
		"{metric: dev_write_mbs, window: 5s, max: 1m}}\n", 4, 62,
		"known only after the run");
	refused("", "  - {use: tiobench, with: {file_size: 64M}, steady: "
		"{metric: cpu_pct, window: 5s, max: 1m}}\n", 4, 62,
		"<op>_mbs, <op>_iops or <op>_ops");
}

Test(series_plan, a_device_metric_is_judged_after_the_run_without_max)
{
	struct expansion *e = load("",
		"  - use: tiobench\n"
		"    with: {file_size: 64M}\n"
		"    steady: {metric: dev_write_mbs, window: 5s}\n"
		"  - exec: 'true'\n"
		"    steady: {metric: tput_mbs, window: 5s}\n");

	cr_expect_str_eq(e->plan->phases[0].steady.metric, "dev_write_mbs");
	cr_expect_str_eq(e->plan->phases[1].steady.metric, "tput_mbs");
	free_expanded(e);
}

Test(series_plan, an_exec_module_takes_no_steady_stop, .fini = e2e_cleanup)
{
	const char *plan = e2e_write(e2e_tmpdir(), "plan.yaml",
		"fsplan: 1\nfilesystems: [{type: ext4}]\nphases:\n"
		"  - use: mariadb\n    steady: {window: 5s, max: 1m}\n");

	cr_expect_eq(e2e_fsplan((const char *[]){ "check", plan, NULL }), 2);
	cr_expect_not_null(strstr(e2e_err, "plan.yaml:5:5: 'steady' with max "
				  "stops a Lua phase's workers"), "%s",
			   e2e_err);
	cr_expect_not_null(strstr(e2e_err, "runs a command (mariadb.sh)"));
}
