/* run: a checked plan's run made ready — its directory, target, manifest. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "phase/phase.h"
#include "run/codecheck.h"
#include "host/memcg.h"
#include "phase/libsrc.h"
#include "run/reselect.h"
#include "run/run.h"
#include "run/rundir.h"
#include "run/runlog.h"
#include "cells/cellopts.h"
#include "host/sysinfo.h"
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

static void mark_done(void *ctx, const char *cell, const char *status)
{
	struct run *r = ctx;

	(void)status;
	/* ids are unique; a linear scan per row is fine for resumes */
	for (size_t i = 0; i < r->e->n_cells; i++)
		if (!strcmp(r->e->cells[i].id, cell))
			r->done[i] = RUN_RECORDED;
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

/* target.device guarded and claimed, and its identity; a resumed run's
 * own filesystem is no stranger's (its UUID, or null: the run stopped
 * in a mkfs). 0, or -1 with d (refused: its kind). */
static int guard_device(struct run *r, json_t **identity, int resume,
			struct diag *d)
{
	const struct plan_target *t = &r->plan->target;
	json_t *fs = resume ? manifest_read_key(r->dir, "device_fs") : NULL;
	const char *own = NULL;
	int rc;

	if (json_is_object(fs))
		own = json_string_value(json_object_get(fs, "uuid")) ?: "";
	rc = target_device_open(&r->dev, t->device, r->destroy, t->wipe, own,
				r->dir, r->workdir, identity, d);
	json_decref(fs);
	if (rc)
		return -1;
	json_object_set_new(*identity, "kind", json_string("device"));
	return 0;
}

/* The target, checked or (target.device) guarded and claimed, and its
 * identity for the manifest. 0, or -1 with d (refused: its kind). */
static int guard_target(struct run *r, json_t **identity, int resume,
			struct diag *d)
{
	const struct plan_target *t = &r->plan->target;
	struct stat st;

	r->dev.fd = r->dev.lock_fd = -1;
	if (t->kind == TARGET_DEVICE)
		return guard_device(r, identity, resume, d);
	/* Out of memory, jansson leaves a value out (json_object_set_new
	 * frees it): the manifest lacks that fact, and nothing else does. */
	*identity = json_object();
	if (t->kind == TARGET_DIR) {
		json_object_set_new(*identity, "kind", json_string("dir"));
		json_object_set_new(*identity, "dir", json_string(t->dir));
		if (stat(t->dir, &st) || !S_ISDIR(st.st_mode))
			return diag_fail(d, DIAG_REFUSED, 0, "fsplan run: "
					 "target.dir %s is not a directory",
					 t->dir);
		return 0;
	}
	json_object_set_new(*identity, "kind", json_string("image"));
	json_object_set_new(*identity, "image_bytes",
			    json_integer((json_int_t)t->image_bytes));
	json_object_set_new(*identity, "workdir", json_string(r->workdir));
	if (t->n_volumes) {
		json_t *v = json_array();

		/* each volume an image of image_bytes */
		for (int i = 0; i < t->n_volumes; i++)
			json_array_append_new(v, json_string(t->volumes[i].s));
		json_object_set_new(*identity, "volumes", v);
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

/* An exec module's script's sha256, wherever it is (libsrc_exec_path):
 * of the text read at the start, as the phase runs it. */
static void exec_sha(struct run *r, int phase, const char *name)
{
	char *path = libsrc_exec_path(r->plan->phases[phase].module_path,
				      name);
	const char *text;
	char sha[65];
	size_t n;

	if (!path)
		return;
	text = libsrc_get(path, &n);
	if (text)
		sha256_hex(text, n, sha);
	if (text || !sha256_file(path, sha))
		manifest_phase(r->man, phase, "exec_script_sha256",
			       json_string(sha));
	free(path);
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
			exec_sha(r, i, chk->exec);
			parse = chk->parse;
		}
		if (parse)
			lib_sha(r, i, "parse_sha256", "parse", parse, ".lua");
	}
}

