/* bonnie: bon_csv2txt's two blocks for the runs of a bonnie++ phase —
 * sequential output, input and seeks, then creates. */
#ifndef FSPLAN_REPORT_BONNIE_H
#define FSPLAN_REPORT_BONNIE_H

#include <stdio.h>

#include "report/table.h"
#include "results/results.h"

/*
 * bon_csv2txt's layout for the ok runs of a bonnie++ phase (in->runs,
 * those with bonnie_line): the sequential output/input and seeks block
 * and the create block, a table each, a row per filesystem config (its
 * Latency row under it), the means over repetitions. A study of
 * study_list.
 */
int bonnie_tables(struct tables *out, const struct table_src *in);

/* Whether metric name is a figure of the blocks (a test, its _cpu,
 * _latency_us or _fast), so that report need not repeat it. */
int bonnie_shows(const char *name);

#endif
