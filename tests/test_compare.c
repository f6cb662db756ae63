/* test_compare: `fsplan compare` on hand-made run directories with known
 * samples — p, CI, verdicts, refusals. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "e2e.h"

/*
 * The samples and the expected figures are those of
 * tests/fixtures/compare/welch.py (mpmath at 40 digits, run once; see
 * test_stats.c): ext4/write rate_mbs a -> b, ext3/write avg_lat_ms
 * c -> d, xfs/write seconds e -> f.
 */
static const double s_a[] = { 100.0, 102.5, 98.7, 101.2, 99.9 };
static const double s_b[] = { 105.1, 107.3, 104.8, 106.0, 108.2 };
static const double s_c[] = { 10.0, 12.0, 11.0 };
static const double s_d[] = { 10.5, 11.8, 12.2, 9.9 };
static const double s_e[] = { 1.0, 1.1, 0.9, 1.05 };
static const double s_f[] = { 1.5, 2.5, 0.7, 3.1, 1.9, 2.2 };

static void fini(void)
{
	e2e_cleanup();
}

struct buf {
	char s[1 << 16];
	size_t n;
};

static void add(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	b->n += vsnprintf(b->s + b->n, sizeof(b->s) - b->n, fmt, ap);
	va_end(ap);
	cr_assert_lt(b->n, sizeof(b->s));
}

/* The repetitions of label/phase, one metric each (v), status ok. */
static void runs(struct buf *b, const char *label, const char *phase,
		 const char *metric, const char *unit, const double *v, int n)
{
	for (int i = 0; i < n; i++) {
		const char *type = strncmp(label, "xfs", 3) ? "ext4" : "xfs";

		add(b, "R,%s/%s#%d,%s,%s,,,%s,,%d,%s,%.17g,%s\n", label, phase,
		    i + 1, label, type, phase, i + 1, metric, v[i], unit);
		add(b, "R,%s/%s#%d,%s,%s,,,%s,,%d,status,ok,\n", label, phase,
		    i + 1, label, type, phase, i + 1);
	}
}

/* What the next rundir's manifest has besides: ', "key": value...'. */
static const char *man_extra = "";

/* A run directory dir/name of plan sha with the phases write, read (or
 * second) and its results; returns its path. */
static char *rundir(const char *name, const char *sha, const char *second,
		    const char *params, const char *csv)
{
	static char path[8][512];
	static int slot;
	char *p = path[slot++ % 8];
	char man[2048];

	snprintf(p, 512, "%s/%s", e2e_tmpdir(), name);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(man, sizeof(man),
		 "{\"run_id\": \"%s\", \"plan\": {\"path\": \"%s.yaml\", "
		 "\"sha256\": \"%s\", \"name\": \"t\", \"params\": {%s}},\n"
		 " \"phases\": [{\"name\": \"write\", \"exec\": \"w\", "
		 "\"key\": [\"rate_mbs\", \"avg_lat_ms\", \"seconds\"]},\n"
		 "  {\"name\": \"%s\", \"exec\": \"r\", \"key\": "
		 "[\"seconds\"]}]%s}\n", name, name, sha, params, second,
		 man_extra);
	e2e_write(p, "manifest.json", man);
	e2e_write(p, "results.csv", csv);
	return p;
}

#define SHA1 "1111111111111111111111111111111111111111111111111111111111111111"
#define SHA2 "2222222222222222222222222222222222222222222222222222222222222222"
#define HEAD "run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase," \
	     "phase_params,rep,metric,value,unit\n"

/* Runs A and B of one plan: the three pairs of the fixtures, and xfs's
 * read with one sample in A. */
