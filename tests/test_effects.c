/* test_effects: `fsplan effects` on hand-made run directories of designs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "report/effectsmath.h"

static char home[256], out[512];
static FILE *res, *man;

/* home: the test's private directory (e2e_tmpdir, removed by
 * e2e_cleanup) */
static void setup(void)
{
	snprintf(home, sizeof(home), "%s", e2e_tmpdir());
	snprintf(out, sizeof(out), "%s/out", home);
}

static void teardown(void)
{
	e2e_cleanup();
}

TestSuite(effects, .init = setup, .fini = teardown);

static FILE *open_in(const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", home, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	return f;
}

/*
 * A run directory of a design of k factors (names) and n rows (signs:
 * x[r * k + j]) on ext4, a phase "w" with key ["rate_mbs"]; the rows'
 * results come by add_row. type: the manifest's design type.
 */
static void begin(const char *type, int k, int n, const char *const *names,
		  const signed char *x)
{
	res = open_in("results.csv");
	man = open_in("manifest.json");
	fputs("run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase,"
	      "phase_params,rep,metric,value,unit\n", res);
	fprintf(man, "{\"run_id\": \"t\", \"status\": \"complete\", "
		"\"plan\": {\"name\": \"scr\", \"path\": \"/p/scr.yaml\"}, "
		"\"phases\": [{\"name\": \"w\", \"key\": [\"rate_mbs\"]}], "
		"\"designs\": [{\"entry\": 1, \"label\": \"ext4\", \"type\": "
		"\"%s\", \"runs\": %d, \"factors\": [", type, n);
	for (int j = 0; j < k; j++)
		fprintf(man, "%s{\"name\": \"%s\", \"letter\": \"%c\"}",
			j ? ", " : "", names[j], 'A' + j);
	fputs("]}], \"configs\": [", man);
	for (int r = 0; r < n; r++) {
		fprintf(man, "%s{\"label\": \"ext4/", r ? ", " : "");
		for (int j = 0; j < k; j++)
			fprintf(man, "%s%s=%c", j ? "," : "", names[j],
				x[r * k + j] > 0 ? '+' : '-');
		fprintf(man, "\", \"design\": {\"entry\": 1, \"row\": %d, "
			"\"levels\": \"", r + 1);
		for (int j = 0; j < k; j++)
			fputc(x[r * k + j] > 0 ? '+' : '-', man);
		fputs("\"}}", man);
	}
	fputs("]}\n", man);
	cr_assert_eq(fclose(man), 0);
}

/* Repetition rep of row r: rate_mbs = v, ok. */
static void add_row(int k, const char *const *names, const signed char *x,
		    int r, int rep, double v)
{
	char label[256];
	int len = snprintf(label, sizeof(label), "ext4/");

	for (int j = 0; j < k; j++)
		len += snprintf(label + len, sizeof(label) - (size_t)len,
				"%s%s=%c", j ? "," : "", names[j],
				x[r * k + j] > 0 ? '+' : '-');
	fprintf(res, "t,\"%s/w/#%d\",\"%s\",ext4,,,w,,%d,rate_mbs,%.17g,"
		"MB/s\n", label, rep, label, rep, v);
	fprintf(res, "t,\"%s/w/#%d\",\"%s\",ext4,,,w,,%d,status,ok,\n",
		label, rep, label, rep);
}

static void done(void)
{
	cr_assert_eq(fclose(res), 0);
}

/* fsplan effects HOME [--format fmt] -o out: its exit status. */
static int effects(const char *fmt)
{
	const char *argv[] = { "effects", home, "--format", fmt, "-o", out,
			       NULL };

	return e2e_fsplan(argv);
}

/* fsplan report HOME --format fmt -o out: its exit status. */
static int report(const char *fmt)
{
	const char *argv[] = { "report", home, "--format", fmt, "-o", out,
			       NULL };

	return e2e_fsplan(argv);
}

