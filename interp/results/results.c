/* results: results.csv read back (RFC 4180), its rows grouped by phase run. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/csv.h"
#include "results/results.h"
#include "results/stats.h"
#include "util/grow.h"
#include "util/strhash.h"

#define NOPOS ((struct pos){ 0, 0 })

/* ---- the cell index ----------------------------------------------------- */

static const char *cell_of(const void *ctx, size_t i)
{
	return ((const struct results *)ctx)->runs[i].cell;
}

/* ---- grouping ----------------------------------------------------------- */

static void clear_metrics(struct res_run *run)
{
	for (size_t i = 0; i < run->n_m; i++) {
		free(run->m[i].name);
		free(run->m[i].value);
		free(run->m[i].unit);
	}
	run->n_m = 0;
	free(run->reason);
	run->reason = NULL;
	run->status = RES_NONE;
}

static void free_run(struct res_run *run)
{
	clear_metrics(run);
	free(run->m);
	free(run->cell);
	free(run->base);
	free(run->fs_label);
	free(run->fs_type);
	free(run->mkfs_opts);
	free(run->mount_opts);
	free(run->phase);
	free(run->params);
}

/* "cell#3" -> "cell"; a cell id without a "#digits" end is its own base. */
static char *base_of(const char *cell)
{
	const char *h = strrchr(cell, '#');
	size_t n = strlen(cell);

	if (h && h[1] && strspn(h + 1, "0123456789") == strlen(h + 1))
		n = h - cell;
	return strndup(cell, n);
}

static struct res_run *new_run(struct results *r, const char *const *f)
{
	struct res_run *run;

	if (strhash_reserve(&r->index, r->n_runs + 1, cell_of, r))
		return NULL;
	run = grow_array(r->runs, &r->cap_runs, r->n_runs + 1,
			 sizeof(*run), 64);
	if (!run)
		return NULL;
	r->runs = run;
	run = &r->runs[r->n_runs];
	memset(run, 0, sizeof(*run));
	run->cell = strdup(f[CSV_CELL]);
	run->base = base_of(f[CSV_CELL]);
	run->fs_label = strdup(f[CSV_LABEL]);
	run->fs_type = strdup(f[CSV_TYPE]);
	run->mkfs_opts = strdup(f[CSV_MKFS]);
	run->mount_opts = strdup(f[CSV_MOUNT]);
	run->phase = strdup(f[CSV_PHASE]);
	run->params = strdup(f[CSV_PARAMS]);
	run->rep = atoi(f[CSV_REP]);
	if (!run->cell || !run->base || !run->fs_label || !run->fs_type ||
	    !run->mkfs_opts || !run->mount_opts || !run->phase ||
	    !run->params) {
		free_run(run);
		return NULL;
	}
	*strhash_slot(&r->index, run->cell, cell_of, r) = ++r->n_runs;
	return run;
}

static int add_metric(struct res_run *run, const char *const *f)
{
	const char *value = f[CSV_VALUE];
	struct res_metric *m;
	char *end;

	m = grow_array(run->m, &run->cap_m, run->n_m + 1, sizeof(*m), 16);
	if (!m)
		return -1;
	run->m = m;
	m = &run->m[run->n_m];
	m->name = strdup(f[CSV_METRIC]);
	m->value = strdup(value);
	m->unit = strdup(f[CSV_UNIT]);
	if (!m->name || !m->value || !m->unit) {
		free(m->name);
		free(m->value);
		free(m->unit);
		return -1;
	}
	errno = 0;
	m->v = strtod(value, &end);
	m->numeric = *value && !*end && !errno && isfinite(m->v);
	run->n_m++;
	return 0;
}

static int set_status(struct res_run *run, const char *const *f)
{
	const char *v = f[CSV_VALUE];

	run->status = !strcmp(v, "ok") ? RES_OK :
		      !strcmp(v, "skipped") ? RES_SKIPPED : RES_FAILED;
	if (run->status == RES_OK)
		return 0;
	free(run->reason);
	run->reason = strdup(*f[CSV_UNIT] ? f[CSV_UNIT] : v);
	return run->reason ? 0 : -1;
}

/*
 * A phase run's rows are written together; a cell whose rows come back
 * after other cells' (or after its status row) was run again, and the
 * later run replaces the earlier. A config's own rows (no phase) come in
 * two parts around its phase runs and are kept together; one of them
 * coming again (mkfs_s after mkfs_s: a --resume made the interrupted
 * config anew) starts the set over, so the newest set is what counts.
 */
