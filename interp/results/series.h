/* series: a phase run's time series (DESIGN.md section 8), the rows of
 * timeseries.csv before they are written, their wire line, and the
 * steady-state test. */
#ifndef FSPLAN_SERIES_H
#define FSPLAN_SERIES_H

#include <stddef.h>

#include "results/metrics.h"
#include "util/strbuf.h"

/* The plan's default interval, and the shortest it takes (seconds). */
#define SERIES_INTERVAL_S	1.0
#define SERIES_INTERVAL_MIN_S	0.1

/* One point: the value of metric over the interval ending at t_s,
 * seconds since the phase's timed start. */
struct series_pt {
	double t_s;
	double value;
	char metric[METRICS_METRIC_LEN + 1];
	char unit[32];
};

struct series {
	struct series_pt *p;
	int n, cap;
};

/* One point more: 0, -1 out of memory, or -EINVAL when metric is not a
 * metric name (metrics_metric_name_ok), unit not a unit
 * (metrics_unit_ok), or t_s or v not finite (then nothing is added). */
int series_add(struct series *s, double t_s, const char *metric, double v,
	       const char *unit);
/* src's points after dst's: 0 or -1 out of memory. */
int series_join(struct series *dst, const struct series *src);
void series_free(struct series *s);
/* The points of metric in time order, into *t and *v (malloc'd, n of
 * them); 0, or -1 out of memory. n 0 when there is none. */
int series_of(const struct series *s, const char *metric, double **t,
	      double **v, int *n);

/*
 * The wire line of a point, as the phase child sends it on its report
 * pipe beside the metrics' (a Lua phase's op series, a parser's):
 * "T <t_s> <metric> <value> [<unit>]\n". series_encode appends it to
 * out (0, -1 out of memory, -EINVAL what the line cannot carry);
 * series_decode reads every T line of text into s and leaves the other
 * lines alone: 0, or -1 with a malformed T line (s keeps those before).
 */
int series_encode(struct strbuf *out, double t_s, const char *metric,
		  double v, const char *unit);
int series_decode(struct series *s, const char *text, size_t len);

/*
 * Steady state, as SNIA's PTS and fio's ss= define it: over the last
 * window seconds of points, max - min <= range * mean and
 * |least-squares slope| * window <= slope * mean (range and slope as
 * fractions: 20% is 0.20).
 */
struct steady_rule {
	char metric[METRICS_METRIC_LEN + 1];	/* "" : the phase's key */
	double window_s;
	double range, slope;
	double max_s;		/* run until steady or this; 0: no stop */
};

struct steady_out {
	int steady;		/* 1 if the rule held at some point */
	double at_s;		/* the first t_s where it held, or -1 */
	double from_s, to_s;	/* the window it held over (or the last
				 * one tested) */
	double mean;		/* of the values in that window */
	double range_pct;	/* (max - min) / mean * 100 there */
	double slope_pct;	/* slope * window / mean * 100, signed */
};

/*
 * Test t[0..n), v[0..n) (t_s ascending, one point per interval) against
 * rule, from the first point whose window is full to the last: the first
 * place it holds, or the last window's figures with steady 0. warmup_s:
 * points at or before it are not tested. 0, or -1 when no window fits
 * (too few points): then o says steady 0 over everything there is.
 */
int steady_test(const double *t, const double *v, int n,
		const struct steady_rule *rule, double warmup_s,
		struct steady_out *o);

#endif
