/* pivot: report --by AXIS — configs as rows, the axis's values as columns. */
#ifndef FSPLAN_REPORT_PIVOT_H
#define FSPLAN_REPORT_PIVOT_H

#include <jansson.h>

#include "report/table.h"
#include "results/results.h"

/*
 * For each phase of r whose runs have coordinate axis (report/where.h;
 * m: manifest.json, or NULL): a table of its first key metric (the
 * manifest's key, else seconds, *_mbs, *_iops) — a row per config and
 * the rest of its parameters, a column per value of axis in the order
 * they come, each cell the mean over the ok runs (3 significant
 * figures, with exact every digit as csv keeps them; "-" for none). Its section title says the phase, the metric
 * and its unit. Into ts; 0, or -1 out of memory.
 */
int pivot_tables(const struct results *r, json_t *m, const char *axis,
		 int exact, struct tables *ts);

#endif