static void two_runs(char **a, char **b)
{
	static struct buf x, y;
	const double one[] = { 2.0 }, three[] = { 2.1, 2.2, 2.3 };

	x.n = y.n = 0;
	add(&x, HEAD);
	add(&y, HEAD);
	runs(&x, "ext4", "write", "rate_mbs", "MB/s", s_a, 5);
	runs(&y, "ext4", "write", "rate_mbs", "MB/s", s_b, 5);
	runs(&x, "ext3", "write", "avg_lat_ms", "ms", s_c, 3);
	runs(&y, "ext3", "write", "avg_lat_ms", "ms", s_d, 4);
	runs(&x, "xfs", "write", "seconds", "s", s_e, 4);
	runs(&y, "xfs", "write", "seconds", "s", s_f, 6);
	runs(&x, "xfs", "read", "seconds", "s", one, 1);
	runs(&y, "xfs", "read", "seconds", "s", three, 3);
	*a = rundir("A", SHA1, "read", "", x.s);
	*b = rundir("B", SHA1, "read", "", y.s);
}

/* How many times needle is in hay. */
/* The page: the table per phase, two bars (A, B) per comparison, B
 * coloured by its verdict, everything from the runs escaped. */
Test(compare, html_page_has_a_chart_per_comparison, .fini = fini)
{
	char *a, *b;

	two_runs(&a, &b);
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, b, "--format",
				"html", NULL }), 0, "%s", e2e_err);
	cr_expect(!strncmp(e2e_out, "<!DOCTYPE html>", 15), "%.80s", e2e_out);
	cr_expect(strstr(e2e_out, "<h2>phase write</h2>"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "4 comparisons: 1 better, 1 worse, 1 no "
			 "significant difference, 1 cannot tell"), "%s",
		  e2e_out);
	cr_expect_eq(e2e_occurrences(e2e_out,
				     "class=\"fsplan-chart fsplan-bars\""),
		     4, "a chart per comparison: %s", e2e_out);
	cr_expect_eq(e2e_occurrences(e2e_out, "<rect class=\"fsplan-bar"), 8,
		     "two bars a chart: %s", e2e_out);
	cr_expect(strstr(e2e_out, "fsplan-bar fsplan-worse"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "fsplan-bar fsplan-better"), "%s", e2e_out);
	cr_expect(!strstr(e2e_out, "<script"), "no script");
	cr_expect(strstr(e2e_out, "Welch-Satterthwaite"), "the head: %s",
		  e2e_out);
}

/* The CSV row of phase, config and metric, split into f[]. */
static int csv_row(const char *out, const char *phase, const char *config,
		   const char *metric, char f[32][64])
{
	char want[256], line[1024];
	const char *p = out;

	snprintf(want, sizeof(want), "%s,%s,", phase, config);
	while (*p) {
		size_t n = strcspn(p, "\n");
		int k = 0;
		char *save = NULL;

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p += n + (p[n] == '\n');
		if (strncmp(line, want, strlen(want)))
			continue;
		for (char *t = strtok_r(line, ",", &save); t && k < 32;
		     t = strtok_r(NULL, ",", &save))
			snprintf(f[k++], 64, "%s", t);
		/* empty fields collapse under strtok: these rows have none
		 * before the metric but params, so check its place */
		if (k > 4 && !strcmp(f[3], metric))
			return k;
	}
	cr_assert_fail("no row %s %s %s in:\n%s", phase, config, metric, out);
	return 0;
}

static void near(const char *got, double want, const char *what)
{
	double v = strtod(got, NULL);

	cr_expect(fabs(v - want) <= 1e-8 * fabs(want), "%s: %s, mpmath says "
		  "%.12g", what, got, want);
}

/* csv columns once params (empty) collapsed: phase 0, config_a 1,
 * config_b 2, metric 3, unit 4, better 5, a_n 6, a_mean 7, a_stdev 8,
 * b_n 9, b_mean 10, b_stdev 11, change_pct 12, diff 13, diff_lo 14,
 * diff_hi 15, change_lo_pct 16, change_hi_pct 17, df 18, t 19, p 20,
 * verdict 21 */
