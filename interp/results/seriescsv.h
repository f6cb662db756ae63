/* seriescsv: timeseries.csv, a block of points per phase run, and back. */
#ifndef FSPLAN_SERIESCSV_H
#define FSPLAN_SERIESCSV_H

#include "results/csv.h"
#include "results/series.h"
#include "util/diag.h"

#define SERIESCSV_HEADER "run_id,cell,t_s,metric,value,unit"

/* The columns of SERIESCSV_HEADER, in order. */
enum { SERIESCSV_RUN_ID, SERIESCSV_CELL, SERIESCSV_T, SERIESCSV_METRIC,
       SERIESCSV_VALUE, SERIESCSV_UNIT, SERIESCSV_FIELDS };

struct seriescsv;

/*
 * Open path for appending (created 0644 with the header when new or
 * empty; an existing file must start with the header, and a torn last
 * row, a crash's, is cut off). 0, or -1 with d.
 */
int seriescsv_open(struct seriescsv **out, const char *path,
		   struct diag *d);
/* The same writer for another file of SERIESCSV_FIELDS columns whose
 * rows come in a block per phase run (histograms.csv): k's header. */
int seriescsv_open_kind(struct seriescsv **out, const struct csv_kind *k,
			const char *path, struct diag *d);
/*
 * A phase run's block: its points interval by interval (by t_s, in the
 * order added within one), each row run_id, cell, t_s, metric, value,
 * unit; nothing for no points. 0 or -errno (a block cut short by a full
 * disk is taken back).
 */
int seriescsv_block(struct seriescsv *w, const char *run_id,
		    const char *cell, const struct series *s);
/* One row as the reader gives it (the merge's): 0 or -errno. */
int seriescsv_row(struct seriescsv *w, const char *const *f);
/* fdatasync, with the phase run's rows. 0 or -errno. */
int seriescsv_sync(struct seriescsv *w);
void seriescsv_close(struct seriescsv *w);

/*
 * Whether row f begins a block, after row prev (NULL: f is the first):
 * another cell, or a time before prev's (a cell's phase run made again
 * by --resume appends a block that begins at its first interval again).
 * A reader keeps a cell's last block.
 */
int seriescsv_block_starts(const char *const *prev, const char *const *f);

/* Every row of a timeseries.csv: csv_read_file (results/csv.h), f NULL
 * for a row of other than SERIESCSV_FIELDS fields (fn says whether that
 * stops the read). */
int seriescsv_read(const char *path,
		   int (*fn)(void *ctx, const char *const *f, int line),
		   void *ctx, struct csv_read *info, struct diag *d);

#endif
