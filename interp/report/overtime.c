/* overtime: a phase's behaviour over time in a report — steady lines and a
 * sparkline per config, from the steady rows and timeseries.csv. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/overtime.h"
#include "util/diag.h"
#include "util/grow.h"

/* The width of a text report's lines, as its tables keep to. */
enum { LINE = 80, SPARK_MIN = 12, SPARK_MAX = 60 };

const char *const overtime_machine[4] = { "dev_write_mbs", "dev_read_mbs",
					  "dirty_mib", "writeback_mib" };

/* ---- reading ------------------------------------------------------------ */

static const char *run_cell(const void *ctx, size_t i)
{
	return ((const struct results *)ctx)->runs[i].cell;
}

/* The rows worth keeping: the cell's key series, the machine's. */
static int want(void *ctx, const char *cell, const char *metric)
{
	const struct results *r = ctx;
	size_t at = strhash_find(&r->index, cell, run_cell, r);
	const struct res_metric *m;

	if (!at)
		return -1;
	m = results_metric(&r->runs[at - 1], "steady");
	if (m && !strcmp(m->unit, metric))
		return 1;
	for (size_t i = 0; i < 4; i++)
		if (!strcmp(metric, overtime_machine[i]))
			return 1;
	return 0;
}

int overtime_load(struct overtime *o, const char *rundir,
		  const struct results *r)
{
	struct strbuf path = { 0 };
	struct diag d = { 0 };
	char msg[1024];
	int rc;

	memset(o, 0, sizeof(*o));
	if (strbuf_printf(&path, "%s/timeseries.csv", rundir))
		return -1;
	rc = seriesread_load(&o->s, path.p, want, (void *)r, &d);
	if (rc < 0) {
		diag_format(&d, msg, sizeof(msg));
		diag_release(&d);
		strbuf_printf(&o->note, "%s: no time series shown", msg);
	}
	o->have = rc == 0;
	if (o->have) {
		strbuf_printf(&o->note, "%s: ", path.p);
		if (seriesread_note(&o->s, &o->note) == 0)
			o->note.p[o->note.len = 0] = '\0';
	}
	free(path.p);
	return o->note.oom ? -1 : 0;
}

void overtime_free(struct overtime *o)
{
	seriesread_free(&o->s);
	free(o->note.p);
	memset(o, 0, sizeof(*o));
}

/* ---- a phase's configs -------------------------------------------------- */

static const struct seriesread_track *key_track(const struct overtime *o,
						const struct res_run *x)
{
	const struct res_metric *m = results_metric(x, "steady");

	return m && o->have ? seriesread_track(&o->s, x->cell, m->unit) : NULL;
}

/* A run's steady row into its group's figures. */
static void group_take(struct overtime_group *g, const struct res_run *x,
		       const struct overtime *o, struct overtime_phase *p)
{
	const struct seriesread_track *tr = key_track(o, x);
	double v, at = NAN, range = NAN, slope = NAN;

	results_value(x, "steady_at_s", &at);
	results_value(x, "steady_range_pct", &range);
	results_value(x, "steady_slope_pct", &slope);
	g->runs[g->n++] = x;
	if (results_value(x, "steady", &v) && v != 0) {
		g->at_lo = g->steady++ ? fmin(g->at_lo, at) : at;
		g->at_hi = g->steady > 1 ? fmax(g->at_hi, at) : at;
	} else {
		const struct res_metric *k = results_metric(x, "steady");
		char name[160];

		snprintf(name, sizeof(name), "%s_steady", k ? k->unit : "");
		if (k && results_value(x, name, &v) && v == 0)
			g->idle++;
		if (isnan(g->range) || range > g->range)
			g->range = range;
		if (isnan(g->slope) || fabs(slope) > fabs(g->slope))
			g->slope = slope;
	}
	if (tr && tr->t[0] > 0 && (!(p->step > 0) || tr->t[0] < p->step))
		p->step = tr->t[0];
	for (size_t i = 0; tr && i < tr->n; i++) {
		g->tmax = fmax(g->tmax, tr->t[i]);
		if (!*p->unit)
			p->unit = tr->unit;
	}
	p->tmax = fmax(p->tmax, g->tmax);
}

