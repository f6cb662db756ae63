/* rundir: the run directory — made new or reopened to resume, or discarded. */
#ifndef FSPLAN_RUNDIR_H
#define FSPLAN_RUNDIR_H

#include "util/diag.h"

struct run;

/*
 * The run directory: out (-o), else results/<plan name>-<stamp>, made
 * new with its parents; or resume (--resume), which must hold the
 * manifest of a run of the same plan text. Sets r->dir and r->run_id,
 * makes exec/, opens results.csv (r->csv; when resuming, the cells it
 * already finished are marked in r->done) and log.txt. Returns 0, or -1
 * with d filled.
 */
int rundir_open(struct run *r, const char *out, const char *resume,
		struct diag *d);

/* A refused run leaves no run directory behind: it never began. */
void rundir_discard(struct run *r);

#endif
