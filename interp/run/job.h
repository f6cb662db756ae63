/* job: the child job of one phase run — its environment, exec/ files, Lua job,
 * and what it leaves. */
#ifndef FSPLAN_JOB_H
#define FSPLAN_JOB_H

#include <limits.h>

#include "host/child.h"
#include "phase/luaphase.h"

struct run;
struct fsconf;
struct cell;

/* The most a phase run's stdout, and its stderr (w:log's lines), keep
 * in exec/: the first half and the last, with the cut noted. */
#define JOB_OUT_CAP	(64u << 20)

#define JOB_ENV_OWN	8	/* the variables made for the phase run */

struct job {
	struct child_job child;		/* what child_run takes */
	struct luajob lua;		/* a Lua phase's, else unused */
	char *cmd;			/* the command, or the module */
	const char *env[JOB_ENV_OWN + 3];	/* NULL-ended: own and fixed */
	char *own[JOB_ENV_OWN];		/* HOME=..., FSPLAN_CELL=...: whole */
};

/*
 * Set j up for cell c of config fc, run in work (ctx.fs's sizes are
 * those of fsdir's filesystem: work's, or the first volume's): the command (an exec
 * phase) or the Lua job, its stdout and stderr in the run directory's
 * exec/, the environment a phase sees. j must stay where it is until
 * job_close. 0, or -1 with d set (then job_close it too).
 */
int job_open(struct job *j, struct run *r, const struct fsconf *fc,
	     const char *work, const char *fsdir, const struct cell *c,
	     struct diag *d);

/* After child_run: a failed command's last stderr line joins its reason;
 * a command that succeeded has its output parsed (parse:), the P lines
 * kept in r->parsed, or res fails with the parser's reason. (A Lua
 * phase's refusal of a parameter comes placed in the plan: luaphase.c.) */
void job_after(struct job *j, struct run *r, const struct cell *c,
	       struct child_result *res);

void job_close(struct job *j);

/* Whether the phase run's child sends measurements (a Lua phase), not
 * an exit status and output (an exec: phase, or an exec module). */
int job_measured(const struct run *r, const struct cell *c);

#endif
