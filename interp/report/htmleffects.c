/* htmleffects: the effects on the html page — Pareto chart, main effects. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/effects.h"
#include "report/fig.h"
#include "report/html.h"
#include "report/table.h"

/* |effect| of each estimated term, largest first, CI whiskers; the
 * significant ones "better" (green), the others "same" (grey). */
static int pareto(FILE *f, const struct eff_block *bk, const char *title)
{
	size_t n;
	const struct effm_term **v = effects_sorted(bk, &n);
	struct strbuf *names = calloc(n + 1, sizeof(*names));
	const char **label = calloc(n + 1, sizeof(*label));
	const char **kind = calloc(n + 1, sizeof(*kind));
	double *mean = calloc(n + 1, sizeof(*mean));
	double *ci = calloc(n + 1, sizeof(*ci));
	int *count = calloc(n + 1, sizeof(*count)), rc = -1;

	if (!v || !names || !label || !kind || !mean || !ci || !count)
		goto out;
	for (size_t i = 0; i < n; i++) {
		effects_term_name(bk, v[i], &names[i]);
		label[i] = names[i].p ? names[i].p : "?";
		mean[i] = fabs(v[i]->effect);
		ci[i] = v[i]->ci ? (v[i]->hi - v[i]->lo) / 2 : NAN;
		count[i] = bk->n_rows;
		kind[i] = v[i]->significant ? "better" : "same";
	}
	html_bar_chart(f, &(struct html_bars){ title, "|effect| with its "
		       "95% CI, largest first; green: significant (the CI "
		       "excludes 0); n: the design's rows", n, label, mean,
		       ci, count, 3, kind });
	rc = 0;
out:
	for (size_t i = 0; names && i < n; i++)
		free(names[i].p);
	free(names);
	free(label);
	free(kind);
	free(mean);
	free(ci);
	free(count);
	free(v);
	return rc;
}

/* Per factor, the mean at - and at + joined by a line. */
static int main_plot(FILE *f, const struct eff_block *bk, const char *title)
{
	static const double x[2] = { -1, 1 };
	struct html_series *s = calloc((size_t)bk->k + 1, sizeof(*s));
	double *y = calloc(2 * (size_t)bk->k + 1, sizeof(*y));

	if (!s || !y) {
		free(s);
		free(y);
		return -1;
	}
	for (int j = 0; j < bk->k; j++) {
		y[2 * j] = bk->e.t[j].mean_minus;
		y[2 * j + 1] = bk->e.t[j].mean_plus;
		s[j] = (struct html_series){ bk->factor[j], x, y + 2 * j, 2 };
	}
	html_line_chart(f, title, "level (-1: baseline, +1)", bk->unit, s,
			(size_t)bk->k);
	free(s);
	free(y);
	return 0;
}

static int html_block(FILE *f, const struct eff_block *bk)
{
	char pred[FIG_LEN];
	struct strbuf title = { 0 }, t2 = { 0 };
	struct table t = { 0 };
	int rc = -1;

	effects_title(bk, &title);
	if (title.oom)
		goto out;
	fputs("<h3>", f);
	html_text(f, title.p);
	fputs("</h3>\n", f);
	if (bk->missing.len) {
		fputs("<p class=\"warn\">design incomplete, no effects "
		      "computed: no ok repetition in ", f);
		html_text(f, bk->missing.p);
		fputs("</p>\n", f);
		rc = 0;
		goto out;
	}
	strbuf_printf(&t2, "|effect| on %s%s%s%s of each term", bk->metric,
		      bk->unit[0] ? " (" : "", bk->unit, bk->unit[0] ? ")" : "");
	if (t2.oom || pareto(f, bk, t2.p))
		goto out;
	t2.len = 0;
	strbuf_printf(&t2, "main effects on %s: mean at - and at +",
		      bk->metric);
	if (t2.oom || main_plot(f, bk, t2.p) ||
	    effects_table(bk, &t))
		goto out;
	table_html(f, &t);
	fputs("<p class=\"note\">", f);
	for (const char *p = bk->aliases.p; p && *p;) {
		size_t n = strcspn(p, "\n");

		html_textf(f, "%.*s", (int)n, p);
		fputs("<br>\n", f);
		p += n + (p[n] == '\n');
	}
	html_textf(f, "Best: %s, predicted %s %s (%s is better; "
		   "significant effects only). ", bk->best.p,
		   fig_text(pred, sizeof(pred), bk->predicted, 0, NULL, NULL),
		   bk->unit, bk->lower ? "lower" : "higher");
	if (bk->note.len)
		html_textf(f, "Note: %s. ", bk->note.p);
	fputs("Confirm: <code>", f);
	html_text(f, bk->command.p);
	fputs("</code></p>\n", f);
	rc = 0;
out:
	table_free(&t);
	free(title.p);
	free(t2.p);
	return rc;
}

int effects_html(FILE *f, const struct effects *ef)
{
	fputs("<h2 id=\"effects\">Effects of the design's factors</h2>\n"
	      "<p class=\"note\">Main effect: the mean at + less the mean at "
	      "-, with its 95% CI (from the repetitions, or Lenth's pseudo "
	      "standard error when unreplicated).</p>\n", f);
	for (size_t i = 0; i < ef->n; i++)
		if (html_block(f, &ef->b[i]))
			return -1;
	return 0;
}
