/* compare: `fsplan compare` — two runs (or two configs of one), cell by cell,
 * with Welch's t-test. */
#include <errno.h>
#include <fnmatch.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/cmprows.h"
#include "report/compare.h"
#include "report/fig.h"
#include "report/html.h"
#include "report/leftout.h"
#include "report/outfmt.h"
#include "report/overtime.h"
#include "report/pairing.h"
#include "report/rank.h"
#include "report/table.h"
#include "results/csv.h"
#include "results/stats.h"
#include "util/diag.h"
#include "util/grow.h"
#include "util/opts.h"

static const char *const verdict_name[] = {
	[V_BETTER] = "better", [V_WORSE] = "worse",
	[V_SAME] = "no significant difference", [V_UNKNOWN] = "cannot tell",
};

/* ---- text --------------------------------------------------------------- */

static void num(char *buf, size_t len, const char *fmt, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
}

/* The interval of a row: in percent of A's mean, or in its unit. */
static void interval(char *buf, size_t len, const struct cmprow *r)
{
	char lo[FIG_LEN], hi[FIG_LEN];
	int pct = !isnan(r->lo_pct);

	if (!r->tested) {
		snprintf(buf, len, "-");
		return;
	}
	fig_text(lo, sizeof(lo), pct ? r->lo_pct : r->w.lo, 1, NULL,
		 pct ? "%" : NULL);
	fig_text(hi, sizeof(hi), pct ? r->hi_pct : r->w.hi, 1, NULL,
		 pct ? "%" : NULL);
	snprintf(buf, len, "[%s, %s]", lo, hi);
}

static void text_head(FILE *f, const struct pairing *pg,
		      const struct compare_opts *o)
{
	const struct pairing_side *a = &pg->side[0], *b = &pg->side[1];

	fputs("fsplan compare: ", f);
	if (pg->one_run)
		fprintf(f, "in %s (run %s), A = config %s, B = config %s\n",
			a->dir, a->run_id, a->label, b->label);
	else
		fprintf(f, "A = %s (run %s)%s%s, B = %s (run %s)%s%s\n",
			a->dir, a->run_id, a->label ? ", config " : "",
			a->label ? a->label : "", b->dir, b->run_id,
			b->label ? ", config " : "", b->label ? b->label : "");
	fprintf(f, "%s\n", pg->plans.p ? pg->plans.p : "");
	for (size_t i = 0; i < pg->n_notes; i++)
		fprintf(f, "note: %s\n", pg->notes[i]);
	fprintf(f, "change: (B - A) / A; %g%% CI and Welch's t-test "
		"(Welch-Satterthwaite df, Student's t, alpha %g): of B / A "
		"on the logarithms for a figure positive in every run (never "
		"below -100%%), else of B - A\n", 100 * (1 - o->alpha),
		o->alpha);
	fputs(o->metric.n ? "(the metrics --metric names)\n" :
	      "(each phase's key metrics: --metric GLOB for others)\n", f);
}

