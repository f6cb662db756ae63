/* test_series_lua: a Lua phase's series (DESIGN.md section 8) from real runs —
 * the rates in their intervals, the steady stop, the warmup. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "e2e.h"
#include "phase/worker.h"
#include "results/series.h"
#include "results/seriescsv.h"
#include "util/strbuf.h"

/*
 * The points are read back from the run's timeseries.csv, as T lines
 * (phase_series) for points() to pick from.
 */
static void fini(void)
{
	e2e_cleanup();
}

/*
 * A writer at rates it controls: `rates` is "r1,s1;r2,s2;..." (ops/s for
 * s seconds, in turn, round and round), each op a 4 KiB write, paced by
 * the clock so that the i-th op of a stretch is due at i / r; then it
 * runs until w:done(), or `count` writes when count is not 0.
 */
static const char module[] =
	"return {\n"
	"  params = { workers = 1, seconds = '30s', rates = '1000,1',\n"
	"             count = 0 },\n"
	"  worker = function(w, ctx)\n"
	"    local plan = {}\n"
	"    for r, s in ctx.params.rates:gmatch('(%d+),([%d.]+)') do\n"
	"      plan[#plan + 1] = { tonumber(r), tonumber(s) }\n"
	"    end\n"
	"    local f = assert(w:open('f', 'w'))\n"
	"    local at, i, from, k = 0, 0, w:elapsed(), 1\n"
	"    local count = ctx.params.count\n"
	"    while not w:done() and (count == 0 or at < count) do\n"
	"      local r, s = plan[k][1], plan[k][2]\n"
	"      local due = from + i / r\n"
	"      if due >= from + s then\n"
	"        from, i, k = from + s, 0, k % #plan + 1\n"
	"      else\n"
	"        local now = w:elapsed()\n"
	"        if due > now then w:sleep(due - now) end\n"
	"        assert(f:write((at % 256) * 4096, 4096))\n"
	"        at, i = at + 1, i + 1\n"
	"      end\n"
	"    end\n"
	"    f:close()\n"
	"  end,\n"
	"}\n";

/* Run the module as one phase with the plan's extra top-level YAML and
 * the phase's own keys; the run directory in rd; fsplan's exit status. */
static int run_as(const char *top, const char *phase, char *rd, size_t len)
{
	const char *dir = e2e_tmpdir();
	char text[2048], scratch[400];

	e2e_require_root();
	snprintf(scratch, sizeof(scratch), "%s/scratch", dir);
	cr_assert_eq(mkdir(scratch, 0700), 0);
	e2e_write(dir, "w.lua", module);
	snprintf(text, sizeof(text), "target: {dir: %s}\n%sphases:\n"
		 "  - {use: w.lua, name: w, %s}\n", scratch, top, phase);
	return e2e_run_plan(dir, "series", text, rd, len);
}

/* run_as, and the phase run ends ok. */
static void run(const char *top, const char *phase, char *rd, size_t len)
{
	int rc = run_as(top, phase, rd, len);

	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_assert_str_eq(e2e_metric(rd, "dir/w#1", "status"), "ok", "%s",
			 e2e_reason(rd, "dir/w#1"));
}

/* The phase run's stderr (exec/...-dir_w_1.err), where the child says
 * what its steady stop did, malloc'd. */
static char *phase_err(const char *rd)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/exec/000001-dir_w_1.err", rd);
	return e2e_slurp(path, NULL);
}

/* A row of timeseries.csv of the phase run dir/w#1 as a T line. */
static int as_line(void *ctx, const char *const *f, int line)
{
	(void)line;
	if (f && !strcmp(f[SERIESCSV_CELL], "dir/w#1"))
		strbuf_printf(ctx, "T %s %s %s\n", f[SERIESCSV_T],
			      f[SERIESCSV_METRIC], f[SERIESCSV_VALUE]);
	return 0;
}

/* The phase run's points in timeseries.csv as T lines, malloc'd. */
static char *phase_series(const char *rd)
{
	struct strbuf b = { 0 };
	struct csv_read seen;
	struct diag d = { 0 };
	char path[600];

	snprintf(path, sizeof(path), "%s/timeseries.csv", rd);
	cr_assert_eq(seriescsv_read(path, as_line, &b, &seen, &d), 0, "%s",
		     d.msg);
	cr_assert(!seen.missing, "no %s", path);
	strbuf_str(&b, "");
	return b.p;
}

