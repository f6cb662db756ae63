/* classic: the seed studies' tables — tiobench's layout, and the helpers the
 * study tables share. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/classic.h"
#include "report/manifestread.h"

void classic_acc_add(struct classic_acc *a, const struct res_run *run,
		     const char *name)
{
	double v;

	if (results_value(run, name, &v)) {
		a->sum += v;
		a->n++;
	}
}

int classic_acc_mean(const struct classic_acc *a, double *v)
{
	if (!a->n)
		return 0;
	*v = a->sum / a->n;
	return 1;
}

static int has(const struct res_run *run, const char *name)
{
	return results_metric(run, name) != NULL;
}

/*
 * The row name of a run: its filesystem label, then its parameters other
 * than those in skip (NULL-ended), space-separated. Caller frees.
 */
char *classic_ident(const struct res_run *run, const char *const *skip)
{
	size_t len = strlen(run->fs_label) + strlen(run->params) + 2, n;
	const char *p = run->params;
	char *s = malloc(len);

	if (!s)
		return NULL;
	n = snprintf(s, len, "%s", run->fs_label);
	while (*p) {
		size_t k = strcspn(p, ";"), kl = strcspn(p, "=;");
		int drop = 0;

		for (const char *const *q = skip; q && *q; q++)
			if (strlen(*q) == kl && !strncmp(p, *q, kl))
				drop = 1;
		if (!drop)
			n += snprintf(s + n, len - n, " %.*s", (int)k, p);
		p += k + (p[k] == ';');
	}
	return s;
}

/* Where each distinct name first appeared, so rows keep the run's order. */
int classic_order(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int)i;
	return -1;
}

/* ---- tiobench ----------------------------------------------------------- */

static const char *const tio_skip[] = { "mode", "threads", "workers", NULL };

/* Sections in tiobench's order; other modes follow under their own name. */
static const struct { const char *mode, *title; } tio_sections[] = {
	{ "seq_read", "Sequential Reads" },
	{ "rand_read", "Random Reads" },
	{ "seq_write", "Sequential Writes" },
	{ "rand_write", "Random Writes" },
};
#define N_TIO_SECTIONS 4

enum { T_SIZE, T_BLOCK, T_RATE, T_CPU, T_AVG, T_MAX, T_2S, T_10S, N_TCOLS };

/*
 * CPU% is test_cpu_pct where the phase reports it (lua/tiobench.lua: the
 * threads' time only, as tiotest measures it), else the harness's
 * cpu_pct of the whole phase run.
 */
static const char *const tio_metric[N_TCOLS] = {
	"file_size_mib", "block_bytes", "rate_mbs", "cpu_pct", "avg_lat_ms",
	"max_lat_ms", "over_2s_pct", "over_10s_pct",
};

struct tio_row {
	char *ident, *mode;
	int section;		/* index into tio_sections, or 4 + first seen */
	int order;		/* first appearance of ident */
	double threads;
	struct classic_acc col[N_TCOLS];
};

static int tio_cmp(const void *a, const void *b)
{
	const struct tio_row *x = a, *y = b;

	if (x->section != y->section)
		return x->section < y->section ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return (x->threads > y->threads) - (x->threads < y->threads);
}

/* A value of run's parameters, whole (params is as long as any value
 * in it), malloc'd; NULL when absent or out of memory. */