static int add_row(struct results *r, const char *const *f,
		   struct res_run **last)
{
	size_t at = strhash_find(&r->index, f[CSV_CELL], cell_of, r);
	struct res_run *run = at ? &r->runs[at - 1] : NULL;

	if (!run) {
		run = new_run(r, f);
		if (!run)
			return -1;
	} else if (*run->phase ? run != *last || run->status != RES_NONE :
		   results_metric(run, f[CSV_METRIC]) != NULL) {
		clear_metrics(run);
	}
	*last = run;
	if (!r->run_id && !(r->run_id = strdup(f[CSV_RUN_ID])))
		return -1;
	if (!strcmp(f[CSV_METRIC], "status"))
		return set_status(run, f);
	return add_metric(run, f);
}

/* ---- loading ------------------------------------------------------------ */

struct load {
	struct results *r;
	struct res_run *last;
	const char *path;
	struct diag *d;
};

static int load_row(void *ctx, const char *const *f, int line)
{
	struct load *l = ctx;

	(void)line;
	if (add_row(l->r, f, &l->last))
		return diag_set(l->d, l->path, NULL, NOPOS, "out of memory");
	return 0;
}

int results_load(struct results *r, const char *path, struct diag *d)
{
	struct load l = { r, NULL, path, d };
	struct csv_read info;

	memset(r, 0, sizeof(*r));
	if (csv_read_rows(path, load_row, &l, &info, d)) {
		results_free(r);
		return -1;
	}
	if (info.empty) {
		results_free(r);
		return diag_set(d, path, NULL, NOPOS,
				"not a results.csv (empty)");
	}
	r->n_torn = info.torn;
	/* A config's own rows have no status row: they stand as ok. */
	for (size_t i = 0; i < r->n_runs; i++)
		if (!*r->runs[i].phase && r->runs[i].status == RES_NONE)
			r->runs[i].status = RES_OK;
	return 0;
}

void results_free(struct results *r)
{
	for (size_t i = 0; i < r->n_runs; i++)
		free_run(&r->runs[i]);
	free(r->runs);
	strhash_free(&r->index);
	free(r->run_id);
	memset(r, 0, sizeof(*r));
}

/* ---- lookups ------------------------------------------------------------ */

const struct res_metric *results_metric(const struct res_run *run,
					const char *name)
{
	for (size_t i = 0; i < run->n_m; i++)
		if (!strcmp(run->m[i].name, name))
			return &run->m[i];
	return NULL;
}

int results_value(const struct res_run *run, const char *name, double *v)
{
	const struct res_metric *m = results_metric(run, name);

	if (!m || !m->numeric)
		return 0;
	*v = m->v;
	return 1;
}

int results_fast(const struct res_run *run, const char *name)
{
	size_t n = strlen(name);
	char fast[160];
	double v;

	snprintf(fast, sizeof(fast), "%s_fast", name);
	if (results_value(run, fast, &v))
		return v != 0;
	/* a test's %CPU is of the time too short to count */
	if (n > 4 && !strcmp(name + n - 4, "_cpu")) {
		snprintf(fast, sizeof(fast), "%.*s_fast", (int)(n - 4), name);
		return results_value(run, fast, &v) && v != 0;
	}
	return 0;
}

const struct res_metric *results_measured(const struct res_run *run,
					  const char *name)
{
	const struct res_metric *m = results_metric(run, name);

	return m && m->numeric && !results_fast(run, name) ? m : NULL;
}

const char *results_param(const char *params, const char *key, char *buf,
			  size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = params; p && *p;) {
		size_t n = strcspn(p, ";");

		if (n > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(buf, len, "%.*s", (int)(n - kl - 1),
				 p + kl + 1);
			return buf;
		}
		p += n + (p[n] == ';');
	}
	return NULL;
}

/* ---- statistics --------------------------------------------------------- */

double results_t975(int df)
{
	return df < 1 ? NAN : stats_t_quantile(0.975, df);
}

void results_stats(const double *v, int n, struct res_stats *s)
{
	double sum = 0, ss = 0;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->sd = s->ci = NAN;
	if (n < 1) {
		s->mean = s->hi = s->lo = NAN;
		return;
	}
	s->hi = s->lo = v[0];
	for (int i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] > s->hi)
			s->hi = v[i];
		if (v[i] < s->lo)
			s->lo = v[i];
	}
	s->mean = sum / n;
	if (n < 2)
		return;
	for (int i = 0; i < n; i++)
		ss += (v[i] - s->mean) * (v[i] - s->mean);
	s->sd = sqrt(ss / (n - 1));
	s->ci = results_t975(n - 1) * s->sd / sqrt(n);
}
