/* test_series_parse: parsers that return series — lparse's checks and T
 * lines, and dbench's and fio's series from the real tools. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"
#include "host/child.h"
#include "phase/libsrc.h"
#include "phase/lparse.h"
#include "results/metrics.h"
#include "results/series.h"

#define MIB	1048576.0

static void fini(void)
{
	e2e_cleanup();
}

TestSuite(series_parse, .fini = fini, .timeout = 120);

/* What lparse_body sent on the report fd, and how it ended. */
struct parsed {
	char *report;
	size_t len;
	int ok;			/* exit 0 */
	struct diag why;	/* its failure record, when there is one */
	struct series s;	/* its T lines */
};

/* Run parser (a path) on out as fsplan does: lparse_body in a child,
 * its report fd a pipe. */
static void run_parser(const char *parser, const char *out, size_t len,
		       struct parsed *p)
{
	struct lparse_job job = { parser, out, "", len, 0 };
	size_t cap = 65536;
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	memset(p, 0, sizeof(*p));
	p->report = malloc(cap);
	cr_assert(p->report);
	cr_assert(!pipe(fds));
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		if (fds[1] != CHILD_REPORT_FD &&
		    dup2(fds[1], CHILD_REPORT_FD) < 0)
			_exit(99);
		_exit(lparse_body(&job));
	}
	close(fds[1]);
	while ((n = read(fds[0], p->report + p->len, cap - p->len - 1)) > 0) {
		p->len += (size_t)n;
		if (cap - p->len < 4096) {
			p->report = realloc(p->report, cap *= 2);
			cr_assert(p->report);
		}
	}
	close(fds[0]);
	p->report[p->len] = '\0';
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	p->ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	cr_assert_geq(metrics_diag_decode(p->report, p->len, &p->why), 0);
	if (p->ok)
		cr_assert(!series_decode(&p->s, p->report, p->len),
			  "a malformed T line in:\n%s", p->report);
}

static void parsed_free(struct parsed *p)
{
	free(p->report);
	diag_release(&p->why);
	series_free(&p->s);
}

static void library_parser(const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/parse/%s.lua", libsrc_dir(), name);
}

/* A parser of our own, written to the test's private directory. */
static const char *hostile_parser(const char *code)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s",
		 e2e_write(e2e_tmpdir(), "hostile.lua", code));
	return path;
}

/* The points of metric: their number, into t and v (malloc'd). */
static int points(const struct series *s, const char *metric, double **t,
		  double **v)
{
	int n;

	cr_assert(!series_of(s, metric, t, v, &n));
	return n;
}

/* The value of a P line, or NAN. */
struct prow {
	const char *name;
	double v;
};

static void find_row(void *ctx, const char *name, double v,
		     const char *unit)
{
	struct prow *r = ctx;

	(void)unit;
	if (!strcmp(name, r->name))
		r->v = v;
}

static double p_value(const struct parsed *p, const char *name)
{
	struct prow r = { name, NAN };

	lparse_rows(p->report, p->len, find_row, &r);
	return r.v;
}

/* The time-weighted mean of a rate series: the total over its time. */
static double over_time(const double *t, const double *v, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += v[i] * (t[i] - (i ? t[i - 1] : 0));
	return n ? sum / t[n - 1] : NAN;
}

/* ---- lparse: what it takes, in what order ------------------------------ */

Test(series_parse, points_go_out_in_time_order_beside_the_metrics)
{
	struct parsed p;
	double *t, *v;
	int n;

	run_parser(hostile_parser(
		"return function(out)\n"
		"  return { total = {value = 7, unit = 'MB'} }, {\n"
		"    {t = 2, metric = 'b_mbs', value = 20, unit = 'MB/s'},\n"
		"    {t = 1, metric = 'b_mbs', value = 10, unit = 'MB/s'},\n"
		"    {t = 1, metric = 'a_ms', value = 0.5, unit = 'ms,x'},\n"
		"    {t = 0.5, metric = 'a_ms', value = 1e-3},\n"
		"  }\n"
		"end\n"), "", 0, &p);
	cr_assert(p.ok, "%s", p.why.msg);
	cr_expect_eq(p_value(&p, "total"), 7);
	cr_assert_eq(p.s.n, 4, "%s", p.report);
	/* t, then name: the block interval by interval */
	cr_expect(strstr(p.report, "T 0.500000 a_ms 0.001\n"
			 "T 1.000000 a_ms 0.5\n"
			 "T 1.000000 b_mbs 10 MB/s\n"
			 "T 2.000000 b_mbs 20 MB/s\n"), "%s", p.report);
	n = points(&p.s, "b_mbs", &t, &v);
	cr_expect(n == 2 && t[1] == 2 && v[1] == 20);
	free(t);
	free(v);
	parsed_free(&p);
}

