/* run: `fsplan run` — options, the plan checked, the target guarded, then the run in its namespace. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "phase/phase.h"
#include "host/execpath.h"
#include "phase/libsrc.h"
#include "run/run.h"
#include "run/rundir.h"
#include "run/runlog.h"
#include "cells/select.h"
#include "host/sysinfo.h"

static struct run *the_run;

static void on_signal(int sig)
{
	if (the_run && !the_run->stop)
		the_run->stop = sig;
}

/* SIGINT, SIGTERM and SIGHUP ask the run to stop (DESIGN.md section 3). */
static void catch_signals(struct run *r)
{
	struct sigaction sa = { .sa_handler = on_signal };

	the_run = r;
	/* cannot fail: valid signals, a valid handler */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "fsplan run: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see 'fsplan help run')\n");
	return RUN_USAGE;
}

struct run_opts {
	struct plan_define defs[64];
	int n_defs;
	const char *only[64];
	int n_only;
	int shard_k, shard_n;
	const char *out, *resume, *workdir, *plan;
};

static int parse(int argc, char **argv, struct run_opts *o, struct run *r)
{
	static const struct option longs[] = {
		{ "only", required_argument, NULL, 'O' },
		{ "shard", required_argument, NULL, 'S' },
		{ "resume", required_argument, NULL, 'R' },
		{ "workdir", required_argument, NULL, 'W' },
		{ "destroy", required_argument, NULL, 'X' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "D:o:qv", longs, NULL)) != -1) {
		switch (c) {
		case 'D': {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || o->n_defs == 64)
				return usage("-D takes name=value, not '%s'",
					     optarg);
			*eq = '\0';
			o->defs[o->n_defs].name = optarg;
			o->defs[o->n_defs++].value = eq + 1;
			break;
		}
		case 'O':
			if (o->n_only == 64)
				return usage("%s", "too many --only");
			o->only[o->n_only++] = optarg;
			break;
		case 'S':
			if (select_parse_shard(optarg, &o->shard_k,
					       &o->shard_n))
				return usage("--shard takes K/N with 1 <= K "
					     "<= N, not '%s'", optarg);
			break;
		case 'o': o->out = optarg; break;
		case 'R': o->resume = optarg; break;
		case 'W': o->workdir = optarg; break;
		case 'X': r->destroy = optarg; break;
		case 'q': r->quiet = 1; break;
		case 'v': r->verbose = 1; break;
		default:
			return usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage("%s", optind == argc ? "which plan? (a PLAN "
			     "file is required)" : "one PLAN file only");
	if (o->out && o->resume)
		return usage("%s", "-o and --resume both name the run "
			     "directory: give one");
	o->plan = argv[optind];
	return 0;
}

static void mark_done(void *ctx, const char *cell, const char *status)
{
	struct run *r = ctx;

	(void)status;
	/* ids are unique; a linear scan per row is fine for resumes */
	for (size_t i = 0; i < r->e->n_cells; i++)
		if (!strcmp(r->e->cells[i].id, cell))
			r->done[i] = 1;
}

/* The run directory (rundir.h), and in it results.csv (when resuming,
 * the cells it finished are done) and log.txt. 0, or -1 with d. */
static int open_dir(struct run *r, const char *out, const char *resume,
		    struct diag *d)
{
	char path[PATH_MAX + 32];
	int rc;

	if (rundir_make(r->plan, out, resume, r->dir, d))
		return -1;
	snprintf(r->run_id, sizeof(r->run_id), "%s", strrchr(r->dir, '/') + 1);
	snprintf(path, sizeof(path), "%s/results.csv", r->dir);
	if (resume && csv_read_status(path, mark_done, r, d))
		return -1;
	if (csv_open(&r->csv, path, d))
		return -1;
	snprintf(path, sizeof(path), "%s/log.txt", r->dir);
	rc = runlog_open(path, r->verbose);
	if (rc)
		return diag_set(d, path, NULL, (struct pos){ 0, 0 },
				"cannot open it: %s", strerror(-rc));
	return 0;
}

