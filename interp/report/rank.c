/* rank: a table per metric — mean, spread, 95% CI per config, best first. */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fig.h"
#include "report/groups.h"
#include "report/metricname.h"
#include "report/rank.h"

/* ---- which way is better ------------------------------------------------ */

/*
 * A rate is higher-is-better: a name ending in one of these, or a unit
 * ending in "/s" (MiB/s, ops/s, files/s). Otherwise a metric is
 * lower-is-better when its name ends in one of lower_suffix (a time, a
 * share of the CPU, a memory peak), its unit is one of lower_unit, or it
 * is named in lower_name; and higher is better for everything else
 * (counts, rates without a unit).
 */
static const char *const higher_suffix[] = {
	"per_s", "per_sec", "_iops", "_mbs", NULL,
};
static const char *const lower_suffix[] = {
	"_s", "_ms", "_us", "seconds", "_latency", "_pct", "_cpu",
	"_peak_bytes", "_peak_kib", NULL,
};
static const char *const lower_unit[] = { "s", "ms", "us", NULL };
static const char *const lower_name[] = { "fs_used_bytes", "write_amp",
					   NULL };

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

#define RANK_ALPHA 0.05	/* the groups' family-wise error */

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

static int decimals(const struct ranked *rk, size_t n)
{
	double top = 0;

	for (size_t i = 0; i < n; i++)
		top = fmax(top, fmax(fabs(rk[i].s.hi), fabs(rk[i].s.lo)));
	return metricname_digits(top);
}

static int metric_cells(struct table *g, const struct view *v,
			const struct ranked *rk, size_t n)
{
	char (*group)[GROUPS_LEN] = calloc(n + 1, sizeof(*group));
	struct res_stats *s = calloc(n + 1, sizeof(*s));
	int none = group && s ? 0 : -1;

	for (size_t i = 0; !none && i < n; i++)
		s[i] = rk[i].s;
	if (!none)
		none = groups_letters(s, n, RANK_ALPHA, group);
	for (size_t i = 0; none >= 0 && i < n; i++) {
		char num[6][FIG_LEN];
		const char *row[8] = { v->first[rk[i].key]->fs_label, num[0],
			num[1], num[2], num[3], num[4], num[5], group[i] };

		snprintf(num[0], sizeof(num[0]), "%d", s[i].n);
		fig_text(num[1], FIG_LEN, s[i].mean, 0, NULL, NULL);
		fig_text(num[2], FIG_LEN, s[i].n < 2 ? NAN : s[i].sd, 0, NULL,
			 NULL);
		fig_text(num[3], FIG_LEN, s[i].n < 2 ? NAN : s[i].ci, 0, "±",
			 NULL);
		fig_text(num[4], FIG_LEN, s[i].hi, 0, NULL, NULL);
		fig_text(num[5], FIG_LEN, s[i].lo, 0, NULL, NULL);
		if (table_row(g, row, 0))
			none = -1;
	}
	if (none > 0 && table_note(g, "-: n < 2, no group (a config "
				   "needs two repetitions to be tested)"))
		none = -1;
	free(group);
	free(s);
	return none < 0 ? -1 : 0;
}

/* The table of name over v into t (its rows best first); 0 when no run
 * has a value of it, -1 out of memory. */
static int metric_rows(const struct view *v, const char *name,
		       const char *set, struct rank_table *t,
		       struct ranked **out)
{
	double *vals = calloc(v->n + 1, sizeof(*vals));
	struct ranked *rk = calloc(v->n_keys + 1, sizeof(*rk));
	const char *unit = NULL;
	struct metricname tt = { { 0 }, 1 };
	double top = 0;
	size_t nr = 0;

	*out = NULL;
	if (!vals || !rk) {
		free(vals);
		free(rk);
		return -1;
	}
	memset(t, 0, sizeof(*t));
	for (size_t k = 0; k < v->n_keys; k++) {
		int m = 0;

		if (strcmp(v->first[k]->params, set))
			continue;
		for (size_t i = 0; i < v->n; i++) {
			const struct res_metric *x;

			if (v->key[i] != k ||
			    !(x = results_measured(v->run[i], name)))
				continue;
			vals[m++] = x->v;
			unit = unit ? unit : x->unit;
		}
		if (!m)
			continue;
		rk[nr].key = k;
		results_stats(vals, m, &rk[nr].s);
		t->params |= *v->first[k]->params != '\0';
		nr++;
	}
	free(vals);
	if (!nr) {
		free(rk);
		return 0;
	}
	t->name = name;
	t->set = set;
	t->lower = rank_lower_is_better(name, unit);
	for (size_t i = 0; i < nr; i++) {
		rk[i].order = t->lower ? rk[i].s.mean : -rk[i].s.mean;
		top = fmax(top, fmax(fabs(rk[i].s.hi), fabs(rk[i].s.lo)));
	}
	if (metricname_of(name, unit, top, &tt)) {
		free(rk);
		return -1;
	}
	t->title = tt.label.p;	/* the caller's to free */
	for (size_t i = 0; tt.scale != 1 && i < nr; i++) {
		struct res_stats *s = &rk[i].s;

		s->mean /= tt.scale;
		s->sd /= tt.scale;
		s->ci /= tt.scale;
		s->hi /= tt.scale;
		s->lo /= tt.scale;
	}
	qsort(rk, nr, sizeof(*rk), by_rank);
	t->decimals = decimals(rk, nr);
	t->n = nr;
	*out = rk;
	return 1;
}

