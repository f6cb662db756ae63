/* stats: Student's t from the incomplete beta function, and Welch's t-test on
 * it. */
#include <math.h>

#include "results/stats.h"

/*
 * The continued fraction of I_x(a, b) (for x < (a + 1) / (a + b + 2),
 * where it converges fast), by the modified Lentz method.
 */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 1000; m++) {
		double m2 = 2.0 * m, num, delta;

		/* the even step, then the odd one */
		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = fabs(c) < tiny ? tiny : c;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1) < eps)
			break;
	}
	return h;
}

double stats_betai(double a, double b, double x)
{
	double front;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	/* x^a (1-x)^b / (a B(a, b)), in logs so large a, b do not overflow */
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	/* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2) */
	tail = 0.5 * stats_betai(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double lo = 0, hi = 1, q;

	if (!(df > 0) || !(p > 0) || !(p < 1))
		return NAN;
	if (p == 0.5)
		return 0;
	q = p > 0.5 ? p : 1 - p;
	/* the upper quantile lies in [0, hi]: widen hi until it does */
	while (stats_t_cdf(hi, df) < q && hi < 1e300)
		hi *= 2;
	/* bisection: the cdf is monotone, and 200 halvings reach the last
	 * bit of a double on any interval this starts from */
	for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
		double mid = lo + (hi - lo) / 2;

		if (stats_t_cdf(mid, df) < q)
			lo = mid;
		else
			hi = mid;
	}
	q = lo + (hi - lo) / 2;
	return p > 0.5 ? q : -q;
}

int stats_welch(int n_a, double mean_a, double sd_a, int n_b, double mean_b,
		double sd_b, double level, struct stats_welch *w)
{
	double va, vb, half;

	if (n_a < 2 || n_b < 2 || !isfinite(mean_a) || !isfinite(mean_b) ||
	    !isfinite(sd_a) || !isfinite(sd_b))
		return -1;
	va = sd_a * sd_a / n_a;
	vb = sd_b * sd_b / n_b;
	w->diff = mean_b - mean_a;
	w->se = sqrt(va + vb);
	if (w->se == 0) {
		w->df = NAN;
		w->t = w->diff == 0 ? 0 : w->diff > 0 ? INFINITY : -INFINITY;
		w->p = w->diff == 0 ? 1 : 0;
		w->lo = w->hi = w->diff;
		return 0;
	}
	w->df = (va + vb) * (va + vb) /
		(va * va / (n_a - 1) + vb * vb / (n_b - 1));
	w->t = w->diff / w->se;
	w->p = stats_betai(w->df / 2, 0.5, w->df / (w->df + w->t * w->t));
	half = stats_t_quantile(0.5 + level / 2, w->df) * w->se;
	w->lo = w->diff - half;
	w->hi = w->diff + half;
	return isnan(w->p) || isnan(w->lo) || isnan(w->hi) ? -1 : 0;
}

int stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}
