/* rundir: the run directory — where it goes, made new or checked for a resume, or discarded. */
#ifndef FSPLAN_RUNDIR_H
#define FSPLAN_RUNDIR_H

#include "plan/plan.h"
#include "util/diag.h"

/*
 * The run directory of plan p: out (-o), else results/<plan name>-<stamp>,
 * made new with its parents; or resume (--resume), which must hold the
 * manifest of a run of the same plan text. dir (PATH_MAX bytes) gets its
 * absolute path; exec/ is made in it. Returns 0, or -1 with d filled.
 */
int rundir_make(const struct plan *p, const char *out, const char *resume,
		char *dir, struct diag *d);

/* A refused run leaves no run directory behind: it never began. */
void rundir_discard(const char *dir);

#endif