static struct overtime_group *group_of(struct overtime_phase *p,
				       const struct res_run *x, size_t max)
{
	struct overtime_group *g;

	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->g[i].runs[0]->fs_label, x->fs_label) &&
		    !strcmp(p->g[i].runs[0]->params, x->params))
			return &p->g[i];
	g = &p->g[p->n];
	memset(g, 0, sizeof(*g));
	g->range = g->slope = NAN;
	if (!(g->runs = calloc(max, sizeof(*g->runs))))
		return NULL;
	p->n++;
	return g;
}

int overtime_phase(struct overtime_phase *p, const struct overtime *o,
		   const struct res_run *const *runs, size_t n)
{
	memset(p, 0, sizeof(*p));
	p->unit = "";
	if (!(p->g = calloc(n + 1, sizeof(*p->g))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct res_metric *m = results_metric(runs[i], "steady");
		struct overtime_group *g;

		if (!m)
			continue;
		if (!p->key)
			p->key = m->unit;
		if (!(g = group_of(p, runs[i], n))) {
			overtime_phase_free(p);
			return -1;
		}
		group_take(g, runs[i], o, p);
	}
	return 0;
}

void overtime_phase_free(struct overtime_phase *p)
{
	for (size_t i = 0; p->g && i < p->n; i++)
		free(p->g[i].runs);
	free(p->g);
	memset(p, 0, sizeof(*p));
}

size_t overtime_unsteady(const struct res_run *const *runs, size_t n,
			 size_t *rows)
{
	size_t never = 0;
	double v;

	*rows = 0;
	for (size_t i = 0; i < n; i++)
		if (results_value(runs[i], "steady", &v)) {
			++*rows;
			never += v == 0;
		}
	return never;
}

/* ---- what they say ------------------------------------------------------ */

/* "A never steady", "A not steady in 1 of 3 runs", or "". */
static void side_says(struct strbuf *b, const char *side,
		      const struct res_run *const *runs, size_t n)
{
	size_t rows, never = overtime_unsteady(runs, n, &rows);

	if (!never)
		return;
	strbuf_printf(b, "%s%s", b->len ? ", " : "", side);
	if (never == rows)
		strbuf_str(b, " never steady");
	else
		strbuf_printf(b, " not steady in %zu of %zu runs", never, rows);
}

int overtime_flag(const struct res_run *const *a, size_t n_a,
		  const struct res_run *const *b, size_t n_b, char *buf,
		  size_t len)
{
	struct strbuf s = { 0 };

	size_t ra, rb, na = overtime_unsteady(a, n_a, &ra);
	size_t nb = overtime_unsteady(b, n_b, &rb);

	if (na && na == ra && nb && nb == rb) {
		strbuf_str(&s, "A and B never steady");
	} else {
		side_says(&s, "A", a, n_a);
		side_says(&s, "B", b, n_b);
	}
	snprintf(buf, len, "%s%s", s.p ? s.p : "",
		 s.len ? ": the mean may not hold" : "");
	free(s.p);
	return s.len > 0;
}

void overtime_says(const struct overtime_group *g, char *buf, size_t len)
{
	char at[64];

	if (g->at_hi > g->at_lo)
		snprintf(at, sizeof(at), "%.3g to %.3g s", g->at_lo, g->at_hi);
	else if (isfinite(g->at_lo))
		snprintf(at, sizeof(at), "%.3g s", g->at_lo);
	else
		snprintf(at, sizeof(at), "? s (no steady_at_s)");
	if (g->steady && (size_t)g->steady == g->n)
		snprintf(buf, len, "steady after %s%s", at,
			 g->n > 1 ? " (every run)" : "");
	else if (g->steady)
		snprintf(buf, len, "steady in %d of %zu runs (after %s)",
			 g->steady, g->n, at);
	else if (g->idle == g->n)
		snprintf(buf, len, "never steady (0 over its window: the "
			 "phase did other work)");
	else if (isnan(g->range) || isnan(g->slope))
		snprintf(buf, len, "never steady%s", g->n > 1 ? " in any run" :
			 "");
	else if (g->n > 1)
		snprintf(buf, len, "never steady, %zu runs (widest range "
			 "%.0f%%, slope %.0f%%)", g->n, g->range, g->slope);
	else
		snprintf(buf, len, "never steady (range %.0f%%, slope %.0f%%)",
			 g->range, g->slope);
}

void overtime_grid(struct overtime_grid *g, double step, double tmax,
		  size_t max)
{
	double need;

	memset(g, 0, sizeof(*g));
	if (!(tmax > 0) || !max)
		return;
	/* an interval of a millionth of the span is none fsplan samples */
	if (!(step > 0) || tmax / step > 1e6)
		step = tmax / (double)max;
	need = fmax(1, round(tmax / step));
	g->step = step;
	g->per = ceil(need / (double)max);
	g->nb = (size_t)ceil(need / g->per);
}

double overtime_bin_end(const struct overtime_grid *g, size_t i,
			double tmax)
{
	return fmin((double)(i + 1) * g->per * g->step, tmax);
}

/* The bin of t: its interval's, a few intervals to a bin. */
static size_t bin_of(const struct overtime_grid *g, double t)
{
	double k = floor(fmax(0, round(t / g->step) - 1) / g->per);

	return k >= (double)g->nb ? g->nb - 1 : (size_t)k;
}

void overtime_bins(const struct overtime *o, const struct res_run *const *runs,
		   size_t n, const char *metric, const struct overtime_grid *g,
		   double *out)
{
	double *sum = calloc(g->nb + 1, sizeof(*sum));
	size_t *k = calloc(g->nb + 1, sizeof(*k));

	for (size_t b = 0; b < g->nb; b++)
		out[b] = NAN;
	if (!sum || !k || !o->have || !g->nb)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct seriesread_track *tr;

		tr = seriesread_track(&o->s, runs[i]->cell, metric);
		for (size_t j = 0; tr && j < tr->n; j++) {
			size_t b = bin_of(g, tr->t[j]);

			sum[b] += tr->v[j];
			k[b]++;
		}
	}
	for (size_t b = 0; b < g->nb; b++)
		if (k[b])
			out[b] = sum[b] / (double)k[b];
out:
	free(sum);
	free(k);
}

