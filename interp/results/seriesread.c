/* seriesread: timeseries.csv read back, each cell's last block of points. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/seriescsv.h"
#include "results/metrics.h"
#include "results/seriesread.h"
#include "util/grow.h"
#include "util/units.h"

enum { F_CELL = SERIESCSV_CELL, F_T = SERIESCSV_T,
       F_METRIC = SERIESCSV_METRIC, F_VALUE = SERIESCSV_VALUE,
       F_UNIT = SERIESCSV_UNIT };

static const char *cell_of(const void *ctx, size_t i)
{
	return ((const struct seriesread *)ctx)->c[i].cell;
}

/* ---- the cells ---------------------------------------------------------- */

static void free_tracks(struct seriesread_cell *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->tr[i].metric);
		free(c->tr[i].unit);
		free(c->tr[i].t);
		free(c->tr[i].v);
	}
	free(c->tr);
	c->tr = NULL;
	c->n = c->cap = 0;
}

static struct seriesread_cell *cell_get(struct seriesread *s,
					const char *cell)
{
	size_t at = strhash_find(&s->index, cell, cell_of, s);
	struct seriesread_cell *c;

	if (at)
		return &s->c[at - 1];
	if (strhash_reserve(&s->index, s->n + 1, cell_of, s))
		return NULL;
	c = grow_array(s->c, &s->cap, s->n + 1, sizeof(*c), 16);
	if (!c)
		return NULL;
	s->c = c;
	c = &s->c[s->n];
	memset(c, 0, sizeof(*c));
	if (!(c->cell = strdup(cell)))
		return NULL;
	c->last_rec = (size_t)-2;	/* a first row starts a block */
	*strhash_slot(&s->index, cell, cell_of, s) = ++s->n;
	return c;
}

static struct seriesread_track *track_get(struct seriesread_cell *c,
					  const char *metric,
					  const char *unit)
{
	struct seriesread_track *tr;

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->tr[i].metric, metric))
			return &c->tr[i];
	tr = grow_array(c->tr, &c->cap, c->n + 1, sizeof(*tr), 8);
	if (!tr)
		return NULL;
	c->tr = tr;
	tr = &c->tr[c->n];
	memset(tr, 0, sizeof(*tr));
	tr->metric = strdup(metric);
	tr->unit = strdup(unit);
	if (!tr->metric || !tr->unit) {
		free(tr->metric);
		free(tr->unit);
		return NULL;
	}
	c->n++;
	return tr;
}

/* 0 kept or counted, -1 out of memory. */
static int add_point(struct seriesread *s, struct seriesread_track *tr,
		     double t, double v)
{
	size_t cap = tr->cap;
	double *nt, *nv;

	if (tr->n >= SERIESREAD_MAX_POINTS) {
		s->n_cut++;
		return 0;
	}
	nt = grow_array(tr->t, &cap, tr->n + 1, sizeof(double), 64);
	if (!nt)
		return -1;
	tr->t = nt;
	cap = tr->cap;
	nv = grow_array(tr->v, &cap, tr->n + 1, sizeof(double), 64);
	if (!nv)
		return -1;
	tr->v = nv;
	tr->cap = cap;
	tr->t[tr->n] = t;
	tr->v[tr->n++] = v;
	return 0;
}

/* ---- rows --------------------------------------------------------------- */

/* One more row left out: counted, the first three named. */
static int bad_row(struct seriesread *s, int line, const char *why)
{
	if (s->n_bad++ >= 3)
		return 0;
	strbuf_printf(&s->bad, "%sline %d (%s)", s->bad.len ? ", " : "",
		      line, why);
	return s->bad.oom ? -1 : 0;
}

/* A cell id from outside, as a line of a note can carry it. */
static void printable(struct strbuf *b, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i < 80; i++)
		strbuf_add(b, (unsigned char)s[i] < 0x20 || s[i] == 0x7f ?
			   "?" : s + i, 1);
	if (s[i])
		strbuf_str(b, "...");
}

/* Why t and value of f are no point, or NULL (both into *t, *v). */
static const char *numbers(const char *const *f, double *t, double *v)
{
	if (units_decimal(f[F_T], strlen(f[F_T]), t) || *t < 0) {
		/* no time, not one to tell a block by either */
		*t = NAN;
		return "t_s is not a finite number of 0 or more";
	}
	if (units_decimal(f[F_VALUE], strlen(f[F_VALUE]), v))
		return "value is not a finite number";
	if (!metrics_metric_name_ok(f[F_METRIC], strlen(f[F_METRIC])))
		return "not a metric name";
	if (*f[F_UNIT] && !metrics_unit_ok(f[F_UNIT], strlen(f[F_UNIT])))
		return "not a unit";
	return NULL;
}

