/* test_screening: a design run end to end, its effects known beforehand. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

/*
 * A phase whose figure is a known function of its config's options: it
 * reads the mount options its filesystem was given (ctx.fs.mount) and
 * naps 40 ms, 15 ms more when the mode is 0711 (a: +) and 10 ms less
 * with 20000 inodes (b: +); the size (c) changes nothing. So a's main
 * effect is +30 ms, b's -20 ms, c's 0 — measured, as naps are, with the
 * timer's and the scheduler's noise.
 */
static const char nap_lua[] =
	"return {\n"
	"  key = { 'nap_ms' },\n"
	"  worker = function(w, ctx)\n"
	"    local m = ctx.fs.mount\n"
	"    local a = m:find('mode=0711', 1, true) and 1 or -1\n"
	"    local b = m:find('nr_inodes=20000', 1, true) and 1 or -1\n"
	"    for _ = 1, 3 do\n"
	"      w:time('nap', function() w:sleep(0.040 + 0.015 * a"
	" - 0.010 * b) end)\n"
	"    end\n"
	"  end,\n"
	"  report = function(r) return { nap_ms = r.nap_lat_avg_ms } end,\n"
	"}\n";

static const char nap_plan[] =
	"repeat: 2\n"
	"between: none\n"
	"interval: 0\n"
	"filesystems:\n"
	"  - type: tmpfs\n"
	"    factors:\n"
	"      - {name: a, mount: [mode=0755, mode=0711]}\n"
	"      - {name: b, mount: [nr_inodes=10000, nr_inodes=20000]}\n"
	"      - {name: c, mount: [size=32m, size=48m]}\n"
	"    design: full\n"
	"phases:\n"
	"  - use: nap.lua\n";

/* The csv row of term in fsplan effects' csv output: its effect, CI and
 * significance mark; 0 when found. */
static int term_row(const char *csv, const char *term, double *eff,
		    double *lo, double *hi, char *sig)
{
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), ",nap_ms,%s,", term);
	p = strstr(csv, want);
	if (!p)
		return -1;
	p += strlen(want);
	*sig = 0;
	if (sscanf(p, "%lf,%*[^,],%lf,%lf,%c", eff, lo, hi, sig) < 3)
		return -1;
	return 0;
}

/* Each factor's effect is what the phase was written to show. */
static void expect_known_effects(const char *rd)
{
	double eff, lo, hi;
	char sig;

	cr_assert_eq(e2e_fsplan((const char *[]){ "effects", rd, "--format",
						  "csv", NULL }), 0,
		     "%s", e2e_err);
	cr_assert_eq(term_row(e2e_out, "a", &eff, &lo, &hi, &sig), 0,
		     "%s", e2e_out);
	/* within 1.5 ms: a longer nap overshoots by a little more, so the
	 * interval may sit a few microseconds off the written effect */
	cr_expect(fabs(eff - 30) < 1.5 && lo < eff && eff < hi,
		  "a: %g [%g, %g]", eff, lo, hi);
	cr_expect_eq(sig, '1', "a is active");
	cr_assert_eq(term_row(e2e_out, "b", &eff, &lo, &hi, &sig), 0);
	cr_expect(fabs(eff + 20) < 1.5 && lo < eff && eff < hi,
		  "b: %g [%g, %g]", eff, lo, hi);
	cr_expect_eq(sig, '1', "b is active");
	cr_assert_eq(term_row(e2e_out, "c", &eff, &lo, &hi, &sig), 0);
	/* c does nothing: insignificant, or (one time in twenty, as a 95%
	 * interval may) a fraction of a millisecond */
	cr_expect(sig != '1' || fabs(eff) < 1.0, "c: %g [%g, %g]", eff, lo,
		  hi);
	cr_assert_eq(term_row(e2e_out, "a:b", &eff, &lo, &hi, &sig), 0,
		     "a full design estimates a:b: %s", e2e_out);
	cr_expect(fabs(eff) < 3, "a:b: %g", eff);
}

Test(screening, effects_of_a_run_are_the_known_ones, .fini = fini,
     .timeout = 240)
{
	const char *dir = e2e_tmpdir();
	char rd[256];

	e2e_require_root();
	e2e_write(dir, "nap.lua", nap_lua);
	cr_assert_eq(e2e_run_plan(dir, "nap", nap_plan, rd, sizeof(rd)), 0,
		     "%s", e2e_err);
	cr_expect_eq(e2e_count(rd, "nap_ms"), 16);
	expect_known_effects(rd);
	/* the report has the section, its best combination a then b at -
	 * (lower is better for a time) */
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", rd, NULL }), 0);
	cr_expect(strstr(e2e_out, "effects"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "--only a=-,b=+"), "%s", e2e_out);
	cr_expect_eq(e2e_mounted_under(dir), 0);
}

/* Shards of a design merge into one run whose effects are the same. */
Test(screening, shards_merge_into_the_design, .fini = fini, .timeout = 240)
{
	const char *dir = e2e_tmpdir();
	char plan[256], s1[256], s2[256], m[256];

	e2e_require_root();
	e2e_write(dir, "nap.lua", nap_lua);
	{
		char text[1024];

		snprintf(text, sizeof(text), "fsplan: 1\nname: nap\n%s",
			 nap_plan);
		snprintf(plan, sizeof(plan), "%s",
			 e2e_write(dir, "plan.yaml", text));
	}
	snprintf(s1, sizeof(s1), "%s/s1", dir);
	snprintf(s2, sizeof(s2), "%s/s2", dir);
	snprintf(m, sizeof(m), "%s/merged", dir);
	cr_assert_eq(e2e_fsplan((const char *[]){ "run", plan, "-o", s1,
				"--shard", "1/2", "-q", NULL }), 0, "%s",
		     e2e_err);
	/* half the design has no effects to give */
	cr_expect_neq(e2e_fsplan((const char *[]){ "effects", s1, NULL }), 0);
	cr_expect(strstr(e2e_out, "design incomplete") &&
		  strstr(e2e_out, "tmpfs/a="),
		  "the missing configs are named: %s", e2e_out);
	cr_assert_eq(e2e_fsplan((const char *[]){ "run", plan, "-o", s2,
				"--shard", "2/2", "-q", NULL }), 0, "%s",
		     e2e_err);
	cr_assert_eq(e2e_fsplan((const char *[]){ "merge", s1, s2, "-o", m,
						  NULL }), 0, "%s", e2e_err);
	expect_known_effects(m);
}

/* A design run stopped part-way resumes to the whole design. */
Test(screening, an_interrupted_design_resumes, .fini = fini, .timeout = 240)
{
	const char *dir = e2e_tmpdir();
	char text[1024], rd[256], res[300];
	const char *plan;
	int status;
	pid_t pid;

	e2e_require_root();
	e2e_write(dir, "nap.lua", nap_lua);
	snprintf(text, sizeof(text), "fsplan: 1\nname: nap\n%s", nap_plan);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	snprintf(res, sizeof(res), "%s/results.csv", rd);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
					      NULL });
	for (int i = 0; i < 200 && e2e_count(rd, "status") < 3; i++)
		usleep(50000);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	cr_expect_lt(e2e_count(rd, "status"), 16, "stopped part-way");
	cr_assert_eq(e2e_fsplan((const char *[]){ "run", plan, "--resume", rd,
						  "-q", NULL }), 0, "%s",
		     e2e_err);
	cr_expect_eq(e2e_count(rd, "nap_ms"), 16);
	expect_known_effects(rd);
	cr_expect_eq(e2e_mounted_under(dir), 0);
}
