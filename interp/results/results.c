/* results: results.csv read back (RFC 4180), its rows grouped by phase run. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/csv.h"
#include "results/metrics.h"
#include "results/results.h"
#include "results/stats.h"
#include "util/grow.h"
#include "util/strbuf.h"
#include "util/strhash.h"
#include "util/units.h"

#define NOPOS ((struct pos){ 0, 0 })

/* ---- the cell index ----------------------------------------------------- */

static const char *cell_of(const void *ctx, size_t i)
{
	return ((const struct results *)ctx)->runs[i].cell;
}

static const char *metric_of(const void *ctx, size_t i)
{
	return ((const struct res_run *)ctx)->m[i].name;
}

/* ---- grouping ----------------------------------------------------------- */

static void free_run(struct res_run *run)
{
	for (size_t i = 0; i < run->n_m; i++) {
		free(run->m[i].name);
		free(run->m[i].value);
		free(run->m[i].unit);
	}
	free(run->reason);
	strhash_free(&run->m_index);
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

/* Metrics whose values are words by design (the sink's text rows). */
static int text_metric(const char *name)
{
	static const char *const text[] = { "ram_limit", "loop_io",
					    "stop_reason" };

	for (size_t i = 0; i < sizeof(text) / sizeof(*text); i++)
		if (!strcmp(name, text[i]))
			return 1;
	return 0;
}

/* One more value that is not a number: counted, the first few named. */
static int left_out(struct results *r, const char *const *f, int line)
{
	struct strbuf b = { 0 };
	char head[32];

	if (r->n_left_out++ >= 3)
		return 0;
	snprintf(head, sizeof(head), "%sline %d (", r->left_out ? ", " : "",
		 line);
	strbuf_str(&b, r->left_out ? r->left_out : "");
	strbuf_str(&b, head);
	strbuf_str(&b, f[CSV_CELL]);
	strbuf_str(&b, ", ");
	strbuf_str(&b, f[CSV_METRIC]);
	strbuf_str(&b, ": '");
	/* a quoted newline would break the message's line */
	for (const char *c = f[CSV_VALUE]; *c && b.len < 4096; c++)
		if (*c == '\n' || *c == '\r')
			strbuf_str(&b, *c == '\n' ? "\\n" : "\\r");
		else
			strbuf_add(&b, c, 1);
	strbuf_str(&b, "')");
	if (b.oom) {
		free(b.p);
		return -1;
	}
	free(r->left_out);
	r->left_out = b.p;
	return 0;
}

/* The row's value as metric's, current from now: a metric the run has
 * already is superseded (replaced where it stands), a new one added. */
static int put_metric(struct results *r, struct res_run *run,
		      const char *const *f, int line)
{
	size_t at = strhash_find(&run->m_index, f[CSV_METRIC], metric_of,
				 run);
	char *value = strdup(f[CSV_VALUE]), *unit = strdup(f[CSV_UNIT]);
	struct res_metric *m;
	int number;
	double v = 0;

	if (!value || !unit)
		goto oom;
	number = !units_decimal(value, strlen(value), &v);
	/* NA is a value a killed run lost, written by the resume: no
	 * figure, and no damage either (results_left_out_note counts it) */
	if (!number && !text_metric(f[CSV_METRIC]) &&
	    strcmp(value, RESULTS_LOST) && left_out(r, f, line))
		goto oom;
	if (at) {
		m = &run->m[at - 1];
		free(m->value);
		free(m->unit);
	} else {
		char *name = strdup(f[CSV_METRIC]);

		if (!name ||
		    strhash_reserve(&run->m_index, run->n_m + 1, metric_of,
				    run) ||
		    !(m = grow_array(run->m, &run->cap_m, run->n_m + 1,
				     sizeof(*m), 16))) {
			free(name);
			goto oom;
		}
		run->m = m;
		m = &run->m[run->n_m];
		m->name = name;
		*strhash_slot(&run->m_index, name, metric_of, run) =
			++run->n_m;
	}
	m->value = value;
	m->unit = unit;
	m->v = v;
	m->numeric = number;
	return 0;
oom:
	free(value);
	free(unit);
	return -1;
}

static const char *const status_names[] = {
	[RES_NONE] = "", [RES_OK] = "ok", [RES_FAILED] = "failed",
	[RES_SKIPPED] = "skipped",
};

const char *results_status_name(enum res_status s)
{
	return (unsigned)s < RES_SKIPPED + 1u ? status_names[s] : "";
}

enum res_status results_status_parse(const char *word)
{
	for (int s = RES_OK; s <= RES_SKIPPED; s++)
		if (!strcmp(word, status_names[s]))
			return (enum res_status)s;
	return RES_NONE;
}

/* The last status row is current; ok has no reason; a word not a
 * status's is a failure's. */
static int set_status(struct res_run *run, const char *const *f)
{
	const char *v = f[CSV_VALUE];

	run->status = results_status_parse(v);
	if (run->status == RES_NONE)
		run->status = RES_FAILED;
	free(run->reason);
	run->reason = NULL;
	if (run->status == RES_OK)
		return 0;
	run->reason = strdup(*f[CSV_UNIT] ? f[CSV_UNIT] : v);
	return run->reason ? 0 : -1;
}

/* A row into its run: one current value per (cell id, metric), the
 * last written (see results_load). */
static int add_row(struct results *r, const char *const *f, int line)
{
	size_t at = strhash_find(&r->index, f[CSV_CELL], cell_of, r);
	struct res_run *run = at ? &r->runs[at - 1] : NULL;

	if (!run) {
		run = new_run(r, f);
		if (!run)
			return -1;
	}
	if (!r->run_id && !(r->run_id = strdup(f[CSV_RUN_ID])))
		return -1;
	if (!strcmp(f[CSV_METRIC], "status"))
		return set_status(run, f);
	return put_metric(r, run, f, line);
}

/* ---- loading ------------------------------------------------------------ */

struct load {
	struct results *r;
	const char *path;
	struct diag *d;
};

static int load_row(void *ctx, const char *const *f, int line)
{
	struct load *l = ctx;

	if (add_row(l->r, f, line))
		return diag_set(l->d, l->path, NULL, NOPOS, "out of memory");
	return 0;
}

int results_load(struct results *r, const char *path, struct diag *d)
{
	struct load l = { r, path, d };
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
	free(r->left_out);
	memset(r, 0, sizeof(*r));
}

/* The current values that are NA: figures a killed run lost. */
static size_t count_lost(const struct results *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_runs; i++)
		for (size_t k = 0; k < r->runs[i].n_m; k++)
			n += !strcmp(r->runs[i].m[k].value, RESULTS_LOST);
	return n;
}

