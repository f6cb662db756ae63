/* effectsmath: a two-level design's effects, their CIs, aliases, Lenth's PSE.
 */
#ifndef FSPLAN_EFFECTSMATH_H
#define FSPLAN_EFFECTSMATH_H

#include <stddef.h>

#include "plan/types.h"

/*
 * What the effects are computed from: n rows (configs) of k signs
 * (x[r * k + j], -1 or +1), y[r] the row's mean over its reps[r] ok
 * repetitions, and the pooled variance s2 of the repetitions around
 * their rows' means with df degrees of freedom (df 0: unreplicated).
 */
struct effm_in {
	enum design_kind kind;
	int k, n;
	const signed char *x;
	const double *y;
	const int *reps;
	double s2, df;
};

enum effm_how {
	EFFM_REPS,		/* CI from the pooled variance, Student t */
	EFFM_LENTH,		/* CI from Lenth's pseudo standard error */
	EFFM_NONE,		/* no CI: fewer than 3 contrasts, or oat
				 * unreplicated */
};

/*
 * A term: a main effect (b < 0) or the interaction of factors a and b.
 * alias_main >= 0: its column is (minus) that main effect's, so it is
 * not estimated; alias_of >= 0: its column is (minus) that earlier
 * term's, estimated there ("A:B = C:D"). Otherwise effect and, with ci,
 * lo..hi; significant when the CI excludes 0.
 */
struct effm_term {
	int a, b;
	int alias_main, alias_of;
	double effect, lo, hi;
	double mean_minus, mean_plus;	/* main effects: the level means */
	int ci, significant;
};

struct effm_out {
	struct effm_term *t;	/* mains first, in factor order */
	size_t n;
	enum effm_how how;
	double grand;		/* the rows' mean */
	double se_scale;	/* Lenth: the PSE; reps: s */
	double df;		/* of the t quantile */
	int m;			/* Lenth: the contrasts */
};

/* The effects of in into out (free with effm_free). 0, or -1 out of
 * memory or when in holds a value that is not finite (then nothing). */
int effm_compute(const struct effm_in *in, struct effm_out *out);
void effm_free(struct effm_out *out);

/* Lenth's pseudo standard error of the m contrasts c: s0 = 1.5 median
 * |c|, PSE = 1.5 median of the |c| < 2.5 s0. NAN for m < 1. */
double effm_lenth_pse(const double *c, int m);

#endif