Test(compare, p_and_ci_against_mpmath, .fini = fini)
{
	char *a, *b, f[32][64];

	two_runs(&a, &b);
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, b, "--format",
				"csv", NULL }), 0, "%s", e2e_err);
	cr_assert_eq(csv_row(e2e_out, "write", "ext4", "rate_mbs", f), 22);
	cr_expect_str_eq(f[5], "higher");
	cr_expect_str_eq(f[6], "5");
	cr_expect_str_eq(f[9], "5");
	near(f[13], 5.82, "diff");
	near(f[14], 3.7115463010548353, "95% lo");
	near(f[15], 7.9284536989451647, "95% hi");
	/* a rate: the interval of B/A, Welch on the logarithms */
	near(f[16], 3.658546703162433, "lo %");
	near(f[17], 7.9739067451761074, "hi %");
	/* the test of the logarithms, as the interval */
	near(f[18], 7.9776910211119885, "df");
	near(f[19], 6.3721146928856152, "t");
	near(f[20], 0.00021803112356822582, "p");
	cr_expect_str_eq(f[21], "better");

	csv_row(e2e_out, "write", "ext3", "avg_lat_ms", f);
	cr_expect_str_eq(f[5], "lower");
	near(f[14], -1.9783465181634379, "95% lo");
	near(f[15], 2.1783465181634379, "95% hi");
	near(f[20], 0.91364519796978571, "p");
	cr_expect_str_eq(f[21], "no significant difference");

	csv_row(e2e_out, "write", "xfs", "seconds", f);
	near(f[14], 0.10045002783217159, "95% lo");
	near(f[15], 1.8412166388344951, "95% hi");
	near(f[20], 0.042098894518520314, "p");
	cr_expect_str_eq(f[21], "worse", "longer is worse for seconds");

	csv_row(e2e_out, "read", "xfs", "seconds", f);
	cr_expect_str_eq(f[6], "1");
	cr_expect(strstr(e2e_out, "cannot tell"), "n = 1 in A:\n%s", e2e_out);
}

Test(compare, alpha_sets_the_verdict_and_the_interval, .fini = fini)
{
	char *a, *b, f[32][64];

	two_runs(&a, &b);
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, b, "--alpha",
				"0.01", "--format", "csv", NULL }), 0);
	csv_row(e2e_out, "write", "xfs", "seconds", f);
	/* the 99% interval takes in 0: not significant at 0.01 */
	near(f[14], -0.38557269206502246, "99% lo");
	near(f[15], 2.3272393587316891, "99% hi");
	near(f[16], -23.582483334369711, "99% lo % of B/A");
	near(f[17], 315.86329850222061, "99% hi % of B/A");
	cr_expect_str_eq(f[21], "no significant difference");
	csv_row(e2e_out, "write", "ext4", "rate_mbs", f);
	near(f[14], 2.7520575060109343, "99% lo");
	near(f[16], 2.7000053852150115, "99% lo % of B/A");
	cr_expect_str_eq(f[21], "better");
}

Test(compare, text_and_fail_on_regression, .fini = fini)
{
	char *a, *b;
	int rc;

	two_runs(&a, &b);
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, b, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_out, "== phase write =="), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "== phase read =="), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "plan t (sha256 111111111111) in both"),
		  "%s", e2e_out);
	cr_expect(strstr(e2e_out, "95% CI"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "[+3.66%, +7.97%]"), "rate_mbs CI of B/A "
		  "in %%:\n%s", e2e_out);
	cr_expect(strstr(e2e_out, "4 comparisons: 1 better, 1 worse, 1 no "
			 "significant difference, 1 cannot tell"), "%s",
		  e2e_out);
	rc = e2e_fsplan((const char *[]){ "compare", a, b,
				"--fail-on-regression", NULL });
	cr_expect_eq(rc, 1, "xfs seconds is worse: exit 1, not %d", rc);
	cr_expect(strstr(e2e_err, "1 metric is significantly worse"), "%s",
		  e2e_err);
	rc = e2e_fsplan((const char *[]){ "compare", a, b, "--alpha", "0.01",
				"--fail-on-regression", NULL });
	cr_expect_eq(rc, 0, "nothing is worse at 0.01: %d", rc);
	/* the other way round, the regression is an improvement */
	rc = e2e_fsplan((const char *[]){ "compare", b, a,
				"--fail-on-regression", NULL });
	cr_expect_eq(rc, 1, "B->A: rate_mbs is worse: %d", rc);
}