static char *param_of(const struct res_run *run, const char *key)
{
	size_t len = strlen(run->params) + 1;
	char *buf = malloc(len);

	if (buf && !results_param(run->params, key, buf, len)) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

static double tio_threads(const struct res_run *run)
{
	char *p;
	double v;

	if (results_value(run, "threads", &v))
		return v;
	if ((p = param_of(run, "threads")) || (p = param_of(run, "workers"))) {
		v = strtod(p, NULL);
		free(p);
		return v;
	}
	return NAN;
}

/* A row's figures as tiobench prints them, the Identifier first. */
struct tio_cells {
	char cell[N_TCOLS][TABLE_NUM], thr[TABLE_NUM], eff[TABLE_NUM];
	const char *c[11];
};

static void tio_cells(const struct tio_row *r, struct tio_cells *t)
{
	static const char *const fmt[N_TCOLS] = { "%.0f", "%.0f", "%.2f",
		"%.2f%%", "%.3f", "%.2f", "%.5f", "%.5f" };
	double v[N_TCOLS];
	int ok[N_TCOLS];

	for (int i = 0; i < N_TCOLS; i++) {
		ok[i] = classic_acc_mean(&r->col[i], &v[i]);
		if (ok[i])
			snprintf(t->cell[i], sizeof(t->cell[i]), fmt[i], v[i]);
		else
			strcpy(t->cell[i], "-");
	}
	if (isnan(r->threads))
		strcpy(t->thr, "-");
	else
		snprintf(t->thr, sizeof(t->thr), "%.0f", r->threads);
	/* tiobench's CPU efficiency: MiB/s per CPU, from the row's means. */
	if (ok[T_RATE] && ok[T_CPU] && v[T_CPU] > 0)
		snprintf(t->eff, sizeof(t->eff), "%.0f",
			 v[T_RATE] / (v[T_CPU] / 100));
	else
		strcpy(t->eff, "-");
	t->c[0] = r->ident;
	t->c[1] = t->cell[T_SIZE];
	t->c[2] = t->cell[T_BLOCK];
	t->c[3] = t->thr;
	for (int i = T_RATE; i < N_TCOLS; i++)
		t->c[i + 2] = t->cell[i];
	t->c[10] = t->eff;
}

static int tio_find(struct tio_row *rows, size_t n, const char *mode,
		    const char *ident, double threads)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].mode, mode) &&
		    !strcmp(rows[i].ident, ident) &&
		    (rows[i].threads == threads ||
		     (isnan(threads) && isnan(rows[i].threads))))
			return (int)i;
	return -1;
}

/* Group the runs into rows (mode, identifier, threads); -1 on ENOMEM. */
static int tio_collect(const struct res_run *const *runs, size_t n,
		       const char *with_mode, struct tio_row *rows,
		       size_t *n_rows, char **idents, char **modes)
{
	size_t n_idents = 0, n_modes = 0;

	for (size_t i = 0; i < n; i++) {
		const struct res_run *run = runs[i];
		char *mbuf, *ident;
		const char *mode;
		double thr = tio_threads(run);
		struct tio_row *r;
		int k, sec;

		/* rate_mbs alone is no tiobench: the tree study has one */
		if (!has(run, "rate_mbs") || !has(run, "block_bytes"))
			continue;
		mbuf = param_of(run, "mode");
		mode = mbuf ? mbuf : with_mode ? with_mode : "";
		ident = classic_ident(run, tio_skip);
		if (!ident) {
			free(mbuf);
			return -1;
		}
		if (classic_order(idents, n_idents, ident) < 0)
			idents[n_idents++] = strdup(ident);
		for (sec = 0; sec < N_TIO_SECTIONS; sec++)
			if (!strcmp(mode, tio_sections[sec].mode))
				break;
		if (sec == N_TIO_SECTIONS) {
			if (classic_order(modes, n_modes, mode) < 0)
				modes[n_modes++] = strdup(mode);
			sec += classic_order(modes, n_modes, mode);
		}
		k = tio_find(rows, *n_rows, mode, ident, thr);
		if (k >= 0) {
			free(ident);
			r = &rows[k];
		} else {
			r = &rows[(*n_rows)++];
			memset(r, 0, sizeof(*r));
			r->ident = ident;
			r->mode = strdup(mode);
			r->section = sec;
			r->order = classic_order(idents, n_idents, ident);
			r->threads = thr;
		}
		free(mbuf);
		if (!r->mode || r->order < 0)
			return -1;
		for (int c = 0; c < N_TCOLS; c++)
			classic_acc_add(&r->col[c], run, c == T_CPU &&
				has(run, "test_cpu_pct") ? "test_cpu_pct" :
				tio_metric[c]);
	}
	return 0;
}

/* The rows of runs, sorted as tiobench prints them; -1 on ENOMEM. */
struct tio_set {
	struct tio_row *rows;
	char **idents, **modes;
	size_t n_rows, n;
};

static int tio_build(struct tio_set *t, const struct res_run *const *runs,
		     size_t n, const char *with_mode)
{
	t->n = n;
	t->n_rows = 0;
	t->rows = calloc(n + 1, sizeof(*t->rows));
	t->idents = calloc(n + 1, sizeof(*t->idents));
	t->modes = calloc(n + 1, sizeof(*t->modes));
	if (!t->rows || !t->idents || !t->modes ||
	    tio_collect(runs, n, with_mode, t->rows, &t->n_rows, t->idents,
			t->modes))
		return -1;
	qsort(t->rows, t->n_rows, sizeof(*t->rows), tio_cmp);
	return 0;
}

