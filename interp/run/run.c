/* run: `fsplan run` — options, the plan checked, the target guarded, then the run in its namespace. */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "phase/phase.h"
#include "run/codecheck.h"
#include "run/phasecheck.h"
#include "host/execpath.h"
#include "host/memcg.h"
#include "phase/libsrc.h"
#include "run/reselect.h"
#include "run/resolve.h"
#include "run/run.h"
#include "run/rundir.h"
#include "run/runlog.h"
#include "cells/cellopts.h"
#include "cells/select.h"
#include "host/sysinfo.h"
#include "util/opts.h"
#include "util/sha256.h"

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
	return opts_usage("run", fmt, arg);
}

struct run_opts {
	struct cell_opts cells;
	const char *out, *resume, *workdir, *destroy, *plan;
	int quiet, verbose;
};

static const struct opt run_opts_table[] = {
	CELLOPTS(struct run_opts, cells),
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
	"[--destroy DEVICE] [-q|-v]",
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
	"                    when the plan or its code changed since\n"	"                    the run started (manifest's sha256s)\n"
	"  --workdir DIR     where loop images go (default: the run dir)\n"
	"  --destroy DEVICE  repeat target.device's path: consent to\n"
	"                    destroy what is on it\n"
	"  -q, --quiet       no progress line\n"
	"  -v, --verbose     log lines and the progress line, also on a pipe\n"
	"\n"
	"Writes results.csv, manifest.json, log.txt and exec/ in the run\n"
	"directory. Exit 0 all ran, 1 some failed, 2 usage or plan error,\n"
	"3 refused for safety, 130/143 interrupted (--resume continues).\n",
	run_opts_table, "PLAN file", 0, offsetof(struct run_opts, plan),
	"make, mount and measure every cell (root)"
};

static int parse(int argc, char **argv, struct run_opts *o, struct run *r)
{
	int rc = opts_parse(&run_cmd, argc, argv, o);

	if (rc != OPTS_GO)
		return rc;
	if (o->out && o->resume)
		return usage("%s", "-o and --resume both name the run "
			     "directory: give one");
	r->destroy = o->destroy;
	r->quiet = o->quiet;
	r->verbose = o->verbose;
	return OPTS_GO;
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

	if (rundir_make(r->plan, out, resume, r->dir, &r->dir_lock, d))
		return -1;
	snprintf(r->run_id, sizeof(r->run_id), "%s", strrchr(r->dir, '/') + 1);
	/* before anything is written there: the code must be the run's */
	if (resume && codecheck_resume(r->e, r->dir, d))
		return -1;
	snprintf(path, sizeof(path), "%s/results.csv", r->dir);
	if (resume && csv_read_status(path, mark_done, r, d))
		return -1;
	if (csv_open(&r->csv, path, d))
		return -1;
	snprintf(path, sizeof(path), "%s/log.txt", r->dir);
	rc = runlog_open(path, r->verbose);
	if (rc)
		return diag_set(d, path, NULL, (struct pos){ 0, 0 },
				"cannot open it: %s", rc == -ELOOP ?
				"it is a symbolic link" : strerror(-rc));
	return 0;
}

static int guard_target(struct run *r, json_t **identity, int resume)
{
	const struct plan_target *t = &r->plan->target;
	struct diag d = { 0 };
	const char *own = NULL;
	char own_uuid[64];
	struct stat st;

	r->dev.fd = r->dev.lock_fd = -1;
	/* a resumed run's own filesystem is no stranger's (its UUID, or
	 * null: the run stopped in a mkfs) */
	if (resume && t->kind == TARGET_DEVICE) {
		json_t *fs = manifest_read_key(r->dir, "device_fs");

		if (json_is_object(fs)) {
			snprintf(own_uuid, sizeof(own_uuid), "%s",
				 json_string_value(json_object_get(fs,
					"uuid")) ?: "");
			own = own_uuid;
		}
		json_decref(fs);
	}
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
		if (t->n_volumes) {
			json_t *v = json_array();

			/* each volume an image of image_bytes */
			for (int i = 0; i < t->n_volumes; i++)
				json_array_append_new(v, json_string(
						t->volumes[i].s));
			json_object_set_new(*identity, "volumes", v);
		}
		return 0;
	case TARGET_DIR:
		json_object_set_new(*identity, "kind", json_string("dir"));
		json_object_set_new(*identity, "dir", json_string(t->dir));
		if (stat(t->dir, &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "fsplan run: target.dir %s is not a "
				"directory\n", t->dir);
			return EXIT_REFUSED;
		}
		return 0;
	case TARGET_DEVICE:
		json_decref(*identity);
		*identity = NULL;
		if (target_device_open(&r->dev, t->device, r->destroy, t->wipe,
				       own, r->dir, r->workdir, identity,
				       &d)) {
			diag_print(&d);
			return d.kind == DIAG_REFUSED ? EXIT_REFUSED :
							EXIT_USAGE;
		}
		json_object_set_new(*identity, "kind", json_string("device"));
		return 0;
	}
	return 0;
}