/* The table of phase's rows into g (empty when it has none): 0 or -1. */
static int phase_table(struct table *g, const struct cmprows *t,
		      const char *phase, const struct pairing *pg,
		      double alpha)
{
	static const char *const head[] = { "config", "params", "metric",
		"A n", "A mean", "A stdev", "B n", "B mean", "B stdev",
		"change", NULL, "p", "verdict" };
	const char *row[13];
	char ci_head[32], cell[10][2 * TABLE_NUM], flag[3 * TABLE_NUM];
	int params = 0, config = !pg->one_run && !pg->side[0].label;
	int ncol = 0, left = 0;

	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->row[i].pr->phase, phase))
			params |= *t->row[i].pr->params != '\0';
	snprintf(ci_head, sizeof(ci_head), "%g%% CI", 100 * (1 - alpha));
	memset(g, 0, sizeof(*g));
	for (int k = 0; k < 13; k++)
		if ((k != 0 || config) && (k != 1 || params)) {
			row[ncol++] = k == 10 ? ci_head : head[k];
			if (k <= 2)
				left = ncol;
		}
	if (table_init(g, ncol, left, row, NULL))
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		const struct cmprow *r = &t->row[i];
		int c = 0;

		if (strcmp(r->pr->phase, phase))
			continue;
		if (config)
			row[c++] = r->pr->label_a;
		if (params)
			row[c++] = *r->pr->params ? r->pr->params : "-";
		row[c++] = r->metric;
		snprintf(cell[0], sizeof(cell[0]), "%d", r->a.n);
		fig_text(cell[1], sizeof(cell[0]), r->a.mean, 0, NULL, NULL);
		fig_text(cell[2], sizeof(cell[0]), r->a.sd, 0, NULL, NULL);
		snprintf(cell[3], sizeof(cell[0]), "%d", r->b.n);
		fig_text(cell[4], sizeof(cell[0]), r->b.mean, 0, NULL, NULL);
		fig_text(cell[5], sizeof(cell[0]), r->b.sd, 0, NULL, NULL);
		fig_text(cell[6], sizeof(cell[0]), r->change, 1, NULL, "%");
		interval(cell[7], sizeof(cell[0]), r);
		num(cell[8], sizeof(cell[0]), "%.2g", r->tested ? r->ratio ?
		    r->lw.p : r->w.p : NAN);
		for (int k = 0; k < 9; k++)
			row[c++] = cell[k];
		/* a side never steady: its mean is of a moving figure */
		if (overtime_flag(r->pr->a, r->pr->n_a, r->pr->b, r->pr->n_b,
				  cell[9], sizeof(cell[9])))
			snprintf(flag, sizeof(flag), "%s; %s",
				 verdict_name[r->v], cell[9]);
		row[c++] = *cell[9] ? flag : verdict_name[r->v];
		if (table_row(g, row, 0))
			return -1;
	}
	return 0;
}

static int text_phase(FILE *f, const struct cmprows *t, const char *phase,
		      const struct pairing *pg, double alpha)
{
	struct table g;
	int rc = phase_table(&g, t, phase, pg, alpha);

	if (!rc) {
		fprintf(f, "\n== phase %s ==\n", phase);
		table_text(f, &g);
	}
	table_free(&g);
	return rc;
}

/* Whether phase has a row in t. */
static int has_rows(const struct cmprows *t, const char *phase)
{
	for (size_t k = 0; k < t->n; k++)
		if (!strcmp(t->row[k].pr->phase, phase))
			return 1;
	return 0;
}

/* The metrics left out because bonnie++ timed them too fast ("+++++"),
 * on a line of its own; nothing when none were. */
static void fast_note(FILE *f, const struct cmprows *t)
{
	if (t->n_fast)
		fprintf(f, "(%zu metric%s of a cell not compared: every run "
			"timed %s too fast to count, bonnie++'s +++++)\n",
			t->n_fast, t->n_fast == 1 ? "" : "s",
			t->n_fast == 1 ? "it" : "them");
}

static int write_text(FILE *f, const struct cmprows *t,
		      const struct pairing *pg, const struct compare_opts *o)
{
	text_head(f, pg, o);
	for (size_t p = 0; p < pg->n_phases; p++)
		if (has_rows(t, pg->phases[p]) &&
		    text_phase(f, t, pg->phases[p], pg, o->alpha))
			return -1;
	if (!t->n)
		fputs("\nno metric to compare: no pair has a key metric (or "
		      "one --metric matches)\n", f);
	fprintf(f, "\n== %zu comparison%s: %zu better, %zu worse, %zu no "
		"significant difference, %zu cannot tell ==\n", t->n,
		t->n == 1 ? "" : "s",
		t->count[V_BETTER], t->count[V_WORSE], t->count[V_SAME],
		t->count[V_UNKNOWN]);
	fast_note(f, t);
	leftout_print(f, pg);
	return 0;
}

/* ---- html --------------------------------------------------------------- */

/* What fn writes as text, escaped in a <pre> under heading h2 (when
 * not NULL), nothing when fn writes nothing: the head and the footer
 * read as they do in the text output. */
