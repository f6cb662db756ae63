/* phfiles: a phase's files: — checked beside the plan, put into its work
 * directory read-only for runas, and the commands that name others. */
#ifndef FSPLAN_PHFILES_H
#define FSPLAN_PHFILES_H

#include "host/privdrop.h"
#include "plan/plan.h"
#include "util/diag.h"

/* The most a file of files: may hold. */
#define PHFILES_MAX	(64u << 20)

/*
 * p->dir/F for a file F of a phase's files: (len bytes of path): 0, or
 * -1 when it does not fit.
 */
int phfiles_path(const struct plan *p, const char *f, char *path,
		 size_t len);

/*
 * Every phase's files: are regular files of at most PHFILES_MAX under
 * the plan's directory (p->dir absolute: resolve_plan), a symbolic link
 * among them leading nowhere outside it; each one's sha256 kept (the
 * phase's files_sha), what the manifest records and what phfiles_put
 * holds each phase run's copy to. 0, or -1 with d placed at the file's
 * name in the plan.
 */
int phfiles_check(const struct plan *p, struct diag *d);

/*
 * ph's files: read (by root) and written into work, each F as work/F
 * (its directories made), mode 0444 and owned by who; what was there
 * under that name is replaced. No symbolic link in work is followed.
 * A file whose sha256 is no longer the one phfiles_check found is not
 * put: the run records what its phases ran. 0, or -1 with d saying
 * which file and why.
 */
int phfiles_put(const struct plan *p, const struct plan_phase *ph,
		const char *work, const struct runas *who, struct diag *d);

/*
 * fsplan check's and run's warning: an exec command's word that is the
 * relative path of a file beside the plan that its files: leave out
 * (the phase, as runas in the filesystem under test, may not read it
 * there). How many were warned of.
 */
int phfiles_warn(const struct plan *p);

#endif
