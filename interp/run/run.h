/* run: `fsplan run` — the state of one run, shared by the command, its namespace and its config loop. */
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
#include "run/sink.h"
#include "util/exitcode.h"
#include "util/opts.h"


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
	unsigned char *done;		/* per cell: already in results.csv
					 * (1), or not to run: its stop
					 * rule was met (2) */
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
	char *parsed;			/* the parser's P lines, once */
	size_t parsed_len;
	struct sink sink;		/* where results go, in the init */
	volatile sig_atomic_t stop;	/* the signal that asked to stop */
};

/* The run itself, in a namespace of its own (ns.h): every config and
 * cell, in order. Returns the exit status of the run. */
int runner_main(struct run *r);

/* The command, and its name, help and options for main.c's table. */
int run_command(int argc, char **argv);
extern const struct opts_cmd run_cmd;

#endif
