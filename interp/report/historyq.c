/* historyq: the history database's trends (show) and regression check. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fig.h"
#include "report/history.h"
#include "report/historydb.h"
#include "report/historyhtml.h"
#include "report/manifestread.h"
#include "report/rank.h"
#include "results/csv.h"
#include "results/results.h"
#include "results/stats.h"
#include "util/strbuf.h"

#define ALPHA 0.05

static const char show_sql[] =
	"SELECT c.base, c.fs_label, m.metric, m.unit, r.run_id, r.started, "
	"r.kernel, count(*), avg(m.value) FROM runs r "
	"JOIN cells c ON c.run_id = r.run_id "
	"JOIN metrics m ON m.run_id = c.run_id AND m.cell = c.cell "
	"WHERE r.plan_name = ?1 AND c.status = 'ok' AND c.phase <> '' "
	"AND (?2 IS NULL OR c.fs_label = ?2) AND (CASE WHEN ?3 IS NULL "
	"THEN m.metric = (SELECT k.metric FROM keys k WHERE k.run_id = "
	"r.run_id AND k.phase = c.phase AND k.ord = 0) "
	"ELSE m.metric GLOB ?3 END) "
	"GROUP BY c.base, m.metric, r.run_id "
	"ORDER BY c.base, m.metric, r.started, r.run_id";

static void show_row(sqlite3_stmt *st, const struct history_show *o,
		     FILE *f, double *first, int new_group)
{
	double mean = sqlite3_column_double(st, 8);
	int n = sqlite3_column_int(st, 7);
	char fig[FIG_LEN];

	if (o->format == HISTORY_CSV) {
		csv_fput(f, o->plan);
		for (int i = 0; i < 7; i++) {
			fputc(',', f);
			csv_fput(f, historydb_col(st, i));
		}
		fputc(',', f);
		fprintf(f, "%d,%.17g\n", n, mean);
		return;
	}
	if (new_group) {
		fprintf(f, "%s== %s: %s", *first == *first ? "\n" : "",
			historydb_col(st, 0), historydb_col(st, 2));
		if (*historydb_col(st, 3))
			fprintf(f, " (%s)", historydb_col(st, 3));
		fputs(" ==\n", f);
		*first = mean;
	}
	fprintf(f, "%-20s  %-24s  %-16s  n=%-3d %12s", historydb_col(st, 5),
		historydb_col(st, 4), historydb_col(st, 6), n,
		fig_text(fig, sizeof(fig), mean, 0, NULL, NULL));
	if (!new_group && *first != 0)
		fprintf(f, "  %+.1f%%", 100 * (mean - *first) / fabs(*first));
	fputc('\n', f);
}

/* The trend as text or csv: how many rows, or -1 with d filled. */
static int show_rows(struct history *h, sqlite3_stmt *st,
		     const struct history_show *o, FILE *f, struct diag *d)
{
	struct strbuf last = { 0 };
	double first = NAN;
	int rc, rows = 0;

	if (o->format == HISTORY_CSV)
		fputs("plan,cell,fs_label,metric,unit,run_id,started,kernel,"
		      "n,mean\n", f);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t len = last.len;
		int new_group;

		strbuf_printf(&last, "%s%c%s", historydb_col(st, 0), '\0',
			      historydb_col(st, 2));
		new_group = !rows || last.len - len != len ||
			    memcmp(last.p, last.p + len, len);
		memmove(last.p, last.p + len, last.len - len);
		last.len -= len;
		show_row(st, o, f, &first, new_group);
		rows++;
	}
	free(last.p);
	if (rc != SQLITE_DONE)
		return historydb_fail(h, "cannot read the trend", d);
	return rows;
}

int history_show(struct history *h, const struct history_show *o, FILE *f,
		 struct diag *d)
{
	sqlite3_stmt *st;
	int rows;

	if (historydb_prepare(h, show_sql, &st, d))
		return -1;
	sqlite3_bind_text(st, 1, o->plan, -1, SQLITE_STATIC);
	if (o->config)
		sqlite3_bind_text(st, 2, o->config, -1, SQLITE_STATIC);
	if (o->metric)
		sqlite3_bind_text(st, 3, o->metric, -1, SQLITE_STATIC);
	rows = o->format == HISTORY_HTML ? historyhtml_show(h, o, st, f, d) :
		show_rows(h, st, o, f, d);
	sqlite3_finalize(st);
	if (rows < 0)
		return -1;
	if (!rows)
		return diag_fail(d, DIAG_INPUT, 0, "%s has no value of plan "
				 "'%s'%s%s%s", h->path, o->plan,
				 o->config ? " in config " : "",
				 o->config ? o->config : "",
				 o->metric ? " for that metric" : "");
	return 0;
}

enum verdict { V_BETTER, V_WORSE, V_SAME, V_UNKNOWN };

