/* lseries: a Lua phase run's series in its child: clock, steady watch, T lines. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "phase/lseries.h"
#include "util/file.h"
#include "util/clock.h"

int lseries_init(struct lseries *ls, const struct luajob *job)
{
	const struct plan_steady *st = &job->steady;
	double iv = job->interval_s;

	memset(ls, 0, sizeof(*ls));
	ls->clk.step_ns = (uint64_t)llround(iv * 1e9);
	ls->warmup_s = job->warmup_s;
	if (!ls->clk.step_ns || !(st->window_s > 0))
		return 0;
	snprintf(ls->rule.metric, sizeof(ls->rule.metric), "%s", st->metric);
	ls->rule.window_s = st->window_s;
	ls->rule.range = st->range;
	ls->rule.slope = st->slope;
	ls->rule.max_s = st->max_s;
	ls->stop = st->max_s > 0;
	if (!ls->stop)
		return 0;
	/* a window's points, a point before it, and slack for late looks */
	ls->w = (int)ceil(st->window_s / iv) + 3;
	ls->rt = calloc((size_t)ls->w, sizeof(*ls->rt));
	ls->rs = calloc((size_t)ls->w, sizeof(*ls->rs));
	ls->tt = calloc((size_t)ls->w, sizeof(*ls->tt));
	ls->tv = calloc((size_t)ls->w, sizeof(*ls->tv));
	return ls->rt && ls->rs && ls->tt && ls->tv ? 0 : -1;
}

void lseries_start(struct lseries *ls)
{
	ls->clk.t0_ns = clock_ns();
	ls->t0 = (double)ls->clk.t0_ns / 1e9;
}

/* The workers' published sums, by name, into a new look at t. */
static void look(struct lseries *ls, struct opseries *const *ser, int n,
		 double t)
{
	int at;

	if (ls->rn == ls->w) {	/* full: the oldest look goes */
		memmove(ls->rt, ls->rt + 1, (size_t)(ls->w - 1) *
			sizeof(*ls->rt));
		memmove(ls->rs, ls->rs + 1, (size_t)(ls->w - 1) *
			sizeof(*ls->rs));
		ls->rn--;
		ls->dropped = 1;
	}
	at = ls->rn++;
	ls->rt[at] = t;
	memset(ls->rs[at], 0, sizeof(ls->rs[at]));
	for (int w = 0; w < n; w++) {
		int np = __atomic_load_n(&ser[w]->n_pub, __ATOMIC_ACQUIRE);

		for (int p = 0; p < np; p++) {
			const struct opseries_pub *pb = &ser[w]->pub[p];
			int j;

			for (j = 0; j < ls->n_nm; j++)
				if (!strcmp(ls->nm[j].name, pb->name))
					break;
			if (j == ls->n_nm && j < LSERIES_NAMES)
				memcpy(ls->nm[ls->n_nm++].name, pb->name,
				       sizeof(pb->name));
			if (j == LSERIES_NAMES)
				continue;
			ls->rs[at][j][0] += __atomic_load_n(&pb->ops,
							    __ATOMIC_RELAXED);
			ls->rs[at][j][1] += __atomic_load_n(&pb->bytes,
							    __ATOMIC_RELAXED);
		}
	}
}

/* The series the rule tests: its name's index and kind (0 ops, 1 iops,
 * 2 mbs), from rule.metric, or the key (the most bytes: _mbs; no
 * bytes: the most ops, _iops). -1 when there is none yet. */
static int key_of(struct lseries *ls, int *kind)
{
	static const char *const tail[] = { "_ops", "_iops", "_mbs" };
	const uint64_t (*last)[2] = ls->rs[ls->rn - 1];
	int best = -1;

	for (int j = 0; j < ls->n_nm; j++) {
		char m[METRICS_METRIC_LEN + 1];

		for (int k = 0; ls->rule.metric[0] && k < 3; k++) {
			snprintf(m, sizeof(m), "%s%s", ls->nm[j].name, tail[k]);
			if (!strcmp(m, ls->rule.metric)) {
				*kind = k;
				return j;
			}
		}
		if (!ls->rule.metric[0] &&
		    (best < 0 || last[j][1] > last[best][1] ||
		     (last[j][1] == last[best][1] &&
		      last[j][0] > last[best][0])))
			best = j;
	}
	if (best >= 0)
		*kind = last[best][1] ? 2 : 1;
	return best;
}

