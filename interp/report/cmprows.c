/* cmprows: compare's figures — a row per pair and metric, its test. */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/cmprows.h"
#include "report/rank.h"
#include "util/grow.h"

/* A side's key metrics when its manifest names none for a phase. */
static const char *const fallback_key[] = { "seconds", "*_mbs", "*_iops",
					    NULL };

/* The values of name over runs that count (not bonnie++'s "+++++",
 * as report leaves them out), into v; how many. */
static int values(const struct res_run *const *runs, size_t n,
		  const char *name, double *v, const char **unit)
{
	int k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct res_metric *m = results_measured(runs[i], name);

		if (!m)
			continue;
		v[k++] = m->v;
		if (!*unit || !**unit)
			*unit = m->unit;
	}
	return k;
}

/*
 * A quantity that was positive in every run on both sides (a rate, a
 * time) changes by a ratio: Welch's test on the logarithms gives the
 * verdict, and its interval of log(B/A), taken back as a change in
 * percent of A, cannot pass -100% and leaves out 0 exactly when the
 * verdict is better or worse. Else (a zero or a negative value) Welch's
 * test of the difference B - A.
 */
static void verdict_of(struct cmprow *r, double *v, int ka, int kb,
		       double alpha)
{
	double base = fabs(r->a.mean);
	struct res_stats la, lb;
	int pos = ka > 0 && kb > 0;

	for (int i = 0; i < ka + kb; i++)
		pos &= v[i] > 0;
	r->change = r->lo_pct = r->hi_pct = NAN;
	if (r->a.n && r->b.n && base > 0)
		r->change = 100 * (r->b.mean - r->a.mean) / base;
	r->tested = !stats_welch(r->a.n, r->a.mean, r->a.sd, r->b.n,
				 r->b.mean, r->b.sd, 1 - alpha, &r->w);
	if (pos) {
		for (int i = 0; i < ka + kb; i++)
			v[i] = log(v[i]);
		results_stats(v, ka, &la);
		results_stats(v + ka, kb, &lb);
		r->ratio = !stats_welch(la.n, la.mean, la.sd, lb.n, lb.mean,
					lb.sd, 1 - alpha, &r->lw);
		r->tested &= r->ratio;
	}
	if (!r->tested)
		r->v = V_UNKNOWN;
	else if (!((r->ratio ? r->lw.p : r->w.p) < alpha))
		r->v = V_SAME;
	else
		r->v = (r->w.diff < 0) == r->lower ? V_BETTER : V_WORSE;
	if (r->tested && r->ratio) {
		r->lo_pct = 100 * expm1(r->lw.lo);
		r->hi_pct = 100 * expm1(r->lw.hi);
	} else if (r->tested && base > 0) {
		r->lo_pct = 100 * r->w.lo / base;
		r->hi_pct = 100 * r->w.hi / base;
	}
}

static int add_row(struct cmprows *t, const struct pair *pr, const char *name,
		   double alpha)
{
	double *v = calloc(pr->n_a + pr->n_b + 1, sizeof(*v));
	const char *unit = NULL;
	struct cmprow *r;
	int ka, kb;

	if (!v)
		return -1;
	r = grow_array(t->row, &t->cap, t->n + 1, sizeof(*r), 64);
	if (!r) {
		free(v);
		return -1;
	}
	t->row = r;
	r = &t->row[t->n];
	memset(r, 0, sizeof(*r));
	r->pr = pr;
	r->metric = name;
	ka = values(pr->a, pr->n_a, name, v, &unit);
	kb = values(pr->b, pr->n_b, name, v + ka, &unit);
	results_stats(v, ka, &r->a);
	results_stats(v + ka, kb, &r->b);
	if (!r->a.n && !r->b.n) {
		free(v);
		t->n_fast++;	/* every value was "+++++": nothing to compare */
		return 0;
	}
	t->n++;
	r->unit = unit ? unit : "";
	r->lower = rank_lower_is_better(name, r->unit);
	verdict_of(r, v, ka, kb, alpha);
	free(v);
	t->count[r->v]++;
	return 0;
}

/* The names to compare in pr: --metric's globs, or the phase's key. */
int cmprows_pair(struct cmprows *t, const struct pair *pr,
		 const struct pairing *pg, const char *const *metric,
		 double alpha)
{
	const char *key[PAIRING_MAX_KEY + 1];
	const char *const *globs = metric;
	const struct res_run **both;
	const char **names;
	size_t n_names = 0;
	char *done;
	int rc = 0;

	if (!metric || !*metric)
		globs = pairing_key(pg, pr->phase, key) ? key : fallback_key;
	both = calloc(pr->n_a + pr->n_b + 1, sizeof(*both));
	if (!both)
		return -1;
	for (size_t i = 0; i < pr->n_a; i++)
		both[i] = pr->a[i];
	for (size_t i = 0; i < pr->n_b; i++)
		both[pr->n_a + i] = pr->b[i];
	names = rank_metric_names(both, pr->n_a + pr->n_b, 1, &n_names);
	done = calloc(n_names + 1, 1);
	for (; names && done && *globs && !rc; globs++)
		for (size_t i = 0; i < n_names && !rc; i++)
			if (!done[i] && !fnmatch(*globs, names[i], 0)) {
				done[i] = 1;
				rc = add_row(t, pr, names[i], alpha);
			}
	if (!names || !done)
		rc = -1;
	free(done);
	free(names);
	free(both);
	return rc;
}


/* The p of row i's verdict: of the logarithms' test when it had one. */
static double p_of(const struct cmprow *r)
{
	return r->ratio ? r->lw.p : r->w.p;
}

static int by_p(const void *a, const void *b, void *rows)
{
	const struct cmprows *t = rows;
	double x = p_of(&t->row[*(const size_t *)a]);
	double y = p_of(&t->row[*(const size_t *)b]);

	return (x > y) - (x < y);
}

long cmprows_holm(const struct cmprows *t, double alpha, unsigned char *keep)
{
	size_t *ord = malloc((t->n ? t->n : 1) * sizeof(*ord)), m = 0;
	long kept = 0;

	if (!ord)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		keep[i] = 0;
		if (t->row[i].tested && p_of(&t->row[i]) >= 0)
			ord[m++] = i;
	}
	qsort_r(ord, m, sizeof(*ord), by_p, (void *)t);
	for (size_t k = 0; k < m; k++) {
		if (!(p_of(&t->row[ord[k]]) <= alpha / (double)(m - k)))
			break;
		keep[ord[k]] = 1;
		kept++;
	}
	free(ord);
	return kept;
}
