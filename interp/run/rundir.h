/* rundir: the run directory — where it goes, made new or checked for a resume,
 * locked for one writer, or discarded. */
#ifndef FSPLAN_RUNDIR_H
#define FSPLAN_RUNDIR_H

#include "plan/plan.h"
#include "util/diag.h"

/*
 * The run directory of plan p: out (-o), else results/<plan name>-<stamp>,
 * made new with its parents; or resume (--resume), which must hold the
 * manifest of a run of the same plan text. Neither may be a symbolic
 * link. dir (PATH_MAX bytes) gets its absolute path; exec/ is made in it.
 * *lock gets the fd of the directory's lock (dir/.lock), held until the
 * last process of the run exits: a second run or resume of dir is
 * refused, naming the holder's pid. Returns 0, or -1 with d filled
 * (*lock may still be an fd to close).
 */
int rundir_make(const struct plan *p, const char *out, const char *resume,
		char *dir, int *lock, struct diag *d);

/*
 * --resume DIR without a plan: the plan DIR's manifest names (its
 * realpath, else its path as given), in *path (malloc'd), when that file
 * is still the one the run started with. -1 with d saying why not: no
 * manifest, the file gone or changed (sha256s), and where its text is.
 */
int rundir_plan(const char *dir, char **path, struct diag *d);

/* The end of the run: its lock file removed, then let go. */
void rundir_unlock(const char *dir, int lock);

/* A refused run leaves no run directory behind: it never began. */
void rundir_discard(const char *dir);

#endif
