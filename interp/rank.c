/* rank: a table per metric — mean, spread, 95% CI per config, best first. */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank.h"

/* ---- which way is better ------------------------------------------------ */

/*
 * A rate is higher-is-better: a name ending in one of these, or a unit
 * ending in "/s" (MiB/s, ops/s, files/s). Otherwise a metric is
 * lower-is-better when its name ends in one of lower_suffix, its unit is
 * one of lower_unit, or it is named in lower_name; and higher is better
 * for everything else (counts, rates without a unit).
 */
static const char *const higher_suffix[] = {
	"per_s", "per_sec", "_iops", "_mbs", NULL,
};
static const char *const lower_suffix[] = {
	"_s", "_ms", "_us", "seconds", "_latency", "_pct", "_cpu", NULL,
};
static const char *const lower_unit[] = { "s", "ms", "us", NULL };
static const char *const lower_name[] = { "fs_used_bytes", NULL };

/* Not measurements: the status, and the shape a phase reports about itself. */
static const char *const shape_name[] = {
	"status", "exit_status", "bonnie_line", "concurrency", "seed",
	"file_size_mib", "block_bytes", "threads", "seeks_count",
	"seek_procs", "num_files", "max_size", "min_size", "num_dirs",
	"max_size_link", "chunk_bytes", "char_size_mib", "ram_mib",
	"ram_given", NULL,
};
static const char *const shape_suffix[] = { "_fast", NULL };

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

static int in_list(const char *s, const char *const *list, int suffix)
{
	for (; *list; list++)
		if (suffix ? ends_with(s, *list) : !strcmp(s, *list))
			return 1;
	return 0;
}

int rank_lower_is_better(const char *name, const char *unit)
{
	if (in_list(name, higher_suffix, 1) || ends_with(unit, "/s"))
		return 0;
	return in_list(name, lower_suffix, 1) || in_list(unit, lower_unit, 0) ||
	       in_list(name, lower_name, 0);
}

static int is_shape(const char *name)
{
	return in_list(name, shape_name, 0) || in_list(name, shape_suffix, 1);
}

/* ---- a text grid -------------------------------------------------------- */

#define GRID_COLS 8

struct grid {
	int ncol;
	int left;		/* the first `left` columns are text */
	char **cell;		/* rows of ncol strings; row 0 is the head */
	size_t n, cap;		/* cells */
};

static int grid_row(struct grid *g, const char *const *row)
{
	if (g->n + g->ncol > g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16 * GRID_COLS;
		char **nc = realloc(g->cell, cap * sizeof(*nc));

		if (!nc)
			return -1;
		g->cell = nc;
		g->cap = cap;
	}
	for (int i = 0; i < g->ncol; i++)
		if (!(g->cell[g->n++] = strdup(row[i] ? row[i] : "")))
			return -1;
	return 0;
}

/* Columns of UTF-8 text ("±" is two bytes, one column). */
static int width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void grid_line(FILE *f, const struct grid *g, const int *w,
		      size_t row)
{
	for (int c = 0; c < g->ncol; c++) {
		const char *s = row == (size_t)-1 ? "" :
				g->cell[row * g->ncol + c];
		int pad = w[c] - width(s);

		if (row == (size_t)-1)	/* the rule under the head */
			for (int k = 0; k < w[c]; k++)
				fputc('-', f);
		else if (c >= g->left)
			fprintf(f, "%*s%s", pad, "", s);
		else if (c + 1 < g->ncol)
			fprintf(f, "%s%*s", s, pad, "");
		else
			fputs(s, f);
		fputs(c + 1 < g->ncol ? "  " : "\n", f);
	}
}

static void grid_print(FILE *f, const struct grid *g)
{
	int w[GRID_COLS] = { 0 };
	size_t rows = g->n / g->ncol;

	for (size_t i = 0; i < g->n; i++)
		if (width(g->cell[i]) > w[i % g->ncol])
			w[i % g->ncol] = width(g->cell[i]);
	grid_line(f, g, w, 0);
	grid_line(f, g, w, (size_t)-1);
	for (size_t r = 1; r < rows; r++)
		grid_line(f, g, w, r);
}

static void grid_free(struct grid *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->cell[i]);
	free(g->cell);
}

/* ---- one phase's ok runs, by row ---------------------------------------- */

struct view {
	const struct res_run *const *run;	/* the ok runs of one phase */
	size_t *key;			/* each run's row */
	const struct res_run **first;	/* each row's first run */
	size_t n, n_keys;
};

static int view_build(struct view *v, const struct res_run *const *runs,
		      size_t n)
{
	v->n = n;
	v->n_keys = 0;
	v->run = runs;
	v->key = calloc(n + 1, sizeof(*v->key));
	v->first = calloc(n + 1, sizeof(*v->first));
	if (!v->key || !v->first)
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < v->n_keys; k++)
			if (!strcmp(v->first[k]->fs_label, runs[i]->fs_label) &&
			    !strcmp(v->first[k]->params, runs[i]->params))
				break;
		if (k == v->n_keys)
			v->first[v->n_keys++] = runs[i];
		v->key[i] = k;
	}
	return 0;
}

static void view_free(struct view *v)
{
	free(v->key);
	free(v->first);
}

/* ---- a metric's table --------------------------------------------------- */

struct ranked {
	size_t key;
	double order;		/* ascending is best first */
	struct res_stats s;
};

static int by_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

