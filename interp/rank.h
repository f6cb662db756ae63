/* rank: a table per metric — mean, spread, 95% CI per config, best first. */
#ifndef FSPLAN_RANK_H
#define FSPLAN_RANK_H

#include <stdio.h>

#include "results.h"

/*
 * For each numeric metric of runs (the ok runs of one phase) that is a
 * measurement (not status, exit_status or a shape figure such as
 * threads or file_size_mib), in name order: a table with a row per
 * filesystem label and parameters — n, mean, stdev, 95% CI, high, low —
 * best first. With only (NULL-ended shell patterns, fnmatch), just the
 * metrics that match one. Returns 0, or -1 out of memory.
 */
int rank_tables(FILE *f, const struct res_run *const *runs, size_t n,
		const char *const *only);

/*
 * 1 if a smaller value of this metric is better: its name ends in _s,
 * _ms, _us, seconds, _latency, _pct or _cpu, its unit is s, ms or us,
 * or it is fs_used_bytes — unless it is a rate (a name ending in per_s,
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
