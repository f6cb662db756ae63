/* stoprule: repeat {min, max, ci} — whether a cell's repetitions have said
 * enough. */
#ifndef FSPLAN_STOPRULE_H
#define FSPLAN_STOPRULE_H

#include "util/diag.h"

struct run;
struct cell;

/* The metric cell c's stop rule watches (its phase's first key, else
 * seconds), or NULL when its phase repeats a fixed count. */
const char *stoprule_watch(const struct run *r, const struct cell *c);

/*
 * After repetition c ran (r->done set for it), with its watched value v
 * (NAN: it failed or did not report it): *reason is "ci" once the 95%
 * confidence interval's half-width of the values so far is within ci of
 * their mean (min repetitions run, at least two values), "max" at the
 * last repetition, else NULL; *reps_run how many have run. On "ci" the
 * cell's later repetitions are marked done without running (done 2) and
 * leave n_todo.
 */
void stoprule_after(struct run *r, const struct cell *c, double v,
		    int *reps_run, const char **reason);

/* --resume: the watched values of the repetitions results.csv holds, and
 * the repetitions after one that stopped its cell marked done (2). 0, or
 * -1 with d. */
int stoprule_resume(struct run *r, const char *csv, struct diag *d);

#endif
