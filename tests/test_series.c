/* test_series: series.c — the T wire line both ways, hostile lines, and the
 * steady test on made-up series. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/series.h"

Test(series, encode_decode_round_trip)
{
	static const struct { double t, v; const char *m, *u; } pts[] = {
		{ 0.5, 123.456789012345678, "write_mbs", "MiB/s" },
		{ 1.25, -0.000123, "x.y-z_9", NULL },
		{ 2.0, 1e300, "write_lat_p99_ms", "ms" },
		{ 3.125, 0, "read_iops", "1/s" },
	};
	struct strbuf b = { 0 };
	struct series s = { 0 };
	int n = sizeof(pts) / sizeof(pts[0]);

	for (int i = 0; i < n; i++)
		cr_assert_eq(series_encode(&b, pts[i].t, pts[i].m, pts[i].v,
					   pts[i].u), 0);
	/* between other lines of a report, which it leaves alone */
	strbuf_str(&b, "P seconds 3\nEND\n");
	cr_assert_eq(series_decode(&s, b.p, b.len), 0);
	cr_assert_eq(s.n, n);
	for (int i = 0; i < n; i++) {
		cr_expect_eq(s.p[i].t_s, pts[i].t);
		cr_expect_eq(s.p[i].value, pts[i].v, "%s: %.17g", pts[i].m,
			     s.p[i].value);
		cr_expect_str_eq(s.p[i].metric, pts[i].m);
		cr_expect_str_eq(s.p[i].unit, pts[i].u ? pts[i].u : "");
	}
	/* what the line cannot carry is not encoded */
	cr_expect_eq(series_encode(&b, NAN, "m", 1, NULL), -EINVAL);
	cr_expect_eq(series_encode(&b, 1, "bad name", 1, NULL), -EINVAL);
	cr_expect_eq(series_encode(&b, 1, "m", INFINITY, NULL), -EINVAL);
	cr_expect_eq(series_encode(&b, 1, "m", 1, "a,b"), -EINVAL);
	series_free(&s);
	free(b.p);
}

Test(series, hostile_t_lines_are_refused)
{
	static const char *const bad[] = {
		"T 1 m\n", "T nan m 1\n", "T 1 m inf\n", "T 1 m 1e999\n",
		"T 1 bad/name 1\n", "T 1 -m 1\n", "T 1 m 1 unit extra\n",
		"T 1 m 1 u,nit\n", "T 1 m 1 u\"\n", "T \n", "T 1 m 1x\n",
		"T 1x 2 3\n", "T 1 m 0x\n",
	};
	char longline[600];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct series s = { 0 };
		char text[128];

		/* a good point before it stays, the bad one stops it */
		snprintf(text, sizeof(text), "T 0.5 ok 1\n%s", bad[i]);
		cr_expect_eq(series_decode(&s, text, strlen(text)), -1,
			     "taken: %s", bad[i]);
		cr_expect_eq(s.n, 1, "%s", bad[i]);
		series_free(&s);
	}
	memset(longline, 'a', sizeof(longline));
	memcpy(longline, "T 1 ", 4);
	{
		struct series s = { 0 };

		cr_expect_eq(series_decode(&s, longline, sizeof(longline)), -1);
		cr_expect_eq(s.n, 0);
		/* lines that are not T lines, a bare T: not points */
		cr_expect_eq(series_decode(&s, "TT 1 m 1\nT\nP m 1\n", 18), 0);
		cr_expect_eq(s.n, 0);
		/* a name longer than a metric's */
		char big[200] = "T 1 ";

		memset(big + 4, 'm', 70);
		strcpy(big + 74, " 1\n");
		cr_expect_eq(series_decode(&s, big, strlen(big)), -1);
		series_free(&s);
	}
}

/* n points at t = 1..n of f(t); rule window w, range 20%, slope 10%. */
static int steady(double (*f)(double), int n, double w, double warmup,
		  struct steady_out *o)
{
	double t[64], v[64];
	struct steady_rule r = { "", w, 0.20, 0.10, 0 };

	for (int i = 0; i < n; i++) {
		t[i] = i + 1;
		v[i] = f(t[i]);
	}
	return steady_test(t, v, n, &r, warmup, o);
}

static double flat(double t)
{
	(void)t;
	return 100;
}