static int html_pre(FILE *f, const char *h2,
		    void (*fn)(FILE *, const void *, const void *),
		    const void *a, const void *b)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return -1;
	fn(m, a, b);
	if (fclose(m)) {
		free(text);
		return -1;
	}
	if (len && h2)
		fprintf(f, "<h2>%s</h2>\n", h2);
	if (len) {
		fputs("<pre>", f);
		html_text(f, text);
		fputs("</pre>\n", f);
	}
	free(text);
	return 0;
}

static void head_of(FILE *f, const void *pg, const void *o)
{
	text_head(f, pg, o);
}

static void footer_of(FILE *f, const void *pg, const void *t)
{
	fast_note(f, t);
	leftout_print(f, pg);
}

/* A row's two means as bars, A then B, B coloured by the verdict. */
static void html_pair_chart(FILE *f, const struct cmprow *r)
{
	static const char *const kind[] = { [V_BETTER] = "better",
		[V_WORSE] = "worse", [V_SAME] = "same", [V_UNKNOWN] = NULL };
	struct strbuf title = { 0 }, la = { 0 }, lb = { 0 };
	const char *label[2], *kinds[2] = { NULL, kind[r->v] };
	double mean[2] = { r->a.mean, r->b.mean }, ci[2] = { r->a.ci, r->b.ci };
	int count[2] = { r->a.n, r->b.n };
	struct html_bars b = { NULL, verdict_name[r->v], 2, label, mean, ci,
			       count, 3, kinds };

	strbuf_printf(&title, "%s%s%s: %s%s%s%s", r->pr->phase,
		      *r->pr->params ? " " : "", r->pr->params, r->metric,
		      *r->unit ? " (" : "", r->unit, *r->unit ? ")" : "");
	strbuf_printf(&la, "A %s", r->pr->label_a);
	strbuf_printf(&lb, "B %s", r->pr->label_b);
	if (!title.oom && !la.oom && !lb.oom) {
		b.title = title.p;
		label[0] = la.p;
		label[1] = lb.p;
		html_bar_chart(f, &b);
	}
	free(title.p);
	free(la.p);
	free(lb.p);
}

static int write_html(FILE *f, const struct cmprows *t,
		      const struct pairing *pg, const struct compare_opts *o)
{
	html_begin(f, "fsplan compare");
	fputs("<h1>fsplan compare</h1>\n", f);
	if (html_pre(f, NULL, head_of, pg, o))
		return -1;
	html_textf(f, "%zu comparisons: %zu better, %zu worse, %zu no "
		   "significant difference, %zu cannot tell", t->n,
		   t->count[V_BETTER], t->count[V_WORSE], t->count[V_SAME],
		   t->count[V_UNKNOWN]);
	if (!t->n)
		html_textf(f, "; no metric to compare: no pair has a key "
			   "metric (or one --metric matches)");
	for (size_t p = 0; p < pg->n_phases; p++) {
		struct table g;

		if (!has_rows(t, pg->phases[p]))
			continue;
		fputs("<h2>phase ", f);
		html_text(f, pg->phases[p]);
		fputs("</h2>\n", f);
		if (phase_table(&g, t, pg->phases[p], pg, o->alpha)) {
			table_free(&g);
			return -1;
		}
		table_html(f, &g);
		table_free(&g);
		for (size_t k = 0; k < t->n; k++)
			if (!strcmp(t->row[k].pr->phase, pg->phases[p]))
				html_pair_chart(f, &t->row[k]);
	}
	if (html_pre(f, "not compared", footer_of, pg, t))
		return -1;
	html_end(f);
	return 0;
}

/* ---- csv ---------------------------------------------------------------- */

static int field(FILE *f, const char *s, int last)
{
	if (csv_fput(f, s))
		return -1;
	return fputc(last ? '\n' : ',', f) == EOF ? -1 : 0;
}

static int fnum(FILE *f, double v, int last)
{
	char buf[64];

	num(buf, sizeof(buf), "%.10g", v);
	return field(f, isinf(v) ? (v > 0 ? "inf" : "-inf") : buf, last);
}

