/* htmlchart: a phase's charts on the html page: bars, tiobench's lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/classic.h"
#include "report/html.h"
#include "report/htmlchart.h"
#include "report/rank.h"
#include "util/strbuf.h"

/* ---- bars --------------------------------------------------------------- */

/* What the bar charts of a phase are drawn from. */
struct charts {
	FILE *f;
	const struct res_run *const *runs;	/* the phase's ok runs */
	size_t n;
};

/* Whether label is one of the n labels. */
static int among(const char *const *label, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(label[i], s))
			return 1;
	return 0;
}

/* The configs of c's runs with params that have no bar, appended to
 * note ("; no value: a, b"): their runs gave no value of the metric. */
static void no_value(const struct charts *c, const char *params,
		     const char *const *label, size_t n, struct strbuf *note)
{
	int first = 1;

	for (size_t i = 0; i < c->n; i++) {
		const struct res_run *x = c->runs[i];
		size_t j;

		if (strcmp(x->params, params) || among(label, n, x->fs_label))
			continue;
		for (j = 0; j < i; j++)
			if (!strcmp(c->runs[j]->params, params) &&
			    !strcmp(c->runs[j]->fs_label, x->fs_label))
				break;
		if (j < i)
			continue;
		strbuf_printf(note, "%s%s", first ? "; no value: " : ", ",
			      x->fs_label);
		first = 0;
	}
}

/* The chart's title: "name: title, for params" (params' ';' as spaces). */
static void bar_title(const struct rank_table *t, const char *params,
		      struct strbuf *title)
{
	size_t at;

	strbuf_str(title, t->name);
	if (strcmp(t->title, t->name))
		strbuf_printf(title, ": %s", t->title);
	if (!*params)
		return;
	strbuf_str(title, ", for ");
	at = title->len;
	strbuf_str(title, params);
	for (size_t i = at; title->p && i < title->len; i++)
		title->p[i] = title->p[i] == ';' ? ' ' : title->p[i];
}

/* Figures of a large unit in a larger one (100000 KiB/s as 97.7 MiB/s,
 * bytes as GiB): the n means and CIs scaled, their decimals, the unit
 * in title replaced. */
static void human(const struct rank_table *t, double *mean, double *ci,
		  size_t n, int *decimals, struct strbuf *title)
{
	const struct res_metric *m = t->n ? results_metric(t->row[0].first,
							   t->name) : NULL;
	struct strbuf was = { 0 }, now = { 0 };
	const char *shown, *at = NULL;
	double max = 0, scale;

	if (!m || !m->unit || !*m->unit || !title->p)
		return;
	for (size_t i = 0; i < n; i++)
		max = fmax(max, fabs(mean[i]));
	scale = html_human_unit(m->unit, max, &shown);
	strbuf_printf(&was, "(%s)", m->unit);
	if (scale != 1 && !was.oom)
		at = strstr(title->p, was.p);
	if (at && !strbuf_printf(&now, "%.*s(%s)%s", (int)(at - title->p),
				 title->p, shown, at + was.len)) {
		for (size_t i = 0; i < n; i++) {
			mean[i] /= scale;
			ci[i] /= scale;
		}
		*decimals = max / scale >= 100 ? 1 : 2;
		free(title->p);
		*title = now;
		now.p = NULL;
	}
	free(was.p);
	free(now.p);
}

