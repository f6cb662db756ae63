/* rank: a table per metric — mean, spread, 95% CI per config, best first. */
#ifndef FSPLAN_RANK_H
#define FSPLAN_RANK_H

#include <stdio.h>

#include "report/table.h"
#include "results/results.h"

/*
 * For each numeric metric of runs (the ok runs of one phase) that is a
 * measurement (not status, exit_status or a shape figure such as
 * threads or file_size_mib): a table with a row per filesystem label
 * and parameters — n, mean, stdev, 95% CI, high, low — best first, under
 * a title with its unit ("avg_lat_ms: average latency (ms)"; bytes in
 * KiB, MiB or GiB). With only (NULL-ended shell patterns, fnmatch), the
 * metrics that match one, in the order of the patterns (name order
 * within one), each once; else every one in name order. Returns 0, or
 * -1 out of memory.
 */
int rank_tables(FILE *f, const struct res_run *const *runs, size_t n,
		const char *const *only);

/* One metric's table, as rank_tables prints it. */
struct rank_row {
	const struct res_run *first;	/* the row's config and params */
	struct res_stats s;		/* in the title's unit */
};

struct rank_table {
	const char *name;		/* the metric */
	const char *title;		/* "average latency (ms)" */
	int lower;			/* lower is better */
	int decimals;			/* the table's figures have these */
	int params;			/* some row has parameters */
	const char *set;		/* the rows' parameters, "a=1;b=2" */
	const struct rank_row *row;	/* best first */
	size_t n;
};

/* Called with each table and it as a table to render (report/table.h:
 * the head, then t's rows); a nonzero return stops rank_each, which
 * returns -1. */
typedef int (*rank_fn)(void *ctx, const struct rank_table *t,
		       const struct table *g);

/*
 * The tables rank_tables prints, given to fn instead: the same metrics,
 * the same order. A value of name in a run that also says name_fast
 * (bonnie++'s "+++++", too fast to time) is not counted. Returns 0, or
 * -1 out of memory or when fn failed.
 */
int rank_each(const struct res_run *const *runs, size_t n,
	      const char *const *only, rank_fn fn, void *ctx);

/*
 * 1 if a smaller value of this metric is better: its name ends in _s,
 * _ms, _us, seconds, _latency, _pct, _cpu, _peak_bytes or _peak_kib, its
 * unit is s, ms or us, or it is fs_used_bytes or write_amp — unless it
 * is a rate (a name ending in per_s,
 * per_sec, _iops or _mbs, or a unit ending in /s). Else 0.
 */
int rank_lower_is_better(const char *name, const char *unit);

/*
 * The distinct metric names of runs, sorted; with measurements, only
 * numeric measurements. The names are borrowed from runs; free the
 * array. NULL out of memory.
 */
const char **rank_metric_names(const struct res_run *const *runs, size_t n,
			       int measurements, size_t *count);

#endif