static int write_csv(FILE *f, const struct cmprows *t)
{
	static const char *const head[] = { "phase", "config_a", "config_b",
		"params", "metric", "unit", "better", "a_n", "a_mean",
		"a_stdev", "b_n", "b_mean", "b_stdev", "change_pct", "diff",
		"diff_lo", "diff_hi", "change_lo_pct", "change_hi_pct", "df",
		"t", "p", "verdict" };
	const size_t nh = sizeof(head) / sizeof(head[0]);
	int rc = 0;

	for (size_t k = 0; k < nh; k++)
		rc |= field(f, head[k], k + 1 == nh);
	for (size_t i = 0; i < t->n; i++) {
		const struct cmprow *r = &t->row[i];
		const double nan = NAN;
		const struct stats_welch *w = &r->w;
		char na[16], nb[16];

		snprintf(na, sizeof(na), "%d", r->a.n);
		snprintf(nb, sizeof(nb), "%d", r->b.n);
		rc |= field(f, r->pr->phase, 0);
		rc |= field(f, r->pr->label_a, 0);
		rc |= field(f, r->pr->label_b, 0);
		rc |= field(f, r->pr->params, 0);
		rc |= field(f, r->metric, 0);
		rc |= field(f, r->unit, 0);
		rc |= field(f, r->lower ? "lower" : "higher", 0);
		rc |= field(f, na, 0);
		rc |= fnum(f, r->a.mean, 0);
		rc |= fnum(f, r->a.sd, 0);
		rc |= field(f, nb, 0);
		rc |= fnum(f, r->b.mean, 0);
		rc |= fnum(f, r->b.sd, 0);
		rc |= fnum(f, r->change, 0);
		rc |= fnum(f, r->tested ? w->diff : r->b.mean - r->a.mean, 0);
		rc |= fnum(f, r->tested ? w->lo : nan, 0);
		rc |= fnum(f, r->tested ? w->hi : nan, 0);
		rc |= fnum(f, r->lo_pct, 0);
		rc |= fnum(f, r->hi_pct, 0);
		w = r->ratio ? &r->lw : w;	/* the test of the verdict */
		rc |= fnum(f, r->tested ? w->df : nan, 0);
		rc |= fnum(f, r->tested ? w->t : nan, 0);
		rc |= fnum(f, r->tested ? w->p : nan, 0);
		rc |= field(f, verdict_name[r->v], 1);
	}
	return rc;
}

/* ---- the command -------------------------------------------------------- */

/* The cells both sides ran whose runs failed or were skipped in B but
 * not in A: a regression too, and the worst kind. */
static size_t newly_not_ok(const struct pairing *pg)
{
	size_t n = 0;

	for (size_t i = 0; i < pg->n_pairs; i++)
		n += pairing_both(&pg->pairs[i]) && pg->pairs[i].bad_b &&
		     !pg->pairs[i].bad_a;
	return n;
}

/* The cells ok in A that B has no result of (a shard left out of B's
 * merge, a cell B's run never reached): two runs only, since two configs
 * of a plan may well have other cells. */
static size_t missing_in_b(const struct pairing *pg)
{
	size_t n = 0;

	if (pg->side[0].label)
		return 0;
	for (size_t i = 0; i < pg->n_pairs; i++)
		n += pg->pairs[i].n_a && !pg->pairs[i].bad_a &&
		     !pg->pairs[i].n_b && !pg->pairs[i].bad_b;
	return n;
}

/* The regressions --fail-on-regression counts, as lines in notes; how
 * many kinds there were. */
static int regressions(const struct compare_opts *o, const struct cmprows *t,
		       const struct pairing *pg, struct strbuf *notes)
{
	size_t lost, worse = t->count[V_WORSE];
	int kinds = 0;

	if (!o->fail_on_regression)
		return 0;
	if (worse && ++kinds)
		strbuf_printf(notes, "%zu metric%s significantly worse in B "
			      "(--fail-on-regression)\n", worse,
			      worse == 1 ? " is" : "s are");
	if ((lost = newly_not_ok(pg)) && ++kinds)
		strbuf_printf(notes, "%zu cell%s not ok in B where A's runs "
			      "were (--fail-on-regression; the reasons are at "
			      "the end of the comparison)\n", lost,
			      lost == 1 ? " is" : "s are");
	if ((lost = missing_in_b(pg)) && ++kinds)
		strbuf_printf(notes, "%zu cell%s ok in A %s no result in B "
			      "(--fail-on-regression; listed as 'only in A' "
			      "at the end of the comparison)\n", lost,
			      lost == 1 ? "" : "s", lost == 1 ? "has" : "have");
	return kinds;
}

