/* eta: a run's expected time left, from its phase runs' measured times. */
#include <stdlib.h>

#include "run/eta.h"
#include "util/units.h"

/* A cell's seconds: parameter (a Lua phase's run time), or 0. */
static double declared(const struct expansion *e, const struct cell *c)
{
	char *v = cell_with(e, c, "seconds");
	double s = 0;

	if (v && units_duration(v, &s))
		s = 0;
	free(v);
	return s;
}

int eta_init(struct eta *t, const struct expansion *e, double now)
{
	int n_ph = e->plan->n_phases, *base = calloc(n_ph + 1, sizeof(int));
	int n_keys = 0;

	*t = (struct eta){ .cells = e->cells, .n_cells = e->n_cells,
			   .mark = now };
	if (!base)
		return -1;
	/* per phase, one key per matrix combination it has */
	for (size_t i = 0; i < e->n_cells; i++)
		if (e->cells[i].combo + 1 > base[e->cells[i].phase + 1])
			base[e->cells[i].phase + 1] = e->cells[i].combo + 1;
	for (int p = 0; p < n_ph; p++)
		base[p + 1] += base[p];
	n_keys = base[n_ph] ? base[n_ph] : 1;
	t->key = calloc(e->n_cells ? e->n_cells : 1, sizeof(int));
	t->kphase = calloc(n_keys, sizeof(int));
	t->declared = calloc(n_keys, sizeof(double));
	t->sum = calloc(n_keys, sizeof(double));
	t->cnt = calloc(n_keys, sizeof(int));
	t->psum = calloc(n_ph ? n_ph : 1, sizeof(double));
	t->pcnt = calloc(n_ph ? n_ph : 1, sizeof(int));
	if (!t->key || !t->kphase || !t->declared || !t->sum || !t->cnt ||
	    !t->psum || !t->pcnt) {
		free(base);
		eta_free(t);
		return -1;
	}
	for (size_t i = 0; i < e->n_cells; i++) {
		const struct cell *c = &e->cells[i];
		int k = base[c->phase] + c->combo;

		t->key[i] = k;
		t->kphase[k] = c->phase;
		if (c->selected && !t->declared[k])
			t->declared[k] = declared(e, c);
	}
	free(base);
	return 0;
}

void eta_free(struct eta *t)
{
	free(t->key);
	free(t->kphase);
	free(t->declared);
	free(t->sum);
	free(t->cnt);
	free(t->psum);
	free(t->pcnt);
	*t = (struct eta){ 0 };
}

void eta_done(struct eta *t, const struct cell *c, int measured,
	      double now)
{
	double s = now - t->mark;
	int k;

	t->mark = now;
	if (!t->key || !measured || s < 0)
		return;
	k = t->key[c - t->cells];
	t->sum[k] += s;
	t->cnt[k]++;
	t->psum[t->kphase[k]] += s;
	t->pcnt[t->kphase[k]]++;
	t->all_sum += s;
	t->all_cnt++;
}

double eta_expect(const struct eta *t, const struct cell *c)
{
	int k;

	if (!t->key)
		return -1;
	k = t->key[c - t->cells];
	if (t->cnt[k])
		return t->sum[k] / t->cnt[k];
	if (t->pcnt[t->kphase[k]])
		return t->psum[t->kphase[k]] / t->pcnt[t->kphase[k]];
	if (t->declared[k] > 0)
		return t->declared[k];
	return t->all_cnt ? t->all_sum / t->all_cnt : -1;
}

double eta_left(const struct eta *t, const struct expansion *e,
		const unsigned char *done, const struct cell *cur,
		double now, size_t *unknown)
{
	double left = 0, x;

	*unknown = 0;
	for (size_t i = 0; i < e->n_cells; i++) {
		const struct cell *c = &e->cells[i];

		if (!c->selected || done[i])
			continue;
		x = eta_expect(t, c);
		if (x < 0)
			++*unknown;
		else if (c == cur)
			left += x > now - t->mark ? x - (now - t->mark) : 0;
		else
			left += x;
	}
	return left;
}
