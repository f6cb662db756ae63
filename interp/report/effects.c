/* effects: a run's design rows, grouped per phase, parameters and metric, and
 * their effects computed. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/effects.h"
#include "report/html.h"
#include "report/manifestread.h"
#include "report/rank.h"
#include "report/view.h"
#include "results/manifest.h"

/* What one design is read into. */
struct dsg {
	json_t *o;
	const char *label, *type;
	enum design_kind kind;
	const char **factor;
	int k, n, runs;
	const char **row;		/* each row's config label */
	signed char *x;
};

int effects_has_design(json_t *m)
{
	return json_array_size(json_object_get(m, "designs")) > 0;
}

static enum design_kind kind_of(const char *type)
{
	static const char *const names[] = { "", "full", "fractional",
		"plackett-burman", "oat" };

	for (int i = 1; i < 5; i++)
		if (!strcmp(type, names[i]))
			return (enum design_kind)i;
	return DESIGN_NONE;
}

/* The configs of design d (their "design": {"entry", "levels"}). */
static int dsg_rows(json_t *m, struct dsg *d)
{
	json_int_t entry = json_integer_value(json_object_get(d->o, "entry"));
	json_t *confs = json_object_get(m, "configs"), *c;
	size_t i, cap = json_array_size(confs);

	d->row = calloc(cap + 1, sizeof(*d->row));
	d->x = calloc((cap + 1) * (size_t)d->k, 1);
	if (!d->row || !d->x)
		return -1;
	json_array_foreach(confs, i, c) {
		json_t *ds = json_object_get(c, "design");
		const char *lv = manifestread_str(ds, "levels", "");
		const char *label = manifestread_str(c, "label", NULL);

		if (!ds || !label || json_integer_value(json_object_get(ds,
		    "entry")) != entry || strlen(lv) != (size_t)d->k)
			continue;
		for (int j = 0; j < d->k; j++)
			d->x[d->n * d->k + j] = lv[j] == '+' ? 1 : -1;
		d->row[d->n++] = label;
	}
	return 0;
}

static int dsg_read(json_t *m, json_t *o, struct dsg *d)
{
	json_t *fs = json_object_get(o, "factors"), *f;
	size_t i;

	memset(d, 0, sizeof(*d));
	d->o = o;
	d->label = manifestread_str(o, "label", "?");
	d->type = manifestread_str(o, "type", "?");
	d->kind = kind_of(d->type);
	d->runs = (int)json_integer_value(json_object_get(o, "runs"));
	d->k = (int)json_array_size(fs);
	if (!(d->factor = calloc((size_t)d->k + 1, sizeof(*d->factor))))
		return -1;
	json_array_foreach(fs, i, f)
		d->factor[i] = manifestread_str(f, "name", "?");
	return dsg_rows(m, d);
}

static void dsg_free(struct dsg *d)
{
	free(d->factor);
	free(d->row);
	free(d->x);
}

/* The row of d whose config is label, or -1. */
static int row_of(const struct dsg *d, const char *label)
{
	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->row[i], label))
			return i;
	return -1;
}

/* Sums of a metric per row: count, sum, sum of squares about a shift. */
struct sums {
	int *reps;
	double *sum, *sq, *y;
	const char *unit;
};

/* The ok values of metric at phase and params, per row of d: their
 * count and sum, or (second) their squares about the rows' means y. */
static void collect(const struct results *r, const struct dsg *d,
		    const char *phase, const char *params,
		    const char *metric, struct sums *s, int second)
{
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct res_run *x = &r->runs[i];
		const struct res_metric *v;
		int row;

		if (x->status != RES_OK || strcmp(x->phase, phase) ||
		    strcmp(x->params, params) ||
		    (row = row_of(d, x->fs_label)) < 0 ||
		    !(v = results_measured(x, metric)) || !isfinite(v->v))
			continue;
		if (second) {
			s->sq[row] += (v->v - s->y[row]) * (v->v - s->y[row]);
			continue;
		}
		s->reps[row]++;
		s->sum[row] += v->v;
		if (!s->unit && v->unit && *v->unit)
			s->unit = v->unit;
	}
}

