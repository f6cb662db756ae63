/* seriescsv: timeseries.csv, a block of points per phase run, and back. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/csv.h"
#include "results/csvrecord.h"
#include "results/seriescsv.h"
#include "util/strbuf.h"

#define NOPOS ((struct pos){ 0, 0 })

/* A block goes out in writes of about this much. */
#define CHUNK	(1u << 20)

struct seriescsv {
	int fd;
};

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int is_header(const struct csvrecord *r)
{
	static const char *const h[] = { "run_id", "cell", "t_s", "metric",
					 "value", "unit" };

	if (r->nf != SERIESCSV_FIELDS)
		return 0;
	for (size_t i = 0; i < r->nf; i++)
		if (strcmp(csvrecord_field(r, i), h[i]))
			return 0;
	return 1;
}

/* An existing file: its header, and its end past the last whole row. */
static int check_existing(int fd, const char *path, struct diag *d)
{
	struct csvrecord *r;
	int rc, err;

	r = csvrecord_open(path, &err);
	if (!r)
		return diag_set(d, path, NULL, NOPOS, "cannot read: %s",
				strerror(-err));
	rc = csvrecord_next(r);
	if (rc != CSVRECORD_OK || !is_header(r)) {
		csvrecord_close(r);
		return diag_set(d, path, NULL, NOPOS, "not a timeseries.csv "
				"(its header is not " SERIESCSV_HEADER ")");
	}
	while ((rc = csvrecord_next(r)) == CSVRECORD_OK)
		;
	if (rc < 0)
		rc = diag_set(d, path, NULL, NOPOS, "line %d: %s", r->line,
			      strerror(-rc));
	else if (r->off != r->rec_end &&
		 (ftruncate(fd, r->rec_end) < 0 || fdatasync(fd) < 0))
		rc = diag_set(d, path, NULL, NOPOS, "cannot cut the torn "
			      "last row: %s", strerror(errno));
	else
		rc = 0;
	csvrecord_close(r);
	return rc;
}

int seriescsv_open(struct seriescsv **out, const char *path,
		   struct diag *d)
{
	static const char hdr[] = SERIESCSV_HEADER "\n";
	struct seriescsv *w;
	struct stat st;
	int rc = 0;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return diag_set(d, path, NULL, NOPOS, "out of memory");
	w->fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW |
		     O_CLOEXEC, 0644);
	if (w->fd < 0) {
		rc = errno;
		free(w);
		return diag_set(d, path, NULL, NOPOS, "cannot open: %s",
				rc == ELOOP ? "it is a symbolic link" :
				strerror(rc));
	}
	if (fstat(w->fd, &st) < 0 || !S_ISREG(st.st_mode))
		rc = diag_set(d, path, NULL, NOPOS, "not a regular file");
	else if (st.st_size == 0 &&
		 ((rc = write_all(w->fd, hdr, sizeof(hdr) - 1)) ||
		  fdatasync(w->fd)))
		rc = diag_set(d, path, NULL, NOPOS, "cannot write: %s",
			      strerror(rc ? -rc : errno));
	else if (st.st_size > 0)
		rc = check_existing(w->fd, path, d);
	if (rc) {
		seriescsv_close(w);
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
	int rc = b->oom ? -ENOMEM : b->len ? write_all(w->fd, b->p, b->len)
					   : 0;

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
		   void *ctx, struct seriescsv_seen *seen, struct diag *d)
{
	struct csvrecord *r;
	int rc, err;

	memset(seen, 0, sizeof(*seen));
	r = csvrecord_open(path, &err);
	if (!r && err == -ENOENT) {
		seen->missing = 1;
		return 0;
	}
	if (!r)
		return diag_set(d, path, NULL, NOPOS, "cannot open: %s",
				err == -EINVAL ? "not a regular file" :
				strerror(-err));
	rc = csvrecord_next(r);
	if (rc == CSVRECORD_EOF || rc == CSVRECORD_TORN) {
		csvrecord_close(r);
		return 0;	/* no header yet: a run that wrote nothing */
	}
	if (rc != CSVRECORD_OK || !is_header(r)) {
		rc = rc == CSVRECORD_OK ? -EPROTO : rc;
		goto out;
	}
	while ((rc = csvrecord_next(r)) == CSVRECORD_OK) {
		const char *f[SERIESCSV_FIELDS];

		if (r->nf == 1 && !*csvrecord_field(r, 0))
			continue;
		for (int i = 0; i < SERIESCSV_FIELDS && i < (int)r->nf; i++)
			f[i] = csvrecord_field(r, i);
		if (fn(ctx, r->nf == SERIESCSV_FIELDS ? f : NULL, r->line)) {
			csvrecord_close(r);
			return -1;
		}
	}
	seen->torn = rc == CSVRECORD_TORN;
out:
	if (rc == -EPROTO)
		diag_set(d, path, NULL, NOPOS, "not a timeseries.csv (its "
			 "header is not " SERIESCSV_HEADER ")");
	else if (rc == -E2BIG)
		diag_set(d, path, NULL, (struct pos){ r->line, 1 },
			 "record longer than %u MiB", CSVRECORD_MAX >> 20);
	else if (rc < 0)
		diag_set(d, path, NULL, (struct pos){ r->line, 1 },
			 "cannot read: %s", strerror(-rc));
	csvrecord_close(r);
	return rc < 0 ? -1 : 0;
}