/* The csv row of term: effect, ci_low, ci_high, significant. */
/* How many times needle is in hay. */
static int csv_term(const char *term, double *eff, double *lo, double *hi,
		    int *sig)
{
	char want[128], *p;
	const char *csv = e2e_read(out);

	snprintf(want, sizeof(want), "\nw,,rate_mbs,%s,", term);
	if (!(p = strstr(csv, want)))
		return 0;
	p += strlen(want);
	*eff = strtod(p, &p);
	p = strchr(p + 1, ',');		/* past effect_pct */
	*lo = strtod(p + 1, &p);
	*hi = strtod(p + 1, &p);
	*sig = p[1] == '1';
	return 1;
}

/* The true effect lies in the term's CI, and it is significant or not. */
static void expect_term(const char *term, double truth, int significant)
{
	double e, lo, hi;
	int sig;

	cr_assert(csv_term(term, &e, &lo, &hi, &sig), "no %s in:\n%s", term,
		  e2e_read(out));
	cr_expect(lo <= truth && truth <= hi, "%s: %g not in [%g, %g]", term,
		  truth, lo, hi);
	cr_expect_eq(sig, significant, "%s: effect %g [%g, %g]", term, e, lo,
		     hi);
}

/* Row r of a full 2^k in Yates order: factor j is + on bit j. */
static void yates(int k, int n, signed char *x)
{
	for (int r = 0; r < n; r++)
		for (int j = 0; j < k; j++)
			x[r * k + j] = (r >> j) & 1 ? 1 : -1;
}

Test(effects, full_design_gets_its_effects_back)
{
	static const char *const names[] = { "data", "commit", "journal" };
	signed char x[8 * 3];
	const char *p;

	/* y = 10 + 3A - 2B + 0C + 1.5AB: effects 6, -4, 0, AB 3 */
	yates(3, 8, x);
	begin("full", 3, 8, names, x);
	for (int r = 0; r < 8; r++)
		for (int rep = 1; rep <= 3; rep++) {
			double a = x[r * 3], b = x[r * 3 + 1];

			add_row(3, names, x, r, rep, 10 + 3 * a - 2 * b +
				1.5 * a * b + 0.4 * sin(r * 7 + rep * 3));
		}
	done();
	cr_assert_eq(effects("csv"), 0, "%s", e2e_err);
	cr_expect(!strncmp(e2e_read(out), "phase,params,metric,term,effect,"
			   "effect_pct,ci_low,ci_high,significant\n", 70));
	expect_term("data", 6, 1);
	expect_term("commit", -4, 1);
	expect_term("journal", 0, 0);
	expect_term("data:commit", 3, 1);
	expect_term("data:journal", 0, 0);
	expect_term("commit:journal", 0, 0);
	cr_assert_eq(effects("text"), 0);
	cr_expect(strstr(e2e_read(out), "best: data=+,commit=-,journal=-"),
		  "%s", e2e_read(out));
	cr_expect(strstr(e2e_read(out), "confirm: fsplan run /p/scr.yaml "
			 "--only data=+,commit=-,journal=- -o "), "%s",
		  e2e_read(out));
	{
		const char *argv[] = { "effects", home, "--metric", "lat*",
				       "-o", out, NULL };

		cr_expect_eq(e2e_fsplan(argv), 2);
		cr_expect(strstr(e2e_err, "--metric matches no metric"));
		argv[3] = "rate_*";
		cr_expect_eq(e2e_fsplan(argv), 0, "%s", e2e_err);
		cr_expect(strstr(e2e_read(out), "data:commit"));
	}
	cr_assert_eq(effects("text"), 0);
	/* 10 + (6 + 4) / 2: the grand mean and the significant halves */
	p = strstr(e2e_read(out), "predicted ");
	cr_assert_not_null(p);
	cr_expect(fabs(strtod(p + 10, NULL) - 15) < 0.3, "%s", p);
}