/* The rows of t with params, as a bar chart; rows in t's (best) order. */
static int bar_group(const struct charts *c, const struct rank_table *t,
		     const char *params)
{
	const char **label = calloc(t->n + 1, sizeof(*label));
	double *mean = calloc(t->n + 1, sizeof(*mean));
	double *ci = calloc(t->n + 1, sizeof(*ci));
	int *count = calloc(t->n + 1, sizeof(*count));
	struct strbuf title = { 0 }, note = { 0 };
	struct html_bars b = { NULL, NULL, 0, label, mean, ci, count,
			       t->decimals, NULL };
	int rc = -1;

	if (!label || !mean || !ci || !count)
		goto out;
	for (size_t i = 0; i < t->n; i++) {
		const struct rank_row *x = &t->row[i];

		if (strcmp(x->first->params, params))
			continue;
		label[b.n] = x->first->fs_label;
		mean[b.n] = x->s.mean;
		ci[b.n] = x->s.n < 2 ? NAN : x->s.ci;
		count[b.n++] = x->s.n;
	}
	bar_title(t, params, &title);
	human(t, mean, ci, b.n, &b.decimals, &title);
	strbuf_printf(&note, "%s is better; whiskers: 95%% CI",
		      t->lower ? "lower" : "higher");
	no_value(c, params, label, b.n, &note);
	if (title.oom || note.oom)
		goto out;
	b.title = title.p;
	b.note = note.p;
	html_bar_chart(c->f, &b);
	rc = 0;
out:
	free(label);
	free(mean);
	free(ci);
	free(count);
	free(title.p);
	free(note.p);
	return rc;
}

/* A chart per parameter set of t, in the order the sets first appear. */
static int bar_charts(void *ctx, const struct rank_table *t,
		      const struct table *g)
{
	(void)g;
	for (size_t i = 0; i < t->n; i++) {
		size_t j;

		for (j = 0; j < i; j++)
			if (!strcmp(t->row[j].first->params,
				    t->row[i].first->params))
				break;
		if (j == i && bar_group(ctx, t, t->row[i].first->params))
			return -1;
	}
	return 0;
}

int htmlchart_bars(FILE *f, const struct res_run *const *runs, size_t n,
		   const char *const *globs)
{
	struct charts c = { f, runs, n };

	return rank_each(runs, n, globs, bar_charts, &c);
}

/* ---- tiobench's lines --------------------------------------------------- */

enum { LINES = 32, POINTS = 64 };	/* what a chart can tell */

/* tiobench's rows, gathered into a line chart per section. */
struct tio_lines {
	FILE *f;
	char *section;
	struct html_series s[LINES];
	double x[LINES][POINTS], y[LINES][POINTS];
	char *label[LINES];
	size_t n;
	int oom;
};

static void tio_flush(struct tio_lines *t)
{
	struct strbuf title = { 0 };

	if (t->n && !strbuf_printf(&title, "tiobench %s: rate against "
				   "threads", t->section))
		html_line_chart(t->f, title.p, "threads", "rate (MiB/s)",
				t->s, t->n);
	t->oom |= title.oom;
	free(title.p);
	for (size_t i = 0; i < t->n; i++)
		free(t->label[i]);
	t->n = 0;
}

static int tio_point(void *ctx, const char *section, const char *ident,
		     double threads, double rate)
{
	struct tio_lines *t = ctx;
	size_t i;

	if (isnan(threads))
		return 0;	/* no thread count: no point on a line */
	if (!t->section || strcmp(section, t->section)) {
		tio_flush(t);
		free(t->section);
		if (!(t->section = strdup(section)))
			return -1;
	}
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->label[i], ident))
			break;
	if (i == t->n) {
		if (t->n == LINES)
			return 0;	/* more lines than a chart can tell */
		if (!(t->label[i] = strdup(ident)))
			return -1;
		t->s[i] = (struct html_series){ t->label[i], t->x[i],
						t->y[i], 0 };
		t->n++;
	}
	if (t->s[i].n < POINTS) {
		t->x[i][t->s[i].n] = threads;
		t->y[i][t->s[i].n++] = rate;
	}
	return 0;
}

int htmlchart_tio(FILE *f, const struct res_run *const *runs, size_t n,
		  const char *with_mode)
{
	struct tio_lines *t = calloc(1, sizeof(*t));
	int rc;

	if (!t)
		return -1;
	t->f = f;
	rc = classic_tio_rates(runs, n, with_mode, tio_point, t);
	tio_flush(t);
	free(t->section);
	rc = rc || t->oom ? -1 : 0;
	free(t);
	return rc;
}
