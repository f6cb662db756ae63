/* effectsout: the effects as text and csv, and the best combination found. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/effects.h"
#include "report/fig.h"
#include "report/manifestread.h"
#include "report/metricname.h"
#include "report/table.h"
#include "results/csv.h"

void effects_term_name(const struct eff_block *bk, const struct effm_term *t,
		       struct strbuf *b)
{
	strbuf_str(b, bk->factor[t->a]);
	if (t->b >= 0)
		strbuf_printf(b, ":%s", bk->factor[t->b]);
}

/* s as one shell word: as it is when it is plain, else in '...'. */
static void shell_word(struct strbuf *b, const char *s)
{
	if (*s && !s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
			    "OPQRSTUVWXYZ0123456789_-+=,./:@%")]) {
		strbuf_str(b, s);
		return;
	}
	strbuf_str(b, "'");
	for (; *s; s++)
		if (*s == '\'')
			strbuf_str(b, "'\\''");
		else
			strbuf_add(b, s, 1);
	strbuf_str(b, "'");
}

/* The row of bk whose signs are sign, or -1. */
static int row_with(const struct eff_block *bk, const signed char *sign)
{
	for (int r = 0; r < bk->n_rows; r++)
		if (!memcmp(bk->x + (size_t)r * (size_t)bk->k, sign,
			    (size_t)bk->k))
			return r;
	return -1;
}

/* The significant factors' levels of sign, "a=+,d=-", into b. */
static void chosen(const struct eff_block *bk, const signed char *sign,
		   struct strbuf *b)
{
	for (int j = 0; j < bk->k; j++)
		if (bk->e.t[j].significant)
			strbuf_printf(b, "%s%s=%c", b->len ? "," : "",
				      bk->factor[j], sign[j] > 0 ? '+' : '-');
}

/*
 * The command that runs the best combination again: --only that row;
 * when the design has no such row, --only the rows that share its
 * significant levels (the others cannot be fixed without a plan that
 * fsplan cannot write yet), said in the note.
 */
static void confirm(const struct effects *ef, struct eff_block *bk,
		    const signed char *sign)
{
	const char *plan = manifestread_str(ef->m, "plan.path", "PLAN");
	struct strbuf dir = { 0 }, only = { 0 };
	size_t n = strlen(ef->rundir);

	/* beside RUNDIR, whatever slashes end it */
	while (n > 1 && ef->rundir[n - 1] == '/')
		n--;
	strbuf_printf(&dir, "%.*s-confirm", (int)n, ef->rundir);
	if (row_with(bk, sign) >= 0)
		strbuf_str(&only, bk->best.p);
	else
		chosen(bk, sign, &only);
	if (row_with(bk, sign) < 0)
		strbuf_printf(&bk->note, "the best combination is not a row "
			      "of the design: it was not run; %s (fsplan "
			      "cannot write a plan with the other factors "
			      "at - yet: set them in the entry by hand)",
			      only.len ? "the command runs the rows that "
			      "share its significant levels" : "no factor "
			      "has a significant effect: the command runs "
			      "the design again");
	strbuf_str(&bk->command, "fsplan run ");
	shell_word(&bk->command, plan);
	if (only.len) {
		strbuf_str(&bk->command, " --only ");
		shell_word(&bk->command, only.p);
	}
	strbuf_str(&bk->command, " -o ");
	shell_word(&bk->command, dir.p ? dir.p : "DIR");
	free(dir.p);
	free(only.p);
}

/* The alias lines of bk's interactions, and what its kind allows. */
static void alias_lines(struct eff_block *bk)
{
	struct strbuf *b = &bk->aliases;

	if (!strcmp(bk->type, "plackett-burman"))
		strbuf_str(b, "Plackett-Burman: no interactions (each is "
			   "partly aliased with the main effects)\n");
	else if (!strcmp(bk->type, "oat"))
		strbuf_str(b, "one at a time: no interactions (each effect "
			   "is its row against the baseline)\n");
	for (size_t i = 0; i < bk->e.n; i++) {
		const struct effm_term *t = &bk->e.t[i];

		if (t->alias_main < 0)
			continue;
		effects_term_name(bk, t, b);
		strbuf_printf(b, " = %s: aliased with the main effect, not "
			      "estimated\n", bk->factor[t->alias_main]);
	}
	for (size_t i = 0; i < bk->e.n; i++) {
		size_t at = b->len;

		effects_term_name(bk, &bk->e.t[i], b);
		for (size_t j = i + 1; j < bk->e.n; j++) {
			if (bk->e.t[j].alias_of != (int)i)
				continue;
			strbuf_str(b, " = ");
			effects_term_name(bk, &bk->e.t[j], b);
		}
		if (b->oom)
			return;
		if (!strchr(b->p + at, '=')) {
			b->len = at;
			b->p[at] = '\0';
		} else {
			strbuf_str(b, ": estimated once, under the first "
				   "name\n");
		}
	}
}