static const char *const verdict_name[] = {
	[V_BETTER] = "better", [V_WORSE] = "worse",
	[V_SAME] = "no significant difference", [V_UNKNOWN] = "cannot tell",
};

struct check {
	struct history *h;
	json_t *man;
	const char *id, *plan, *started;
	int last;
	sqlite3_stmt *vals;
	struct strbuf differs;	/* "plan sha256, kernel", or empty */
	size_t count[4];
	FILE *f;
};

/* The last ?3 runs of plan ?1 but the one checked (run_id ?2, started
 * ?7: in the database as ?2, or as ?2@?7 when history_add had to tell
 * it from another run of that name). */
#define HIST_RUNS "SELECT run_id FROM runs WHERE plan_name = ?1 AND " \
	"NOT (started = ?7 AND (run_id = ?2 OR run_id = ?2 || '@' || ?7)) " \
	"ORDER BY started DESC, run_id DESC LIMIT ?3"

/* What of the last runs differs from this one's: c->differs; how many
 * runs there are, or -1 with d. */
static int check_runs(struct check *c, struct diag *d)
{
	struct strbuf params = { 0 };
	const char *mine[3];
	const char *what[3] = { "plan sha256", "params", "kernel" };
	int seen[3] = { 0 }, n = 0, rc;
	sqlite3_stmt *st;

	manifestread_params(c->man, &params);
	mine[0] = manifestread_str(c->man, "plan.sha256", "");
	mine[1] = params.p ? params.p : "";
	mine[2] = manifestread_str(c->man, "system.kernel", "");
	if (historydb_prepare(c->h, "SELECT plan_sha256, params, kernel FROM "
			      "runs WHERE run_id IN (" HIST_RUNS ")", &st, d)) {
		free(params.p);
		return -1;
	}
	sqlite3_bind_text(st, 1, c->plan, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, c->id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, c->last);
	sqlite3_bind_text(st, 7, c->started, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && ++n)
		for (int i = 0; i < 3; i++)
			seen[i] |= strcmp(historydb_col(st, i), mine[i]) != 0;
	sqlite3_finalize(st);
	free(params.p);
	if (rc != SQLITE_DONE)
		return historydb_fail(c->h, "cannot read runs", d);
	for (int i = 0; i < 3; i++)
		if (seen[i])
			strbuf_printf(&c->differs, "%s%s", c->differs.len ?
				      ", " : "", what[i]);
	return n;
}

/* The history's values of metric in cell base of config label into s. */
static int history_values(struct check *c, const char *base,
			  const char *label, const char *metric,
			  struct res_stats *s, struct diag *d)
{
	double *v = NULL, *nv;
	int n = 0, rc;

	sqlite3_bind_text(c->vals, 4, base, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->vals, 5, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->vals, 6, metric, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(c->vals)) == SQLITE_ROW) {
		if (!(nv = realloc(v, (n + 1) * sizeof(*v)))) {
			rc = SQLITE_NOMEM;
			break;
		}
		v = nv;
		v[n++] = sqlite3_column_double(c->vals, 0);
	}
	sqlite3_reset(c->vals);
	if (rc == SQLITE_DONE)
		results_stats(v, n, s);
	free(v);
	if (rc != SQLITE_DONE)
		return historydb_fail(c->h, "cannot read values", d);
	return 0;
}

static enum verdict judge(const struct res_stats *a, const struct res_stats *b,
			  int lower, struct stats_welch *w)
{
	if (a->n < 2 || b->n < 2 || stats_welch(a->n, a->mean, a->sd, b->n,
						b->mean, b->sd, 1 - ALPHA, w))
		return V_UNKNOWN;
	if (!(w->p < ALPHA) || w->diff == 0)
		return V_SAME;
	return (w->diff > 0) != (lower != 0) ? V_BETTER : V_WORSE;
}

/* One metric of cell base (runs[0..n) its reps in this run). */
static int check_metric(struct check *c, const struct res_run *const *runs,
			int n, const char *metric, struct diag *d)
{
	struct res_stats a = { 0 }, b;
	struct stats_welch w = { 0 };
	const char *unit = "";
	double *v = calloc(n ? n : 1, sizeof(*v));
	char fa[FIG_LEN], fb[FIG_LEN];
	enum verdict verdict;
	int k = 0;

	if (!v)
		return diag_fail(d, DIAG_SYSTEM, ENOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		const struct res_metric *m = results_measured(runs[i], metric);

		if (m) {
			v[k++] = m->v;
			unit = m->unit ? m->unit : "";
		}
	}
	results_stats(v, k, &b);
	free(v);
	if (!k)
		return 0;
	if (history_values(c, runs[0]->base, runs[0]->fs_label, metric, &a, d))
		return -1;
	verdict = judge(&a, &b, rank_lower_is_better(metric, unit), &w);
	c->count[verdict]++;
	fprintf(c->f, "%s %s: history n=%d mean %s, this run n=%d mean %s",
		runs[0]->base, metric, a.n, fig_text(fa, sizeof(fa), a.mean, 0,
		NULL, NULL), b.n, fig_text(fb, sizeof(fb), b.mean, 0, NULL,
		NULL));
	if (a.n && a.mean != 0)
		fprintf(c->f, " (%+.1f%%)", 100 * (b.mean - a.mean) /
			fabs(a.mean));
	if (verdict != V_UNKNOWN)
		fprintf(c->f, ", p %.3g", w.p);
	fprintf(c->f, ": %s", verdict_name[verdict]);
	if (c->differs.len)
		fprintf(c->f, " (%s differ%s from the history's)",
			c->differs.p, strchr(c->differs.p, ',') ? "" : "s");
	fputc('\n', c->f);
	return 0;
}