/* About four significant digits for the table's largest figure. */
static int decimals(const struct ranked *rk, size_t n)
{
	double top = 0;
	int d;

	for (size_t i = 0; i < n; i++)
		top = fmax(top, fmax(fabs(rk[i].s.hi), fabs(rk[i].s.lo)));
	if (top == 0)
		return 0;
	d = 3 - (int)floor(log10(top));
	return d < 0 ? 0 : d > 6 ? 6 : d;
}

static int table_rows(struct grid *g, const struct view *v,
		      const struct ranked *rk, size_t n, int params)
{
	int d = decimals(rk, n);

	for (size_t i = 0; i < n; i++) {
		const struct res_stats *s = &rk[i].s;
		const struct res_run *first = v->first[rk[i].key];
		char num[6][48], *p = strdup(first->params);
		const char *row[GRID_COLS];
		int c = 0, rc;

		if (!p)
			return -1;
		for (char *q = p; *q; q++)
			*q = *q == ';' ? ' ' : *q;
		snprintf(num[0], sizeof(num[0]), "%d", s->n);
		snprintf(num[1], sizeof(num[1]), "%.*f", d, s->mean);
		snprintf(num[2], sizeof(num[2]), s->n < 2 ? "-" : "%.*f", d,
			 s->sd);
		snprintf(num[3], sizeof(num[3]), s->n < 2 ? "-" : "±%.*f", d,
			 s->ci);
		snprintf(num[4], sizeof(num[4]), "%.*f", d, s->hi);
		snprintf(num[5], sizeof(num[5]), "%.*f", d, s->lo);
		row[c++] = first->fs_label;
		if (params)
			row[c++] = p;
		for (int k = 0; k < 6; k++)
			row[c++] = num[k];
		rc = grid_row(g, row);
		free(p);
		if (rc)
			return -1;
	}
	return 0;
}

static int metric_table(FILE *f, const struct view *v, const char *name)
{
	static const char *const head[] = { "config", "params", "n", "mean",
		"stdev", "95% CI", "high", "low" };
	double *vals = calloc(v->n + 1, sizeof(*vals));
	struct ranked *rk = calloc(v->n_keys + 1, sizeof(*rk));
	struct grid g = { 0 };
	const char *unit = NULL;
	size_t nr = 0;
	int rc = -1, params = 0, lower;

	if (!vals || !rk)
		goto out;
	for (size_t k = 0; k < v->n_keys; k++) {
		int m = 0;

		for (size_t i = 0; i < v->n; i++) {
			const struct res_metric *x;

			if (v->key[i] != k)
				continue;
			x = results_metric(v->run[i], name);
			if (!x || !x->numeric)
				continue;
			vals[m++] = x->v;
			unit = unit ? unit : x->unit;
		}
		if (!m)
			continue;
		rk[nr].key = k;
		results_stats(vals, m, &rk[nr].s);
		params |= *v->first[k]->params != '\0';
		nr++;
	}
	rc = 0;
	if (!nr)
		goto out;
	lower = rank_lower_is_better(name, unit);
	for (size_t i = 0; i < nr; i++)
		rk[i].order = lower ? rk[i].s.mean : -rk[i].s.mean;
	qsort(rk, nr, sizeof(*rk), by_rank);
	g.ncol = params ? 8 : 7;
	g.left = params ? 2 : 1;
	rc = -1;
	if (grid_row(&g, params ? head : (const char *[]){ head[0], head[2],
		     head[3], head[4], head[5], head[6], head[7] }) ||
	    table_rows(&g, v, rk, nr, params))
		goto out;
	fprintf(f, "\n%s%s%s%s, %s is better\n", name, *unit ? " [" : "",
		unit, *unit ? "]" : "", lower ? "lower" : "higher");
	grid_print(f, &g);
	rc = 0;
out:
	grid_free(&g);
	free(vals);
	free(rk);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The distinct names of runs' metrics, sorted (borrowed pointers); with
 * numeric, only numbers that are measurements.
 */
const char **rank_metric_names(const struct res_run *const *runs,
				 size_t n, int numeric, size_t *count)
{
	size_t total = 0, k = 0;
	const char **names;

	for (size_t i = 0; i < n; i++)
		total += runs[i]->n_m;
	names = calloc(total + 1, sizeof(*names));
	if (!names)
		return NULL;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < runs[i]->n_m; j++) {
			const struct res_metric *m = &runs[i]->m[j];

			if (!numeric || (m->numeric && !is_shape(m->name)))
				names[k++] = m->name;
		}
	qsort(names, k, sizeof(*names), by_name);
	*count = 0;
	for (size_t i = 0; i < k; i++)
		if (!*count || strcmp(names[*count - 1], names[i]))
			names[(*count)++] = names[i];
	return names;
}

static int wanted(const char *name, const char *const *only)
{
	if (!only || !*only)
		return 1;
	for (; *only; only++)
		if (!fnmatch(*only, name, 0))
			return 1;
	return 0;
}

int rank_tables(FILE *f, const struct res_run *const *runs, size_t n,
		const char *const *only)
{
	struct view v = { 0 };
	const char **names = NULL;
	size_t n_names = 0;
	int rc = -1;

	if (view_build(&v, runs, n))
		goto out;
	names = rank_metric_names(runs, n, 1, &n_names);
	if (!names)
		goto out;
	rc = 0;
	for (size_t i = 0; i < n_names && !rc; i++)
		if (wanted(names[i], only))
			rc = metric_table(f, &v, names[i]);
out:
	free(names);
	view_free(&v);
	return rc;
}
