/* test_series_report: report and compare of a run's behaviour over time —
 * steady lines, sparklines, the html time chart, compare's flag. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "e2e.h"
#include "pagepart.h"
#include "results/seriesread.h"

static void fini(void)
{
	e2e_cleanup();
}

TestSuite(series_report, .fini = fini);

#define RES_HEAD "run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts," \
		 "phase,phase_params,rep,metric,value,unit\n"
#define TS_HEAD "run_id,cell,t_s,metric,value,unit\n"

/* A phase run's rows: its key figure, its steady rows (steady < 0: none,
 * as a run from before series), its status. */
static void run_rows(FILE *f, const char *label, int rep, int steady,
		     double at, double range, double slope)
{
	const char *c = "t,%s/w#%d,%s,ext4,,,w,,%d,";

	fprintf(f, c, label, rep, label, rep);
	fputs("write_mbs,300,MiB/s\n", f);
	if (steady >= 0) {
		fprintf(f, c, label, rep, label, rep);
		fprintf(f, "steady,%d,write_mbs\n", steady);
		if (steady) {
			fprintf(f, c, label, rep, label, rep);
			fprintf(f, "steady_at_s,%g,s\n", at);
			fprintf(f, c, label, rep, label, rep);
			fputs("write_mbs_steady,300,MiB/s\n", f);
		}
		fprintf(f, c, label, rep, label, rep);
		fprintf(f, "steady_range_pct,%g,%%\n", range);
		fprintf(f, c, label, rep, label, rep);
		fprintf(f, "steady_slope_pct,%g,%%\n", slope);
	}
	fprintf(f, c, label, rep, label, rep);
	fputs("status,ok,\n", f);
}

/* A block of points: write_mbs v(t) for t = 1..n, and the machine's. */
static void points(FILE *f, const char *label, int rep, int n,
		   double (*v)(int t, int rep))
{
	for (int t = 1; t <= n; t++) {
		fprintf(f, "t,%s/w#%d,%d,write_mbs,%g,MiB/s\n", label, rep, t,
			v(t, rep));
		fprintf(f, "t,%s/w#%d,%d,dev_write_mbs,%g,MiB/s\n", label, rep,
			t, v(t, rep) * 1.1);
		fprintf(f, "t,%s/w#%d,%d,dirty_mib,%d,MiB\n", label, rep, t,
			t * 10);
	}
}

/* ext4: 800 MiB/s (the mean of 900 and 700) for 10 s, then 100 (of 0
 * and 200); xfs: 800 falling by 40 a second. */
static double cliff(int t, int rep)
{
	return t <= 10 ? (rep == 1 ? 900 : 700) : (rep == 1 ? 0 : 200);
}

static double falling(int t, int rep)
{
	(void)rep;
	return 800 - 40 * (t - 1);
}

static FILE *open_in(const char *dir, const char *name, const char *head)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(head, f);
	return f;
}

/* The run of the tests: ext4 twice, steady after 15 s; xfs once, never
 * steady; series of 20 s unless n is 0 (no timeseries.csv). */
static const char *make_run(const char *name, int n, int xfs_steady)
{
	static char dir[512];
	FILE *r, *t;

	snprintf(dir, sizeof(dir), "%s/%s", e2e_tmpdir(), name);
	cr_assert_eq(mkdir(dir, 0700), 0);
	r = open_in(dir, "results.csv", RES_HEAD);
	run_rows(r, "ext4", 1, 1, 15, 4, -2);
	run_rows(r, "ext4", 2, 1, 15, 5, 1);
	run_rows(r, "xfs", 1, xfs_steady, 15, 35, -18);
	cr_assert_eq(fclose(r), 0);
	if (!n)
		return dir;
	t = open_in(dir, "timeseries.csv", TS_HEAD);
	points(t, "ext4", 1, n, cliff);
	points(t, "ext4", 2, n, cliff);
	points(t, "xfs", 1, n, falling);
	cr_assert_eq(fclose(t), 0);
	return dir;
}

/* The line of the report's output that has both a and b, or NULL. */
static char *line_with(const char *text, const char *a, const char *b)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		char *l = strndup(p, n);

		if (strstr(l, a) && (!b || strstr(l, b)))
			return l;
		free(l);
		p += n + (p[n] == '\n');
	}
	return NULL;
}