/* Pair o's runs and test each pair's metrics into t; notes gets the
 * pairing's warnings. 0, or -1 with d filled (pairing_free either way). */
static int rows_of(const struct compare_opts *o, struct pairing *pg,
		   struct cmprows *t, struct strbuf *notes, struct diag *d)
{
	int bad = pairing_build(pg, o->dirs.v, o->dirs.n, o->label.v, d);

	strbuf_add(notes, pg->warn.p ? pg->warn.p : "", pg->warn.len);
	if (bad)
		return -1;
	for (size_t i = 0; i < pg->n_pairs; i++)
		if (pairing_both(&pg->pairs[i]))
			bad |= cmprows_pair(t, &pg->pairs[i], pg,
					    o->metric.n ? o->metric.v : NULL,
					    o->alpha);
	return bad ? diag_fail(d, DIAG_SYSTEM, 0, "out of memory") : 0;
}

int compare_run(const struct compare_opts *o, struct strbuf *notes,
		struct diag *d)
{
	struct outfile of;
	struct pairing pg;
	struct cmprows t = { 0 };
	FILE *f = NULL;
	int rc = -1, bad = 0;

	if (o->out && outfmt_inside(o->out, o->dirs.v, o->dirs.n))
		return diag_fail(d, DIAG_INPUT, 0, "-o %s is inside a run "
				 "directory: its files are the run's record",
				 o->out);
	if (rows_of(o, &pg, &t, notes, d))
		goto out;
	f = outfmt_open(&of, o->out);
	if (!f) {
		diag_fail(d, DIAG_SYSTEM, errno, "cannot write %s", o->out);
		goto out;
	}
	bad = o->fmt == FMT_CSV ? write_csv(f, &t) :
	      o->fmt == FMT_HTML ? write_html(f, &t, &pg, o) :
	      write_text(f, &t, &pg, o);
	bad |= ferror(f);
	if (outfmt_close(&of, !bad) || bad) {
		diag_fail(d, DIAG_SYSTEM, errno, "cannot write %s",
			  o->out ? o->out : "standard output");
		goto out;
	}
	rc = regressions(o, &t, &pg, notes) ? 1 : 0;
out:
	free(t.row);
	pairing_free(&pg);
	return rc;
}

int compare_family(const struct compare_opts *o, struct compare_family *fam,
		   struct diag *d)
{
	struct strbuf notes = { 0 };
	struct pairing pg;
	struct cmprows t = { 0 };
	unsigned char *keep = NULL;
	long kept = -1;

	memset(fam, 0, sizeof(*fam));
	if (rows_of(o, &pg, &t, &notes, d))
		kept = -1;
	else if (!(keep = malloc(t.n ? t.n : 1)) ||
		 (kept = cmprows_holm(&t, o->alpha, keep)) < 0)
		kept = diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	for (size_t i = 0; kept >= 0 && i < t.n; i++) {
		const struct cmprow *r = &t.row[i];

		fam->compared++;
		fam->untold += r->v == V_UNKNOWN;
		fam->marked += r->v == V_BETTER || r->v == V_WORSE;
		fam->marked_better += r->v == V_BETTER;
		if (!keep[i])
			continue;
		fam->differ++;
		strbuf_printf(&fam->which, "%s%s/%s%s%s %s (%s)",
			      fam->which.len ? ", " : "", r->pr->label_a,
			      r->pr->phase, *r->pr->params ? " " : "",
			      r->pr->params, r->metric, verdict_name[r->v]);
	}
	if (kept >= 0 && fam->which.oom)
		kept = diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	free(notes.p);
	free(keep);
	free(t.row);
	pairing_free(&pg);
	return kept < 0 ? -1 : 0;
}

int compare_family_leans(const struct compare_family *fam)
{
	size_t tested = fam->compared - fam->untold;

	return fam->marked >= 3 && 10 * fam->marked >= tested;
}
