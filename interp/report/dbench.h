/* dbench: the 2003 study's dbench table — throughput per client count, average,
 * high and low. */
#ifndef FSPLAN_REPORT_DBENCH_H
#define FSPLAN_REPORT_DBENCH_H

#include <stdio.h>

#include "report/table.h"
#include "results/results.h"

/*
 * The 2003 study's dbench table for the ok runs of a phase (in->runs,
 * those with throughput_mbs and clients: lua/dbench.lua's and
 * lua/parse/dbench.lua's): a section per client count, "dbench N
 * processes", and a row per config (its label and parameters but
 * workers) with the Average, High and Low of its repetitions. A study of
 * study_list.
 */
int dbench_tables(struct tables *out, const struct table_src *in);

/* Whether metric name is the table's figure, throughput_mbs. */
int dbench_shows(const char *name);

#endif