static int chars(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* ---- text --------------------------------------------------------------- */

Test(series_report, a_steady_line_and_a_sparkline_per_config)
{
	const char *dir = make_run("run", 20, 0);
	char *l;

	cr_assert_eq(e2e_fsplan((const char *[]){ "report", dir, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_out, "steady state of write_mbs, per config"),
		  "%s", e2e_out);
	l = line_with(e2e_out, "ext4 ", "steady after 15 s");
	cr_assert_not_null(l, "%s", e2e_out);
	/* the runs' mean per second: 800 for 10 s, then 100 (of 800) */
	cr_expect(strstr(l, "  \u2588\u2588\u2588\u2588\u2588\u2588\u2588"
			 "\u2588\u2588\u2588\u2582\u2582\u2582\u2582\u2582"
			 "\u2582\u2582\u2582\u2582\u2582"), "%s", l);
	free(l);
	l = line_with(e2e_out, "xfs ", "never steady (range 35%, slope "
		      "-18%)");
	cr_assert_not_null(l, "%s", e2e_out);
	cr_expect(strstr(l, "  \u2588\u2588\u2587"), "starts at the top: %s",
		  l);
	cr_expect(!strcmp(l + strlen(l) - 3, "\u2581"), "ends at the bottom: "
		  "%s", l);
	free(l);
	cr_expect_eq(page_count(e2e_out, "a mark per 1 s"), 1, "said twice: %s",
		     e2e_out);
	cr_expect(strstr(e2e_out, "\na mark per 1 s of 0 to 20 s, the runs' "
			 "mean: \u2581 0 to \u2588 800 MiB/s\n"), "%s", e2e_out);
	cr_expect_str_eq(e2e_err, "");
}

Test(series_report, a_long_series_fits_the_line)
{
	const char *dir = make_run("run", 3000, 0), *p, *end;
	char *sec;

	cr_assert_eq(e2e_fsplan((const char *[]){ "report", dir, NULL }), 0);
	p = strstr(e2e_out, "steady state of");
	cr_assert_not_null(p, "%s", e2e_out);
	end = strstr(p, "\n\n");
	cr_assert_not_null(end, "%s", e2e_out);
	sec = strndup(p, end - p);
	for (char *l = strtok(sec, "\n"); l; l = strtok(NULL, "\n"))
		cr_expect_leq(chars(l), 80, "%d: %s", chars(l), l);
	free(sec);
}

Test(series_report, a_run_from_before_series_reports_as_before)
{
	const char *dir;
	FILE *r;

	dir = make_run("steadyrows", 0, 0);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", dir, NULL }), 0);
	/* the steady rows say it; no series, no sparkline */
	cr_expect(strstr(e2e_out, "steady after 15 s"), "%s", e2e_out);
	cr_expect_null(strstr(e2e_out, "over time"), "%s", e2e_out);
	cr_expect_str_eq(e2e_err, "");

	dir = e2e_tmpdir();
	r = open_in(dir, "results.csv", RES_HEAD);
	run_rows(r, "ext4", 1, -1, 0, 0, 0);
	cr_assert_eq(fclose(r), 0);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", dir, NULL }), 0);
	cr_expect_null(strstr(e2e_out, "steady"), "%s", e2e_out);
	cr_expect_str_eq(e2e_err, "");
}

/* ---- reading timeseries.csv --------------------------------------------- */

static int want_all(void *ctx, const char *cell, const char *metric)
{
	(void)ctx;
	(void)metric;
	return strstr(cell, "known") ? 1 : -1;
}

Test(series_report, a_cells_last_block_counts_and_a_torn_line_is_left_out)
{
	const char *path = e2e_write(e2e_tmpdir(), "timeseries.csv", TS_HEAD
		"t,known#1,1,write_mbs,5,MiB/s\n"
		"t,known#1,2,write_mbs,5,MiB/s\n"
		"t,known#2,1,write_mbs,7,MiB/s\n"
		/* --resume made known#1 again */
		"t,known#1,1,write_mbs,800,MiB/s\n"
		"t,known#1,2,write_mbs,810,MiB/s\n"
		"t,known#1,3,write_mbs,820,MiB/s\n"
		/* and again right after, a crash cutting it short */
		"t,known#2,1,write_mbs,9,MiB/s\n"
		"t,known#2,0.5,write_mbs,1,MiB/s\n"
		"\"t\",\"known#2\",\"1\",write_mbs,2,MiB/s\n"
		"t,known#2,2,write_m");
	const struct seriesread_track *tr;
	struct seriesread s;
	struct strbuf note = { 0 };
	struct diag d = { 0 };

	cr_assert_eq(seriesread_load(&s, path, want_all, NULL, &d), 0);
	tr = seriesread_track(&s, "known#1", "write_mbs");
	cr_assert_not_null(tr);
	cr_expect_eq(tr->n, 3);
	cr_expect_eq(tr->v[0], 800);
	cr_expect_eq(tr->t[2], 3);
	tr = seriesread_track(&s, "known#2", "write_mbs");
	cr_assert_not_null(tr);
	cr_expect_eq(tr->n, 2, "the block from t 0.5: %zu", tr->n);
	cr_expect_eq(tr->v[0], 1);
	cr_expect_eq(tr->v[1], 2);
	cr_expect(s.torn);
	cr_expect_eq(s.n_superseded, 3);
	cr_expect_eq(seriesread_note(&s, &note), 1);
	cr_expect(strstr(note.p, "cut short"), "%s", note.p);
	free(note.p);
	seriesread_free(&s);
	cr_expect_eq(seriesread_load(&s, "/nonexistent/timeseries.csv",
				     want_all, NULL, &d), 1);
}

/* ---- hostile input ------------------------------------------------------ */

Test(series_report, hostile_points_are_left_out_with_a_note)
{
	const char *dir = make_run("run", 20, 0);
	char path[600];
	FILE *t;

	snprintf(path, sizeof(path), "%s/timeseries.csv", dir);
	t = fopen(path, "a");
	cr_assert_not_null(t);
	fputs("t,xfs/w#1,21,write_mbs,NaN,MiB/s\n"
	      "t,xfs/w#1,22,write_mbs,1e999,MiB/s\n"
	      "t,xfs/w#1,23,write_mbs,1e308,MiB/s\n"
	      "t,xfs/w#1,-5,write_mbs,3,MiB/s\n"
	      "t,xfs/w#1,24,=cmd|' /C calc'!A0,3,MiB/s\n"
	      "t,xfs/w#1,25,write_mbs,3,\"=HYPERLINK(\"\"x\"\")\"\n"
	      "t,\"<script>alert(1)</script>#1\",1,write_mbs,3,MiB/s\n"
	      "t,xfs/w#1,26\n", t);
	cr_assert_eq(fclose(t), 0);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", dir, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_err, "timeseries.csv: 6 rows left out (not a "
			 "point): line"), "%s", e2e_err);
	cr_expect(strstr(e2e_err, "1 row of cells not in results.csv (as "
			 "'<script>alert(1)</script>#1')"), "%s", e2e_err);
	cr_expect(strstr(e2e_out, "6 rows left out"), "the footer says it");
	/* 1e308 is a number: the line's top, the rest of xfs at its bottom */
	cr_expect(strstr(e2e_out, "\u2588 1e+308 MiB/s"), "%s", e2e_out);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", dir, "--format",
		"html", "-o", e2e_write(dir, "page.html", ""), NULL }), 0);
	snprintf(path, sizeof(path), "%s/page.html", dir);
	cr_expect_null(strstr(e2e_read(path), "<script>"));
	cr_expect(strstr(e2e_read(path), "&lt;script&gt;alert(1)"));

	/* a time far out and values that overflow a sum: still a chart */
	snprintf(path, sizeof(path), "%s/timeseries.csv", dir);
	t = fopen(path, "a");
	cr_assert_not_null(t);
	fputs("t,xfs/w#1,1e300,write_mbs,1e308,MiB/s\n", t);
	cr_assert_eq(fclose(t), 0);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", dir, "--format",
		"html", "-o", e2e_write(dir, "page.html", ""), NULL }), 0);
	snprintf(path, sizeof(path), "%s/page.html", dir);
	cr_expect(strstr(e2e_read(path), "fsplan-time"));
	cr_expect_null(strstr(e2e_read(path), "nan"));
	cr_expect_null(strstr(e2e_read(path), "inf"));
}

