/* cmprows: compare's figures — a row per pair and metric, its test. */
#ifndef FSPLAN_REPORT_CMPROWS_H
#define FSPLAN_REPORT_CMPROWS_H

#include <stddef.h>

#include "report/pairing.h"
#include "results/results.h"
#include "results/stats.h"

enum cmprow_verdict { V_BETTER, V_WORSE, V_SAME, V_UNKNOWN };

/* One metric of one pair. */
struct cmprow {
	const struct pair *pr;
	const char *metric, *unit;
	int lower;			/* lower is better */
	struct res_stats a, b;
	struct stats_welch w;
	int tested;			/* w is filled */
	int ratio;			/* positive: lw, Welch on the logs */
	struct stats_welch lw;
	double change, lo_pct, hi_pct;	/* NAN when A's mean is 0 */
	enum cmprow_verdict v;
};

struct cmprows {
	struct cmprow *row;
	size_t n, cap;
	size_t count[4];		/* by verdict */
	size_t n_fast;			/* metrics too fast to time on both
					 * sides, left out */
};

/*
 * The rows of pair pr into t: the metrics matching metric's globs (NULL:
 * the phase's key as pg's manifest names it, or seconds, *_mbs, *_iops),
 * each once, tested at alpha. A figure positive in every run on both
 * sides (a rate, a time) is tested on the logarithms (Welch), its
 * interval the ratio B/A as a change in percent that cannot pass -100%;
 * any other figure by the difference B - A. Returns 0, or -1 out of
 * memory.
 */
int cmprows_pair(struct cmprows *t, const struct pair *pr,
		 const struct pairing *pg, const char *const *metric,
		 double alpha);

/*
 * Holm's step-down correction over the rows of t that were tested: with
 * m of them, their p in ascending order, the k-th smallest (from 0)
 * differs while p <= alpha / (m - k), and none after the first that
 * does not; so the chance of any false difference among them stays
 * alpha. keep[i] (t->n of them) says which rows differ; returns how
 * many, or -1 out of memory.
 */
long cmprows_holm(const struct cmprows *t, double alpha, unsigned char *keep);

#endif