static void tio_free(struct tio_set *t)
{
	for (size_t i = 0; i < t->n_rows; i++) {
		free(t->rows[i].ident);
		free(t->rows[i].mode);
	}
	for (size_t i = 0; i <= t->n; i++) {
		free(t->idents ? t->idents[i] : NULL);
		free(t->modes ? t->modes[i] : NULL);
	}
	free(t->rows);
	free(t->idents);
	free(t->modes);
}

const char *classic_tio_mode(json_t *phases, const char *phase)
{
	/* lua/tiobench.lua's params.mode: the manifest keeps the with: a
	 * plan wrote, not the module's defaults (test_classic checks the
	 * module still says so) */
	if (!manifestread_gives(phases, phase, "mode") &&
	    manifestread_phase_uses(phases, phase, "tiobench"))
		return "seq_write";
	return manifestread_with(phases, phase, "mode");
}

static const char *tio_title(const struct tio_row *r)
{
	return r->section < N_TIO_SECTIONS ? tio_sections[r->section].title :
	       *r->mode ? r->mode : "(no mode)";
}

/* tiobench's columns, its text head and layout */
static const char *const tio_name[11] = { "Identifier", "File Size",
	"Blk Size", "Num Thr", "Rate", "CPU%", "Avg Latency",
	"Maximum Latency", "Lat% >2s", "Lat% >10s", "CPU Eff" };
static const char *const tio_unit[11] = { NULL, "MiB", "bytes", NULL,
	"MiB/s", NULL, "ms", "ms", NULL, NULL, NULL };
static const char *const tio_top[11] = { "", "File", "Blk", "Num", "", "",
	"Avg", "Maximum", "Lat%", "Lat%", "CPU" };
static const char *const tio_mid[11] = { "Identifier", "Size", "Size",
	"Thr", "Rate", "(CPU%)", "Latency", "Latency", ">2s", ">10s", "Eff" };
#define TIO_ROW "%-*s %6s %6s %3s  %12s %7s %9s %11s  %8s %8s %7s"

int classic_tio_tables(struct tables *out, const struct table_src *in)
{
	struct tio_set s;
	struct tio_cells c;
	struct table *t;
	int rc = -1;

	if (tio_build(&s, in->runs, in->n,
		      classic_tio_mode(in->phases, in->phase)))
		goto out;
	rc = 0;
	if (!s.n_rows || !(t = tables_add(out)))
		goto out;
	t->width = 28;
	table_init(t, 11, 1, tio_name, tio_unit);
	table_layout(t, "\n%t\n%=\n", TIO_ROW, NULL);
	table_head(t, TIO_ROW, tio_top, 11);
	table_head(t, TIO_ROW, tio_mid, 11);
	table_head(t, TIO_ROW, NULL, 11);
	for (size_t i = 0; i < s.n_rows; i++) {
		if (!i || s.rows[i].section != s.rows[i - 1].section)
			table_section(t, tio_title(&s.rows[i]), NULL);
		tio_cells(&s.rows[i], &c);
		table_row(t, c.c, 0);
	}
out:
	tio_free(&s);
	return rc;
}

int classic_tio_rates(const struct res_run *const *runs, size_t n,
		      const char *with_mode, classic_tio_fn fn, void *ctx)
{
	struct tio_set t;
	int rc = -1;

	if (tio_build(&t, runs, n, with_mode))
		goto out;
	rc = 0;
	for (size_t i = 0; i < t.n_rows && !rc; i++) {
		const struct tio_row *r = &t.rows[i];
		double rate;

		if (classic_acc_mean(&r->col[T_RATE], &rate))
			rc = fn(ctx, tio_title(r), r->ident, r->threads,
				rate) ? -1 : 0;
	}
out:
	tio_free(&t);
	return rc;
}

/* ---- what the tables show ----------------------------------------------- */

int classic_tio_shows(const char *name)
{
	for (int i = 0; i < N_TCOLS; i++)
		if (!strcmp(name, tio_metric[i]))
			return 1;
	return !strcmp(name, "test_cpu_pct") || !strcmp(name, "cpu_eff") ||
	       !strcmp(name, "threads");
}