Test(series_report, a_huge_file_is_read_within_bounds, .timeout = 240)
{
	const char *dir = make_run("run", 20, 0);
	char path[600], *field;
	FILE *t;
	long rows = 0;

	snprintf(path, sizeof(path), "%s/timeseries.csv", dir);
	t = fopen(path, "a");
	cr_assert_not_null(t);
	/* 100 MB of one series after the first block */
	while (ftell(t) < 100L << 20 && ++rows)
		fprintf(t, "t,xfs/w#1,%ld.5,write_mbs,%ld,MiB/s\n", 20 + rows,
			rows % 1000);
	cr_assert_eq(fclose(t), 0);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", dir, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_err, "points past the first 262144 of a series "
			 "left out"), "%s", e2e_err);
	cr_expect(strstr(e2e_out, "never steady (range 35%"), "%s", e2e_out);

	/* one record of 20 MiB: no series, the steady lines still */
	t = fopen(path, "w");
	cr_assert_not_null(t);
	fputs(TS_HEAD "t,\"", t);
	field = malloc(1 << 20);
	cr_assert_not_null(field);
	memset(field, 'x', 1 << 20);
	for (int i = 0; i < 20; i++)
		fwrite(field, 1, 1 << 20, t);
	free(field);
	fputs("\",1,write_mbs,1,MiB/s\n", t);
	cr_assert_eq(fclose(t), 0);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", dir, NULL }), 0);
	cr_expect(strstr(e2e_err, "record longer than 16 MiB: no time series "
			 "shown"), "%s", e2e_err);
	cr_expect(strstr(e2e_out, "steady after 15 s"), "%s", e2e_out);
}