int effects_best(const struct effects *ef, struct eff_block *bk)
{
	signed char *sign = malloc((size_t)bk->k + 1);
	int oat = !strcmp(bk->type, "oat");
	double pred = oat ? bk->e.t[0].mean_minus : bk->e.grand;

	if (!sign)
		return -1;
	for (int j = 0; j < bk->k; j++) {
		const struct effm_term *t = &bk->e.t[j];
		int up = (t->effect > 0) != bk->lower;

		sign[j] = -1;
		if (t->significant) {
			sign[j] = up ? 1 : -1;
			pred += oat ? (up ? t->effect : 0) :
				sign[j] * t->effect / 2;
		}
		strbuf_printf(&bk->best, "%s%s=%c", j ? "," : "",
			      bk->factor[j], sign[j] > 0 ? '+' : '-');
	}
	bk->predicted = pred;
	confirm(ef, bk, sign);
	alias_lines(bk);
	free(sign);
	return bk->best.oom || bk->command.oom || bk->note.oom ||
	       bk->aliases.oom ? -1 : 0;
}

/* ---- text --------------------------------------------------------------- */

static int by_size(const void *a, const void *b)
{
	double x = fabs((*(const struct effm_term *const *)a)->effect);
	double y = fabs((*(const struct effm_term *const *)b)->effect);

	return (x < y) - (x > y);
}

/* bk's estimated terms, largest |effect| first (free it); NULL out of
 * memory; their number in *n. */
const struct effm_term **effects_sorted(const struct eff_block *bk,
					size_t *n)
{
	const struct effm_term **v = calloc(bk->e.n + 1, sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < bk->e.n; i++)
		if (bk->e.t[i].alias_main < 0 && bk->e.t[i].alias_of < 0)
			v[(*n)++] = &bk->e.t[i];
	qsort(v, *n, sizeof(*v), by_size);
	return v;
}

/* How bk's CIs came, a line into b. */
static void how_line(const struct eff_block *bk, struct strbuf *b)
{
	const struct effm_out *e = &bk->e;
	char se[FIG_LEN];

	fig_text(se, sizeof(se), e->se_scale, 0, NULL, NULL);
	if (e->how == EFFM_REPS)
		strbuf_printf(b, "95%% CI: effect +- t(0.975, %g) * s * "
			      "sqrt(1/N+ + 1/N-), s = %s pooled over the "
			      "repetitions", e->df, se);
	else if (e->how == EFFM_LENTH)
		strbuf_printf(b, "unreplicated: 95%% CI from Lenth's pseudo "
			      "standard error, PSE = %s over %d contrasts, "
			      "t(0.975, %.2f)", se, e->m, e->df);
	else if (!strcmp(bk->type, "oat"))
		strbuf_str(b, "no CI: one at a time, unreplicated (repeat: "
			   "2 or more gives one)");
	else
		strbuf_printf(b, "no CI: %d contrasts, Lenth's needs at "
			      "least 3 (repeat: 2 or more gives one)", e->m);
}