/* manifest.json from the start: a run that cannot write it stops here,
 * before any filesystem is made. Takes identity. 0, or -1 with d. */
static int begin_manifest(struct run *r, const struct run_args *a,
			  json_t *identity, struct diag *d)
{
	int rc;

	r->man = manifest_new(r->e, r->run_id, a->argc, a->argv,
			      sysinfo_collect(), identity);
	if (!r->man)
		return diag_fail(d, DIAG_SYSTEM, 0, "fsplan run: out of "
				 "memory");
	code_shas(r);
	manifest_set(r->man, "code", codecheck_json(r->e));
	manifest_set(r->man, "runas_uid", json_integer(r->runas.uid));
	manifest_set(r->man, "runas_gid", json_integer(r->runas.gid));
	manifest_set(r->man, "selection", reselect_json(a->cells));
	/* a resume keeps the run's history (the first start, each run) */
	if (a->resume)
		(void)manifest_resume(r->man, r->dir);
	rc = manifest_write(r->man, r->dir);
	if (rc)
		return diag_fail(d, DIAG_SYSTEM, -rc, "fsplan run: cannot "
				 "write %s/manifest.json", r->dir);
	return 0;
}

void run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
	/* none held yet, whatever exits */
	r->dev.fd = r->dev.lock_fd = r->dev.claim.fd = -1;
	r->dev.claim.disk_fd = -1;
	r->dir_lock = -1;
	catch_signals(r);
}

/* Per cell: whether it is done, and its stop rule's value. */
static int alloc_cells(struct run *r, struct diag *d)
{
	r->done = calloc(r->e->n_cells, 1);
	r->keyval = malloc((r->e->n_cells + 1) * sizeof(*r->keyval));
	for (size_t i = 0; r->keyval && i < r->e->n_cells; i++)
		r->keyval[i] = NAN;
	if (!r->done || !r->keyval)
		return diag_fail(d, DIAG_SYSTEM, ENOMEM, "fsplan run");
	return 0;
}

int run_prepare(struct run *r, const struct run_args *a, struct diag *d)
{
	json_t *identity = NULL;
	int given = r->workdir[0] != '\0';

	if (alloc_cells(r, d))
		return -1;
	r->progress = !r->quiet && (r->verbose || isatty(2));
	if (open_dir(r, a->out, a->resume, d)) {
		d->kind = DIAG_INPUT;	/* the run directory given */
		return -1;
	}
	if (!given && !realpath(r->dir, r->workdir))
		return diag_fail(d, DIAG_SYSTEM, errno, "fsplan run: %s",
				 r->dir);
	if (guard_target(r, &identity, a->resume != NULL, d)) {
		json_decref(identity);
		if (!a->resume)
			rundir_discard(r->dir);
		return -1;
	}
	if (target_clean_stale(r->workdir) > 0)
		runlog("removed stale images from %s", r->workdir);
	r->pid = getpid();
	if (memcg_clean_stale() > 0)
		runlog("removed the memory cgroups of killed runs");
	if (begin_manifest(r, a, identity, d))
		return -1;
	runlog("fsplan run %s: %zu cells%s", a->plan, r->e->n_selected,
	       a->resume ? " (resumed)" : "");
	if (runner_prepare(r, d)) {
		d->kind = DIAG_SYSTEM;	/* the run's own files: exit 1 */
		return -1;
	}
	return 0;
}

void run_free(struct run *r)
{
	/* the sink's copy in the namespace's init is that process's */
	if (r->sink.csv)
		sink_free(&r->sink);
	libsrc_free();
	runlog_close();
	csv_close(r->csv);
	manifest_free(r->man);
	/* the claim on target.device: the namespace's copies are gone */
	target_release(&r->dev);
	/* last: the run directory is ours to here */
	rundir_unlock(r->dir, r->dir_lock);
	free(r->done);
	free(r->keyval);
	expansion_free(r->e);
	plan_free(r->plan);
}