/* ---- html --------------------------------------------------------------- */

/* The n-th svg of class cls in page (malloc'd), or NULL. */
static char *chart(const char *page, const char *cls, int n)
{
	char open[128];

	snprintf(open, sizeof(open), "<svg class=\"fsplan-chart %s\"", cls);
	return page_part(page, open, "</svg>", n);
}

static char *page_of(const char *dir)
{
	char out[600];

	snprintf(out, sizeof(out), "%s/page.html", dir);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", dir, "--format",
		"html", "-o", out, NULL }), 0, "%s", e2e_err);
	return e2e_slurp(out, NULL);
}

Test(series_report, the_html_time_chart_has_a_line_per_config)
{
	char *page = page_of(make_run("run", 20, 0)), *c, *at;
	double x, w;

	c = chart(page, "fsplan-time", 0);
	cr_assert_not_null(c, "%s", page);
	cr_expect(strstr(c, "write_mbs over time"), "%s", c);
	cr_expect_eq(page_count(c, "<path class=\"fsplan-series\""), 2, "%s", c);
	/* ext4's two runs, faint; xfs's one is its line */
	cr_expect_eq(page_count(c, "<path class=\"fsplan-rep\""), 2, "%s", c);
	/* ext4's windows: half its run (the default), up to 15 s */
	cr_expect_eq(page_count(c, "<rect class=\"fsplan-steady\""), 2, "%s", c);
	at = strstr(c, "<rect class=\"fsplan-steady\"");
	cr_assert(at && (at = strstr(at, "x=\"")) &&
		  sscanf(at, "x=\"%lf\" y=\"%*d\" width=\"%lf\"", &x,
			 &w) == 2, "%s", c);
	/* 5 to 15 s of an axis of 0 to 20 s, 668 pixels wide */
	cr_expect(w > 300 && w < 370 && x > 72 + 150 && x < 72 + 190,
		  "x %g, width %g", x, w);
	cr_expect(strstr(c, ">write_mbs (MiB/s)</text>"), "%s", c);
	cr_expect(strstr(c, ">seconds since the phase's timed start (s)"),
		  "%s", c);
	cr_expect(strstr(c, ">ext4 (2 runs)</text>") &&
		  strstr(c, ">xfs (1 run)</text>"), "a legend: %s", c);
	free(c);
	/* the device under it, then the dirty pages (no read, writeback) */
	c = chart(page, "fsplan-time", 1);
	cr_assert_not_null(c, "%s", page);
	cr_expect(strstr(c, ">device (MiB/s)</text>"), "%s", c);
	cr_expect_eq(page_count(c, "<path class=\"fsplan-series\""), 2, "%s", c);
	free(c);
	c = chart(page, "fsplan-time", 2);
	cr_assert_not_null(c, "%s", page);
	cr_expect(strstr(c, ">memory (MiB)</text>"), "%s", c);
	free(c);
	cr_expect_null(chart(page, "fsplan-time", 3));
	cr_expect(strstr(page, "never steady (range 35%, slope -18%)"));
	cr_expect_null(strstr(page, "<script"));
	free(page);
}

