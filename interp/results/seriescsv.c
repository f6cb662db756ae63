/* seriescsv: timeseries.csv, a block of points per phase run, and back. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/csv.h"
#include "results/seriescsv.h"
#include "util/file.h"
#include "util/strbuf.h"

#define NOPOS ((struct pos){ 0, 0 })

/* A block goes out in writes of about this much. */
#define CHUNK	(1u << 20)

struct seriescsv {
	int fd;
};

static const struct csv_kind kind = { "timeseries.csv", SERIESCSV_HEADER,
					SERIESCSV_FIELDS };

int seriescsv_open(struct seriescsv **out, const char *path,
		   struct diag *d)
{
	return seriescsv_open_kind(out, &kind, path, d);
}

int seriescsv_open_kind(struct seriescsv **out, const struct csv_kind *k,
			const char *path, struct diag *d)
{
	struct seriescsv *w;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return diag_set(d, path, NULL, NOPOS, "out of memory");
	if (csv_open_file(k, path, &w->fd, d)) {
		free(w);
		return -1;
	}
	*out = w;
	return 0;
}

/* One row onto b: the quoted fields (csv_quote) and the newline. */
static void put_row(struct strbuf *b, const char *const *f)
{
	for (int i = 0; i < SERIESCSV_FIELDS; i++) {
		const char *s = f[i] ? f[i] : "";
		size_t n = 2 * strlen(s) + 3;
		char small[256], *q = n <= sizeof(small) ? small : malloc(n);

		if (!q) {
			b->oom = 1;
			return;
		}
		csv_quote(s, q, n);
		strbuf_str(b, q);
		strbuf_add(b, i + 1 < SERIESCSV_FIELDS ? "," : "\n", 1);
		if (q != small)
			free(q);
	}
}

/* b's bytes out; a part written when it failed is taken back. */
static int flush(struct seriescsv *w, struct strbuf *b, off_t start)
{
	int rc = b->oom ? -ENOMEM : file_write_all(w->fd, b->p, b->len, NULL);

	b->len = 0;
	if (rc && start >= 0)
		(void)!ftruncate(w->fd, start);
	return rc;
}

/* The order of the block: by t_s, points of one interval as added. */
static int by_time(const void *a, const void *b)
{
	const struct series_pt *x = *(const struct series_pt *const *)a;
	const struct series_pt *y = *(const struct series_pt *const *)b;

	if (x->t_s != y->t_s)
		return x->t_s < y->t_s ? -1 : 1;
	return (x > y) - (x < y);
}

int seriescsv_block(struct seriescsv *w, const char *run_id,
		    const char *cell, const struct series *s)
{
	const struct series_pt **o;
	struct strbuf b = { 0 };
	off_t start;
	int rc = 0;

	if (!s->n)
		return 0;
	o = malloc((size_t)s->n * sizeof(*o));
	if (!o)
		return -ENOMEM;
	for (int i = 0; i < s->n; i++)
		o[i] = &s->p[i];
	qsort(o, (size_t)s->n, sizeof(*o), by_time);
	start = lseek(w->fd, 0, SEEK_END);
	for (int i = 0; i < s->n && !rc; i++) {
		char t[32], v[32];
		const char *f[SERIESCSV_FIELDS] = { run_id, cell, t,
			o[i]->metric, v, o[i]->unit };

		snprintf(t, sizeof(t), "%.3f", o[i]->t_s);
		csv_number(v, sizeof(v), o[i]->value);
		put_row(&b, f);
		if (b.oom || b.len >= CHUNK)
			rc = flush(w, &b, start);
	}
	if (!rc)
		rc = flush(w, &b, start);
	free(b.p);
	free(o);
	return rc;
}

int seriescsv_row(struct seriescsv *w, const char *const *f)
{
	struct strbuf b = { 0 };
	int rc;

	put_row(&b, f);
	rc = flush(w, &b, -1);
	free(b.p);
	return rc;
}

int seriescsv_sync(struct seriescsv *w)
{
	return fdatasync(w->fd) < 0 ? -errno : 0;
}

void seriescsv_close(struct seriescsv *w)
{
	if (!w)
		return;
	close(w->fd);
	free(w);
}

int seriescsv_block_starts(const char *const *prev, const char *const *f)
{
	return !prev || strcmp(prev[SERIESCSV_CELL], f[SERIESCSV_CELL]) ||
	       strtod(f[SERIESCSV_T], NULL) < strtod(prev[SERIESCSV_T], NULL);
}

int seriescsv_read(const char *path,
		   int (*fn)(void *ctx, const char *const *f, int line),
		   void *ctx, struct csv_read *info, struct diag *d)
{
	return csv_read_file(&kind, path, fn, ctx, info, d);
}