/* A new block at the end of ef, or NULL. */
static struct eff_block *new_block(struct effects *ef)
{
	if (ef->n == ef->cap) {
		size_t cap = ef->cap ? 2 * ef->cap : 8;
		struct eff_block *b = realloc(ef->b, cap * sizeof(*b));

		if (!b)
			return NULL;
		ef->b = b;
		ef->cap = cap;
	}
	memset(&ef->b[ef->n], 0, sizeof(ef->b[ef->n]));
	return &ef->b[ef->n++];
}

/* The pooled variance of s's repetitions about their rows' means. */
static void pooled(const struct sums *s, int n, double *s2, double *df)
{
	double ss = 0;

	*df = 0;
	for (int i = 0; i < n; i++) {
		if (s->reps[i] < 2)
			continue;
		ss += s->sq[i];
		*df += s->reps[i] - 1;
	}
	*s2 = *df > 0 ? ss / *df : NAN;
}

/* The block's rows and names, from d. */
static int block_of(struct eff_block *b, const struct dsg *d,
		    const char *phase, const char *params, const char *metric)
{
	b->design = d->label;
	b->type = d->type;
	b->phase = phase;
	b->params = params;
	b->metric = metric;
	b->k = d->k;
	b->n_rows = d->n;
	b->factor = malloc(((size_t)d->k + 1) * sizeof(*b->factor));
	b->label = malloc(((size_t)d->n + 1) * sizeof(*b->label));
	b->x = malloc((size_t)d->n * (size_t)d->k + 1);
	if (!b->factor || !b->label || !b->x)
		return -1;
	memcpy(b->factor, d->factor, (size_t)d->k * sizeof(*b->factor));
	memcpy(b->label, d->row, (size_t)d->n * sizeof(*b->label));
	memcpy(b->x, d->x, (size_t)d->n * (size_t)d->k);
	return 0;
}

/* The effects of d on metric at phase and params, a block of ef; none
 * when no row has a value of it. */
static int one_metric(const struct results *r, const struct dsg *d,
		      const char *phase, const char *params,
		      const char *metric, struct effects *ef)
{
	struct sums s = { 0 };
	struct effm_in in = { d->kind, d->k, d->n, d->x, NULL, NULL, 0, 0 };
	struct eff_block *b;
	int rc = -1, any = 0;

	s.reps = calloc((size_t)d->n + 1, sizeof(*s.reps));
	s.sum = calloc((size_t)d->n + 1, sizeof(double));
	s.sq = calloc((size_t)d->n + 1, sizeof(double));
	s.y = calloc((size_t)d->n + 1, sizeof(double));
	if (!s.reps || !s.sum || !s.sq || !s.y)
		goto out;
	collect(r, d, phase, params, metric, &s, 0);
	for (int i = 0; i < d->n; i++)
		any |= s.reps[i] > 0;
	rc = 0;
	if (!any)
		goto out;
	rc = -1;
	if (!(b = new_block(ef)) || block_of(b, d, phase, params, metric))
		goto out;
	b->unit = s.unit ? s.unit : "";
	b->lower = rank_lower_is_better(metric, b->unit);
	for (int i = 0; i < d->n; i++) {
		if (!s.reps[i])
			strbuf_printf(&b->missing, "%s%s", b->missing.len ?
				      ", " : "", d->row[i]);
		else
			s.y[i] = s.sum[i] / s.reps[i];
	}
	if (d->runs > d->n)
		strbuf_printf(&b->missing, "%s%d of the design's %d rows "
			      "have no config in the manifest",
			      b->missing.len ? "; " : "", d->runs - d->n,
			      d->runs);
	rc = b->missing.len ? (b->missing.oom ? -1 : 0) : 0;
	if (b->missing.len)
		goto out;
	collect(r, d, phase, params, metric, &s, 1);
	in.y = s.y;
	in.reps = s.reps;
	pooled(&s, d->n, &in.s2, &in.df);
	if (effm_compute(&in, &b->e))
		strbuf_str(&b->missing, "(a mean that is not a number: "
			   "no effects)");
	else
		rc = effects_best(ef, b);
out:
	free(s.reps);
	free(s.sum);
	free(s.sq);
	free(s.y);
	return rc;
}

