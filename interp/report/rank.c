/* rank: a table per metric — mean, spread, 95% CI per config, best first. */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/grid.h"
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

/* Decimals for about four significant digits of top, a largest figure. */
static int digits(double top)
{
	int d;

	if (top == 0)
		return 0;
	d = 3 - (int)floor(log10(top));
	return d < 0 ? 0 : d > 6 ? 6 : d;
}

static int decimals(const struct ranked *rk, size_t n)
{
	double top = 0;

	for (size_t i = 0; i < n; i++)
		top = fmax(top, fmax(fabs(rk[i].s.hi), fabs(rk[i].s.lo)));
	return digits(top);
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

/* ---- what a table calls a metric --------------------------------------- */

/*
 * The unit a metric name's suffix means, as the studies print it; the
 * suffix leaves the label unless keep. A unit column that says more
 * (MiB/s, KiB/s; ops/s but for a _per_s name) wins over the suffix.
 * Longer suffixes first.
 */
static const struct { const char *suffix, *unit; int keep; } suffix_unit[] = {
	{ "_per_sec", "/s", 0 }, { "_per_s", "/s", 0 }, { "seconds", "s", 1 },
	{ "_bytes", "bytes", 0 }, { "_mibs", "MiB/s", 0 },
	{ "_iops", "IO/s", 0 }, { "_mbs", "MB/s", 0 }, { "_pct", "%", 0 },
	{ "_cpu", "%", 1 }, { "_mib", "MiB", 0 }, { "_kib", "KiB", 0 },
	{ "_ms", "ms", 0 },
	{ "_us", "us", 0 }, { "_s", "s", 0 }, { NULL, NULL, 0 },
};

/* Words of metric names, spelled out for a reader. */
static const char *const word[][2] = {
	{ "lat", "latency" }, { "avg", "average" }, { "bw", "bandwidth" },
	{ "cpu", "CPU" }, { "amp", "amplification" }, { NULL, NULL },
};

/* A word of a name as a reader says it. */
static const char *spelled(const char *w)
{
	for (int j = 0; word[j][0]; j++)
		if (!strcmp(w, word[j][0]))
			return word[j][1];
	return w;
}

/* avg, max, min, mean, p50, p999: what a latency figure is of. */
static int is_stat(const char *w)
{
	if (!strcmp(w, "avg") || !strcmp(w, "max") || !strcmp(w, "min") ||
	    !strcmp(w, "mean"))
		return 1;
	return w[0] == 'p' && w[1] && strspn(w + 1, "0123456789") ==
	       strlen(w + 1);
}

struct title {
	char label[160];	/* "average latency (ms)" */
	double scale;		/* divide the values by this */
};

/*
 * A metric's label with its unit: the name without its unit suffix, as
 * words, then the unit in parentheses; bytes in binary units chosen by
 * top, the table's largest value.
 */
static void metric_title(const char *name, const char *unit, double top,
			 struct title *t)
{
	static const char *const bin[] = { "bytes", "KiB", "MiB", "GiB",
					   "TiB" };
	char base[80], u[32], *p, *next, *save = NULL;
	size_t n = strlen(name), k = 0, len;
	int i;

	snprintf(u, sizeof(u), "%s", unit ? unit : "");
	for (i = 0; suffix_unit[i].suffix; i++)
		if (ends_with(name, suffix_unit[i].suffix) &&
		    (suffix_unit[i].keep || strlen(suffix_unit[i].suffix) < n))
			break;
	if (suffix_unit[i].suffix) {
		if (!suffix_unit[i].keep)
			n -= strlen(suffix_unit[i].suffix);
		/* transactions_per_s in transactions/s, requests_per_s in
		 * queries/s (sysbench's word): the name says what a second
		 * counts, so it reads as the same rate without a unit does
		 * (lua/oltp.lua's); a data rate (MiB/s) says more */
		if (!*u || (!strcmp(suffix_unit[i].unit, "/s") &&
			    ends_with(u, "/s") && !ends_with(u, "B/s") &&
			    !ends_with(u, "bytes/s")))
			snprintf(u, sizeof(u), "%s", suffix_unit[i].unit);
	}
	snprintf(base, sizeof(base), "%.*s", (int)n, name);
	t->label[0] = '\0';
	for (p = strtok_r(base, "_", &save); p; p = next) {
		next = strtok_r(NULL, "_", &save);
		/* read_lat_p99: the read p99 latency */
		if (!strcmp(p, "lat") && next && is_stat(next)) {
			k += snprintf(t->label + k, sizeof(t->label) - k,
				      "%s%s latency", k ? " " : "",
				      spelled(next));
			next = strtok_r(NULL, "_", &save);
		} else {
			k += snprintf(t->label + k, sizeof(t->label) - k,
				      "%s%s", k ? " " : "", spelled(p));
		}
		if (k >= sizeof(t->label))
			k = sizeof(t->label) - 1;
	}
	t->scale = 1;
	if (!strcmp(u, "bytes") || !strcmp(u, "B")) {
		for (i = 0; i < 4 && fabs(top) / t->scale >= 10 * 1024; i++)
			t->scale *= 1024;
		snprintf(u, sizeof(u), "%s", bin[i]);
	}
	/* "read ops (ops)" says it twice */
	len = strlen(u);
	if (!*u || (k > len && t->label[k - len - 1] == ' ' &&
		    !strcmp(t->label + k - len, u)))
		return;
	if (!strcmp(u, "/s"))
		snprintf(t->label + k, sizeof(t->label) - k, "/s");
	else
		snprintf(t->label + k, sizeof(t->label) - k, " (%s)", u);
}

/* The table of name over v into t (its rows best first); 0 when no run
 * has a value of it, -1 out of memory. */
static int metric_rows(const struct view *v, const char *name,
		       struct rank_table *t, struct ranked **out)
{
	double *vals = calloc(v->n + 1, sizeof(*vals));
	struct ranked *rk = calloc(v->n_keys + 1, sizeof(*rk));
	const char *unit = NULL;
	struct title tt;
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
	t->lower = rank_lower_is_better(name, unit);
	for (size_t i = 0; i < nr; i++) {
		rk[i].order = t->lower ? rk[i].s.mean : -rk[i].s.mean;
		top = fmax(top, fmax(fabs(rk[i].s.hi), fabs(rk[i].s.lo)));
	}
	metric_title(name, unit, top, &tt);
	snprintf(t->title, sizeof(t->title), "%s", tt.label);
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

/* The table t of name over v: its rows, and them as the text grid. */
static int metric_table(const struct view *v, const char *name,
			rank_fn fn, void *ctx)
{
	static const char *const head[] = { "config", "params", "n", "mean",
		"stdev", "95% CI", "high", "low" };
	struct rank_table t;
	struct rank_row *row = NULL;
	struct ranked *rk;
	struct grid g = { 0 };
	int rc = metric_rows(v, name, &t, &rk);

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
	g.ncol = t.params ? 8 : 7;
	g.left = t.params ? 2 : 1;
	if (grid_row(&g, t.params ? head : (const char *[]){ head[0],
		     head[2], head[3], head[4], head[5], head[6], head[7] }) ||
	    table_rows(&g, v, rk, t.n, t.params))
		goto out;
	rc = fn(ctx, &t, &g);
out:
	grid_free(&g);
	free(row);
	free(rk);
	return rc;
}

/* rank_tables' way of showing a table: its title line and the grid. */
static int print_table(void *ctx, const struct rank_table *t,
		       const struct grid *g)
{
	FILE *f = ctx;

	if (strcmp(t->title, t->name))
		fprintf(f, "\n%s: %s, %s is better\n", t->name, t->title,
			t->lower ? "lower" : "higher");
	else
		fprintf(f, "\n%s, %s is better\n", t->name,
			t->lower ? "lower" : "higher");
	grid_print(f, g);
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
				rc = metric_table(&v, names[i], fn,
						  ctx) < 0 ? -1 : 0;
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

/* ---- the filesystem configs --------------------------------------------- */

/* The mean of name over the config rows (phase "") of label, in *v. */
static int config_mean(const struct res_run *const *runs, size_t n,
		       const char *label, const char *name, double *v)
{
	double sum = 0, x;
	int k = 0;

	for (size_t i = 0; i < n; i++)
		if (!*runs[i]->phase && !strcmp(runs[i]->fs_label, label) &&
		    results_value(runs[i], name, &x)) {
			sum += x;
			k++;
		}
	if (k)
		*v = sum / k;
	return k;
}

/* The unit of name in the config rows, "" if none says. */
static const char *config_unit(const struct res_run *const *runs, size_t n,
			       const char *name)
{
	for (size_t i = 0; i < n; i++) {
		const struct res_metric *m = *runs[i]->phase ? NULL :
					     results_metric(runs[i], name);

		if (m && *m->unit)
			return m->unit;
	}
	return "";
}

/* A volume's own times (mkfs_s_source, ...) left out of names: the
 * totals are in the config table, the rest behind --metric and in the
 * study's table. The count kept. */
static size_t totals_only(const char **names, size_t n)
{
	size_t k = 0;

	for (size_t m = 0; m < n; m++) {
		const char *u = strstr(names[m], "_s_");

		if (!u || u[3] == '\0')
			names[k++] = names[m];
	}
	return k;
}

int rank_config_rounds(const struct res_run *const *runs, size_t n,
		       const char *label)
{
	int rounds = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j;

		if (*runs[i]->phase || runs[i]->rep < 1 ||
		    strcmp(runs[i]->fs_label, label))
			continue;
		/* a config made again in its round (a resumed run) */
		for (j = 0; j < i; j++)
			if (!*runs[j]->phase && runs[j]->rep == runs[i]->rep &&
			    !strcmp(runs[j]->fs_label, label))
				break;
		rounds += j == i;
	}
	return rounds;
}

int rank_configs_grid(struct grid *g, const struct res_run *const *runs,
		      size_t n)
{
	enum { FIXED = 4, MAX_M = GRID_COLS - FIXED - 1 };
	const struct res_run **conf = calloc(n + 1, sizeof(*conf));
	const struct res_run **first = calloc(n + 1, sizeof(*first));
	const char **names = NULL, *row[GRID_COLS];
	struct title t[MAX_M];
	char num[MAX_M][48], rounds[16];
	int dec[MAX_M], most = 0, rc = -1;
	size_t n_conf = 0, n_first = 0, n_names = 0, c0;

	if (!conf || !first)
		goto out;
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (!*runs[i]->phase)
			conf[n_conf++] = runs[i];
		for (k = 0; k < n_first; k++)
			if (!strcmp(first[k]->fs_label, runs[i]->fs_label))
				break;
		if (k == n_first)
			first[n_first++] = runs[i];
	}
	names = rank_metric_names(conf, n_conf, 1, &n_names);
	if (!names)
		goto out;
	n_names = totals_only(names, n_names);
	if (n_names > MAX_M)
		n_names = MAX_M;
	/* order: rounds: a config its stop rules ended early has fewer */
	for (size_t k = 0; k < n_first; k++) {
		int got = rank_config_rounds(conf, n_conf, first[k]->fs_label);

		most = got > most ? got : most;
	}
	c0 = FIXED + (most > 1);
	g->ncol = (int)(c0 + n_names);
	g->left = FIXED;
	row[0] = "config";
	row[1] = "type";
	row[2] = "mkfs options";
	row[3] = "mount options";
	row[FIXED] = "rounds";
	for (size_t m = 0; m < n_names; m++) {
		double top = 0, v;

		for (size_t k = 0; k < n_first; k++)
			if (config_mean(conf, n_conf, first[k]->fs_label,
					names[m], &v))
				top = fmax(top, fabs(v));
		metric_title(names[m], config_unit(conf, n_conf, names[m]),
			     top, &t[m]);
		dec[m] = digits(top / t[m].scale);
		row[c0 + m] = t[m].label;
	}
	if (grid_row(g, row))
		goto out;
	for (size_t k = 0; k < n_first; k++) {
		const struct res_run *x = first[k];

		row[0] = x->fs_label;
		row[1] = x->fs_type;
		row[2] = *x->mkfs_opts ? x->mkfs_opts : "-";
		row[3] = *x->mount_opts ? x->mount_opts : "-";
		snprintf(rounds, sizeof(rounds), "%d", rank_config_rounds(conf,
			 n_conf, x->fs_label));
		row[FIXED] = rounds;
		for (size_t m = 0; m < n_names; m++) {
			double v;

			if (config_mean(conf, n_conf, x->fs_label, names[m],
					&v))
				snprintf(num[m], sizeof(num[m]), "%.*f",
					 dec[m], v / t[m].scale);
			else
				snprintf(num[m], sizeof(num[m]), "-");
			row[c0 + m] = num[m];
		}
		if (grid_row(g, row))
			goto out;
	}
	rc = 0;
out:
	free(names);
	free(conf);
	free(first);
	return rc;
}

int rank_configs(FILE *f, const struct res_run *const *runs, size_t n)
{
	struct grid g = { 0 };
	int rc = rank_configs_grid(&g, runs, n);

	if (!rc)
		grid_print(f, &g);
	grid_free(&g);
	return rc;
}