/* The rule on the looks' rates of the key. 1 when it held. */
static int test(struct lseries *ls)
{
	static const char *const tail[] = { "_ops", "_iops", "_mbs" };
	double *t = ls->tt, *v = ls->tv, iv = (double)ls->clk.step_ns / 1e9;
	int kind = 0, j = key_of(ls, &kind), n = 0;

	if (j < 0 || ls->rn < 2)
		return 0;
	snprintf(ls->key, sizeof(ls->key), "%s%s", ls->nm[j].name,
		 tail[kind]);
	for (int i = 1; i < ls->rn; i++) {
		double len = ls->rt[i] - ls->rt[i - 1];
		double d = (double)(ls->rs[i][j][kind == 2] -
				    ls->rs[i - 1][j][kind == 2]);

		if (len <= 0)
			continue;
		/* at the interval's end it was taken after: a late look's
		 * rates are over its own time, its place is the plan's */
		t[n] = floor(ls->rt[i] / iv + 1e-9) * iv;
		/* _ops: per interval of the plan's length */
		v[n++] = kind == 2 ? d / 1048576.0 / len :
			 kind == 1 ? d / len : d / len *
			 ((double)ls->clk.step_ns / 1e9);
	}
	/* the first look's interval began at the start; a later first
	 * one's did not: it is no window's first point */
	return !steady_test(t, v, n, &ls->rule, ls->dropped ?
			    fmax(ls->warmup_s, t[0]) : ls->warmup_s,
			    &ls->out) && ls->out.steady;
}

int lseries_tick(struct lseries *ls)
{
	double now, iv;

	if (!ls->stop || ls->held)
		return ls->held != 0;
	now = clock_now() - ls->t0;
	iv = (double)ls->clk.step_ns / 1e9;
	if (now >= ls->rule.max_s) {
		ls->held = 2;
		return 1;
	}
	if (!ls->rn)		/* the start: every sum is 0 */
		look(ls, ls->ser, 0, 0);
	if (now < (double)(ls->next_k + 1) * iv)
		return 0;
	ls->next_k = (uint64_t)floor(now / iv);
	look(ls, ls->ser, ls->n, now);
	if (!test(ls))
		return 0;
	ls->held = 1;
	fprintf(stderr, "steady: %s held at %.3f s (range %.1f%%, slope "
		"%.1f%% over %g s): the workers stop\n", ls->key, now,
		ls->out.range_pct, ls->out.slope_pct, ls->rule.window_s);
	return 1;
}

int lseries_workers(struct lseries *ls, int n)
{
	ls->ser = calloc((size_t)n, sizeof(*ls->ser));
	ls->m = calloc((size_t)n, sizeof(*ls->m));
	ls->n = n;
	return ls->ser && ls->m ? 0 : -1;
}

void lseries_worker(struct lseries *ls, int i, struct worker *w,
		    const int *halt)
{
	size_t share = OPSERIES_ALL_BYTES / (size_t)ls->n;

	ls->ser[i] = &w->ser;
	ls->m[i] = &w->m;
	w->ser.publish = ls->stop;
	w->ser.max_bytes = share > OPSERIES_MAX_BYTES ? OPSERIES_MAX_BYTES :
			   share < ((size_t)256 << 10) ? (size_t)256 << 10 : share;
	if (ls->clk.step_ns)
		w->ser.clk = &ls->clk;
	if (ls->warmup_s > 0)
		w->warm_ns = ls->clk.t0_ns + (uint64_t)(ls->warmup_s * 1e9);
	w->halt = halt;
}

double lseries_seconds(const struct lseries *ls, struct param_val *v)
{
	if (ls->stop && v->num != ls->rule.max_s)
		fprintf(stderr, "steady: seconds (%g s) runs as max (%g s): the "
			"workers stop once steady, at max at the latest\n",
			v->num, ls->rule.max_s);
	if (ls->stop)
		v->num = ls->rule.max_s;
	else if (v->num > 0)
		v->num += ls->warmup_s;
	return v->num;
}

void lseries_encode(struct lseries *ls, double end_s)
{
	int lost = 0;

	if (ls->stop && ls->held != 1)
		fprintf(stderr, "steady: %s not steady by max (%g s): last "
			"window's range %.1f%%, slope %.1f%%\n",
			ls->key[0] ? ls->key : "no series", ls->rule.max_s,
			ls->out.range_pct, ls->out.slope_pct);
	if (!ls->clk.step_ns)
		return;
	for (int w = 0; w < ls->n; w++)
		lost |= ls->ser[w]->lost;
	if (lost)
		fprintf(stderr, "series: out of memory: some ops are not in "
			"the series (they are in the rows)\n");
	if (opseries_encode(ls->ser, ls->m, ls->n, end_s, &ls->text)) {
		fprintf(stderr, "series: out of memory: no series\n");
		free(ls->text.p);
		memset(&ls->text, 0, sizeof(ls->text));
	}
}

int lseries_send(const struct lseries *ls, int fd)
{
	if (!ls->text.len)
		return 0;
	return file_write_all(fd, ls->text.p, ls->text.len, NULL) ? -1 : 0;
}

void lseries_free(struct lseries *ls)
{
	free(ls->rt);
	free(ls->rs);
	free(ls->tt);
	free(ls->tv);
	free(ls->ser);
	free(ls->m);
	free(ls->text.p);
	memset(ls, 0, sizeof(*ls));
}