Test(compare, metric_picks_other_metrics, .fini = fini)
{
	char *a, *b;

	two_runs(&a, &b);
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, b, "--metric",
				"avg_*", NULL }), 0);
	cr_expect(strstr(e2e_out, "avg_lat_ms"), "%s", e2e_out);
	cr_expect_null(strstr(e2e_out, "rate_mbs"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "1 comparison: 0 better"), "%s", e2e_out);
}

Test(compare, two_configs_of_one_run, .fini = fini)
{
	static struct buf x;
	char *a, *b;

	x.n = 0;
	add(&x, HEAD);
	runs(&x, "ext4:-:data=ordered", "write", "seconds", "s", s_e, 4);
	runs(&x, "ext4:-:data=writeback", "write", "seconds", "s", s_f, 6);
	a = rundir("one", SHA1, "read", "", x.s);
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, "--label",
				"ext4:-:data=ordered", "--label",
				"ext4:-:data=writeback", "--format", "csv",
				NULL }), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "write,ext4:-:data=ordered,"
			 "ext4:-:data=writeback,,seconds,s,lower,4,"), "%s",
		  e2e_out);
	cr_expect(strstr(e2e_out, ",0.04209889452,worse\n"), "%s", e2e_out);
	/* repetitions that ran config by config: the note says what that
	 * puts in the difference; in rounds, nothing to say */
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, "--label",
				"ext4:-:data=ordered", "--label",
				"ext4:-:data=writeback", NULL }), 0);
	cr_expect(strstr(e2e_out, "note: each config's repetitions ran "
			 "together (order: configs)"), "%s", e2e_out);
	man_extra = ", \"order\": \"rounds\"";
	b = rundir("rounds", SHA1, "read", "", x.s);
	man_extra = "";
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", b, "--label",
				"ext4:-:data=ordered", "--label",
				"ext4:-:data=writeback", NULL }), 0);
	cr_expect_null(strstr(e2e_out, "ran together"), "%s", e2e_out);
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", a, "--label",
				"ext4:-:data=ordered", "--label",
				"ext4:-:data=writebak", NULL }), 2);
	cr_expect(strstr(e2e_err, "did you mean 'ext4:-:data=writeback'"),
		  "%s", e2e_err);
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", a, NULL }), 2);
	cr_expect(strstr(e2e_err, "--label A --label B"), "%s", e2e_err);
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", a, "--label",
				"x", NULL }), 2);
	cr_expect(strstr(e2e_err, "give it twice"), "%s", e2e_err);
}

Test(compare, mismatched_plans_are_refused, .fini = fini)
{
	static struct buf x;
	char *a, *b, *c, *d, *e, *f;

	x.n = 0;
	add(&x, HEAD);
	runs(&x, "ext4", "write", "rate_mbs", "MB/s", s_a, 5);
	a = rundir("A", SHA1, "read", "", x.s);
	b = rundir("B", SHA2, "reread", "", x.s);
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", a, b, NULL }), 2);
	cr_expect(strstr(e2e_err, "phase 2 is 'read' in A and 'reread' in B"),
		  "%s", e2e_err);
	cr_expect(strstr(e2e_err, "different phases"), "%s", e2e_err);
	cr_expect_str_eq(e2e_out, "", "nothing compared");

	/* another plan with the same phases: compared, said so */
	c = rundir("C", SHA2, "read", "\"size\": \"2G\"", x.s);
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", a, c, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_out, "the same phases"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "note: the parameters differ: A (none), B "
			 "size=2G"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "no significant difference"), "the same "
		  "samples: %s", e2e_out);

	/* the same plan on loop images read two ways: said so */
	man_extra = ", \"target\": {\"kind\": \"image\", \"image_bytes\": "
		    "1073741824}, \"configs\": [{\"label\": \"ext4\", "
		    "\"loop_io\": \"buffered\"}]";
	e = rundir("E", SHA1, "read", "", x.s);
	man_extra = ", \"target\": {\"kind\": \"image\", \"image_bytes\": "
		    "1073741824}, \"configs\": [{\"label\": \"ext4\", "
		    "\"loop_io\": \"direct\"}]";
	f = rundir("F", SHA1, "read", "", x.s);
	man_extra = "";
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", e, f, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_out, "note: the targets differ: A loop images of "
			 "1024 MiB; through the host's page cache for ext4 "
			 "(it may have served their reads); B loop images of "
			 "1024 MiB, read and written by direct I/O"), "%s",
		  e2e_out);

	/* nothing in common */
	x.n = 0;
	add(&x, HEAD);
	runs(&x, "xfs", "write", "rate_mbs", "MB/s", s_a, 5);
	d = rundir("D", SHA1, "read", "", x.s);
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", a, d, NULL }), 2);
	cr_expect(strstr(e2e_err, "no cell of A"), "%s", e2e_err);
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", a, b, c, NULL }),
		     2);
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", a, c, "--alpha",
				"0.7", NULL }), 2);
}

