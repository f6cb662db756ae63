/* histcsv: histograms.csv, a phase run's op latency histograms, and back. */
#ifndef FSPLAN_HISTCSV_H
#define FSPLAN_HISTCSV_H

#include "results/csv.h"
#include "results/metrics.h"
#include "results/seriescsv.h"
#include "util/diag.h"

#define HISTCSV_HEADER "run_id,cell,op,bucket_lo_us,bucket_hi_us,count"

/* The columns of HISTCSV_HEADER: run_id and cell where timeseries.csv
 * has them, and as many, so seriescsv's writer and merge carry both. */
enum { HISTCSV_RUN_ID, HISTCSV_CELL, HISTCSV_OP, HISTCSV_LO, HISTCSV_HI,
       HISTCSV_COUNT, HISTCSV_FIELDS };

/* Open path for appending, as seriescsv_open does. 0, or -1 with d. */
int histcsv_open(struct seriescsv **out, const char *path, struct diag *d);
/*
 * A phase run's block: for each op of m with a histogram, by name, a row
 * per bucket that holds any, lowest first: run_id, cell, op, the bucket's
 * range in microseconds (lo, hi inclusive, of its nanoseconds), count.
 * 0 or -errno.
 */
int histcsv_block(struct seriescsv *w, const char *run_id, const char *cell,
		  const struct metrics *m);
/* Whether row f begins a block after row prev (NULL: f is the first):
 * another cell, an op before prev's, or prev's op from its start again
 * (--resume's block of the cell made again). A reader keeps a cell's
 * last block. */
int histcsv_block_starts(const char *const *prev, const char *const *f);
/* Every row of a histograms.csv, as seriescsv_read. */
int histcsv_read(const char *path,
		 int (*fn)(void *ctx, const char *const *f, int line),
		 void *ctx, struct csv_read *info, struct diag *d);

#endif