/* A phase's key: the sha256 of the library's DIR/NAME, so a re-run can
 * tell that the code it runs differs; nothing when unreadable. */
static void lib_sha(struct run *r, int phase, const char *key,
		    const char *dir, const char *name, const char *suffix)
{
	char path[PATH_MAX], sha[65];

	if (snprintf(path, sizeof(path), "%s/%s/%s%s", libsrc_dir(), dir, name,
		     suffix) < (int)sizeof(path) && !sha256_file(path, sha))
		manifest_phase(r->man, phase, key, json_string(sha));
}

/* Beside a Lua module's (manifest_new), the code an exec phase runs: an
 * exec module's script, and its parser or the plan's parse:. */
static void code_shas(struct run *r)
{
	for (int i = 0; i < r->plan->n_phases; i++) {
		const struct phase_checked *chk = r->e->checked ?
						  &r->e->checked[i] : NULL;
		const char *parse = r->plan->phases[i].parse.s;

		if (chk && chk->exec[0]) {
			lib_sha(r, i, "exec_script_sha256", "exec", chk->exec,
				"");
			parse = chk->parse;
		}
		if (parse)
			lib_sha(r, i, "parse_sha256", "parse", parse, ".lua");
	}
}

/* manifest.json from the start: a run that cannot write it stops here,
 * before any filesystem is made. Takes identity. */
static int begin_manifest(struct run *r, int argc, char **argv,
			  json_t *identity, const struct run_opts *o)
{
	const char *resume = o->resume;
	int rc;

	r->man = manifest_new(r->e, r->run_id, argc, argv, sysinfo_collect(),
			      identity);
	if (!r->man) {
		fprintf(stderr, "fsplan run: out of memory\n");
		return EXIT_FAILED;
	}
	code_shas(r);
	manifest_set(r->man, "code", codecheck_json(r->e));
	manifest_set(r->man, "runas_uid", json_integer(r->runas.uid));
	manifest_set(r->man, "runas_gid", json_integer(r->runas.gid));
	manifest_set(r->man, "selection", reselect_json(&o->cells));
	/* a resume keeps the run's history (the first start, each run) */
	if (resume)
		(void)manifest_resume(r->man, r->dir);
	rc = manifest_write(r->man, r->dir);
	if (rc) {
		fprintf(stderr, "fsplan run: cannot write %s/manifest.json: "
			"%s\n", r->dir, strerror(-rc));
		return EXIT_FAILED;
	}
	return 0;
}