/* The metrics of phase that are effects' responses: --metric's globs
 * over the names of the design's runs, or the phase's key (else
 * seconds). NULL-ended in names (room for VIEW_MAX_KEY + 1), or a list
 * to free in *owned. */
static const char **metrics_of(const struct results *r, json_t *m,
			       const char *phase, const char *const *only,
			       const char **names, const char ***owned)
{
	const struct res_run **runs;
	const char **all;
	size_t n_all = 0, n = 0, k = 0;

	*owned = NULL;
	if (!only) {
		if (!manifestread_key(json_object_get(m, "phases"), phase,
				      names, VIEW_MAX_KEY)) {
			names[0] = "seconds";
			names[1] = NULL;
		}
		return names;
	}
	if (!(runs = view_ok_runs(r, phase, &n, (size_t[4]){ 0 })))
		return NULL;
	all = rank_metric_names(runs, n, 1, &n_all);
	free(runs);
	if (!all)
		return NULL;
	for (size_t i = 0; i < n_all; i++)
		for (size_t g = 0; only[g]; g++)
			if (!fnmatch(only[g], all[i], 0)) {
				all[k++] = all[i];
				break;
			}
	all[k] = NULL;
	return *owned = all;
}

/* Whether params is among the first n of seen; else added. */
static int seen_params(const char **seen, size_t *n, const char *params)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(seen[i], params))
			return 1;
	seen[(*n)++] = params;
	return 0;
}

/* d's blocks for phase: a parameter set at a time, each metric. */
static int one_phase(const struct results *r, json_t *m,
		     const struct dsg *d, const char *phase,
		     const char *const *only, struct effects *ef)
{
	const char *buf[VIEW_MAX_KEY + 1], **owned, **metrics;
	const char **seen = calloc(r->n_runs + 1, sizeof(*seen));
	size_t n_seen = 0;
	int rc = -1;

	metrics = metrics_of(r, m, phase, only, buf, &owned);
	if (!seen || !metrics)
		goto out;
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct res_run *x = &r->runs[i];

		if (strcmp(x->phase, phase) || row_of(d, x->fs_label) < 0 ||
		    seen_params(seen, &n_seen, x->params))
			continue;
		for (size_t j = 0; metrics[j]; j++)
			if (one_metric(r, d, phase, x->params, metrics[j],
				       ef))
				goto out;
	}
	rc = 0;
out:
	free(owned);
	free(seen);
	return rc;
}

static int one_design(const struct results *r, json_t *m, json_t *o,
		      const char *const *only, struct effects *ef)
{
	const char **phases = view_phases(r);
	struct dsg d;
	int rc = -1;

	if (!phases)
		return -1;
	if (dsg_read(m, o, &d))
		goto out;
	for (size_t i = 0; phases[i]; i++)
		if (*phases[i] && one_phase(r, m, &d, phases[i], only, ef))
			goto out;
	rc = 0;
out:
	dsg_free(&d);
	free(phases);
	return rc;
}

int effects_build(const struct results *r, json_t *m, const char *rundir,
		  const char *const *only, struct effects *out,
		  struct diag *d)
{
	json_t *o;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->m = m;
	out->rundir = rundir;
	if (!effects_has_design(m))
		return diag_fail(d, DIAG_INPUT, 0, "%s has no design: its "
				 "plan gave no factors: and design: (DESIGN "
				 "section 9)", rundir);
	json_array_foreach(json_object_get(m, "designs"), i, o)
		if (one_design(r, m, o, only, out))
			return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	return 0;
}

