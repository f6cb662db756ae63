/* cmd_run: fsplan run — its options, the plan checked, then the run. */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "util/diag.h"
#include "cells/expand.h"
#include "run/reselect.h"
#include "run/rundir.h"
#include "run/run.h"
#include "util/exitcode.h"

struct run_opts {
	struct plan_opts po;
	const char *out, *resume, *workdir, *destroy;
	char *manifest_plan;	/* --resume DIR alone: the plan it names */
	int quiet, verbose;
};

static const struct opt run_opts_table[] = {
	CELLOPTS(struct run_opts, po.cells),
	OPT_STRING_OF("output", 'o', struct run_opts, out),
	OPT_STRING_OF("resume", 0, struct run_opts, resume),
	OPT_STRING_OF("workdir", 0, struct run_opts, workdir),
	OPT_STRING_OF("destroy", 0, struct run_opts, destroy),
	OPT_FLAG_OF("quiet", 'q', struct run_opts, quiet),
	OPT_FLAG_OF("verbose", 'v', struct run_opts, verbose),
	OPT_END
};

const struct opts_cmd run_cmd = {
	"run",
	"run PLAN [-D name=value]... [-o DIR | --resume DIR]\n"
	"[--only FILTER]... [--shard K/N] [--workdir DIR]\n"
	"[--destroy DEVICE] [-q|-v]\n"
	"run --resume DIR [--workdir DIR] [--destroy DEVICE] [-q|-v]",
	"Run every cell: for each filesystem config, attach the target\n"
	"(a sparse loop image by default), mkfs, mount, run the phases as\n"
	"the plan's runas user without privileges, unmount, release.\n"
	"Everything happens in a private mount and PID namespace, so\n"
	"nothing stays mounted or attached after any exit. Must be root.\n"
	"\n"
	"  -D name=value     override a parameter (each name once)\n"
	"  -o, --output DIR  the run directory (default\n"
	"                    results/NAME-YYYYmmdd-HHMMSS)\n"
	"  --only FILTER     keep matching cells (see 'fsplan help expand')\n"
	"  --shard K/N       keep filesystem configs whose index mod N is K-1\n"
	"  --resume DIR      continue a run: skip cells that have a status\n"
	"                    row in DIR/results.csv, append the rest (a\n"
	"                    config stopped part-way is made anew, its\n"
	"                    earlier phases' recorded runs replayed,\n"
	"                    unrecorded, first) with the run's own -D,\n"
	"                    --only and --shard (given, the same);\n"
	"                    refused while another run writes DIR, or\n"
	"                    when the plan or its code changed since\n"
	"                    the run started (manifest's sha256s);\n"
	"                    without PLAN, the plan the manifest names\n"
	"  --workdir DIR     where loop images go (default: the run dir)\n"
	"  --destroy DEVICE  repeat target.device's path: consent to\n"
	"                    destroy what is on it\n"
	"  -q, --quiet       no progress line\n"
	"  -v, --verbose     log lines and the progress line, also on a pipe\n"
	"\n"
	"Writes results.csv, manifest.json, log.txt and exec/ in the run\n"
	"directory. Exit 0 all ran, 1 some failed, 2 usage or plan error,\n"
	"3 refused for safety, 130/143 interrupted (--resume continues).\n",
	run_opts_table, "PLAN file", 1, offsetof(struct run_opts, po.plan),
	"make, mount and measure every cell (root)"
};

static int usage(const char *fmt, const char *arg)
{
	return opts_usage("run", fmt, arg);
}

/* The options, and (--resume) the run's own -D, --only and --shard,
 * before the plan takes -D. OPTS_GO, or the exit status. */
static int parse(int argc, char **argv, struct run_opts *o, struct run *r,
		 char ***kept)
{
	struct diag d = { 0 };
	int rc = opts_parse(&run_cmd, argc, argv, o);

	if (rc != OPTS_GO)
		return rc;
	if (o->out && o->resume)
		return usage("%s", "-o and --resume both name the run "
			     "directory: give one");
	if (!o->po.plan && !o->resume)
		return usage("%s", "a PLAN file is required (or --resume DIR "
			     "alone, to continue a run)");
	if (!o->po.plan) {
		if (rundir_plan(o->resume, &o->manifest_plan, &d))
			return opts_usage("run", "--resume %s: %s", o->resume,
					  d.msg);
		o->po.plan = o->manifest_plan;
	}
	r->destroy = o->destroy;
	r->quiet = o->quiet;
	r->verbose = o->verbose;
	if (o->resume && reselect_resume(o->resume, &o->po.cells, kept, &d))
		return opts_usage("run", "--resume %s: %s", o->resume, d.msg);
	return OPTS_GO;
}

/* cmd_load's chain, with the filters and, before the runas user, that
 * the run is root. 0, or the exit status. */
static int check(struct run_opts *o, struct run *r)
{
	const struct cell_opts *co = &o->po.cells;
	int rc = cmd_load_plan(&o->po, 1, &r->stop, &r->plan, &r->e);

	if (rc)
		return rc;
	if (r->stop)	/* nothing made yet: nothing to keep */
		return EXIT_INTERRUPTED(r->stop);
	/* a shard past the plan's configs (N machines, fewer configs) is
	 * an empty part of the run, merged as such; a filter that matches
	 * nothing is a mistake */
	if (!r->e->n_selected && (co->only.n || !co->shard_n))
		return usage("%s", "no cell matches --only/--shard");
	if (!r->e->n_selected && !r->quiet)
		fprintf(stderr, "fsplan run: shard %d/%d holds none of the "
			"plan's %d filesystem configs: an empty shard, "
			"merged as such\n", co->shard_k, co->shard_n,
			r->e->n_confs);
	if (geteuid() != 0)
		return usage("%s", "must be started as root: it makes and "
			     "mounts filesystems (the phases themselves run "
			     "as the plan's runas user)");
	return cmd_load_user(&r->plan, &r->e, &r->runas, NULL);
}

/* The run directory, the target and the manifest, then the run. */
static int start(struct run *r, const struct run_opts *o, int argc,
		 char **argv)
{
	const struct run_args a = {
		.cells = &o->po.cells, .plan = o->po.plan, .out = o->out,
		.resume = o->resume, .argc = argc, .argv = argv,
	};
	struct diag d = { 0 };

	/* before the run directory: a refusal leaves none behind */
	if (o->workdir && !realpath(o->workdir, r->workdir))
		return usage("--workdir %s: no such directory", o->workdir);
	if (run_prepare(r, &a, &d))
		return cmd_fail(&d);
	return runner_main(r);
}

int cmd_run(int argc, char **argv)
{
	struct run r;
	struct run_opts o = { 0 };
	char **kept = NULL;
	int rc;

	/* before anything is made: a signal in the first milliseconds
	 * stops the run as any other does (130/143), never by the default
	 * action, which would leave a run directory without its manifest */
	run_init(&r);
	rc = parse(argc, argv, &o, &r, &kept);
	if (rc == OPTS_GO) {
		rc = check(&o, &r);
		if (!rc)
			rc = start(&r, &o, argc, argv);
	}
	run_free(&r);
	opts_free(&run_cmd, &o);
	free(o.manifest_plan);
	reselect_free(kept);
	return rc;
}
