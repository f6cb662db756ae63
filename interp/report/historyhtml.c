/* historyhtml: `fsplan history show --format html` — a plan's trends across
 * runs as one self-contained page, a chart per phase cell and metric. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fig.h"
#include "report/history.h"
#include "report/historydb.h"
#include "report/historyhtml.h"
#include "report/html.h"
#include "report/rank.h"
#include "report/table.h"
#include "util/strbuf.h"

/* One row of the trend query: a cell's mean in one run. */
struct point {
	char *rest;	/* the cell less its config: "w/n=1" */
	char *label, *metric, *unit, *run_id, *started, *kernel;
	int n;
	double mean;
	size_t run;	/* the run's number on the page, from 1 */
};

struct page {
	struct point *p;
	size_t n, cap;
	struct point **runs;	/* one point of each run, by start */
	size_t n_runs;
	int failed;
};

static char *dup_col(sqlite3_stmt *st, int i, int *failed)
{
	char *s = strdup(historydb_col(st, i));

	*failed |= !s;
	return s;
}

static int collect(struct page *pg, sqlite3_stmt *st)
{
	const char *base = historydb_col(st, 0), *label;
	size_t skip;
	struct point *p;

	if (pg->n == pg->cap) {
		size_t cap = pg->cap ? 2 * pg->cap : 64;

		if (!(p = realloc(pg->p, cap * sizeof(*p))))
			return -1;
		pg->p = p;
		pg->cap = cap;
	}
	p = &pg->p[pg->n++];
	memset(p, 0, sizeof(*p));
	label = historydb_col(st, 1);
	/* a cell id is "LABEL/phase/params": what follows the label */
	skip = strlen(label);
	skip = !strncmp(base, label, skip) && base[skip] == '/' ? skip + 1 : 0;
	p->rest = strdup(base + skip);
	pg->failed |= !p->rest;
	p->label = dup_col(st, 1, &pg->failed);
	p->metric = dup_col(st, 2, &pg->failed);
	p->unit = dup_col(st, 3, &pg->failed);
	p->run_id = dup_col(st, 4, &pg->failed);
	p->started = dup_col(st, 5, &pg->failed);
	p->kernel = dup_col(st, 6, &pg->failed);
	p->n = sqlite3_column_int(st, 7);
	p->mean = sqlite3_column_double(st, 8);
	return pg->failed ? -1 : 0;
}

static void page_free(struct page *pg)
{
	for (size_t i = 0; i < pg->n; i++) {
		struct point *p = &pg->p[i];

		free(p->rest);
		free(p->label);
		free(p->metric);
		free(p->unit);
		free(p->run_id);
		free(p->started);
		free(p->kernel);
	}
	free(pg->p);
	free(pg->runs);
}

static int by_start(const void *a, const void *b)
{
	const struct point *x = *(struct point *const *)a;
	const struct point *y = *(struct point *const *)b;
	int c = strcmp(x->started, y->started);

	return c ? c : strcmp(x->run_id, y->run_id);
}

/* Number the runs by start (the same run the same number on every
 * chart): pg->runs, and each point's run. */
static int number_runs(struct page *pg)
{
	struct point **all = malloc((pg->n ? pg->n : 1) * sizeof(*all));

	if (!all)
		return -1;
	for (size_t i = 0; i < pg->n; i++)
		all[i] = &pg->p[i];
	qsort(all, pg->n, sizeof(*all), by_start);
	/* a run's points are together in that order: one pass */
	for (size_t i = 0; i < pg->n; i++) {
		struct point *q = all[i];

		if (!pg->n_runs || strcmp(q->run_id,
					  all[pg->n_runs - 1]->run_id))
			all[pg->n_runs++] = q;
		q->run = pg->n_runs;
	}
	pg->runs = all;
	return 0;
}

/* The chart's order: cell, metric, config, run. */
static int by_chart(const void *a, const void *b)
{
	const struct point *x = a, *y = b;
	int c = strcmp(x->rest, y->rest);

	if (!c)
		c = strcmp(x->metric, y->metric);
	if (!c)
		c = strcmp(x->label, y->label);
	return c ? c : (x->run > y->run) - (x->run < y->run);
}

static int same_chart(const struct point *a, const struct point *b)
{
	return !strcmp(a->rest, b->rest) && !strcmp(a->metric, b->metric);
}

/* The runs: number, start, id, kernel (a change of kernel told). */
static int runs_table(FILE *f, const struct page *pg)
{
	static const char *const name[] = { "#", "started", "run", "kernel" };
	struct table t = { 0 };
	char num[32];
	int rc;

	table_init(&t, 4, 4, name, NULL);
	for (size_t r = 0; !t.failed && r < pg->n_runs; r++) {
		const struct point *p = pg->runs[r];
		char kernel[300];

		snprintf(num, sizeof(num), "%zu", r + 1);
		snprintf(kernel, sizeof(kernel), "%s%s", p->kernel,
			 r && strcmp(p->kernel, pg->runs[r - 1]->kernel) ?
			 " (changed)" : "");
		table_row(&t, (const char *const[]){ num, p->started,
			  p->run_id, kernel }, 0);
	}
	if (!(rc = t.failed ? -1 : 0))
		table_html(f, &t);
	table_free(&t);
	return rc;
}

/* The mean of point j of series s (p: its points) as "101 (+0.9%)",
 * the change from the series' first point as the text gives it. */