/* metric's points of text, into t and v (at most max): how many. */
static int points(const char *text, const char *metric, double *t,
		  double *v, int max)
{
	char m[80];
	int n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p += !!p) {
		double a, b;

		if (sscanf(p, "T %lf %79s %lf", &a, m, &b) == 3 &&
		    !strcmp(m, metric) && n < max) {
			t[n] = a;
			v[n++] = b;
		}
	}
	return n;
}

/* The value of metric's point at t (within 1 ms), or NAN. */
static double at(const double *t, const double *v, int n, double when)
{
	for (int i = 0; i < n; i++)
		if (fabs(t[i] - when) < 1e-3)
			return v[i];
	return NAN;
}

Test(series_lua, a_burst_then_a_slow_rate_shows_in_its_intervals,
     .fini = fini, .timeout = 60)
{
	double t[64], v[64], lt[64], lv[64], sum = 0;
	char rd[400], *err;
	int n;

	run("interval: 500ms\n", "with: {rates: '2000,2;500,10', "
	    "seconds: 4.2s}", rd, sizeof(rd));
	err = phase_series(rd);
	n = points(err, "write_iops", t, v, 64);
	cr_assert_geq(n, 8, "%d write_iops points: %s", n, err);
	/* every interval ends on the half second, the last where the
	 * workers ended (4.2 s and a little) */
	for (int i = 0; i < n - 1; i++)
		cr_expect_float_eq(t[i], 0.5 * (i + 1), 1e-9);
	cr_expect(t[n - 1] > 4.2 && t[n - 1] < 4.5, "last at %g", t[n - 1]);
	for (double w = 1.0; w <= 2.0; w += 0.5)
		cr_expect(fabs(at(t, v, n, w) / 2000 - 1) <= 0.10,
			  "%g/s in the interval to %g s, not 2000", at(t, v,
			  n, w), w);
	for (double w = 3.0; w <= 4.0; w += 0.5)
		cr_expect(fabs(at(t, v, n, w) / 500 - 1) <= 0.10,
			  "%g/s in the interval to %g s, not 500", at(t, v, n,
			  w), w);
	/* MiB/s of 4 KiB writes */
	n = points(err, "write_mbs", t, v, 64);
	cr_expect(fabs(at(t, v, n, 1.5) / (2000 * 4096 / 1048576.0) - 1)
		  <= 0.10, "%g MiB/s", at(t, v, n, 1.5));
	/* every op is in one interval: the row is their sum */
	n = points(err, "write_ops", t, v, 64);
	for (int i = 0; i < n; i++)
		sum += v[i];
	cr_expect_eq(sum, e2e_num(rd, "dir/w#1", "write_ops"));
	/* latencies: p50 <= p99 <= max, the max an interval's own */
	n = points(err, "write_lat_max_ms", lt, lv, 64);
	cr_expect_geq(n, 8);
	cr_expect_leq(points(err, "write_lat_p99_ms", t, v, 64), n);
	for (int i = 0; i < n; i++) {
		double p99 = at(t, v, n, lt[i]);

		cr_expect(p99 <= lv[i] + 1e-12, "p99 %g > max %g", p99, lv[i]);
	}
	cr_expect_leq(lv[0], e2e_num(rd, "dir/w#1", "write_lat_max_ms"));
	free(err);
}

Test(series_lua, interval_0_sends_no_series, .fini = fini, .timeout = 60)
{
	char rd[400], *err;

	run("interval: 0\n", "with: {seconds: 1s}", rd, sizeof(rd));
	err = phase_series(rd);
	cr_expect_null(strstr(err, "T "), "%s", err);
	cr_expect_gt(e2e_num(rd, "dir/w#1", "write_ops"), 0);
	free(err);
}

Test(series_lua, a_settling_phase_stops_once_steady, .fini = fini,
     .timeout = 60)
{
	char rd[400], log[450], *err;
	double secs;

	/* a steady 1000/s: steady after its first 1 s window */
	run("interval: 200ms\n", "with: {rates: '1000,1'}, steady: "
	    "{window: 1s, max: 20s}", rd, sizeof(rd));
	secs = e2e_num(rd, "dir/w#1", "seconds");
	cr_expect(secs >= 1.0 && secs < 4, "stopped at %g s", secs);
	err = phase_err(rd);
	cr_expect_not_null(strstr(err, "steady: write_mbs held at"), "%s",
			   err);
	free(err);
	/* and the run log says so, marked with the cell */
	snprintf(log, sizeof(log), "%s/log.txt", rd);
	cr_expect_not_null(strstr(e2e_read(log), "dir/w#1: steady: write_mbs "
				  "held at"), "%s", e2e_read(log));
}