Test(series_parse, a_parser_without_series_still_works)
{
	struct parsed p;

	run_parser(hostile_parser("return function() return {x = 1} end\n"),
		   "", 0, &p);
	cr_assert(p.ok, "%s", p.why.msg);
	cr_expect_eq(p.s.n, 0);
	cr_expect_eq(p_value(&p, "x"), 1);
	parsed_free(&p);
}

/* A hostile second value fails the parse, saying why. */
static void refused(const char *series, const char *want)
{
	char code[1024];
	struct parsed p;

	snprintf(code, sizeof(code), "return function()\n"
		 "  local s = %s\n"
		 "  return { fine = 1 }, s\n"
		 "end\n", series);
	run_parser(hostile_parser(code), "", 0, &p);
	cr_expect(!p.ok, "%s was taken", series);
	cr_expect(p.why.msg[0] && strstr(p.why.msg, want),
		  "%s: reason '%s' lacks '%s'", series, p.why.msg, want);
	/* nothing but the record: the parent keeps no P or T line of it */
	cr_expect(!strstr(p.report, "\nT ") && strncmp(p.report, "T ", 2) &&
		  strncmp(p.report, "P ", 2) && !strstr(p.report, "\nP "),
		  "%s sent lines: %s", series, p.report);
	parsed_free(&p);
}

Test(series_parse, hostile_series_are_refused)
{
	refused("{{t = 1, metric = 'x', value = 0/0}}",
		"value of 'x' is nan");
	refused("{{t = 1, metric = 'x', value = 1/0}}",
		"value of 'x' is inf");
	refused("{{t = -1, metric = 'x', value = 1}}", "t is -1");
	refused("{{t = 0/0, metric = 'x', value = 1}}", "t is nan");
	refused("{{t = 1/0, metric = 'x', value = 1}}", "t is inf");
	refused("{{t = 1, metric = 'cpu_pct', value = 1}}",
		"'cpu_pct' is a row fsplan writes itself");
	refused("{{t = 1, metric = 'dev_write_mbs', value = 1}}",
		"'dev_write_mbs' is a row fsplan writes itself");
	refused("{{t = 1, metric = 'dirty_mib', value = 1}}",
		"'dirty_mib' is a row fsplan writes itself");
	refused("{{t = 1, metric = 'write_mbs_steady', value = 1}}",
		"'write_mbs_steady' is a row fsplan writes itself");
	refused("{{t = 1, metric = 'status', value = 1}}",
		"'status' is a row fsplan writes itself");
	refused("{{t = 1, metric = 'a b', value = 1}}",
		"series[1]: metric is not a metric name");
	refused("{{t = 1, metric = '-x', value = 1}}",
		"series[1]: metric is not a metric name");
	refused("{{t = 1, metric = 'x', value = 1, unit = '=cmd'}}",
		"could start a spreadsheet formula");
	refused("{{t = 1, metric = 'x', value = '1'}}",
		"series[1]: value is a string, not a number");
	refused("{{t = '1', metric = 'x', value = 1}}",
		"series[1]: t is a string, not a number");
	refused("{{t = 1, metric = 'x', value = 1}, 7}",
		"series[2] is a number, not a point");
	refused("{{t = 1, metric = 'x', value = 1},"
		" {t = 1, metric = 'x', value = 2}}",
		"two points of 'x' at t 1");
	refused("'many'", "second value is a string, not a list of points");
	refused("{x = {t = 1, metric = 'x', value = 1}}",
		"is a table that is no list of points");
}

/* A million points: refused on their number, before any is looked at. */
Test(series_parse, a_million_points_are_refused)
{
	char want[128];

	snprintf(want, sizeof(want), "the parser returned 1000000 points: a "
		 "series holds at most %d", LPARSE_SERIES_MAX);
	refused("{}; local p = {t = 1, metric = 'x', value = 1}\n"
		"  for i = 1, 1000000 do s[i] = p end", want);
}

