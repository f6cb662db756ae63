/* effectsmath: a two-level design's effects, their CIs, aliases, Lenth's PSE.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/effectsmath.h"
#include "results/stats.h"

/* The median of the n values of v (sorted in place). */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), stats_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double effm_lenth_pse(const double *c, int m)
{
	double *a, s0, pse = NAN;
	int kept = 0;

	if (m < 1 || !(a = malloc((size_t)m * sizeof(*a))))
		return NAN;
	for (int i = 0; i < m; i++)
		a[i] = fabs(c[i]);
	s0 = 1.5 * median(a, m);
	for (int i = 0; i < m; i++)
		if (a[i] < 2.5 * s0)
			a[kept++] = a[i];
	if (kept)
		pse = 1.5 * median(a, kept);
	free(a);
	return pse;
}

/* The sign of row r in term t's column. */
static int sign_of(const struct effm_in *in, const struct effm_term *t,
		   int r)
{
	int s = in->x[r * in->k + t->a];

	return t->b < 0 ? s : s * in->x[r * in->k + t->b];
}

/* Whether terms s and t have the same column, or its negation. */
static int same_column(const struct effm_in *in, const struct effm_term *s,
		       const struct effm_term *t)
{
	int eq = 1, neg = 1;

	for (int r = 0; r < in->n; r++) {
		int p = sign_of(in, s, r) * sign_of(in, t, r);

		eq &= p > 0;
		neg &= p < 0;
	}
	return eq || neg;
}

/* The row of an oat design whose only + is factor j (j < 0: none). */
static int oat_row(const struct effm_in *in, int j)
{
	for (int r = 0; r < in->n; r++) {
		int ok = 1;

		for (int c = 0; c < in->k; c++)
			ok &= (in->x[r * in->k + c] > 0) == (c == j);
		if (ok)
			return r;
	}
	return -1;
}

/* t's effect, its level means, and the observations at each level
 * (*np, *nm); -1 when an oat row is missing. */
static int estimate(const struct effm_in *in, struct effm_term *t,
		    double *np, double *nm)
{
	double sp = 0, sm = 0;
	int cp = 0, cm = 0;

	*np = *nm = 0;
	if (in->kind == DESIGN_OAT) {
		int base = oat_row(in, -1), row = oat_row(in, t->a);

		if (base < 0 || row < 0)
			return -1;
		t->mean_minus = in->y[base];
		t->mean_plus = in->y[row];
		t->effect = in->y[row] - in->y[base];
		*np = in->reps[row];
		*nm = in->reps[base];
		return 0;
	}
	for (int r = 0; r < in->n; r++) {
		if (sign_of(in, t, r) > 0) {
			sp += in->y[r];
			cp++;
			*np += in->reps[r];
		} else {
			sm += in->y[r];
			cm++;
			*nm += in->reps[r];
		}
	}
	if (!cp || !cm)
		return -1;
	t->mean_plus = sp / cp;
	t->mean_minus = sm / cm;
	t->effect = t->mean_plus - t->mean_minus;
	return 0;
}

/* The terms: every main effect; the two-factor interactions of full and
 * fractional designs, each matched against the columns before it. */
static int make_terms(const struct effm_in *in, struct effm_out *out)
{
	int k = in->k, pairs = in->kind == DESIGN_FULL ||
		in->kind == DESIGN_FRACTIONAL ? k * (k - 1) / 2 : 0;

	out->t = calloc((size_t)(k + pairs), sizeof(*out->t));
	if (!out->t)
		return -1;
	for (int j = 0; j < k; j++)
		out->t[out->n++] = (struct effm_term){ .a = j, .b = -1,
			.alias_main = -1, .alias_of = -1 };
	for (int a = 0; pairs && a < k; a++) {
		for (int b = a + 1; b < k; b++) {
			struct effm_term *t = &out->t[out->n];

			*t = (struct effm_term){ .a = a, .b = b,
				.alias_main = -1, .alias_of = -1 };
			for (size_t i = 0; i < out->n; i++) {
				struct effm_term *s = &out->t[i];

				if (s->alias_main >= 0 || s->alias_of >= 0 ||
				    !same_column(in, s, t))
					continue;
				if (s->b < 0)
					t->alias_main = s->a;
				else
					t->alias_of = (int)i;
				break;
			}
			out->n++;
		}
	}
	return 0;
}

/* Each estimated term's CI: half = q * scale * sqrt(1/N+ + 1/N-) from
 * the repetitions, q * PSE by Lenth. */
static void intervals(struct effm_out *out, const double *np,
		      const double *nm, double q)
{
	for (size_t i = 0; i < out->n; i++) {
		struct effm_term *t = &out->t[i];
		double half;

		if (t->alias_main >= 0 || t->alias_of >= 0 ||
		    out->how == EFFM_NONE)
			continue;
		half = out->how == EFFM_REPS ? q * out->se_scale *
		       sqrt(1 / np[i] + 1 / nm[i]) : q * out->se_scale;
		if (!isfinite(half))
			continue;
		t->ci = 1;
		t->lo = t->effect - half;
		t->hi = t->effect + half;
		t->significant = t->lo > 0 || t->hi < 0;
	}
}

/* How the CIs come, and the figures they need. */
static void choose(const struct effm_in *in, struct effm_out *out,
		   double *c, int m)
{
	out->m = m;
	if (in->df >= 1 && isfinite(in->s2)) {
		out->how = EFFM_REPS;
		out->se_scale = sqrt(in->s2);
		out->df = in->df;
	} else if (in->kind == DESIGN_OAT || m < 3) {
		out->how = EFFM_NONE;
	} else {
		out->how = EFFM_LENTH;
		out->se_scale = effm_lenth_pse(c, m);
		out->df = m / 3.0;
		if (!isfinite(out->se_scale))
			out->how = EFFM_NONE;
	}
}

int effm_compute(const struct effm_in *in, struct effm_out *out)
{
	double *np = NULL, *nm = NULL, *c = NULL, sum = 0;
	int m = 0, rc = -1;

	memset(out, 0, sizeof(*out));
	for (int r = 0; r < in->n; r++) {
		if (!isfinite(in->y[r]) || in->reps[r] < 1)
			return -1;
		sum += in->y[r];
	}
	if (in->n < 2 || in->k < 1 || make_terms(in, out))
		goto out;
	out->grand = sum / in->n;
	np = calloc(out->n, sizeof(*np));
	nm = calloc(out->n, sizeof(*nm));
	c = calloc(out->n, sizeof(*c));
	if (!np || !nm || !c)
		goto out;
	for (size_t i = 0; i < out->n; i++) {
		struct effm_term *t = &out->t[i];

		if (t->alias_main >= 0 || t->alias_of >= 0)
			continue;
		if (estimate(in, t, &np[i], &nm[i]) ||
		    !isfinite(t->effect))
			goto out;
		c[m++] = t->effect;
	}
	choose(in, out, c, m);
	if (out->how != EFFM_NONE)
		intervals(out, np, nm, stats_t_quantile(0.975, out->df));
	rc = 0;
out:
	free(np);
	free(nm);
	free(c);
	if (rc)
		effm_free(out);
	return rc;
}

void effm_free(struct effm_out *out)
{
	free(out->t);
	out->t = NULL;
	out->n = 0;
}