Test(series_lua, a_never_settling_phase_runs_to_max, .fini = fini,
     .timeout = 60)
{
	char rd[400], *err;
	double secs;

	/* alternating 2000/s and 400/s each half second never holds a 1 s
	 * window within 20%; max (4 s) outlasts the module's seconds (1 s):
	 * a steady stop runs until steady or max */
	run("interval: 250ms\n", "with: {rates: '2000,0.5;400,0.5', "
	    "seconds: 1s}, steady: {window: 1s, max: 4s}", rd, sizeof(rd));
	secs = e2e_num(rd, "dir/w#1", "seconds");
	cr_expect(secs >= 3.95 && secs < 4.5, "stopped at %g s", secs);
	err = phase_err(rd);
	cr_expect_null(strstr(err, "held at"), "%s", err);
	cr_expect_not_null(strstr(err, "steady: write_mbs not steady by max "
				  "(4 s)"), "%s", err);
	cr_expect_not_null(strstr(err, "steady: seconds (1 s) runs as max "
				  "(4 s)"), "%s", err);
	free(err);
}

Test(series_lua, a_warmup_leaves_its_seconds_out_of_the_rows, .fini = fini,
     .timeout = 60)
{
	double t[64], v[64], sum = 0;
	char rd[400], *err;
	int n;

	/* 1 s at 3000/s, then 500/s: the warmup's second is the fast one;
	 * seconds: 2s are measured after it */
	run("interval: 500ms\n", "with: {rates: '3000,1;500,100', seconds: 2s}"
	    ", warmup: 1s", rd, sizeof(rd));
	cr_expect(fabs(e2e_num(rd, "dir/w#1", "seconds") - 2) < 0.1,
		  "seconds %g", e2e_num(rd, "dir/w#1", "seconds"));
	cr_expect(fabs(e2e_num(rd, "dir/w#1", "write_iops") / 500 - 1) <= 0.1,
		  "write_iops %g, not 500", e2e_num(rd, "dir/w#1",
		  "write_iops"));
	cr_expect(fabs(e2e_num(rd, "dir/w#1", "write_ops") / 1000 - 1) <= 0.1,
		  "write_ops %g, not 1000", e2e_num(rd, "dir/w#1",
		  "write_ops"));
	/* the series keeps the warmup */
	err = phase_series(rd);
	n = points(err, "write_ops", t, v, 64);
	for (int i = 0; i < n; i++)
		sum += v[i];
	cr_expect(fabs(sum / 4000 - 1) <= 0.1, "%g ops in the series", sum);
	cr_expect(fabs(at(t, v, n, 0.5) / 1500 - 1) <= 0.1, "%g in 0-0.5 s",
		  at(t, v, n, 0.5));
	free(err);
}

/* The series of one worker's ops, merged and decoded. */
static void encode(struct worker *w, double end_s, struct series *se)
{
	struct strbuf out = { 0 };
	const struct metrics *m = &w->m;
	struct opseries *s = &w->ser;

	cr_assert_eq(opseries_encode(&s, &m, 1, end_s, &out), 0);
	cr_assert_eq(series_decode(se, out.p, out.len), 0);
	free(out.p);
}