/* As many as the cap: all of them go out. */
Test(series_parse, the_cap_itself_is_taken, .timeout = 60)
{
	char code[512];
	struct parsed p;

	snprintf(code, sizeof(code), "return function()\n"
		 "  local s = {}\n"
		 "  for i = 1, %d do\n"
		 "    s[i] = {t = i / 10, metric = 'x', value = i}\n"
		 "  end\n"
		 "  return {}, s\n"
		 "end\n", LPARSE_SERIES_MAX);
	run_parser(hostile_parser(code), "", 0, &p);
	cr_assert(p.ok, "%s", p.why.msg);
	cr_expect_eq(p.s.n, LPARSE_SERIES_MAX);
	cr_expect_eq(p.s.p[p.s.n - 1].value, LPARSE_SERIES_MAX);
	parsed_free(&p);
}

/* ---- dbench ------------------------------------------------------------- */

/* dbench_ext4_t10_4.txt: launch 0 s, warm-up 2 s, execute lines 1 to 9 s
 * with running averages 426.02, 485.73, ... 482.74 MB/s. */
Test(series_parse, dbench_sample)
{
	static const double avg[] = { 426.02, 485.73, 505.89, 525.02, 487.30,
				      497.01, 489.50, 487.24, 482.74 };
	static const double lat[] = { 14.084, 10.515, 10.840, 9.653, 93.999,
				      10.597, 81.474, 13.142, 83.513 };
	char parser[PATH_MAX];
	struct parsed p;
	double *t, *v, *lt, *lv, sum;
	size_t len;
	char *text = e2e_slurp("fixtures/parse/dbench_ext4_t10_4.txt", &len);
	int n;

	library_parser("dbench", parser, sizeof(parser));
	run_parser(parser, text, len, &p);
	cr_assert(p.ok, "%s", p.why.msg);
	cr_expect_eq(p_value(&p, "throughput_mbs"), 482.745);
	n = points(&p.s, "throughput_mbs", &t, &v);
	cr_assert_eq(n, 9, "%s", p.report);
	cr_assert_eq(points(&p.s, "max_latency_ms", &lt, &lv), 9);
	for (int i = 0; i < n; i++) {
		/* the second's bytes: the averages' difference */
		double want = i ? avg[i] * (i + 1) - avg[i - 1] * i : avg[0];

		cr_expect_eq(t[i], 2 + i + 1, "point %d at %g", i, t[i]);
		cr_expect(fabs(v[i] - want) < 1e-9, "second %d: %.17g, not "
			  "%.17g", i + 1, v[i], want);
		cr_expect(lt[i] == t[i] && lv[i] == lat[i], "latency %d", i);
	}
	/* one-second rates from execute's start: their mean is dbench's
	 * last running average */
	sum = 0;
	for (int i = 0; i < n; i++)
		sum += v[i];
	cr_expect(fabs(sum / n - 482.74) < 1e-9, "mean %.17g", sum / n);
	free(t);
	free(v);
	free(lt);
	free(lv);
	free(text);
	parsed_free(&p);
}

/* ---- fio ---------------------------------------------------------------- */

/*
 * fio_status_groups.json: fio 3.33 --status-interval=1
 * --output-format=json, two writers (numjobs=2, group 0) then a reader
 * (stonewall, group 1), 3 s each: seven reports. The figures by hand,
 * from the reports' timestamp_ms and each job's bytes and runtime.
 */