Test(compare, failed_runs_do_not_count, .fini = fini)
{
	static struct buf x, y;
	char *a, *b;

	x.n = y.n = 0;
	add(&x, HEAD);
	add(&y, HEAD);
	runs(&x, "ext4", "write", "rate_mbs", "MB/s", s_a, 5);
	runs(&y, "ext4", "write", "rate_mbs", "MB/s", s_b, 2);
	for (int i = 3; i <= 5; i++)
		add(&y, "R,ext4/write#%d,ext4,ext4,,,write,,%d,status,failed,"
		    "disk full\n", i, i);
	runs(&y, "xfs", "write", "rate_mbs", "MB/s", s_b, 2);
	a = rundir("A", SHA1, "read", "", x.s);
	b = rundir("B", SHA1, "read", "", y.s);
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, b, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_out, "not ok in B: ext4/write, 3 phase runs: "
			 "disk full"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "only in B: xfs/write (2 phase runs)"),
		  "%s", e2e_out);
	/* 5 against the 2 that are left: p = 0.058 */
	cr_expect(strstr(e2e_out, "1 comparison: 0 better, 0 worse, 1 no "
			 "significant difference"), "n 5 vs 2:\n%s", e2e_out);
	/* nothing is worse by the figures, but B failed where A did not */
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", a, b,
			"--fail-on-regression", NULL }), 1, "%s", e2e_err);
	cr_expect(strstr(e2e_err, "1 cell is not ok in B where A's runs "
			 "were"), "%s", e2e_err);
	/* the other way round, B's failures are A's: no regression of
	 * theirs; but xfs/write, ok in A, has no result in B: that is */
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", b, a,
			"--fail-on-regression", NULL }), 1, "%s", e2e_err);
	cr_expect_null(strstr(e2e_err, "not ok in B"), "%s", e2e_err);
	cr_expect(strstr(e2e_err, "1 cell ok in A has no result in B"), "%s",
		  e2e_err);
}