Test(series_lua, a_long_series_is_coarsened_not_dropped)
{
	struct opseries_clock clk = { 1000, 100000000ull };	/* 100 ms */
	struct worker w = { 0 };
	struct series se = { 0 };
	struct op_stat *op;
	double *t, *v, sum = 0;
	int n;

	w.ser.clk = &clk;
	op = metrics_op(&w.m, "write");
	cr_assert_not_null(op);
	/* two hours at 100 ms, an op of 4 KiB every interval, 1 to 8 us */
	for (long i = 0; i < 72000; i++)
		worker_record_stat(&w, op, 1000 + (uint64_t)i * 100000000ull
				   + 50000000, 1000 + (uint64_t)(i % 8) * 1000,
				   4096, 0, 1);
	/* 72000 intervals > 32768: merged in pairs twice, to 400 ms */
	cr_expect_eq(w.ser.shift, 2);
	encode(&w, 7200, &se);
	cr_assert_eq(series_of(&se, "write_ops", &t, &v, &n), 0);
	cr_expect_eq(n, 18000);
	for (int i = 0; i < n; i++)
		sum += v[i];
	cr_expect_eq(sum, 72000, "every op is in the series: %g", sum);
	cr_expect_float_eq(t[0], 0.4, 1e-9);
	cr_expect_float_eq(t[n - 1], 7200, 1e-9);
	free(t);
	free(v);
	/* 4 ops of 4 KiB in 0.4 s; the latencies of i % 8 = 0..3 */
	cr_assert_eq(series_of(&se, "write_mbs", &t, &v, &n), 0);
	cr_expect_float_eq(v[0], 4 * 4096 / 1048576.0 / 0.4, 1e-9);
	free(t);
	free(v);
	cr_assert_eq(series_of(&se, "write_lat_max_ms", &t, &v, &n), 0);
	cr_expect_float_eq(v[0], 0.004, 1e-12, "max exact: %g", v[0]);
	free(t);
	free(v);
	cr_assert_eq(series_of(&se, "write_lat_p50_ms", &t, &v, &n), 0);
	cr_expect(fabs(v[0] / 0.002 - 1) <= 0.0625, "p50 %g of 0.002", v[0]);
	free(t);
	free(v);
	series_free(&se);
	opseries_free(&w.ser);
	metrics_free(&w.m);
}

Test(series_lua, a_late_completion_counts_in_the_latest_interval)
{
	struct opseries_clock clk = { 0, 1000000000ull };	/* 1 s */
	struct worker w = { 0 };
	struct series se = { 0 };
	struct op_stat *op;
	double *t, *v;
	int n;

	w.ser.clk = &clk;
	w.warm_ns = 1500000000ull;	/* a 1.5 s warmup */
	op = metrics_op(&w.m, "read");
	worker_record_stat(&w, op, 500000000ull, 10, 0, 0, 1);
	worker_record_stat(&w, op, 2500000000ull, 10, 0, 0, 1);
	/* reaped after the one at 2.5 s: it counts at 2 s - 3 s */
	worker_record_stat(&w, op, 1200000000ull, 10, 0, 0, 1);
	worker_record_stat(&w, op, 2600000000ull, 10, 0, 0, 1);
	/* the rows take what completed after the warmup */
	cr_expect_eq(op->lat.count, 2);
	encode(&w, 2.7, &se);
	cr_assert_eq(series_of(&se, "read_ops", &t, &v, &n), 0);
	cr_assert_eq(n, 3);
	cr_expect_eq(v[0], 1);
	cr_expect_eq(v[1], 0);
	cr_expect_eq(v[2], 3);
	cr_expect_float_eq(t[2], 2.7, 1e-9, "the last ends at the end");
	free(t);
	free(v);
	cr_assert_eq(series_of(&se, "read_iops", &t, &v, &n), 0);
	cr_expect_float_eq(v[2], 3 / 0.7, 1e-9, "over its own length");
	cr_expect_eq(series_of(&se, "read_mbs", &t, &v, &n), 0);
	cr_expect_eq(n, 0, "no bytes, no _mbs");
	free(t);
	free(v);
	series_free(&se);
	opseries_free(&w.ser);
	metrics_free(&w.m);
}

Test(series_lua, a_steady_window_begins_after_the_warmup, .fini = fini,
     .timeout = 60)
{
	char rd[400];
	double secs;

	/* steady from the start; the window may only begin at the warmup's
	 * end (1 s), so the stop comes at 2 s or later: 1 s measured */
	run("interval: 250ms\n", "with: {rates: '1000,1'}, warmup: 1s, "
	    "steady: {window: 1s, max: 20s}", rd, sizeof(rd));
	secs = e2e_num(rd, "dir/w#1", "seconds");
	cr_expect(secs >= 0.99 && secs < 3, "measured %g s", secs);
}

Test(series_lua, workers_that_end_within_the_warmup_fail_the_run,
     .fini = fini, .timeout = 60)
{
	char rd[400];

	/* ten writes, done long before a 2 s warmup ends */
	cr_expect_eq(run_as("", "with: {count: 10}, warmup: 2s", rd,
			    sizeof(rd)), 1);
	cr_expect_str_eq(e2e_metric(rd, "dir/w#1", "status"), "failed");
	cr_expect_str_eq(e2e_reason(rd, "dir/w#1"), "warmup: the workers "
			 "ended within the phase's warmup of 2 s: nothing was "
			 "measured");
	cr_expect_null(e2e_metric(rd, "dir/w#1", "write_ops"));
}