Test(series_parse, fio_status_interval_groups)
{
	static const struct {
		const char *metric;
		double t, bytes, dt;	/* s, bytes of the interval, s */
	} want[] = {
		/* writers from 649874 ms (fio's clock): 650737 - 863 */
		{ "g0.write_bw_mbs", 0.863, 3366584320.0 + 3690987520, 0.863 },
		{ "g0.write_bw_mbs", 1.863, (7457865728.0 - 3366584320) +
			(8541241344.0 - 3690987520), 1 },
		{ "g0.write_bw_mbs", 3.005, (12054495232.0 - 11541020672) +
			(13430095872.0 - 12879659008), 0.142 },
		/* the reader from 653741 - 651 = 653090 */
		{ "g1.read_bw_mbs", 3.867, 939786240, 0.651 },
		{ "g1.read_bw_mbs", 4.867, 2352218112.0 - 939786240, 1 },
		{ "g1.read_bw_mbs", 6.226, 3975217152.0 - 3471835136, 0.36 },
	};
	char parser[PATH_MAX];
	struct parsed p;
	size_t len;
	char *text = e2e_slurp("fixtures/parse/fio_status_groups.json", &len);
	double *t, *v, *t1, *v1, bytes = 0;

	library_parser("fio", parser, sizeof(parser));
	run_parser(parser, text, len, &p);
	cr_assert(p.ok, "%s", p.why.msg);
	/* the metrics: the last report's, per group */
	cr_expect(fabs(p_value(&p, "g1.read_bw_mbs") /
		       (3975217152.0 / MIB / 3.010) - 1) < 1e-3, "%.17g",
		  p_value(&p, "g1.read_bw_mbs"));
	cr_assert_eq(points(&p.s, "g0.write_bw_mbs", &t, &v), 4, "%s",
		     p.report);
	cr_assert_eq(points(&p.s, "g1.read_bw_mbs", &t1, &v1), 4);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int g1 = want[i].metric[1] == '1', k = -1;
		const double *tt = g1 ? t1 : t, *vv = g1 ? v1 : v;

		for (int j = 0; j < 4; j++)
			if (fabs(tt[j] - want[i].t) < 1e-9)
				k = j;
		cr_expect(k >= 0, "%s: no point at %g", want[i].metric,
			  want[i].t);
		if (k >= 0)
			cr_expect(fabs(vv[k] - want[i].bytes / MIB /
				       want[i].dt) < 1e-6, "%s at %g: %.17g",
				  want[i].metric, want[i].t, vv[k]);
	}
	/* over its own time, the reader's series is fio's figure */
	for (int j = 0; j < 4; j++)
		bytes += v1[j] * MIB * (t1[j] - (j ? t1[j - 1] : 3.867 - 0.651));
	cr_expect(fabs(bytes - 3975217152.0) < 1, "%.17g bytes", bytes);
	/* nothing for what a group did not do */
	cr_expect(!points(&p.s, "g0.read_bw_mbs", &t, &v) &&
		  !points(&p.s, "g1.write_iops", &t, &v) &&
		  !points(&p.s, "read_bw_mbs", &t, &v));
	cr_expect_eq(points(&p.s, "g1.read_iops", &t, &v), 4);
	cr_expect(fabs(v[3] - (60657 - 52999) / 0.36) < 1e-6, "%g", v[3]);
	free(t);
	free(v);
	free(t1);
	free(v1);
	free(text);
	parsed_free(&p);
}

/* One report (no --status-interval): the metrics, and no series. */
Test(series_parse, fio_without_status_interval)
{
	char parser[PATH_MAX];
	struct parsed p;
	size_t len;
	char *text = e2e_slurp("fixtures/parse/"
			       "fio_ext4_iouring_randread_direct1.json", &len);

	library_parser("fio", parser, sizeof(parser));
	run_parser(parser, text, len, &p);
	cr_assert(p.ok, "%s", p.why.msg);
	cr_expect_eq(p.s.n, 0);
	cr_expect(p_value(&p, "read_iops") > 0);
	free(text);
	parsed_free(&p);
}

/* A cut output has no final report: an error, not the last interval's
 * figures taken for the run's. */
Test(series_parse, fio_cut_output)
{
	char parser[PATH_MAX];
	struct parsed p;
	size_t len;
	char *text = e2e_slurp("fixtures/parse/fio_status_groups.json", &len);

	library_parser("fio", parser, sizeof(parser));
	run_parser(parser, text, len - 5000, &p);
	cr_expect(!p.ok);
	cr_expect(strstr(p.why.msg, "fio: report 7 of its output is cut or "
			 "malformed (json: "), "%s", p.why.msg);
	free(text);
	parsed_free(&p);
}

/* ---- sysbench ----------------------------------------------------------- */

/* sysbench_fileio_rndrw_interval.txt: sysbench 1.0.20 fileio rndrw,
 * --time=4 --report-interval=1: four lines of the seconds' rates. */