static int guard_target(struct run *r, json_t **identity)
{
	const struct plan_target *t = &r->plan->target;
	struct diag d = { 0 };
	struct stat st;
	int refused = 0;

	r->dev.fd = r->dev.lock_fd = -1;
	/* Out of memory, jansson leaves a value out (json_object_set_new
	 * frees it): the manifest lacks that fact, and nothing else does. */
	*identity = json_object();
	switch (t->kind) {
	case TARGET_IMAGE:
		json_object_set_new(*identity, "kind", json_string("image"));
		json_object_set_new(*identity, "image_bytes",
				    json_integer((json_int_t)t->image_bytes));
		json_object_set_new(*identity, "workdir",
				    json_string(r->workdir));
		return 0;
	case TARGET_DIR:
		json_object_set_new(*identity, "kind", json_string("dir"));
		json_object_set_new(*identity, "dir", json_string(t->dir));
		if (stat(t->dir, &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "fsplan run: target.dir %s is not a "
				"directory\n", t->dir);
			return RUN_REFUSED;
		}
		return 0;
	case TARGET_DEVICE:
		json_decref(*identity);
		*identity = NULL;
		if (target_device_open(&r->dev, t->device, r->destroy, t->wipe,
				       r->dir, r->workdir, identity, &refused,
				       &d)) {
			diag_print(&d);
			return refused ? RUN_REFUSED : RUN_USAGE;
		}
		json_object_set_new(*identity, "kind", json_string("device"));
		return 0;
	}
	return 0;
}

/* manifest.json from the start: a run that cannot write it stops here,
 * before any filesystem is made. Takes identity. */
static int begin_manifest(struct run *r, int argc, char **argv,
			  json_t *identity)
{
	int rc;

	r->man = manifest_new(r->e, r->run_id, argc, argv, sysinfo_collect(),
			      identity);
	if (!r->man) {
		fprintf(stderr, "fsplan run: out of memory\n");
		return RUN_FAILED;
	}
	manifest_set(r->man, "runas_uid", json_integer(r->runas.uid));
	manifest_set(r->man, "runas_gid", json_integer(r->runas.gid));
	rc = manifest_write(r->man, r->dir);
	if (rc) {
		fprintf(stderr, "fsplan run: cannot write %s/manifest.json: "
			"%s\n", r->dir, strerror(-rc));
		return RUN_FAILED;
	}
	return 0;
}

int run_command(int argc, char **argv)
{
	struct run r = { 0 };
	struct run_opts o = { 0 };
	struct diag d = { 0 };
	json_t *identity = NULL;
	int rc;

	rc = parse(argc, argv, &o, &r);
	if (rc)
		return rc;
	if (plan_load(&r.plan, o.plan, o.defs, o.n_defs, &d) ||
	    expand_plan(r.plan, &r.e, &d) ||
	    select_cells(r.e, o.only, o.n_only, o.shard_k, o.shard_n, &d) ||
	    phase_check_all(r.e, r.plan->runas, &d)) {
		diag_print(&d);
		rc = RUN_USAGE;
		goto out;
	}
	if (!r.e->n_selected) {
		rc = usage("%s", "no cell matches --only/--shard");
		goto out;
	}
	if (geteuid() != 0) {
		rc = usage("%s", "must be started as root: it makes and mounts "
			   "filesystems (the phases themselves run as "
			   "the plan's runas user)");
		goto out;
	}
	if (privdrop_resolve(r.plan->runas, &r.runas, &d)) {
		diag_print(&d);
		rc = RUN_USAGE;
		goto out;
	}
	execpath_warn(r.e, &r.runas);
	r.done = calloc(r.e->n_cells, 1);
	if (!r.done) {
		rc = RUN_FAILED;
		goto out;
	}
	r.progress = !r.quiet && (r.verbose || isatty(2));
	if (open_dir(&r, o.out, o.resume, &d)) {
		diag_print(&d);
		rc = RUN_USAGE;
		goto out;
	}
	if (!realpath(o.workdir ? o.workdir : r.dir, r.workdir)) {
		rc = usage("--workdir %s: no such directory", o.workdir);
		goto out;
	}
	rc = guard_target(&r, &identity);
	if (rc) {
		if (!o.resume)
			rundir_discard(r.dir);
		goto out;
	}
	if (target_clean_stale(r.workdir) > 0)
		runlog("removed stale images from %s", r.workdir);
	rc = begin_manifest(&r, argc, argv, identity);
	identity = NULL;
	if (rc)
		goto out;
	runlog("fsplan run %s: %zu cells%s", o.plan, r.e->n_selected,
	       o.resume ? " (resumed)" : "");
	catch_signals(&r);
	rc = runner_main(&r);
out:
	json_decref(identity);
	libsrc_free();
	runlog_close();
	csv_close(r.csv);
	manifest_free(r.man);
	if (r.dev.fd >= 0)
		close(r.dev.fd);
	free(r.done);
	expansion_free(r.e);
	plan_free(r.plan);
	return rc;
}