Test(series_report, no_chart_for_a_run_from_before_series)
{
	char *page = page_of(make_run("run", 0, 0));

	cr_expect_null(strstr(page, "fsplan-time"));
	cr_expect(strstr(page, "steady after 15 s"));
	free(page);
}

/* ---- compare ------------------------------------------------------------ */

Test(series_report, compare_flags_a_side_that_never_was_steady)
{
	char a[512], *l;
	const char *b;

	snprintf(a, sizeof(a), "%s", make_run("a", 20, 1));
	b = make_run("b", 20, 0);
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", a, b, NULL }),
		     0, "%s", e2e_err);
	l = line_with(e2e_out, "xfs ", "write_mbs");
	cr_assert_not_null(l, "%s", e2e_out);
	cr_expect(strstr(l, "B never steady: the mean may not hold"), "%s", l);
	free(l);
	l = line_with(e2e_out, "ext4 ", "write_mbs");
	cr_assert_not_null(l, "%s", e2e_out);
	cr_expect_null(strstr(l, "steady"), "both steady: %s", l);
	free(l);
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", b, a, NULL }),
		     0);
	l = line_with(e2e_out, "xfs ", "write_mbs");
	cr_expect(l && strstr(l, "A never steady: the mean"), "%s", l);
	free(l);
}

/* ---- in a browser ------------------------------------------------------- */

Test(series_report, the_time_chart_renders_in_chromium, .timeout = 240)
{
	const char *root = getenv("FSPLAN_ROOT"), *dir = make_run("run", 20, 0);
	char cmd[2048], out[600], path[700], *page, *c, *at;
	int rc, lines, drawn, w, h;

	cr_assert_not_null(root, "FSPLAN_ROOT is not set (run through make)");
	free(page_of(dir));
	snprintf(out, sizeof(out), "%s/shot", dir);
	snprintf(cmd, sizeof(cmd), "FSPLAN_BROWSER_CHARTS=1 bash "
		 "'%s/tests/browser.sh' '%s/page.html' '%s'", root, dir, out);
	rc = system(cmd);
	rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
	if (rc == 77)
		cr_skip_test("no chromium here (make deps installs it)");
	cr_assert_eq(rc, 0, "tests/browser.sh: exit %d", rc);
	snprintf(path, sizeof(path), "%s.console", out);
	cr_expect_str_eq(e2e_read(path), "", "the page logged");
	snprintf(path, sizeof(path), "%s.charts", out);
	page = e2e_slurp(path, NULL);
	c = chart(page, "fsplan-time", 0);
	cr_assert_not_null(c, "%s", page);
	at = strstr(c, "data-drawn=\"");
	cr_assert_not_null(at, "the script did not measure: %.400s", c);
	cr_assert_eq(sscanf(at, "data-drawn=\"%d %d %dx%d", &lines, &drawn,
			    &w, &h), 4, "%.80s", at);
	/* a line per config, each laid out with a length, on a real chart */
	cr_expect_eq(lines, 2);
	cr_expect_eq(drawn, 2);
	cr_expect_geq(w, 700);
	cr_expect_geq(h, 250);
	free(c);
	free(page);
}

/* A key series that was 0 over the window tested (bonnie's put_block
 * while the later tests ran) is not called unsteady by its range. */
Test(series_report, an_idle_window_says_so)
{
	const char *dir = make_run("run", 20, 0);
	char path[600];
	FILE *r;

	snprintf(path, sizeof(path), "%s/results.csv", dir);
	r = fopen(path, "w");
	cr_assert_not_null(r);
	fputs(RES_HEAD, r);
	run_rows(r, "ext4", 1, 1, 15, 4, -2);
	run_rows(r, "xfs", 1, 0, 0, 0, 0);
	fputs("t,xfs/w#1,xfs,ext4,,,w,,1,write_mbs_steady,0,MiB/s\n", r);
	cr_assert_eq(fclose(r), 0);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", dir, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_out, "never steady (0 over its window"), "%s",
		  e2e_out);
	cr_expect_null(strstr(e2e_out, "range 0%"), "%s", e2e_out);
}