static double ramp(double t)
{
	return 10 * t;
}

static double noisy(double t)
{
	return (int)t % 2 ? 80 : 120;
}

/* a slow start, then flat */
static double settling(double t)
{
	return t <= 5 ? 10 * t : 100;
}

Test(series, steady_flat_holds_at_the_first_whole_window)
{
	struct steady_out o;

	cr_assert_eq(steady(flat, 10, 5, 0, &o), 0);
	cr_expect_eq(o.steady, 1);
	cr_expect_float_eq(o.at_s, 5, 1e-9);
	cr_expect_float_eq(o.mean, 100, 1e-9);
	cr_expect_float_eq(o.range_pct, 0, 1e-9);
	cr_expect_float_eq(o.slope_pct, 0, 1e-9);
	/* a warm-up of 4 s: the first window is 5..9 */
	cr_assert_eq(steady(flat, 10, 5, 4, &o), 0);
	cr_expect_float_eq(o.at_s, 9, 1e-9);
	cr_expect_float_eq(o.from_s, 4, 1e-9);
}

Test(series, steady_ramp_never_holds)
{
	struct steady_out o;

	cr_assert_eq(steady(ramp, 20, 5, 0, &o), 0);
	cr_expect_eq(o.steady, 0);
	cr_expect_float_eq(o.at_s, -1, 1e-9);
	/* the last window, 16..20: mean 180, slope 10 a second */
	cr_expect_float_eq(o.mean, 180, 1e-9);
	cr_expect_float_eq(o.range_pct, 40.0 / 180 * 100, 1e-9);
	cr_expect_float_eq(o.slope_pct, 10 * 5.0 / 180 * 100, 1e-9);
}

Test(series, steady_noise_over_the_range_never_holds)
{
	struct steady_out o;

	cr_assert_eq(steady(noisy, 20, 5, 0, &o), 0);
	cr_expect_eq(o.steady, 0);
	cr_expect_gt(o.range_pct, 20);
	/* within a wider range it holds */
	{
		double t[20], v[20];
		struct steady_rule r = { "", 5, 0.50, 0.10, 0 };

		for (int i = 0; i < 20; i++) {
			t[i] = i + 1;
			v[i] = noisy(t[i]);
		}
		cr_assert_eq(steady_test(t, v, 20, &r, 0, &o), 0);
		cr_expect_eq(o.steady, 1);
	}
}

Test(series, steady_after_a_settling_start)
{
	struct steady_out o;

	cr_assert_eq(steady(settling, 20, 5, 0, &o), 0);
	cr_expect_eq(o.steady, 1);
	/* 6..10 is the first window without the ramp */
	cr_expect_float_eq(o.at_s, 10, 1e-9);
	cr_expect_float_eq(o.mean, 100, 1e-9);
}

Test(series, steady_too_short_is_not_steady)
{
	struct steady_out o;

	/* no whole window of 10 s in 5 points */
	cr_expect_eq(steady(flat, 5, 10, 0, &o), -1);
	cr_expect_eq(o.steady, 0);
	cr_expect_float_eq(o.at_s, -1, 1e-9);
	/* every point in the warm-up */
	cr_expect_eq(steady(flat, 5, 2, 5, &o), -1);
	cr_expect_eq(o.steady, 0);
	cr_expect_eq(steady(flat, 0, 2, 0, &o), -1);
}

Test(series, of_a_metric_in_time_order)
{
	struct series s = { 0 };
	double *t, *v;
	int n;

	cr_assert_eq(series_add(&s, 2, "a", 20, NULL), 0);
	cr_assert_eq(series_add(&s, 1, "b", 1, NULL), 0);
	cr_assert_eq(series_add(&s, 1, "a", 10, NULL), 0);
	cr_assert_eq(series_add(&s, 3, "a", 30, "u"), 0);
	cr_expect_eq(series_add(&s, 3, "a", NAN, NULL), -EINVAL);
	cr_assert_eq(series_of(&s, "a", &t, &v, &n), 0);
	cr_assert_eq(n, 3);
	for (int i = 0; i < 3; i++) {
		cr_expect_float_eq(t[i], i + 1, 1e-12);
		cr_expect_float_eq(v[i], 10 * (i + 1), 1e-12);
	}
	free(t);
	free(v);
	series_free(&s);
}
