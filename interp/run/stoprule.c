/* stoprule: repeat {min, max, ci} — whether a cell's repetitions have said
 * enough. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"
#include "run/run.h"
#include "run/runlog.h"
#include "run/stoprule.h"

/* The rule of c's phase (the phase's own, else the plan's): its ci, 0
 * when there is none. */
static double rule(const struct run *r, const struct cell *c, int *min,
		   int *max)
{
	const struct plan_phase *ph = &r->plan->phases[c->phase];

	if (ph->repeat) {
		*min = ph->repeat_min;
		*max = ph->repeat;
		return ph->repeat_ci;
	}
	*min = r->plan->repeat_min;
	*max = r->plan->repeat;
	return r->plan->repeat_ci;
}

const char *stoprule_watch(const struct run *r, const struct cell *c)
{
	const struct phase_key *k;
	int min, max;

	if (!(rule(r, c, &min, &max) > 0))
		return NULL;
	k = r->e->checked ? &r->e->checked[c->phase].key : NULL;
	return k && k->n ? k->name[0] : "seconds";
}

/* The first repetition of c's cell: they are consecutive, 1 to max. */
static size_t first_rep(const struct run *r, const struct cell *c)
{
	size_t i = (size_t)(c - r->e->cells);

	while (i > 0 && r->e->cells[i].rep > 1 &&
	       r->e->cells[i - 1].rep == r->e->cells[i].rep - 1 &&
	       r->e->cells[i - 1].phase == c->phase &&
	       r->e->cells[i - 1].conf == c->conf)
		i--;
	return i;
}

/* The repetitions after c of its cell, done without running. */
static void drop_rest(struct run *r, const struct cell *c)
{
	size_t i = (size_t)(c - r->e->cells) + 1;

	for (; i < r->e->n_cells && r->e->cells[i].rep > 1 &&
	       r->e->cells[i].phase == c->phase &&
	       r->e->cells[i].conf == c->conf &&
	       r->e->cells[i].rep == r->e->cells[i - 1].rep + 1; i++) {
		if (r->e->cells[i].selected && r->done[i] == RUN_TODO && r->n_todo)
			r->n_todo--;
		if (r->done[i] == RUN_TODO)
			r->done[i] = RUN_STOPPED;
	}
}

void stoprule_after(struct run *r, const struct cell *c, double v,
		    int *reps_run, const char **reason)
{
	size_t first = first_rep(r, c), at = (size_t)(c - r->e->cells);
	double *vals = malloc((at - first + 1) * sizeof(*vals));
	struct res_stats st;
	int min, max, n = 0;
	double ci = rule(r, c, &min, &max);

	r->keyval[at] = v;
	*reps_run = 0;
	*reason = NULL;
	for (size_t i = first; i <= at; i++) {
		if (r->done[i] != RUN_RECORDED)
			continue;
		(*reps_run)++;
		if (vals && isfinite(r->keyval[i]))
			vals[n++] = r->keyval[i];
	}
	if (*reps_run >= min && n >= 2) {
		results_stats(vals, n, &st);
		if (st.ci <= ci * fabs(st.mean))
			*reason = "ci";
	}
	free(vals);
	if (!*reason && c->rep >= max)
		*reason = "max";
	if (*reason && !strcmp(*reason, "ci") && c->rep < max) {
		runlog("%s: the stop rule is met after %d repetitions",
		       c->id, *reps_run);
		drop_rest(r, c);
	}
}

int stoprule_resume(struct run *r, const char *csv, struct diag *d)
{
	struct results res = { 0 };
	int any = 0;

	for (size_t i = 0; i < r->e->n_cells && !any; i++)
		any = stoprule_watch(r, &r->e->cells[i]) != NULL;
	if (!any)
		return 0;
	if (results_load(&res, csv, d))
		return -1;
	/* ids are unique; a linear scan per run is fine for resumes */
	for (size_t k = 0; k < res.n_runs; k++) {
		const struct res_run *x = &res.runs[k];

		for (size_t i = 0; i < r->e->n_cells; i++) {
			const struct cell *c = &r->e->cells[i];
			const char *watch;
			double v;

			if (strcmp(c->id, x->cell) || !(watch =
			    stoprule_watch(r, c)))
				continue;
			if (x->status == RES_OK && results_value(x, watch, &v))
				r->keyval[i] = v;
			if (results_metric(x, "stop_reason"))
				drop_rest(r, c);
			break;
		}
	}
	results_free(&res);
	return 0;
}