Test(series_parse, sysbench_report_interval)
{
	static const double mibs[] = { 38.40, 39.94, 14.45, 28.77 };
	static const double p95[] = { 0.012, 0.417, 3.130, 1.697 };
	char parser[PATH_MAX];
	struct parsed p;
	double *t, *v, *lt, *lv;
	size_t len;
	char *text = e2e_slurp("fixtures/parse/"
			       "sysbench_fileio_rndrw_interval.txt", &len);

	library_parser("sysbench", parser, sizeof(parser));
	run_parser(parser, text, len, &p);
	cr_assert(p.ok, "%s", p.why.msg);
	cr_expect_eq(p_value(&p, "read_mibs"), 30.36);
	cr_assert_eq(points(&p.s, "read_mibs", &t, &v), 4, "%s", p.report);
	cr_assert_eq(points(&p.s, "lat_p95_ms", &lt, &lv), 4);
	for (int i = 0; i < 4; i++)
		cr_expect(t[i] == i + 1 && v[i] == mibs[i] && lt[i] == t[i] &&
			  lv[i] == p95[i], "second %d: %g %g %g", i + 1, t[i],
			  v[i], lv[i]);
	cr_expect(strstr(p.report, "T 3.000000 fsyncs_per_s 60 ops/s\n"),
		  "%s", p.report);
	cr_expect(strstr(p.report, "T 4.000000 written_mibs 19.18 MiB/s\n"));
	free(t);
	free(v);
	free(lt);
	free(lv);
	free(text);
	parsed_free(&p);
}

/* OLTP's intermediate line, and of two runs the last one's. */
Test(series_parse, sysbench_oltp_interval_last_run)
{
	static const char out[] =
		"Threads started!\n"
		"[ 1s ] thds: 4 tps: 9.00 qps: 9.00 (r/w/o: 1/1/1) lat "
		"(ms,95%): 9.00 err/s: 9.00 reconn/s: 9.00\n"
		"Threads started!\n"
		"[ 1s ] thds: 4 tps: 123.45 qps: 2469.00 (r/w/o: "
		"1728.30/493.80/246.90) lat (ms,99%): 45.79 err/s: 0.50 "
		"reconn/s: 0.00\n"
		"[ 2s ] thds: 4 tps: 100.00 qps: 2000.00 (r/w/o: "
		"1400.00/400.00/200.00) lat (ms,99%): 50.00 err/s: 0.00 "
		"reconn/s: 1.00\n"
		"\nGeneral statistics:\n"
		"    total time:                          2.0010s\n";
	char parser[PATH_MAX];
	struct parsed p;

	library_parser("sysbench", parser, sizeof(parser));
	run_parser(parser, out, sizeof(out) - 1, &p);
	cr_assert(p.ok, "%s", p.why.msg);
	cr_expect_eq(p.s.n, 10, "%s", p.report);
	cr_expect(strstr(p.report,
			 "T 1.000000 ignored_errors_per_s 0.5 errors/s\n"
			 "T 1.000000 lat_p99_ms 45.789999999999999 ms\n"
			 "T 1.000000 reconnects_per_s 0 reconnects/s\n"
			 "T 1.000000 requests_per_s 2469 queries/s\n"
			 "T 1.000000 transactions_per_s 123.45 "
			 "transactions/s\n"), "%s", p.report);
	parsed_free(&p);
}

/* ---- the real tools, run by fsplan on a loop image ---------------------- */

static void require_tool(const char *tool)
{
	char cmd[128];

	e2e_require_root();
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	if (system(cmd))
		cr_skip_test("%s is not installed", tool);
}

/*
 * Run the exec phase "real" (command exec, parse: parser) on ext4 on a
 * loop image, as a user's plan would; its run directory into rd, and
 * what the command printed (fsplan keeps it in exec/), parsed again as
 * fsplan parsed it, into p.
 */