/* The 2^(6-2) IV of E = ABC, F = BCD, unreplicated. */
Test(effects, lenth_finds_the_active_factors)
{
	static const char *const names[] = { "a", "b", "c", "d", "e", "f" };
	signed char x[16 * 6], base[16 * 4];

	yates(4, 16, base);
	for (int r = 0; r < 16; r++) {
		const signed char *s = base + r * 4;

		memcpy(x + r * 6, s, 4);
		x[r * 6 + 4] = (signed char)(s[0] * s[1] * s[2]);
		x[r * 6 + 5] = (signed char)(s[1] * s[2] * s[3]);
	}
	begin("fractional", 6, 16, names, x);
	for (int r = 0; r < 16; r++)
		add_row(6, names, x, r, 1, 50 + 4 * x[r * 6] -
			3 * x[r * 6 + 3] + 0.2 * sin(r * 5 + 1));
	done();
	cr_assert_eq(effects("csv"), 0, "%s", e2e_err);
	expect_term("a", 8, 1);
	expect_term("d", -6, 1);
	expect_term("b", 0, 0);
	expect_term("c", 0, 0);
	expect_term("e", 0, 0);
	expect_term("f", 0, 0);
	cr_assert_eq(effects("text"), 0);
	/* AB = CE: estimated once; no two-factor term is a main effect */
	cr_expect(strstr(e2e_read(out), "a:b = c:e: estimated once"), "%s",
		  e2e_read(out));
	cr_expect(strstr(e2e_read(out), "Lenth's pseudo standard error"));
	cr_expect_null(strstr(e2e_read(out), "aliased with the main"));
	/* report's section, text and html */
	cr_assert_eq(report("text"), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_read(out), "== effects of the design's factors"));
	cr_expect(strstr(e2e_read(out), "a:b = c:e: estimated once"));
	cr_assert_eq(report("html"), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_read(out), "<h2 id=\"effects\">"));
	cr_expect(strstr(e2e_read(out), "fsplan-bars"));
	cr_expect(strstr(e2e_read(out), "main effects on rate_mbs"));
}

Test(effects, aliased_interaction_is_named)
{
	static const char *const names[] = { "data", "commit", "journal" };
	signed char x[4 * 3], base[4 * 2];

	/* 2^(3-1) III, C = AB: data:commit is journal's column */
	yates(2, 4, base);
	for (int r = 0; r < 4; r++) {
		x[r * 3] = base[r * 2];
		x[r * 3 + 1] = base[r * 2 + 1];
		x[r * 3 + 2] = (signed char)(base[r * 2] * base[r * 2 + 1]);
	}
	begin("fractional", 3, 4, names, x);
	for (int r = 0; r < 4; r++)
		for (int rep = 1; rep <= 2; rep++)
			add_row(3, names, x, r, rep, 5 + x[r * 3] + 0.1 * rep);
	done();
	cr_assert_eq(effects("text"), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_read(out), "data:commit = journal: aliased "
			 "with the main effect, not estimated"), "%s",
		  e2e_read(out));
	cr_assert_eq(effects("csv"), 0);
	cr_expect_null(strstr(e2e_read(out), ",data:commit,"));
}

Test(effects, missing_config_is_an_error)
{
	static const char *const names[] = { "data", "commit" };
	signed char x[4 * 2];

	yates(2, 4, x);
	begin("full", 2, 4, names, x);
	for (int r = 0; r < 3; r++)
		add_row(2, names, x, r, 1, 10 + r);
	done();
	cr_expect_eq(effects("text"), 1);
	cr_expect(strstr(e2e_read(out), "design incomplete, no effects "
			 "computed: no ok repetition of rate_mbs in "
			 "ext4/data=+,commit=+"), "%s", e2e_read(out));
	cr_expect_null(strstr(e2e_read(out), "best:"));
	cr_expect_eq(effects("csv"), 1);
	cr_expect_null(strstr(e2e_read(out), "rate_mbs"));
}