/*
 * A row into its cell: a row that does not follow the cell's last one
 * (another cell's rows between, or time going back) starts a new block,
 * which replaces the points there were.
 */
static int take_row(struct seriesread *s, const char *const *f, int line,
		    seriesread_want_fn *want, void *ctx)
{
	struct seriesread_cell *c;
	struct seriesread_track *tr;
	const char *why;
	double t = NAN, v = 0;
	int w;

	why = numbers(f, &t, &v);
	w = want(ctx, f[F_CELL], f[F_METRIC]);
	if (w < 0) {
		if (!s->n_unknown++)
			printable(&s->unknown, f[F_CELL]);
		return s->unknown.oom ? -1 : 0;
	}
	if (!(c = cell_get(s, f[F_CELL])))
		return -1;
	if (c->last_rec + 1 != s->n_rec || (isfinite(t) && t < c->last_t)) {
		s->n_superseded += c->n > 0;
		free_tracks(c);
		c->last_t = 0;
	}
	c->last_rec = s->n_rec;
	if (why)
		return bad_row(s, line, why);
	c->last_t = t;
	if (!w)
		return 0;
	if (!(tr = track_get(c, f[F_METRIC], f[F_UNIT])))
		return -1;
	return add_point(s, tr, t, v);
}

/* What seriescsv_read hands over: a row, or a row of the wrong number of
 * fields (f NULL), counted as left out. */
struct reading {
	struct seriesread *s;
	seriesread_want_fn *want;
	void *ctx;
};

static int one_row(void *ctx, const char *const *f, int line)
{
	struct reading *rd = ctx;

	rd->s->n_rec++;
	if (!f)
		return bad_row(rd->s, line, "not 6 fields");
	return take_row(rd->s, f, line, rd->want, rd->ctx);
}

int seriesread_load(struct seriesread *s, const char *path,
		    seriesread_want_fn *want, void *ctx, struct diag *d)
{
	struct reading rd = { s, want, ctx };
	struct csv_read seen;

	memset(s, 0, sizeof(*s));
	if (seriescsv_read(path, one_row, &rd, &seen, d)) {
		if (!d->msg[0])
			diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
		seriesread_free(s);
		return -1;
	}
	s->torn = seen.torn;
	return seen.missing ? 1 : 0;
}

void seriesread_free(struct seriesread *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free_tracks(&s->c[i]);
		free(s->c[i].cell);
	}
	free(s->c);
	strhash_free(&s->index);
	free(s->bad.p);
	free(s->unknown.p);
	memset(s, 0, sizeof(*s));
}

const struct seriesread_track *seriesread_track(const struct seriesread *s,
						const char *cell,
						const char *metric)
{
	size_t at = strhash_find(&s->index, cell, cell_of, s);
	const struct seriesread_cell *c = at ? &s->c[at - 1] : NULL;

	for (size_t i = 0; c && i < c->n; i++)
		if (!strcmp(c->tr[i].metric, metric))
			return c->tr[i].n ? &c->tr[i] : NULL;
	return NULL;
}

int seriesread_note(const struct seriesread *s, struct strbuf *out)
{
	const char *sep = "";

	if (!s->n_bad && !s->n_unknown && !s->n_cut && !s->torn)
		return 0;
	if (s->n_bad)
		strbuf_printf(out, "%s%zu row%s left out (not a point): %s%s",
			      sep, s->n_bad, s->n_bad == 1 ? "" : "s",
			      s->bad.p, s->n_bad > 3 ? ", ..." : "");
	if (s->n_bad)
		sep = "; ";
	if (s->n_unknown) {
		strbuf_printf(out, "%s%zu row%s of cells not in results.csv "
			      "(as '%s') left out", sep, s->n_unknown,
			      s->n_unknown == 1 ? "" : "s", s->unknown.p);
		sep = "; ";
	}
	if (s->n_cut) {
		strbuf_printf(out, "%s%zu points past the first %u of a "
			      "series left out", sep, s->n_cut,
			      SERIESREAD_MAX_POINTS);
		sep = "; ";
	}
	if (s->torn)
		strbuf_printf(out, "%sthe last line was cut short and is left "
			      "out", sep);
	return out->oom ? -1 : 1;
}