static const char *mean_of(char *buf, size_t len, const struct point *p,
			   const struct html_series *s, size_t j)
{
	char fig[FIG_LEN];

	fig_text(fig, sizeof(fig), p[j].mean, 0, NULL, NULL);
	if (j && s->y[0] != 0)
		snprintf(buf, len, "%s (%+.1f%%)", fig,
			 100 * (p[j].mean - s->y[0]) / fabs(s->y[0]));
	else
		snprintf(buf, len, "%s", fig);
	return buf;
}

/* The chart's table: a row per run that has a point, a column per
 * series (s[k]'s points are p's from s[k].x - x on, by run). */
static int trend_table(FILE *f, const struct page *pg, const struct point *p,
		       const struct html_series *s, const double *x,
		       size_t ns)
{
	const char **cell = calloc(ns + 1, sizeof(*cell));
	char (*figs)[FIG_LEN * 2] = calloc(ns + 1, sizeof(*figs));
	size_t *at = calloc(ns + 1, sizeof(*at));	/* each series' next */
	struct table t = { 0 };
	int rc = -1;

	if (!cell || !figs || !at)
		goto out;
	cell[0] = "#";
	for (size_t k = 0; k < ns; k++)
		cell[k + 1] = s[k].label;
	table_init(&t, (int)ns + 1, 1, cell, NULL);
	for (size_t r = 1; !t.failed && r <= pg->n_runs; r++) {
		int any = 0;

		for (size_t k = 0; k < ns; k++) {
			const struct point *q = p + (s[k].x - x);

			cell[k + 1] = NULL;
			if (at[k] < s[k].n && q[at[k]].run == r)
				cell[k + 1] = mean_of(figs[k + 1],
						      sizeof(figs[0]), q,
						      &s[k], at[k]++);
			any |= cell[k + 1] != NULL;
		}
		snprintf(figs[0], sizeof(figs[0]), "%zu", r);
		cell[0] = figs[0];
		if (any)
			table_row(&t, cell, 0);
	}
	if (!t.failed) {
		table_html(f, &t);
		rc = 0;
	}
out:
	table_free(&t);
	free(cell);
	free(figs);
	free(at);
	return rc;
}

/* Points p[0..n) (one chart, in by_chart order): a line per config
 * over the runs, then a table of each run's mean per config, with the
 * change from the config's first run. */
static int chart(FILE *f, const struct page *pg, const struct point *p,
		 size_t n)
{
	struct html_series *s = calloc(n, sizeof(*s));
	double *x = malloc(n * sizeof(*x)), *y = malloc(n * sizeof(*y));
	struct strbuf title = { 0 }, ytitle = { 0 };
	size_t ns = 0;
	int rc = -1;

	if (!s || !x || !y)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (!ns || strcmp(p[i].label, s[ns - 1].label)) {
			s[ns].label = p[i].label;
			s[ns].x = x + i;
			s[ns++].y = y + i;
		}
		x[i] = (double)p[i].run;
		y[i] = p[i].mean;
		s[ns - 1].n++;
	}
	strbuf_printf(&title, "%s: %s", p->rest, p->metric);
	strbuf_printf(&ytitle, "%s", *p->unit ? p->unit : p->metric);
	if (title.oom || ytitle.oom)
		goto out;
	html_lines_chart(f, &(struct html_lines){ .title = title.p,
			 .note = rank_lower_is_better(p->metric, p->unit) ?
			 "lower is better; a run's point is its mean, by "
			 "its number in the table of runs" :
			 "higher is better; a run's point is its mean, by "
			 "its number in the table of runs",
			 .xtitle = "run", .ytitle = ytitle.p, .s = s,
			 .n = ns, .marks = 1 });
	rc = trend_table(f, pg, p, s, x, ns);
out:
	free(title.p);
	free(ytitle.p);
	free(s);
	free(x);
	free(y);
	return rc;
}

int historyhtml_show(struct history *h, const struct history_show *o,
		     sqlite3_stmt *st, FILE *f, struct diag *d)
{
	struct page pg = { 0 };
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (collect(&pg, st))
			break;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		page_free(&pg);
		return historydb_fail(h, "cannot read the trend", d);
	}
	if (rc == SQLITE_ROW || number_runs(&pg)) {
		page_free(&pg);
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	}
	if (!pg.n) {
		page_free(&pg);
		return 0;
	}
	qsort(pg.p, pg.n, sizeof(*pg.p), by_chart);
	/* a config has one colour on every chart */
	for (size_t i = 0; i < pg.n; i++)
		if (html_config_index(pg.p[i].label) < 0)
			rc = -1;
	html_begin(f, o->plan);
	fputs("<h1>", f);
	html_textf(f, "fsplan history: %s", o->plan);
	fputs("</h1>\n<p class=\"note\">", f);
	html_textf(f, "%zu runs in %s%s%s. Each chart is a cell's metric "
		   "across the runs, a line per config; a run's point is "
		   "its mean over its repetitions. A kernel that changed "
		   "between runs is marked in the table of runs.", pg.n_runs,
		   h->path, o->config ? ", config " : "",
		   o->config ? o->config : "");
	fputs("</p>\n<h2>Runs</h2>\n", f);
	if (rc < 0 || runs_table(f, &pg))
		rc = -1;
	for (size_t i = 0, j; rc >= 0 && i < pg.n; i = j) {
		for (j = i + 1; j < pg.n && same_chart(&pg.p[i], &pg.p[j]); j++)
			;
		if (chart(f, &pg, &pg.p[i], j - i))
			rc = -1;
	}
	html_end(f);
	html_configs_reset();
	page_free(&pg);
	if (rc < 0)
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	return 1;
}
