/* stats: Student's t distribution and Welch's two-sample test, computed (no
 * tables). */
#ifndef FSPLAN_STATS_H
#define FSPLAN_STATS_H

/* qsort's comparison of two doubles, ascending (NaNs are the caller's to
 * leave out). */
int stats_cmp_double(const void *a, const void *b);

/*
 * The regularized incomplete beta function I_x(a, b), a, b > 0,
 * 0 <= x <= 1 (a continued fraction, about 1e-14 relative). NAN outside.
 */
double stats_betai(double a, double b, double x);

/* P(T <= t) for Student's t with df > 0 degrees of freedom (df may be
 * fractional, as Welch's are). NAN for df <= 0. */
double stats_t_cdf(double t, double df);

/* The t with P(T <= t) = p, 0 < p < 1, df > 0; NAN outside. */
double stats_t_quantile(double p, double df);

/* Welch's t-test of b against a, from the means, sample standard
 * deviations and counts of the two samples. */
struct stats_welch {
	double diff;		/* mean b - mean a */
	double se;		/* sqrt(sa^2/na + sb^2/nb) */
	double df;		/* Welch-Satterthwaite */
	double t;		/* diff / se */
	double p;		/* two-sided */
	double lo, hi;		/* the level confidence interval of diff */
};

/*
 * Fill w for samples a (n_a, mean_a, sd_a) and b at confidence level
 * (0.95). Needs n >= 2 on both sides and finite figures (values near
 * DBL_MAX overflow the sums): returns -1 otherwise, or when p or the
 * interval is not a number, so no verdict comes of a NaN; 0 done. Both
 * standard deviations 0: se 0, p 1 when the means are equal, else 0
 * (no spread at all: every repetition said the same), df NAN.
 */
int stats_welch(int n_a, double mean_a, double sd_a, int n_b, double mean_b,
		double sd_b, double level, struct stats_welch *w);

#endif