Test(effects, no_design_is_an_error)
{
	FILE *f = open_in("results.csv");

	fputs("run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase,"
	      "phase_params,rep,metric,value,unit\n"
	      "t,ext4/w/#1,ext4,ext4,,,w,,1,rate_mbs,5,MB/s\n"
	      "t,ext4/w/#1,ext4,ext4,,,w,,1,status,ok,\n", f);
	cr_assert_eq(fclose(f), 0);
	f = open_in("manifest.json");
	fputs("{\"run_id\": \"t\", \"configs\": [{\"label\": \"ext4\"}]}\n",
	      f);
	cr_assert_eq(fclose(f), 0);
	cr_expect_eq(effects("text"), 2);
	cr_expect(strstr(e2e_err, "has no design"), "%s", e2e_err);
	cr_assert_eq(report("text"), 0, "%s", e2e_err);
	cr_expect_null(strstr(e2e_read(out), "== effects"), "%s",
		       e2e_read(out));
}

/* One at a time: the baseline, then each factor alone at +. */
static void oat(int reps)
{
	static const char *const names[] = { "noatime", "lazy", "commit" };
	static const signed char x[] = { -1, -1, -1,  1, -1, -1,
					 -1, 1, -1,  -1, -1, 1 };

	begin("oat", 3, 4, names, x);
	for (int r = 0; r < 4; r++)
		for (int rep = 1; rep <= reps; rep++)
			add_row(3, names, x, r, rep, 20 + 5 * (r == 1) -
				2 * (r == 3) + 0.05 * rep);
	done();
}

Test(effects, oat_is_each_row_against_the_baseline)
{
	double e, lo, hi;
	int sig;

	oat(1);
	cr_assert_eq(effects("csv"), 0, "%s", e2e_err);
	cr_assert(csv_term("noatime", &e, &lo, &hi, &sig));
	cr_expect_float_eq(e, 5, 1e-9);
	/* no CI unreplicated: ci_low, ci_high and significant empty */
	cr_assert(csv_term("commit", &e, &lo, &hi, &sig));
	cr_expect_float_eq(e, -2, 1e-9);
	cr_expect_eq(e2e_occurrences(e2e_read(out), ",,,\n"), 3, "%s",
		     e2e_read(out));
	cr_expect_null(strstr(e2e_read(out), ":"), "no interactions");
	cr_assert_eq(effects("text"), 0);
	cr_expect(strstr(e2e_read(out), "no CI: one at a time"));
	cr_expect(strstr(e2e_read(out), "one at a time: no interactions"));
	oat(3);
	cr_assert_eq(effects("csv"), 0, "%s", e2e_err);
	expect_term("noatime", 5, 1);
	expect_term("commit", -2, 1);
	expect_term("lazy", 0, 0);
	cr_assert_eq(effects("text"), 0);
	cr_expect(strstr(e2e_read(out), "best: noatime=+,lazy=-,commit=-, "
			 "predicted 25.1 MB/s"), "%s", e2e_read(out));
}

Test(effects, lenth_pse_by_hand)
{
	static const double c[] = { 1, -2, 3, 4, -100 };

	/* s0 = 1.5 * 3; |c| < 11.25: 1 2 3 4, median 2.5: PSE 3.75 */
	cr_expect_float_eq(effm_lenth_pse(c, 5), 3.75, 1e-12);
	cr_expect(isnan(effm_lenth_pse(c, 0)));
}

Test(effects, not_a_number_never_passes)
{
	static const signed char x[] = { -1, 1 };
	const double y[] = { 1, NAN };
	const int reps[] = { 1, 1 };
	struct effm_in in = { DESIGN_FULL, 1, 2, x, y, reps, 0, 0 };
	struct effm_out o;

	cr_expect_eq(effm_compute(&in, &o), -1);
	cr_expect_null(o.t);
}