/* Each key metric of the cell of runs[i] (the first of its base). */
static int check_cell(struct check *c, const struct results *r, size_t i,
		      struct diag *d)
{
	const struct res_run *run = &r->runs[i], **reps;
	const char *keys[17];
	int n = 0, nk, rc = 0;

	reps = malloc((r->n_runs - i) * sizeof(*reps));
	if (!reps)
		return diag_fail(d, DIAG_SYSTEM, ENOMEM, "out of memory");
	for (size_t j = i; j < r->n_runs; j++)
		if (r->runs[j].status == RES_OK &&
		    !strcmp(r->runs[j].base, run->base))
			reps[n++] = &r->runs[j];
	nk = manifestread_key(json_object_get(c->man, "phases"), run->phase,
			      keys, 16);
	for (int k = 0; k < nk && !rc; k++)
		rc = check_metric(c, reps, n, keys[k], d);
	free(reps);
	return rc;
}

/* Whether runs[i] is an ok phase run and the first of its base. */
static int first_of_base(const struct results *r, size_t i)
{
	const struct res_run *run = &r->runs[i];

	if (run->status != RES_OK || !*run->phase)
		return 0;
	for (size_t j = 0; j < i; j++)
		if (r->runs[j].status == RES_OK &&
		    !strcmp(r->runs[j].base, run->base))
			return 0;
	return 1;
}

static int check_all(struct check *c, const struct results *r,
		     struct diag *d)
{
	int n = check_runs(c, d);

	if (n < 0)
		return -1;
	if (!n)
		return diag_fail(d, DIAG_INPUT, 0, "%s has no other run of plan "
				 "'%s' to check run %s against", c->h->path,
				 c->plan, c->id);
	fprintf(c->f, "run %s against the last %d run%s of plan %s:\n", c->id,
		n, n == 1 ? "" : "s", c->plan);
	if (historydb_prepare(c->h, "SELECT m.value FROM metrics m JOIN cells "
			      "c ON c.run_id = m.run_id AND c.cell = m.cell "
			      "WHERE c.run_id IN (" HIST_RUNS ") AND c.base = "
			      "?4 AND c.fs_label = ?5 AND m.metric = ?6 AND "
			      "c.status = 'ok'", &c->vals, d))
		return -1;
	sqlite3_bind_text(c->vals, 1, c->plan, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->vals, 2, c->id, -1, SQLITE_STATIC);
	sqlite3_bind_int(c->vals, 3, c->last);
	sqlite3_bind_text(c->vals, 7, c->started, -1, SQLITE_STATIC);
	for (size_t i = 0; i < r->n_runs; i++)
		if (first_of_base(r, i) && check_cell(c, r, i, d))
			return -1;
	fprintf(c->f, "%zu metrics: %zu better, %zu worse, %zu no significant "
		"difference, %zu cannot tell\n", c->count[V_BETTER] +
		c->count[V_WORSE] + c->count[V_SAME] + c->count[V_UNKNOWN],
		c->count[V_BETTER], c->count[V_WORSE], c->count[V_SAME],
		c->count[V_UNKNOWN]);
	return c->count[V_WORSE] ? 1 : 0;
}

int history_check(struct history *h, const char *rundir, int last, FILE *f,
		  struct diag *d)
{
	struct check c = { .h = h, .last = last, .f = f };
	struct results r = { 0 };
	int rc;

	if (historydb_load(rundir, &c.man, &r, d))
		return -1;
	c.id = manifestread_str(c.man, "run_id", r.run_id);
	c.plan = manifestread_str(c.man, "plan.name", NULL);
	c.started = manifestread_str(c.man, "started", "");
	if (!c.id || !c.plan)
		rc = diag_fail(d, DIAG_INPUT, 0, "%s/manifest.json names no "
			       "run_id or no plan name", rundir);
	else
		rc = check_all(&c, &r, d);
	sqlite3_finalize(c.vals);
	free(c.differs.p);
	results_free(&r);
	json_decref(c.man);
	return rc;
}
