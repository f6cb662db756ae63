/* histcsv: histograms.csv, a phase run's op latency histograms, and back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/histcsv.h"

/* merge and the writer take both files' rows as six fields, cell second */
_Static_assert((int)HISTCSV_FIELDS == (int)SERIESCSV_FIELDS &&
	       (int)HISTCSV_CELL == (int)SERIESCSV_CELL,
	       "histograms.csv's columns");

static const struct csv_kind kind = { "histograms.csv", HISTCSV_HEADER,
					HISTCSV_FIELDS };

int histcsv_open(struct seriescsv **out, const char *path, struct diag *d)
{
	return seriescsv_open_kind(out, &kind, path, d);
}

static int by_name(const void *a, const void *b)
{
	const struct op_stat *x = *(const struct op_stat *const *)a;
	const struct op_stat *y = *(const struct op_stat *const *)b;

	return strcmp(x->name, y->name);
}

static int op_rows(struct seriescsv *w, const char *run_id,
		   const char *cell, const struct op_stat *op)
{
	int rc = 0;

	for (unsigned int i = 0; op->lat.b && i < HIST_BUCKETS && !rc; i++) {
		char lo[32], hi[32], n[32];
		const char *f[HISTCSV_FIELDS] = { run_id, cell, op->name, lo,
						  hi, n };
		uint64_t l, h;

		if (!op->lat.b[i])
			continue;
		loglin_range(i, HIST_SUB_BITS, &l, &h);
		if (i == HIST_BUCKETS - 1 && op->lat.max > h)
			h = op->lat.max;	/* the last reaches to max */
		snprintf(lo, sizeof(lo), "%.3f", (double)l / 1e3);
		snprintf(hi, sizeof(hi), "%.3f", (double)h / 1e3);
		snprintf(n, sizeof(n), "%u", op->lat.b[i]);
		rc = seriescsv_row(w, f);
	}
	return rc;
}

int histcsv_block(struct seriescsv *w, const char *run_id, const char *cell,
		  const struct metrics *m)
{
	const struct op_stat **o;
	int rc = 0;

	if (m->n_ops <= 0)
		return 0;
	if (!(o = malloc((size_t)m->n_ops * sizeof(*o))))
		return -ENOMEM;
	for (int i = 0; i < m->n_ops; i++)
		o[i] = &m->ops[i];
	qsort(o, (size_t)m->n_ops, sizeof(*o), by_name);
	for (int i = 0; i < m->n_ops && !rc; i++)
		rc = op_rows(w, run_id, cell, o[i]);
	free(o);
	return rc;
}

int histcsv_block_starts(const char *const *prev, const char *const *f)
{
	int op;

	if (!prev || strcmp(prev[HISTCSV_CELL], f[HISTCSV_CELL]))
		return 1;
	op = strcmp(f[HISTCSV_OP], prev[HISTCSV_OP]);
	return op < 0 || (!op && strtod(f[HISTCSV_LO], NULL) <=
			  strtod(prev[HISTCSV_LO], NULL));
}

int histcsv_read(const char *path,
		 int (*fn)(void *ctx, const char *const *f, int line),
		 void *ctx, struct csv_read *info, struct diag *d)
{
	return csv_read_file(&kind, path, fn, ctx, info, d);
}