/* The table of bk: a row per estimated term, largest first. */
int effects_table(const struct eff_block *bk, struct table *t)
{
	static const char *const name[] = { "term", "effect", "% of mean",
		"95% CI", "significant" };
	const char *unit[] = { NULL, bk->unit, NULL, bk->unit, NULL };
	const struct effm_term **v;
	size_t n;
	char cell[4][FIG_LEN * 2 + 8];

	if (table_init(t, 5, 1, name, unit) || !(v = effects_sorted(bk, &n)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct strbuf term = { 0 };
		char lo[FIG_LEN], hi[FIG_LEN];
		double pct = v[i]->effect / bk->e.grand * 100;
		const char *row[5];

		effects_term_name(bk, v[i], &term);
		fig_text(cell[0], FIG_LEN, v[i]->effect, 0, NULL, NULL);
		table_num(cell[1], TABLE_NUM, "%.1f%%",
			  isfinite(pct) ? pct : NAN);
		snprintf(cell[2], sizeof(cell[2]), "-");
		if (v[i]->ci)
			snprintf(cell[2], sizeof(cell[2]), "[%s, %s]",
				 fig_text(lo, sizeof(lo), v[i]->lo, 0, NULL, NULL),
				 fig_text(hi, sizeof(hi), v[i]->hi, 0, NULL,
					  NULL));
		row[0] = term.p ? term.p : "?";
		row[1] = cell[0];
		row[2] = cell[1];
		row[3] = cell[2];
		row[4] = v[i]->significant ? "*" : "";
		table_row(t, row, 0);
		free(term.p);
	}
	free(v);
	return t->failed ? -1 : 0;
}

/* The block's title, "fractional design of ext4 (16 rows): phase p
 * (params), metric m" into b. */
void effects_title(const struct eff_block *bk, struct strbuf *b)
{
	strbuf_printf(b, "%s design of %s (%d rows): phase %s", bk->type,
		      bk->design, bk->n_rows, bk->phase);
	if (*bk->params)
		strbuf_printf(b, " (%s)", bk->params);
	strbuf_printf(b, ", %s%s%s%s", bk->metric, *bk->unit ? " (" : "",
		      bk->unit, *bk->unit ? ")" : "");
}

static int text_block(FILE *f, const struct eff_block *bk)
{
	char mean[FIG_LEN], pred[FIG_LEN];
	struct strbuf b = { 0 };
	struct table t = { 0 };
	int rc = 0;

	effects_title(bk, &b);
	fprintf(f, "\n== effects: %s ==\n", b.p ? b.p : "?");
	b.len = 0;
	if (bk->missing.len) {
		fprintf(f, "design incomplete, no effects computed: no ok "
			"repetition of %s in %s\n", bk->metric, bk->missing.p);
		free(b.p);
		return 0;
	}
	how_line(bk, &b);
	fprintf(f, "%s\n", b.p ? b.p : "");
	if (!(rc = effects_table(bk, &t)))
		table_text(f, &t);
	table_free(&t);
	if (bk->aliases.len)
		fputs(bk->aliases.p, f);
	fprintf(f, "mean %s %s; %s is better\nbest: %s, predicted %s "
		"%s (significant effects only; the others at -)\n",
		fig_text(mean, sizeof(mean), bk->e.grand, 0, NULL, NULL),
		bk->unit, bk->lower ? "lower" : "higher", bk->best.p,
		fig_text(pred, sizeof(pred), bk->predicted, 0, NULL, NULL),
		bk->unit);
	if (bk->note.len)
		fprintf(f, "note: %s\n", bk->note.p);
	fprintf(f, "confirm: %s\n", bk->command.p);
	free(b.p);
	return rc;
}

int effects_text(FILE *f, const struct effects *ef)
{
	if (!ef->n)
		fputs("\n(effects: no phase of the design's configs reported "
		      "the metrics)\n", f);
	for (size_t i = 0; i < ef->n; i++)
		if (text_block(f, &ef->b[i]))
			return -1;
	return 0;
}

/* ---- csv ---------------------------------------------------------------- */

/* A number as a csv field: empty when it is not finite. */
static int csv_num(FILE *f, double v, int last)
{
	char buf[64] = "";

	if (isfinite(v))
		snprintf(buf, sizeof(buf), "%.10g", v);
	return fprintf(f, "%s%s", buf, last ? "\n" : ",") < 0 ? -1 : 0;
}

static int csv_block(FILE *f, const struct eff_block *bk)
{
	const struct effm_term **v;
	size_t n;
	int rc = 0;

	if (bk->missing.len)
		return 0;
	if (!(v = effects_sorted(bk, &n)))
		return -1;
	for (size_t i = 0; i < n && !rc; i++) {
		struct strbuf term = { 0 };
		const char *sig = !v[i]->ci ? "" : v[i]->significant ?
				  "1" : "0";

		effects_term_name(bk, v[i], &term);
		rc |= csv_fput(f, bk->phase) | (fputc(',', f) < 0);
		rc |= csv_fput(f, bk->params) | (fputc(',', f) < 0);
		rc |= csv_fput(f, bk->metric) | (fputc(',', f) < 0);
		rc |= csv_fput(f, term.p) | (fputc(',', f) < 0);
		rc |= csv_num(f, v[i]->effect, 0);
		rc |= csv_num(f, v[i]->effect / bk->e.grand * 100, 0);
		rc |= csv_num(f, v[i]->ci ? v[i]->lo : NAN, 0);
		rc |= csv_num(f, v[i]->ci ? v[i]->hi : NAN, 0);
		rc |= fprintf(f, "%s\n", sig) < 0;
		free(term.p);
	}
	free(v);
	return rc ? -1 : 0;
}

int effects_csv(FILE *f, const struct effects *ef)
{
	fputs("phase,params,metric,term,effect,effect_pct,ci_low,ci_high,"
	      "significant\n", f);
	for (size_t i = 0; i < ef->n; i++)
		if (csv_block(f, &ef->b[i]))
			return -1;
	return 0;
}
