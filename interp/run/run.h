/* run: one run's state, shared by the command, its namespace and configs. */
#ifndef FSPLAN_RUN_H
#define FSPLAN_RUN_H

#include <limits.h>
#include <signal.h>
#include <sys/types.h>

#include "results/csv.h"
#include "cells/expand.h"
#include "results/manifest.h"
#include "host/privdrop.h"
#include "host/target.h"
#include "run/eta.h"
#include "run/sink.h"
#include "util/exitcode.h"
#include "cells/cellopts.h"
#include "util/diag.h"


/* What run.done says of a cell. */
enum run_done {
	RUN_TODO = 0,		/* still to run, if selected */
	RUN_RECORDED = 1,	/* its status row is in results.csv */
	RUN_STOPPED = 2,	/* not to run: its stop rule was met */
};

struct run {
	struct plan *plan;
	struct expansion *e;
	struct runas runas;
	char dir[PATH_MAX];		/* the run directory, absolute */
	int dir_lock;			/* its lock (rundir.h), or -1 */
	char run_id[256];
	pid_t pid;			/* fsplan's, on the host: it names the
					 * run's cgroups */
	char workdir[PATH_MAX];		/* where images go */
	char mnt[PATH_MAX];		/* the mount point, under
					 * FSPLAN_RUNTIME_DIR in our namespace */
	const char *destroy;		/* --destroy */
	struct target_dev dev;		/* target.device, guarded */
	struct csv *csv;		/* results.csv: the sink writes it */
	struct manifest *man;		/* manifest.json's contents */
	unsigned char *done;		/* per cell: an enum run_done */
	double *keyval;			/* per cell: its stop rule's watched
					 * value, NAN if none */
	int verbose, quiet, progress;
	int n_ok, n_failed, n_skipped;
	int n_replayed;		/* --resume: runs done again, unrecorded */
	int n_lost;		/* --resume: rows a killed run left short,
				 * superseded (lostrows.h) */
	int n_rerun;		/* rounds: ended cells run for later phases */
	size_t n_todo, n_run;
	double t_start;
	const struct cell *current;	/* for the progress line */
	struct eta eta;			/* and its ETA (eta.h) */
	char *parsed;			/* the parser's P lines, once */
	size_t parsed_len;
	struct sink sink;		/* where results go, in the init */
	volatile sig_atomic_t stop;	/* the signal that asked to stop */
};

/* Before the namespace: a resume's stop rules and lost rows read back
 * from results.csv (the lost superseded), the workdir's room warned of,
 * the sink ready. 0, or -1 with d. */
int runner_prepare(struct run *r, struct diag *d);
/* The run itself, in a namespace of its own (ns.h): every config and
 * cell, in order. Returns the exit status of the run, which the
 * namespace's init relays as its own. */
int runner_main(struct run *r);

/* What a run is given beside its checked plan: cli/cmd_run.c's options. */
struct run_args {
	const struct cell_opts *cells;	/* -D, --only, --shard */
	const char *plan;		/* its file */
	const char *out, *resume;	/* -o, --resume: the run directory */
	int argc;			/* the command line, for the manifest */
	char **argv;
};

/* r holding nothing, and SIGINT, SIGTERM and SIGHUP asking it to stop
 * (DESIGN.md section 3) from now on. */
void run_init(struct run *r);

/*
 * After the plan's check (r->plan, r->e, r->runas set; r->workdir set
 * when --workdir was given): the run directory (a resume's done cells
 * read back), the target guarded, manifest.json begun. 0, or -1 with d:
 * its kind says input (the run directory, the device), refused, or
 * system.
 */
int run_prepare(struct run *r, const struct run_args *a, struct diag *d);

/* Whatever r holds, released; the run directory unlocked last. */
void run_free(struct run *r);

#endif