void effects_free(struct effects *ef)
{
	for (size_t i = 0; i < ef->n; i++) {
		struct eff_block *b = &ef->b[i];

		effm_free(&b->e);
		free(b->factor);
		free(b->label);
		free(b->x);
		free(b->missing.p);
		free(b->aliases.p);
		free(b->best.p);
		free(b->command.p);
		free(b->note.p);
	}
	free(ef->b);
	json_decref(ef->m);
	memset(ef, 0, sizeof(*ef));
}

/* ---- the command -------------------------------------------------------- */

/* Whether some block is incomplete (its configs named in the output). */
static int incomplete(const struct effects *ef)
{
	for (size_t i = 0; i < ef->n; i++)
		if (ef->b[i].missing.len)
			return 1;
	return 0;
}

/* ef as o asks, put in place. 0, or -1 with d. */
static int effects_put(const struct effects_opts *o, const struct effects *ef,
		       struct diag *d)
{
	struct outfile of;
	FILE *f = outfmt_open(&of, o->out);
	int rc, bad;

	if (!f)
		return diag_fail(d, DIAG_SYSTEM, errno, "cannot write %s",
				 o->out);
	if (o->fmt == FMT_HTML)
		html_begin(f, "fsplan effects");
	rc = o->fmt == FMT_CSV ? effects_csv(f, ef) :
	     o->fmt == FMT_HTML ? effects_html(f, ef) : effects_text(f, ef);
	if (o->fmt == FMT_HTML)
		html_end(f);
	bad = ferror(f);
	if (outfmt_close(&of, !rc && !bad) || bad)
		return diag_fail(d, DIAG_SYSTEM, errno, "cannot write %s",
				 o->out ? o->out : "standard output");
	return rc ? diag_fail(d, DIAG_SYSTEM, 0, "out of memory") : 0;
}

int effects_run(const struct effects_opts *o, struct diag *d)
{
	struct results r;
	struct effects ef;
	struct diag ld = { 0 };
	json_error_t jerr;
	char path[4096], msg[1024];
	json_t *m;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/results.csv", o->rundir);
	if (results_load(&r, path, &ld)) {
		diag_format(&ld, msg, sizeof(msg));
		diag_release(&ld);
		return diag_fail(d, DIAG_INPUT, 0, "%s", msg);
	}
	if (!(m = manifest_load(o->rundir, &jerr))) {
		diag_fail(d, DIAG_INPUT, 0, "%s/manifest.json: %s", o->rundir,
			  jerr.text);
		goto out;
	}
	if (o->out && outfmt_clobbers(o->out, o->rundir)) {
		json_decref(m);
		diag_fail(d, DIAG_INPUT, 0, "-o %s would overwrite the run's "
			  "own record", o->out);
		goto out;
	}
	if (effects_build(&r, m, o->rundir, o->metric.n ? o->metric.v :
			  NULL, &ef, d))
		;
	else if (o->metric.n && !ef.n)
		diag_fail(d, DIAG_INPUT, 0, "--metric matches no metric of "
			  "the design's ok runs");
	else if (!effects_put(o, &ef, d))
		rc = incomplete(&ef);
	effects_free(&ef);
out:
	results_free(&r);
	return rc;
}

int effects_report(FILE *f, const struct results *r, json_t *m,
		   const char *rundir, const char *const *only, int html)
{
	struct effects ef;
	struct diag d = { 0 };
	int rc;

	if (!effects_has_design(m))
		return 0;
	rc = effects_build(r, json_incref(m), rundir, only, &ef, &d);
	if (!rc && !html)
		fputs("\n== effects of the design's factors (fsplan effects "
		      "for csv) ==\n", f);
	if (!rc)
		rc = html ? effects_html(f, &ef) : effects_text(f, &ef);
	effects_free(&ef);
	diag_release(&d);
	return rc ? -1 : 0;
}