/* The parameters "a=1;b=2" as a title's "a=1 b=2", into buf. */
static void set_words(char *buf, size_t len, const char *set)
{
	snprintf(buf, len, "%s", set);
	for (char *q = buf; *q; q++)
		*q = *q == ';' ? ' ' : *q;
}

/* The table t of name over v's rows of parameter set: its rows, and
 * them as a table (a section titled with the set, for html and csv). */
static int metric_table(const struct view *v, const char *name,
			const char *set, rank_fn fn, void *ctx)
{
	static const char *const head[] = { "config", "n", "mean", "stdev",
		"95% CI", "high", "low", "group" };
	struct rank_table t;
	struct rank_row *row = NULL;
	struct ranked *rk;
	struct table g = { 0 };
	char words[512];
	int rc = metric_rows(v, name, set, &t, &rk);

	if (rc <= 0)
		return rc;
	rc = -1;
	row = calloc(t.n + 1, sizeof(*row));
	if (!row)
		goto out;
	for (size_t i = 0; i < t.n; i++) {
		row[i].first = v->first[rk[i].key];
		row[i].s = rk[i].s;
	}
	t.row = row;
	set_words(words, sizeof(words), set);
	if (table_init(&g, 8, 1, head, NULL) ||
	    (*set && table_section(&g, words, NULL)) ||
	    metric_cells(&g, v, rk, t.n))
		goto out;
	rc = fn(ctx, &t, &g);
out:
	table_free(&g);
	free(row);
	free(rk);
	free((char *)t.title);
	return rc;
}

/* rank_tables' way of showing a table: its title line and the table. */
static int print_table(void *ctx, const struct rank_table *t,
		       const struct table *g)
{
	FILE *f = ctx;
	char words[512];

	fprintf(f, "\n%s", t->name);
	if (strcmp(t->title, t->name))
		fprintf(f, ": %s", t->title);
	set_words(words, sizeof(words), t->set);
	if (*words)
		fprintf(f, ", for %s", words);
	fprintf(f, ", %s is better\n", t->lower ? "lower" : "higher");
	table_text(f, g);
	return 0;
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

/* A table of name per parameter set of v, the sets in the order they
 * first appear (workers=1 and workers=4 are not ranked together). */
static int metric_sets(const struct view *v, const char *name, rank_fn fn,
		       void *ctx)
{
	for (size_t k = 0; k < v->n_keys; k++) {
		size_t j;

		for (j = 0; j < k; j++)
			if (!strcmp(v->first[j]->params, v->first[k]->params))
				break;
		if (j == k && metric_table(v, name, v->first[k]->params, fn,
					   ctx) < 0)
			return -1;
	}
	return 0;
}

int rank_each(const struct res_run *const *runs, size_t n,
	      const char *const *only, rank_fn fn, void *ctx)
{
	const char *const every[] = { "*", NULL };
	struct view v = { 0 };
	const char **names = NULL;
	char *done = NULL;
	size_t n_names = 0;
	int rc = -1;

	if (!only || !*only)
		only = every;
	if (view_build(&v, runs, n))
		goto out;
	names = rank_metric_names(runs, n, 1, &n_names);
	done = calloc(n_names + 1, 1);
	if (!names || !done)
		goto out;
	rc = 0;
	for (; *only && !rc; only++)
		for (size_t i = 0; i < n_names && !rc; i++)
			if (!done[i] && !fnmatch(*only, names[i], 0)) {
				done[i] = 1;
				rc = metric_sets(&v, names[i], fn, ctx);
			}
out:
	free(done);
	free(names);
	view_free(&v);
	return rc;
}

int rank_tables(FILE *f, const struct res_run *const *runs, size_t n,
		const char *const *only)
{
	return rank_each(runs, n, only, print_table, f);
}