static void run_real(const char *exec, const char *parser, char *rd,
		     size_t rdlen, struct parsed *p)
{
	const char *dir = e2e_tmpdir();
	char body[1024], path[PATH_MAX + 300], lib[PATH_MAX], *out = NULL;
	struct dirent *e;
	size_t len = 0;
	DIR *ex;
	int rc;

	snprintf(body, sizeof(body), "target: {image: 512M}\n"
		 "filesystems: [{type: ext4}]\n"
		 "phases:\n"
		 "  - name: real\n"
		 "    exec: %s\n"
		 "    parse: %s\n", exec, parser);
	rc = e2e_run_plan(dir, "series", body, rd, rdlen);
	cr_assert_eq(rc, 0, "exit %d: %s%s", rc, e2e_err, e2e_failed(rd));
	cr_assert_str_eq(e2e_metric(rd, "ext4/real#1", "status"), "ok");
	snprintf(path, sizeof(path), "%s/exec", rd);
	ex = opendir(path);
	cr_assert(ex, "no %s", path);
	while ((e = readdir(ex)))
		if (strstr(e->d_name, "-ext4_real_1.out")) {
			snprintf(path, sizeof(path), "%s/exec/%s", rd,
				 e->d_name);
			out = e2e_slurp(path, &len);
		}
	closedir(ex);
	cr_assert(out, "no exec/*-ext4_real_1.out in %s", rd);
	library_parser(parser, lib, sizeof(lib));
	run_parser(lib, out, len, p);
	cr_assert(p->ok, "%s", p->why.msg);
	free(out);
}

Test(series_parse, real_dbench_on_a_loop_image, .timeout = 180)
{
	struct parsed p;
	char rd[PATH_MAX];
	double *t, *v, *lt, *lv, sum = 0, tput, maxlat;
	int n;

	require_tool("dbench");
	if (access("/usr/share/dbench/client.txt", R_OK))
		cr_skip_test("no /usr/share/dbench/client.txt (Debian's "
			     "dbench package)");
	run_real("dbench -D . -t 8 2", "dbench", rd, sizeof(rd), &p);
	tput = e2e_num(rd, "ext4/real#1", "throughput_mbs");
	maxlat = e2e_num(rd, "ext4/real#1", "max_latency_ms");
	cr_expect_eq(p_value(&p, "throughput_mbs"), tput);
	/* execute's seconds 1 to 7 (8 is the stop): one a second, +-1 */
	n = points(&p.s, "throughput_mbs", &t, &v);
	cr_assert(n >= 6 && n <= 9, "%d points:\n%s", n, p.report);
	cr_assert_eq(points(&p.s, "max_latency_ms", &lt, &lv), n);
	/* after the launch and dbench's warm-up (8 / 5 = 1 s) */
	cr_expect(t[0] >= 2 && t[0] <= 4, "first point at %g s", t[0]);
	for (int i = 0; i < n; i++) {
		if (i)
			cr_expect(t[i] - t[i - 1] >= 1 &&
				  t[i] - t[i - 1] <= 2, "t %g after %g",
				  t[i], t[i - 1]);
		/* a second may stall (all clients in a Flush): 0, not less */
		cr_expect(v[i] >= 0, "second %d: %g MB/s", i, v[i]);
		sum += v[i];
		cr_expect(lv[i] > 0 && lv[i] <= maxlat + 5e-4,
			  "second %d: latency %g ms, the run's max %g", i,
			  lv[i], maxlat);
	}
	/* plausible: the seconds' mean near the Throughput line (within
	 * 2x), and over the time exactly what dbench averaged, up to its
	 * two decimals */
	cr_expect(sum / n > tput / 2 && sum / n < tput * 2,
		  "mean %g MB/s, Throughput %g", sum / n, tput);
	sum = 0;
	for (int i = 0; i < n; i++)
		sum += v[i] * (t[i] - (i ? t[i - 1] : t[0] - 1));
	sum /= t[n - 1] - t[0] + 1;
	cr_expect(fabs(sum - tput) < 0.01 + 0.005 * t[n - 1],
		  "%g MB/s over the time, Throughput %g", sum, tput);
	free(t);
	free(v);
	free(lt);
	free(lv);
	parsed_free(&p);
}

/* The rate series of metric against its results row: plausible (the
 * mean within 2x) and, over the time, the row itself. */
