/* eta: a run's expected time left, from its phase runs' measured times. */
#ifndef FSPLAN_ETA_H
#define FSPLAN_ETA_H

#include "cells/expand.h"

/*
 * A phase run's time is from the end of the one before (or the run's
 * start) to its own end: a config's mkfs and mount, and the between
 * actions, go to the phase runs they precede, so a config's first phase
 * carries its making in every config alike. The times are kept per key
 * (a phase and its parameters: its matrix combination), per phase, and
 * over all.
 */
struct eta {
	const struct cell *cells;	/* the expansion's */
	size_t n_cells;
	int *key;		/* per cell: its key */
	int *kphase;		/* per key: its phase */
	double *declared;	/* per key: its seconds: parameter, or 0 */
	double *sum;		/* per key: measured seconds, how many */
	int *cnt;
	double *psum;		/* per phase */
	int *pcnt;
	double all_sum;
	int all_cnt;
	double mark;		/* when the last phase run ended */
};

/* t for e's cells, the clock started at now. 0, or -1 out of memory. */
int eta_init(struct eta *t, const struct expansion *e, double now);
void eta_free(struct eta *t);

/* A phase run of c ended at now; measured: it ran (not skipped or
 * failed before it began), so its time says how long c's key takes. */
void eta_done(struct eta *t, const struct cell *c, int measured,
	      double now);

/* What a cell of c's key is expected to take: the mean of its key's
 * runs, else of its phase's, else its seconds: parameter, else the mean
 * of all; -1 when nothing is known yet. */
double eta_expect(const struct eta *t, const struct cell *c);

/*
 * The seconds left at now: the expected time of each selected cell still
 * to run (done[i] == 0, run.h's RUN_TODO), the running one (cur, or NULL) counting only what
 * is left of its expected time (never below 0: it is not estimated anew
 * while it runs). *unknown gets how many cells have no estimate yet.
 */
double eta_left(const struct eta *t, const struct expansion *e,
		const unsigned char *done, const struct cell *cur,
		double now, size_t *unknown);

#endif