/* ---- text --------------------------------------------------------------- */

/* The bins as ▁▂▃▄▅▆▇█ from 0 to max, a space where there is none. */
static void sparkline(struct strbuf *b, const double *v, size_t nb,
		      double max)
{
	static const char *const bar[8] = { "\u2581", "\u2582", "\u2583",
		"\u2584", "\u2585", "\u2586", "\u2587", "\u2588" };

	for (size_t i = 0; i < nb; i++) {
		double lv = max > 0 ? round(v[i] / max * 7) : 0;

		if (isnan(v[i]))
			strbuf_str(b, " ");
		else
			strbuf_str(b, bar[lv < 0 ? 0 : lv > 7 ? 7 : (int)lv]);
	}
}

/* Characters of s (UTF-8). */
static int chars(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* How many characters the sparkline may take: what the line has left. */
static size_t spark_width(const struct overtime_phase *p, int params)
{
	int wl = 6, wp = 6, ws = 6, left;
	char says[256];

	for (size_t i = 0; i < p->n; i++) {
		const struct res_run *x = p->g[i].runs[0];

		overtime_says(&p->g[i], says, sizeof(says));
		wl = chars(x->fs_label) > wl ? chars(x->fs_label) : wl;
		wp = chars(x->params) > wp ? chars(x->params) : wp;
		ws = chars(says) > ws ? chars(says) : ws;
	}
	left = LINE - wl - 2 - ws - 2 - (params ? wp + 2 : 0);
	return left < SPARK_MIN ? SPARK_MIN : left > SPARK_MAX ? SPARK_MAX :
	       left;
}

/* Each config's bins, nb apiece (p->n * nb, malloc'd), the largest in
 * *max: the sparklines' top. NULL out of memory. */
static double *all_bins(const struct overtime *o,
			const struct overtime_phase *p,
			const struct overtime_grid *g, double *max)
{
	size_t nb = g->nb;
	double *bins = calloc(p->n * nb + 1, sizeof(*bins));

	*max = 0;
	for (size_t i = 0; bins && i < p->n; i++) {
		overtime_bins(o, p->g[i].runs, p->g[i].n, p->key, g,
			      bins + i * nb);
		for (size_t b = 0; b < nb; b++)
			if (isfinite(bins[i * nb + b]))
				*max = fmax(*max, bins[i * nb + b]);
	}
	return bins;
}

static int table_rows(struct table *t, const struct overtime_phase *p,
		      int params, const double *bins, size_t nb, double max)
{
	char says[256];
	int rc = 0;

	for (size_t i = 0; i < p->n && !rc; i++) {
		const struct overtime_group *g = &p->g[i];
		struct strbuf sl = { 0 };
		const char *row[4];
		int c = 0;

		overtime_says(g, says, sizeof(says));
		row[c++] = g->runs[0]->fs_label;
		if (params)
			row[c++] = *g->runs[0]->params ? g->runs[0]->params :
				   "-";
		row[c++] = says;
		if (nb)
			sparkline(&sl, bins + i * nb, nb, max);
		row[c++] = !nb ? NULL : sl.p ? sl.p : "";
		rc = sl.oom || table_row(t, row, 0) ? -1 : 0;
		free(sl.p);
	}
	return rc;
}

int overtime_table(struct table *t, char **title, const struct overtime *o,
		   const struct overtime_phase *p)
{
	const char *head[4];
	struct strbuf col = { 0 }, note = { 0 }, b = { 0 };
	int params = 0, c = 0, rc;
	double *bins, max;
	struct overtime_grid g;
	size_t nb;

	for (size_t i = 0; i < p->n; i++)
		params |= *p->g[i].runs[0]->params != '\0';
	overtime_grid(&g, p->step, o->have ? p->tmax : 0,
		      spark_width(p, params));
	nb = g.nb;
	if (!(bins = all_bins(o, p, &g, &max)))
		return -1;
	head[c++] = "config";
	if (params)
		head[c++] = "params";
	head[c++] = "steady";
	strbuf_printf(&col, "%s over time", p->key);
	if (nb)
		head[c++] = col.p;
	strbuf_printf(&note, "a mark per %.3g s of 0 to %.4g s, the runs' "
		      "mean: \u2581 0 to \u2588 %.4g%s%s", g.per * g.step,
		      p->tmax, max, *p->unit ? " " : "", p->unit);
	strbuf_printf(&b, "steady state of %s, per config", p->key);
	memset(t, 0, sizeof(*t));
	rc = col.oom || note.oom || b.oom ||
	     table_init(t, c, c, head, NULL) ||
	     (nb && table_note(t, note.p)) ||
	     table_rows(t, p, params, bins, nb, max) ? -1 : 0;
	if (!rc && nb)
		t->col[c - 1].wrap = -1;	/* the marks */
	free(bins);
	free(col.p);
	free(note.p);
	*title = b.p;
	return rc;
}

int overtime_view(struct overtime_view *v, const struct overtime *o,
		  const struct res_run *const *runs, size_t n)
{
	memset(v, 0, sizeof(*v));
	if (overtime_phase(&v->p, o, runs, n))
		return -1;
	if (!v->p.n) {
		overtime_phase_free(&v->p);
		return 0;
	}
	if (overtime_table(&v->t, &v->title, o, &v->p)) {
		overtime_view_free(v);
		return -1;
	}
	return 1;
}

void overtime_view_free(struct overtime_view *v)
{
	free(v->title);
	table_free(&v->t);
	overtime_phase_free(&v->p);
	memset(v, 0, sizeof(*v));
}

int overtime_text(FILE *f, const struct overtime *o,
		  const struct res_run *const *runs, size_t n)
{
	struct overtime_view v;
	int rc = overtime_view(&v, o, runs, n);

	if (rc <= 0)
		return rc;
	fprintf(f, "\n%s\n", v.title);
	table_text(f, &v.t);	/* its note under it */
	overtime_view_free(&v);
	return 0;
}
