/* mergeseries: the shards' timeseries.csv and histograms.csv joined into
 * the merge's. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/mergeseries.h"
#include "results/histcsv.h"
#include "results/seriescsv.h"
#include "util/grow.h"

/* A file of blocks of six columns, run_id and cell first. */
struct kind {
	const char *file;
	int (*read)(const char *path,
		    int (*fn)(void *ctx, const char *const *f, int line),
		    void *ctx, struct csv_read *info, struct diag *d);
	int (*block_starts)(const char *const *prev, const char *const *f);
	int (*open)(struct seriescsv **out, const char *path,
		    struct diag *d);
};

static const struct kind series_kind = { "timeseries.csv", seriescsv_read,
	seriescsv_block_starts, seriescsv_open };
static const struct kind hist_kind = { "histograms.csv", histcsv_read,
	histcsv_block_starts, histcsv_open };

/* One row read: its fields but run_id, in one allocation. */
struct srow {
	char *f[SERIESCSV_FIELDS];	/* f[SERIESCSV_RUN_ID] unused */
};

/* A cell's block: rows [from, to) of one shard. */
struct block {
	const char *cell;
	long index;		/* in the plan, LONG_MAX unknown */
	size_t shard, from, to;
	size_t seq;
};

struct reading {
	struct srow *rows;
	size_t n, cap;
	int oom;
	int bad_line;		/* a row not of SERIESCSV_FIELDS fields */
};

static int take_row(void *ctx, const char *const *f, int line)
{
	struct reading *rd = ctx;
	size_t len = 0;
	struct srow *r;
	char *p;

	if (!f) {
		rd->bad_line = line;
		return -1;
	}
	r = grow_array(rd->rows, &rd->cap, rd->n + 1, sizeof(*r), 256);
	if (!r) {
		rd->oom = 1;
		return -1;
	}
	rd->rows = r;
	for (int i = 1; i < SERIESCSV_FIELDS; i++)
		len += strlen(f[i]) + 1;
	p = malloc(len);
	if (!p) {
		rd->oom = 1;
		return -1;
	}
	r = &rd->rows[rd->n++];
	r->f[0] = NULL;
	for (int i = 1; i < SERIESCSV_FIELDS; i++) {
		r->f[i] = p;
		p = stpcpy(p, f[i]) + 1;
	}
	return 0;
}

static void reading_free(struct reading *rd)
{
	for (size_t i = 0; i < rd->n; i++)
		free(rd->rows[i].f[1]);
	free(rd->rows);
	memset(rd, 0, sizeof(*rd));
}

/* Shard s's blocks onto *b: each cell's last, unless an earlier shard
 * had the cell. 0, or -1 out of memory. */
static int blocks_of(const struct kind *kd, const struct reading *rd,
		     size_t s,
		     const struct merge_index *ix, struct block **b,
		     size_t *n, size_t *cap)
{
	size_t first = *n;

	for (size_t i = 0; i < rd->n;) {
		const char *cell = rd->rows[i].f[SERIESCSV_CELL];
		size_t j = i, k;
		struct block *nb;

		while (++j < rd->n &&
		       !kd->block_starts((const char *const *)
					 rd->rows[j - 1].f,
					 (const char *const *)rd->rows[j].f))
			;
		for (k = 0; k < *n && strcmp((*b)[k].cell, cell); k++)
			;
		if (k < first) {	/* an earlier shard's */
			i = j;
			continue;
		}
		if (k < *n) {		/* this shard's again: the later */
			(*b)[k].from = i;
			(*b)[k].to = j;
			i = j;
			continue;
		}
		nb = grow_array(*b, cap, *n + 1, sizeof(**b), 32);
		if (!nb)
			return -1;
		*b = nb;
		nb[*n] = (struct block){ cell,
			mergemanifest_cell_index(ix, cell), s, i, j, *n };
		(*n)++;
		i = j;
	}
	return 0;
}

static int by_index(const void *a, const void *b)
{
	const struct block *x = a, *y = b;

	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int write_blocks(const struct kind *kd, const char *path,
			const char *run_id, const struct reading *rd,
			const struct block *b, size_t n, struct diag *d)
{
	struct seriescsv *w;
	int rc = 0;

	if (kd->open(&w, path, d))
		return -1;
	for (size_t i = 0; i < n && !rc; i++)
		for (size_t r = b[i].from; r < b[i].to && !rc; r++) {
			const char *f[SERIESCSV_FIELDS];

			memcpy(f, rd[b[i].shard].rows[r].f, sizeof(f));
			f[SERIESCSV_RUN_ID] = run_id;
			rc = seriescsv_row(w, f);
		}
	if (!rc)
		rc = seriescsv_sync(w);
	seriescsv_close(w);
	return rc ? diag_fail(d, DIAG_SYSTEM, -rc, "%s", path) : 0;
}

static int join(const struct kind *kd, const struct merge_shard *sh,
		size_t n, const struct merge_index *ix, const char *path,
		const char *run_id, struct diag *d)
{
	struct reading *rd = calloc(n + 1, sizeof(*rd));
	struct block *b = NULL;
	size_t n_b = 0, cap = 0;
	char in[PATH_MAX + 32];
	struct csv_read seen;
	int rc = -1;

	if (!rd)
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	for (size_t s = 0; s < n; s++) {
		snprintf(in, sizeof(in), "%s/%s", sh[s].dir, kd->file);
		if (kd->read(in, take_row, &rd[s], &seen, d)) {
			if (rd[s].oom)
				diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
			else if (rd[s].bad_line)
				diag_set(d, in, NULL,
					 (struct pos){ rd[s].bad_line, 1 },
					 "a row of other than %d fields",
					 SERIESCSV_FIELDS);
			goto out;
		}
		if (blocks_of(kd, &rd[s], s, ix, &b, &n_b, &cap)) {
			diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
			goto out;
		}
	}
	if (n_b)
		qsort(b, n_b, sizeof(*b), by_index);
	rc = write_blocks(kd, path, run_id, rd, b, n_b, d);
out:
	for (size_t s = 0; s < n; s++)
		reading_free(&rd[s]);
	free(rd);
	free(b);
	return rc;
}

int mergeseries_join(const struct merge_shard *sh, size_t n,
		     const struct merge_index *ix, const char *path,
		     const char *run_id, struct diag *d)
{
	return join(&series_kind, sh, n, ix, path, run_id, d);
}

int mergeseries_hist(const struct merge_shard *sh, size_t n,
		     const struct merge_index *ix, const char *path,
		     const char *run_id, struct diag *d)
{
	return join(&hist_kind, sh, n, ix, path, run_id, d);
}