Test(compare, labels_pair_across_the_configs_own_axes, .fini = fini)
{
	static struct buf x;
	char dir[512], *out;

	/* journal_mb is a top-level axis: part of each config, so config
	 * A's journal_mb=16 cells pair with B's journal_mb=64 ones */
	x.n = 0;
	add(&x, HEAD);
	for (int i = 0; i < 4; i++)
		add(&x, "R,ext4-j16/write/journal_mb=16#%d,ext4-j16,ext4,,,"
		    "write,journal_mb=16,%d,seconds,%.17g,s\n"
		    "R,ext4-j16/write/journal_mb=16#%d,ext4-j16,ext4,,,write,"
		    "journal_mb=16,%d,status,ok,\n", i + 1, i + 1, s_e[i],
		    i + 1, i + 1);
	for (int i = 0; i < 6; i++)
		add(&x, "R,ext4-j64/write/journal_mb=64#%d,ext4-j64,ext4,,,"
		    "write,journal_mb=64,%d,seconds,%.17g,s\n"
		    "R,ext4-j64/write/journal_mb=64#%d,ext4-j64,ext4,,,write,"
		    "journal_mb=64,%d,status,ok,\n", i + 1, i + 1, s_f[i],
		    i + 1, i + 1);
	snprintf(dir, sizeof(dir), "%s/axes", e2e_tmpdir());
	cr_assert_eq(mkdir(dir, 0755), 0);
	e2e_write(dir, "results.csv", x.s);
	e2e_write(dir, "manifest.json",
		  "{\"plan\": {\"path\": \"j.yaml\", \"sha256\": \"" SHA1 "\", "
		  "\"name\": \"j\", \"params\": {}},\n"
		  " \"phases\": [{\"name\": \"write\", \"exec\": \"w\"}],\n"
		  " \"configs\": [{\"index\": 1, \"label\": \"ext4-j16\", "
		  "\"axes\": {\"journal_mb\": \"16\"}},\n"
		  "  {\"index\": 2, \"label\": \"ext4-j64\", \"axes\": "
		  "{\"journal_mb\": \"64\"}}]}\n");
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", dir, "--label",
				"ext4-j16", "--label", "ext4-j64", NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_out, "1 comparison: 0 better, 1 worse"), "%s",
		  e2e_out);
	cr_expect(strstr(e2e_out, "0.042"), "p of the logarithms:\n%s",
		  e2e_out);

	/* an output inside a run directory is refused */
	out = e2e_write(dir, "cmp.txt", "");
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", dir, "--label",
				"ext4-j16", "--label", "ext4-j64", "-o", out,
				NULL }), 2);
	cr_expect(strstr(e2e_err, "inside a run directory"), "%s", e2e_err);
}

/* A repetition of label/write whose rate_mbs bonnie++ would print as
 * "+++++": v, with rate_mbs_fast 1. */
static void too_fast(struct buf *b, const char *label, int rep, double v)
{
	add(b, "R,%s/write#%d,%s,%s,,,write,,%d,rate_mbs,%g,MB/s\n", label,
	    rep, label, label, rep, v);
	add(b, "R,%s/write#%d,%s,%s,,,write,,%d,rate_mbs_fast,1,\n", label,
	    rep, label, label, rep);
	add(b, "R,%s/write#%d,%s,%s,,,write,,%d,status,ok,\n", label, rep,
	    label, label, rep);
}

/* bonnie++'s "+++++": a repetition whose name_fast row is 1 was too fast
 * to time; its value does not count, as in report, and a metric no run
 * of a cell timed is not compared at all. */
Test(compare, a_value_too_fast_to_time_does_not_count, .fini = fini)
{
	static struct buf x, y;
	char *a, *b, f[32][64];

	x.n = y.n = 0;
	add(&x, HEAD);
	add(&y, HEAD);
	runs(&x, "ext4", "write", "rate_mbs", "MB/s", s_a, 5);
	runs(&y, "ext4", "write", "rate_mbs", "MB/s", s_b, 5);
	/* two more of B's: huge, and too fast to count */
	too_fast(&y, "ext4", 6, 9e9);
	too_fast(&y, "ext4", 7, 9e9);
	/* xfs's every rate was too fast, on both sides */
	for (int i = 1; i <= 3; i++) {
		too_fast(&x, "xfs", i, 5e5);
		too_fast(&y, "xfs", i, 7e5);
	}
	a = rundir("A", SHA1, "read", "", x.s);
	b = rundir("B", SHA1, "read", "", y.s);
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, b, "--format",
				"csv", NULL }), 0, "%s", e2e_err);
	csv_row(e2e_out, "write", "ext4", "rate_mbs", f);
	cr_expect_str_eq(f[9], "5", "B's two +++++ runs left out");
	near(f[20], 0.00021803112356822582, "p as without them");
	cr_expect_null(strstr(e2e_out, "write,xfs,"), "%s", e2e_out);
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, b, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_out, "1 comparison: 1 better"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "(1 metric of a cell not compared: every "
			 "run timed it too fast to count, bonnie++'s +++++)"),
		  "%s", e2e_out);
	/* the page says it too, under "not compared" */
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, b, "--format",
				"html", NULL }), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "(1 metric of a cell not compared: every "
			 "run timed it too fast to count"), "%s", e2e_out);
}