int run_command(int argc, char **argv)
{
	struct run r = { 0 };
	struct run_opts o = { 0 };
	struct diag d = { 0 };
	json_t *identity = NULL;
	char **kept = NULL;
	int rc;

	/* none held yet, whatever exits */
	r.dev.fd = r.dev.lock_fd = r.dev.claim.fd = r.dev.claim.disk_fd = -1;
	r.dir_lock = -1;
	/* before anything is made: a signal in the first milliseconds
	 * stops the run as any other does (130/143), never by the default
	 * action, which would leave a run directory without its manifest */
	catch_signals(&r);
	rc = parse(argc, argv, &o, &r);
	if (rc != OPTS_GO) {
		opts_free(&run_cmd, &o);
		return rc;
	}
	/* the run's own -D, --only and --shard, before the plan takes -D */
	if (o.resume &&
	    reselect_resume(o.resume, &o.cells, &kept, &d)) {
		rc = opts_usage("run", "--resume %s: %s", o.resume, d.msg);
		goto out;
	}
	if (plan_load(&r.plan, o.plan, o.cells.defs, o.cells.n_defs, &d) ||
	    resolve_plan(r.plan, &d) || expand_plan(r.plan, &r.e, &d) ||
	    resolve_devices(r.e, &d) ||
	    select_cells(r.e, o.cells.only.v, o.cells.only.n,
			 o.cells.shard_k, o.cells.shard_n, &d) ||
	    phasecheck_all(r.e, r.plan->runas, &r.stop, &d)) {
		/* stopped in the check: an interrupt, not a plan error */
		rc = r.stop ? EXIT_INTERRUPTED(r.stop) : EXIT_USAGE;
		if (!r.stop)
			diag_print(&d);
		goto out;
	}
	if (r.stop) {	/* nothing made yet: nothing to keep */
		rc = EXIT_INTERRUPTED(r.stop);
		goto out;
	}
	/* a shard past the plan's configs (N machines, fewer configs) is
	 * an empty part of the run, merged as such; a filter that matches
	 * nothing is a mistake */
	if (!r.e->n_selected && (o.cells.only.n || !o.cells.shard_n)) {
		rc = usage("%s", "no cell matches --only/--shard");
		goto out;
	}
	if (!r.e->n_selected && !r.quiet)
		fprintf(stderr, "fsplan run: shard %d/%d holds none of the "
			"plan's %d filesystem configs: an empty shard, "
			"merged as such\n", o.cells.shard_k, o.cells.shard_n,
			r.e->n_confs);
	if (geteuid() != 0) {
		rc = usage("%s", "must be started as root: it makes and mounts "
			   "filesystems (the phases themselves run as "
			   "the plan's runas user)");
		goto out;
	}
	if (privdrop_resolve(r.plan->runas, &r.runas, &d) ||
	    execpath_syntax(r.e, &r.runas, &d)) {
		diag_print(&d);
		rc = EXIT_USAGE;
		goto out;
	}
	execpath_warn(r.e, &r.runas);
	expand_warn(r.e);
	r.done = calloc(r.e->n_cells, 1);
	r.keyval = malloc((r.e->n_cells + 1) * sizeof(*r.keyval));
	for (size_t i = 0; r.keyval && i < r.e->n_cells; i++)
		r.keyval[i] = NAN;
	if (!r.done || !r.keyval) {
		rc = EXIT_FAILED;
		goto out;
	}
	r.progress = !r.quiet && (r.verbose || isatty(2));
	/* before the run directory: a refusal leaves none behind */
	if (o.workdir && !realpath(o.workdir, r.workdir)) {
		rc = usage("--workdir %s: no such directory", o.workdir);
		goto out;
	}
	if (open_dir(&r, o.out, o.resume, &d)) {
		diag_print(&d);
		rc = EXIT_USAGE;
		goto out;
	}
	if (!o.workdir && !realpath(r.dir, r.workdir)) {
		rc = EXIT_FAILED;
		goto out;
	}
	rc = guard_target(&r, &identity, o.resume != NULL);
	if (rc) {
		if (!o.resume)
			rundir_discard(r.dir);
		goto out;
	}
	if (target_clean_stale(r.workdir) > 0)
		runlog("removed stale images from %s", r.workdir);
	r.pid = getpid();
	if (memcg_clean_stale() > 0)
		runlog("removed the memory cgroups of killed runs");
	rc = begin_manifest(&r, argc, argv, identity, &o);
	identity = NULL;
	if (rc)
		goto out;
	runlog("fsplan run %s: %zu cells%s", o.plan, r.e->n_selected,
	       o.resume ? " (resumed)" : "");
	rc = runner_main(&r);
out:
	json_decref(identity);
	libsrc_free();
	runlog_close();
	csv_close(r.csv);
	manifest_free(r.man);
	/* the claim on target.device: the namespace's copies are gone */
	target_release(&r.dev);
	/* last: the run directory is ours to here */
	rundir_unlock(r.dir, r.dir_lock);
	free(r.done);
	free(r.keyval);
	expansion_free(r.e);
	plan_free(r.plan);
	opts_free(&run_cmd, &o);
	reselect_free(kept);
	return rc;
}
