/* classic: the seed studies' tables — tiobench's, bonnie++'s and dbench's layouts. */
#ifndef FSPLAN_CLASSIC_H
#define FSPLAN_CLASSIC_H

#include <stdio.h>

#include "results/results.h"

/*
 * tiobench's layout for the phase runs in runs (the ok runs of one
 * phase): Sequential Reads, Random Reads, Sequential Writes, Random
 * Writes (from the mode parameter), a row per filesystem config and
 * thread count, the means over repetitions. Runs without rate_mbs are
 * left out. Returns 1 printed, 0 nothing to print, -1 out of memory.
 */
int classic_tiobench(FILE *f, const struct res_run *const *runs, size_t n);

/*
 * bon_csv2txt's layout for runs with bonnie_line: the sequential
 * output/input and seeks block and the create block, a row per
 * filesystem config, the means over repetitions. Same returns.
 */
int classic_bonnie(FILE *f, const struct res_run *const *runs, size_t n);

/*
 * The 2003 study's dbench table for runs with throughput_mbs and
 * clients (lua/dbench.lua's and lua/parse/dbench.lua's): "dbench N
 * processes" and a row per config (its label and parameters but
 * workers) with the Average, High and Low of its repetitions. Same
 * returns.
 */
int classic_dbench(FILE *f, const struct res_run *const *runs, size_t n);

/*
 * Whether metric name is a figure of the tiobench sections (tio: they
 * were printed), of the bonnie++ blocks (bon) or the dbench table (db:
 * throughput_mbs), so that report need not
 * repeat it as a table of its own.
 */
int classic_shows(const char *name, int tio, int bon, int db);

#endif