/* A manifest of plan sha whose phase write has these with: values. */
static void with_manifest(const char *dir, const char *sha, const char *with)
{
	char man[1024];

	snprintf(man, sizeof(man),
		 "{\"plan\": {\"path\": \"%s.yaml\", \"sha256\": \"%s\", "
		 "\"name\": \"t\", \"params\": {}},\n \"phases\": [{\"name\": "
		 "\"write\", \"use\": \"tiobench\", \"key\": [\"rate_mbs\"], "
		 "\"with\": {%s}}]}\n", sha, sha, with);
	e2e_write(dir, "manifest.json", man);
}

/* Plans whose phases run the same modules with other with: values are
 * compared, and the header says which values differ, as it does for -D. */
Test(compare, other_with_values_are_noted, .fini = fini)
{
	static struct buf x;
	char *a, *b, *c;

	x.n = 0;
	add(&x, HEAD);
	runs(&x, "ext4", "write", "rate_mbs", "MB/s", s_a, 5);
	a = rundir("A", SHA1, "read", "", x.s);
	b = rundir("B", SHA2, "read", "", x.s);
	c = rundir("C", SHA2, "read", "", x.s);
	with_manifest(a, SHA1, "\"file_size\": \"64M\", \"mode\": "
		      "\"rand_write\", \"workers\": 4");
	with_manifest(b, SHA2, "\"file_size\": \"64M\", \"mode\": "
		      "\"rand_write\", \"block\": \"64k\", \"workers\": 8");
	with_manifest(c, SHA2, "\"mode\": \"rand_write\", \"workers\": 4, "
		      "\"file_size\": \"64M\"");
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, b, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_out, "the same phases\nnote: phase 'write': its "
			 "with: values differ: A workers=4 block=(default), B "
			 "workers=8 block=64k\n"), "%s", e2e_out);
	/* the same values in another order: nothing to say */
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, c, NULL }), 0,
		     "%s", e2e_err);
	cr_expect_null(strstr(e2e_out, "with: values differ"), "%s", e2e_out);
}

/* A change of a positive figure is a ratio: its interval never passes
 * -100% where the difference's would (A spread wide, B far smaller); a
 * figure that can be negative keeps the difference's interval. */
Test(compare, a_ratio_never_below_minus_100_percent, .fini = fini)
{
	static struct buf x, y;
	static const double wide[] = { 100, 300, 500 }, small[] = { 10, 20, 40 },
			    neg_a[] = { -1, 1, 0.5 }, neg_b[] = { 2, 3, 2.5 };
	char *a, *b, f[32][64];

	x.n = y.n = 0;
	add(&x, HEAD);
	add(&y, HEAD);
	runs(&x, "ext4", "write", "seconds", "s", wide, 3);
	runs(&y, "ext4", "write", "seconds", "s", small, 3);
	runs(&x, "xfs", "write", "seconds", "s", neg_a, 3);
	runs(&y, "xfs", "write", "seconds", "s", neg_b, 3);
	a = rundir("A", SHA1, "read", "", x.s);
	b = rundir("B", SHA1, "read", "", y.s);
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, b, "--format",
				"csv", NULL }), 0, "%s", e2e_err);
	csv_row(e2e_out, "write", "ext4", "seconds", f);
	/* the difference's interval would be below -100% of A's mean */
	cr_assert_lt(strtod(f[13], NULL), 0);
	cr_expect_lt(100 * strtod(f[14], NULL) / 300, -100, "diff lo %s",
		     f[14]);
	cr_expect_gt(strtod(f[16], NULL), -100, "lo %s", f[16]);
	cr_expect_lt(strtod(f[16], NULL), strtod(f[17], NULL));
	cr_expect_lt(strtod(f[17], NULL), 0, "B is smaller: hi %s", f[17]);
	/* -1 in A: the difference, in % of |A's mean| */
	csv_row(e2e_out, "write", "xfs", "seconds", f);
	near(f[16], 100 * strtod(f[14], NULL) / (0.5 / 3), "lo % of a diff");
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, b, NULL }), 0);
	cr_expect(strstr(e2e_out, "B / A"), "the head says which:\n%s",
		  e2e_out);
}