int results_left_out_note(const struct results *r, char *buf, size_t len)
{
	size_t lost = count_lost(r);
	int at = 0;

	if (!r->n_left_out && !lost)
		return 0;
	if (r->n_left_out)
		at = snprintf(buf, len, "%zu row%s left out (not a finite "
			      "decimal number): %s%s", r->n_left_out,
			      r->n_left_out == 1 ? "" : "s",
			      r->left_out ? r->left_out : "",
			      r->n_left_out > 3 ? ", ..." : "");
	if (lost && at >= 0 && (size_t)at < len)
		snprintf(buf + at, len - at, "%s%zu value%s lost (NA: a killed "
			 "run did not write %s; log.txt names %s)",
			 at ? "; " : "", lost, lost == 1 ? "" : "s",
			 lost == 1 ? "it" : "them", lost == 1 ? "it" : "them");
	return 1;
}

/* ---- lookups ------------------------------------------------------------ */

const struct res_metric *results_metric(const struct res_run *run,
					const char *name)
{
	size_t at = strhash_find(&run->m_index, name, metric_of, run);

	return at ? &run->m[at - 1] : NULL;
}

int results_value(const struct res_run *run, const char *name, double *v)
{
	const struct res_metric *m = results_metric(run, name);

	if (!m || !m->numeric)
		return 0;
	*v = m->v;
	return 1;
}

int results_mean(const struct results *r, const char *label,
		 const char *phase, const char *params, const double *threads,
		 const char *metric, double *out)
{
	double sum = 0, v, t;
	int n = 0;

	for (size_t i = 0; i < r->n_runs; i++) {
		const struct res_run *x = &r->runs[i];

		if (strcmp(x->fs_label, label) || strcmp(x->phase, phase) ||
		    (*phase && x->status != RES_OK) ||
		    (params && strcmp(x->params, params)) ||
		    (threads && (!results_value(x, "threads", &t) ||
				 t != *threads)) ||
		    !results_value(x, metric, &v))
			continue;
		sum += v;
		n++;
	}
	if (n)
		*out = sum / n;
	return n;
}

int results_fast(const struct res_run *run, const char *name)
{
	size_t n = strlen(name);
	char fast[METRICS_METRIC_LEN + 8];
	double v;

	/* a longer name is none fsplan writes, nor its _fast row */
	if (n > METRICS_METRIC_LEN)
		return 0;
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

int results_keep(struct results *r, const char *keep)
{
	size_t k = 0;

	for (size_t i = 0; i < r->n_runs; i++) {
		if (!keep[i]) {
			free_run(&r->runs[i]);
			continue;
		}
		if (k != i)
			r->runs[k] = r->runs[i];
		k++;
	}
	r->n_runs = k;
	/* the index points at places that moved: made anew */
	strhash_free(&r->index);
	if (strhash_reserve(&r->index, k + 1, cell_of, r))
		return -1;
	for (size_t i = 0; i < k; i++)
		*strhash_slot(&r->index, r->runs[i].cell, cell_of, r) = i + 1;
	return 0;
}