static void expect_rate(const struct parsed *p, const char *rd,
			const char *metric, int secs)
{
	double *t, *v, sum = 0, row = e2e_num(rd, "ext4/real#1", metric);
	int n = points(&p->s, metric, &t, &v);

	cr_assert(n >= secs - 1 && n <= secs + 2, "%s: %d points:\n%s",
		  metric, n, p->report);
	for (int i = 0; i < n; i++) {
		double dt = t[i] - (i ? t[i - 1] : 0);

		/* every second but the first, which begins with the job's
		 * I/O after fio laid out its file, and the last, which
		 * ends with the job */
		cr_expect(!i || i == n - 1 ? dt > 0 && dt < 1.2 :
			  fabs(dt - 1) < 0.2,
			  "%s: point %d after %g s", metric, i, dt);
		cr_expect(v[i] >= 0, "%s: point %d is %g", metric, i, v[i]);
		sum += v[i];
	}
	cr_expect(sum / n > row / 2 && sum / n < row * 2,
		  "%s: mean %g, row %g", metric, sum / n, row);
	cr_expect(fabs(over_time(t, v, n) / row - 1) < 0.01,
		  "%s: %g over the time, row %g", metric, over_time(t, v, n),
		  row);
	free(t);
	free(v);
}

Test(series_parse, real_fio_on_a_loop_image, .timeout = 180)
{
	struct parsed p;
	char rd[PATH_MAX];
	double *t, *v, *it, *iv, ios = 0, lat = 0, row;
	int n;

	require_tool("fio");
	run_real("fio --name=rw --rw=readwrite --bs=64k --size=64M "
		 "--runtime=5 --time_based --filename=f "
		 "--status-interval=1 --output-format=json", "fio", rd,
		 sizeof(rd), &p);
	cr_expect_eq(p_value(&p, "read_bw_mbs"),
		     e2e_num(rd, "ext4/real#1", "read_bw_mbs"));
	expect_rate(&p, rd, "read_bw_mbs", 5);
	expect_rate(&p, rd, "write_bw_mbs", 5);
	expect_rate(&p, rd, "read_iops", 5);
	expect_rate(&p, rd, "write_iops", 5);
	/* the intervals' mean latencies, weighted by their I/Os: fio's */
	n = points(&p.s, "read_lat_mean_ms", &t, &v);
	cr_assert_eq(points(&p.s, "read_iops", &it, &iv), n);
	for (int i = 0; i < n; i++) {
		double k = iv[i] * (it[i] - (i ? it[i - 1] : 0));

		cr_expect(t[i] == it[i] && v[i] > 0);
		ios += k;
		lat += v[i] * k;
	}
	row = e2e_num(rd, "ext4/real#1", "read_lat_mean_ms");
	cr_expect(fabs(lat / ios / row - 1) < 0.01, "%g ms, fio %g",
		  lat / ios, row);
	free(t);
	free(v);
	free(it);
	free(iv);
	parsed_free(&p);
}

/* Through fsplan: a refused point fails the phase run, with the reason,
 * and none of the parse's metrics become rows. */
Test(series_parse, a_refused_point_fails_the_phase_run, .timeout = 120)
{
	const char *dir = e2e_tmpdir();
	char cmd[PATH_MAX * 2 + 64], lib[PATH_MAX], rd[PATH_MAX];
	const char *why;
	int rc;

	e2e_require_root();
	snprintf(lib, sizeof(lib), "%s/lib", dir);
	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s'", libsrc_dir(), lib);
	cr_assert(!system(cmd));
	snprintf(cmd, sizeof(cmd), "%s/parse", lib);
	e2e_write(cmd, "hostile.lua", "return function()\n"
		  "  return { kept = 1 }, {\n"
		  "    { t = 1, metric = 'x', value = 1 },\n"
		  "    { t = -2, metric = 'x', value = 2 } }\n"
		  "end\n");
	cr_assert(!setenv("FSPLAN_LIB", lib, 1));
	rc = e2e_run_plan(dir, "hostile", "target: {image: 256M}\n"
			  "filesystems: [{type: ext4}]\n"
			  "phases:\n"
			  "  - name: h\n"
			  "    exec: \"true\"\n"
			  "    parse: hostile\n", rd, sizeof(rd));
	cr_expect_neq(rc, 0, "the run passed");
	cr_expect_str_eq(e2e_metric(rd, "ext4/h#1", "status"), "failed");
	why = e2e_reason(rd, "ext4/h#1");
	cr_expect(why && strstr(why, "parse hostile: series[2] ('x'): t is "
				"-2: a point's t is seconds"), "%s", why);
	cr_expect_null(e2e_metric(rd, "ext4/h#1", "kept"));
}
