/* seriesread: timeseries.csv read back, each cell's last block of points. */
#ifndef FSPLAN_SERIESREAD_H
#define FSPLAN_SERIESREAD_H

#include <stddef.h>

#include "util/diag.h"
#include "util/strbuf.h"
#include "util/strhash.h"

/* The points of one metric of one cell kept, at most: a day at 1 s, or
 * six hours at 100 ms; the rest is counted, not read. */
#define SERIESREAD_MAX_POINTS (1u << 18)

/* One metric of one phase run, in file order (t_s ascending). */
struct seriesread_track {
	char *metric, *unit;
	double *t, *v;
	size_t n, cap;
};

struct seriesread_cell {
	char *cell;		/* as results.csv's cell column: "id#rep" */
	struct seriesread_track *tr;
	size_t n, cap;
	size_t last_rec;	/* the record its last row was */
	double last_t;
};

struct seriesread {
	struct seriesread_cell *c;
	size_t n, cap;
	struct strhash index;	/* of the cells */
	size_t n_rec;		/* records read */
	int torn;		/* the last line was cut short */
	size_t n_bad;		/* rows left out: not a point */
	size_t n_unknown;	/* rows of cells the caller does not know */
	size_t n_cut;		/* points past SERIESREAD_MAX_POINTS */
	size_t n_superseded;	/* blocks a later one of the cell replaced */
	struct strbuf bad;	/* the first few bad rows: "line L (why)" */
	struct strbuf unknown;	/* the first unknown cell, made printable */
};

/*
 * want(ctx, cell, metric): 1 keep the row's point, 0 not this metric,
 * -1 a cell the caller does not know (a cell not in results.csv).
 */
typedef int seriesread_want_fn(void *ctx, const char *cell,
			       const char *metric);

/*
 * Read path (RFC 4180 as results.csv is read, csvrecord): the header
 * must be SERIESCSV_HEADER (seriescsv_read reads it). A phase run's points are one block of
 * consecutive rows; a cell's later block (a --resume made the run
 * again) replaces its earlier. A row that is not a point (not 6 fields,
 * t_s or value not a finite decimal number, t_s below 0, a metric or
 * unit fsplan would not write) is left out and counted; a torn last
 * line too. Returns 0, 1 when there is no such file (a run from before
 * series), or -1 with d filled (unreadable, not a timeseries.csv, a
 * record longer than CSVRECORD_MAX, out of memory).
 */
int seriesread_load(struct seriesread *s, const char *path,
		    seriesread_want_fn *want, void *ctx, struct diag *d);
void seriesread_free(struct seriesread *s);

/* The points of metric of cell, or NULL. */
const struct seriesread_track *seriesread_track(const struct seriesread *s,
						const char *cell,
						const char *metric);

/* What was left out, one line onto out ("3 rows left out ..."), when
 * anything was: 1, else 0 (-1 out of memory). */
int seriesread_note(const struct seriesread *s, struct strbuf *out);

#endif
