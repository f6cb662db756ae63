/* classic: the seed studies' tables — tiobench's and bonnie++'s layouts, and the helpers the study tables share. */
#ifndef FSPLAN_CLASSIC_H
#define FSPLAN_CLASSIC_H

#include <stdio.h>

#include "results/results.h"

/*
 * tiobench's layout for the phase runs in runs (the ok runs of one
 * phase): Sequential Reads, Random Reads, Sequential Writes, Random
 * Writes (from the mode parameter), a row per filesystem config and
 * thread count, the means over repetitions. Runs without rate_mbs and
 * block_bytes are left out. Returns 1 printed, 0 nothing to print, -1
 * out of memory.
 */
int classic_tiobench(FILE *f, const struct res_run *const *runs, size_t n);

/*
 * The Rate column of classic_tiobench's rows, in its order, given to fn:
 * the section's title ("Sequential Reads"), the row's identifier, its
 * thread count (NAN when none) and the mean rate (MiB/s). A nonzero
 * return from fn stops it. Returns 0, or -1 out of memory or when fn
 * failed.
 */
typedef int (*classic_tio_fn)(void *ctx, const char *section,
			      const char *ident, double threads, double rate);
int classic_tio_rates(const struct res_run *const *runs, size_t n,
		      classic_tio_fn fn, void *ctx);

/*
 * bon_csv2txt's layout for runs with bonnie_line: the sequential
 * output/input and seeks block and the create block, a row per
 * filesystem config, the means over repetitions. Same returns.
 */
int classic_bonnie(FILE *f, const struct res_run *const *runs, size_t n);

/*
 * Whether metric name is a figure of the tiobench sections (tio: they
 * were printed), of the bonnie++ blocks (bon) or the dbench table (db:
 * throughput_mbs), so that report need not
 * repeat it as a table of its own.
 */
int classic_shows(const char *name, int tio, int bon, int db);

/* A run's identifier for the tables: its label and its parameters but
 * those in skip (malloc'd), and the index of name in names, or -1. */
char *classic_ident(const struct res_run *run, const char *const *skip);
int classic_order(char **names, size_t n, const char *name);

#endif
