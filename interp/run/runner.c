/* runner: the lifecycle of every filesystem config and its phase runs, inside the namespace. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/child.h"
#include "phase/libsrc.h"
#include "phase/lparse.h"
#include "phase/luaphase.h"
#include "phase/phase.h"
#include "results/metrics.h"
#include "host/execpath.h"
#include "host/fs.h"
#include "run/conf.h"
#include "run/job.h"
#include "run/lostrows.h"
#include "run/measure.h"
#include "run/ns.h"
#include "run/run.h"
#include "run/runlog.h"
#include "run/stoprule.h"
#include "util/clock.h"
#include "util/exitcode.h"

struct verdict {
	struct run *r;
	const struct cell *c;
};

static void decide(void *ctx, double v, int *reps_run, const char **reason)
{
	struct verdict *vd = ctx;

	stoprule_after(vd->r, vd->c, v, reps_run, reason);
}

/* The end of one phase run: its rows, its status, the counts. */
static void finish_cell(struct run *r, const struct live *l, struct cell *c,
			const struct child_result *res,
			const struct measured *ms, const char *status,
			const char *reason)
{
	char params[1024];
	struct csv_key k;
	struct statfs sf;
	double used[PLAN_MAX_VOLUMES];
	const char *names[PLAN_MAX_VOLUMES];
	struct verdict vd = { r, c };
	char full[1024];
	struct sink_outcome o = {
		.key = &k, .cell = c - r->e->cells, .label = l->fc->label,
		.lua = job_measured(r, c), .res = res,
		.parsed = r->parsed, .parsed_len = r->parsed_len,
		.measured = ms, .fs_used_bytes = -1, .status = status, .reason = reason,
	};

	conf_key(r, l, c, params, sizeof(params), &k);
	if (!strcmp(status, "failed"))
		o.reason = conf_workdir_full(r, l, reason, full, sizeof(full));
	o.watch = stoprule_watch(r, c);
	if (o.watch && res) {
		o.decide = decide;
		o.decide_ctx = &vd;
	}
	if (!l->volumes && l->work[0] && !statfs(l->work, &sf))
		o.fs_used_bytes = (double)(sf.f_blocks - sf.f_bfree) *
				  sf.f_bsize;
	/* each volume's, and their sum as fs_used_bytes */
	for (int i = 0; l->volumes && i < l->n_vol; i++) {
		names[i] = l->vol[i].name;
		used[i] = -1;
		if (l->vol[i].mounted && !statfs(l->vol[i].mnt, &sf))
			used[i] = (double)(sf.f_blocks - sf.f_bfree) *
				  sf.f_bsize;
		if (used[i] >= 0)
			o.fs_used_bytes = (o.fs_used_bytes < 0 ? 0 :
					   o.fs_used_bytes) + used[i];
	}
	if (l->volumes) {
		o.vol_names = names;
		o.vol_used = used;
		o.n_vol = l->n_vol;
	}
	sink_phase_run(&r->sink, &o);
	free(r->parsed);
	r->parsed = NULL;
	if (!strcmp(o.status, "ok"))
		r->n_ok++;
	else if (!strcmp(o.status, "failed"))
		r->n_failed++;
	else
		r->n_skipped++;
	r->n_run++;
	runlog("%s: %s%s%s", c->id, o.status,
	       o.reason && *o.reason ? ": " : "", o.reason ? o.reason : "");
	sink_save_soon(&r->sink);
}

static int todo(const struct run *r, const struct cell *c)
{
	return c->selected && !r->done[c - r->e->cells];
}

/* Whether c is of round (order: rounds: its repetition); round 0 is
 * every cell (order: configs). */
static int in_round(const struct cell *c, int round)
{
	return !round || c->rep == round;
}

/* With volumes, the work directory is our namespace's tmpfs of a MiB
 * that holds their mount points: a phase that ran out of space naming
 * no file in a volume wrote beside source/ and target/, not in them. */
static void volumes_hint(const struct live *l, struct child_result *res)
{
	const char *why = child_reason(res);
	char in[80];

	if (res->ok || !l->volumes || (!strstr(why, "No space left") &&
				       !strstr(why, "ENOSPC")))
		return;
	for (int i = 0; i < l->n_vol; i++) {
		snprintf(in, sizeof(in), "%s/", l->vol[i].name);
		if (strstr(why, in))
			return;
	}
	strbuf_str(&res->reason, " (with target.volumes the work directory "
		   "itself is a 1 MiB tmpfs that only holds the volumes: "
		   "write into ");
	for (int i = 0; i < l->n_vol; i++)
		strbuf_printf(&res->reason, "%s%s/", i == 0 ? "" :
			      i == l->n_vol - 1 ? " or " : ", ",
			      l->vol[i].name);
	strbuf_str(&res->reason, ")");
}

/* Every remaining cell of a config gets the same fate. */
static void settle_conf(struct run *r, struct live *l, const char *status,
			const char *reason)
{
	for (size_t i = 0; i < l->fc->n_cells; i++) {
		struct cell *c = &r->e->cells[l->fc->first_cell + i];

		if (!todo(r, c))
			continue;
		r->done[c - r->e->cells] = 1;
		finish_cell(r, l, c, NULL, NULL, status, reason);
	}
	manifest_conf(r->man, l->fc->index - 1, "status", json_string(status));
	if (reason)
		manifest_conf(r->man, l->fc->index - 1, "reason",
			      json_string(reason));
	sink_save(&r->sink);
}

static void progress(struct run *r, const struct cell *c);

/* run_cell's replay: a resume's recorded cell, or a rounds run's ended
 * one (replay_kind). */
#define REPLAY_RESUME	1
#define REPLAY_ROUND	2

/* A phase run that could not start: failed, or for a replay a line in
 * the log. */
static void unrun_cell(struct run *r, struct live *l, struct cell *c,
		       int replay, const char *why)
{
	if (replay)
		runlog("%s: %s failed: %s", c->id, replay == REPLAY_ROUND ?
		       "its unrecorded run" : "replay", why);
	else
		finish_cell(r, l, c, NULL, NULL, "failed", why);
}

static void tick(void *ctx)
{
	struct run *r = ctx;

	progress(r, r->current);
}

static void progress(struct run *r, const struct cell *c)
{
	double el = clock_now() - r->t_start;
	double eta = r->n_run ? el / r->n_run * (r->n_todo - r->n_run) : 0;

	if (!r->progress)
		return;
	fprintf(stderr, "\r\033[K[%zu/%zu] %s  %02d:%02d elapsed", r->n_run + 1,
		r->n_todo, c->id, (int)el / 60, (int)el % 60);
	if (r->n_run)
		fprintf(stderr, ", ETA %02d:%02d", (int)eta / 60,
			(int)eta % 60);
	fflush(stderr);
}

/* One phase run: between actions, its job in a dropped child, its
 * results; an interrupted one is not recorded, so --resume runs it. A
 * replay (--resume, a cell the first run recorded) runs it again only
 * for what it leaves on the filesystem: nothing of it is recorded. */
static void run_cell(struct run *r, struct live *l, struct cell *c,
		     int replay)
{
	const struct plan_phase *ph = &r->plan->phases[c->phase];
	const struct between *b = ph->between.n >= 0 ? &ph->between
						     : &r->plan->between;
	struct child_result res;
	struct measure ms;
	struct job j;
	struct diag why = { 0 };
	char err[512];

	if (!replay)
		progress(r, c);
	if (conf_between(l, b, err, sizeof(err))) {
		unrun_cell(r, l, c, replay, err);
		return;
	}
	if (job_open(&j, r, l->fc, l->work, conf_vol_dir(l, 0), c, &why)) {
		unrun_cell(r, l, c, replay, why.msg);
		goto out;
	}
	if (measure_open(&ms, r, l, c, &j.child, &j.lua.ram_bytes, err,
			 sizeof(err))) {
		unrun_cell(r, l, c, replay, err);
		goto out;
	}
	j.child.tick = tick;
	j.child.tick_ctx = r;
	if (job_measured(r, c)) {
		j.child.setup_done = measure_setup_done;
		j.child.setup_done_ctx = &ms;
	}
	r->current = c;
	runlog("%s: %s: %s", c->id, replay == REPLAY_ROUND ? "unrecorded run"
	       : replay ? "replay" : "run", j.cmd);
	measure_start(&ms);
	if (child_run(&j.child, &r->stop, &res)) {
		unrun_cell(r, l, c, replay, "cannot fork the phase");
		goto close;
	}
	measure_stop(&ms, &res);
	conf_sweep();
	job_after(&j, r, c, &res);
	volumes_hint(l, &res);
	if (replay) {
		if (replay == REPLAY_ROUND)
			r->n_rerun++;
		else
			r->n_replayed++;
		runlog("%s: %s (%s%s%s)%s", c->id, replay == REPLAY_ROUND ?
		       "ran unrecorded" : "replayed", res.ok ? "ok" : "failed",
		       res.ok ? "" : ": ", res.ok ? "" : child_reason(&res),
		       replay == REPLAY_ROUND ? ": its stop rule had ended its "
		       "repetitions, and its round's later phases start from "
		       "what it leaves" : "; its rows are the first run's");
		free(r->parsed);
		r->parsed = NULL;
	} else if (res.interrupted && !res.ok) {
		runlog("%s: interrupted", c->id);
		manifest_cell(r->man, c - r->e->cells, "interrupted", NULL);
		sink_save(&r->sink);
	} else {
		r->done[c - r->e->cells] = 1;
		finish_cell(r, l, c, &res, &ms.out, res.ok ? "ok" : "failed",
			    child_reason(&res));
	}
	child_result_free(&res);
close:
	measure_close(&ms, c);
out:
	job_close(&j);
}

/* Whether a cell of a later phase of fc than its i-th's is still to
 * run: a resume then replays the i-th, which the first run recorded, so
 * that the later phases find what it left (a read after its write, the
 * tree's steps). The cells of one phase (a matrix, repetitions) are
 * taken to make what they use, as fsplan's modules do: a phase's own
 * recorded cells are not replayed for its later ones. */
static int todo_after(const struct run *r, const struct fsconf *fc,
		      size_t i, int round)
{
	const struct cell *c = &r->e->cells[fc->first_cell + i];

	while (++i < fc->n_cells) {
		const struct cell *l = &r->e->cells[fc->first_cell + i];

		if (todo(r, l) && in_round(l, round) && l->phase != c->phase)
			return 1;
	}
	return 0;
}

/*
 * How a cell that is not to run may run all the same, for the later
 * phases of its config that start from what it leaves: a resume's
 * recorded cell is replayed; in a rounds run, whose every round makes
 * the config anew, so is a repetition its stop rule ended (done 2). 0:
 * neither.
 */
static int replay_kind(const struct run *r, const struct cell *c,
		       int round)
{
	int done = r->done[c - r->e->cells];

	if (done == 1)
		return REPLAY_RESUME;
	return round && done == 2 ? REPLAY_ROUND : 0;
}

/* fc made, its cells of round run (round 0: all of them), unmade. */
static void run_conf(struct run *r, struct fsconf *fc, int round)
{
	const struct plan_target *pt = &r->plan->target;
	struct live l = { .fc = fc, .round = round };
	char err[512];
	int n = 0, left = 0, is_dir = pt->kind == TARGET_DIR;

	l.volumes = pt->n_volumes > 0;
	l.n_vol = l.volumes ? pt->n_volumes : 1;
	for (int i = 0; i < l.n_vol; i++) {
		l.vol[i].name = l.volumes ? pt->volumes[i].s : NULL;
		l.vol[i].td.fd = l.vol[i].td.lock_fd = -1;
		l.vol[i].td.claim.fd = l.vol[i].td.claim.disk_fd = -1;
		snprintf(l.vol[i].mnt, sizeof(l.vol[i].mnt), "%s", r->mnt);
	}

	for (size_t i = 0; i < fc->n_cells; i++)
		n += todo(r, &r->e->cells[fc->first_cell + i]) &&
		     in_round(&r->e->cells[fc->first_cell + i], round);
	if (!n || r->stop)
		return;
	conf_axes(r->e, NULL, fc, l.axes, sizeof(l.axes));
	if (snprintf(l.cid, sizeof(l.cid), "%s%s%s", fc->label,
		     l.axes[0] ? "/" : "", l.axes) >= (int)sizeof(l.cid))
		runlog("config %d: its id is cut short", fc->index);
	if (round) {
		snprintf(l.cell, sizeof(l.cell), "%s#%d", l.cid, round);
		runlog("config %d: %s, round %d", fc->index, l.cid, round);
	} else {
		memcpy(l.cell, l.cid, sizeof(l.cid));
		runlog("config %d: %s", fc->index, l.cid);
	}
	if (!is_dir && fs_available(fc->fs->type.s, fc->fs->nodev, err,
				    sizeof(err))) {
		settle_conf(r, &l, "skipped", err);
		return;
	}
	if (conf_up(r, &l, err, sizeof(err)))
		goto fail;
	manifest_conf(r->man, fc->index - 1, "status", json_string("running"));
	/* The loop fd stays open to the end: a remount's umount would
	 * otherwise let autoclear take the device away. */
	for (size_t i = 0; i < fc->n_cells && !r->stop; i++) {
		struct cell *c = &r->e->cells[fc->first_cell + i];
		int replay = todo(r, c) ? 0 : replay_kind(r, c, round);

		if (!in_round(c, round) ||
		    (!todo(r, c) && !(replay && todo_after(r, fc, i, round))))
			continue;
		run_cell(r, &l, c, replay);
		if (!is_dir && !conf_mounted(&l)) {
			snprintf(err, sizeof(err), "the filesystem could not "
				 "be mounted again (remount)");
			goto fail;
		}
	}
	/* a rounds run comes back to it: "running" until its last round */
	for (size_t i = 0; i < fc->n_cells && !r->stop; i++)
		left += todo(r, &r->e->cells[fc->first_cell + i]);
	manifest_conf(r->man, fc->index - 1, "status",
		      json_string(r->stop ? "interrupted" :
				  left ? "running" : "done"));
	conf_down(r, &l);
	return;
fail:
	runlog("%s: %s", l.cid, err);
	/* a mkfs or setup hook the stop cut short failed nothing */
	if (r->stop)
		manifest_conf(r->man, fc->index - 1, "status",
			      json_string("interrupted"));
	else
		settle_conf(r, &l, "failed", err);
	conf_down(r, &l);
}

/* --resume: the stop rules' cells go on from what results.csv holds. */
static int resume_rules(struct run *r)
{
	char path[PATH_MAX + 16];
	struct diag d = { 0 };
	int resumed = 0;

	for (size_t i = 0; i < r->e->n_cells && !resumed; i++)
		resumed = r->done[i];
	snprintf(path, sizeof(path), "%s/results.csv", r->dir);
	if (resumed && stoprule_resume(r, path, &d)) {
		diag_print(&d);
		return -1;
	}
	return 0;
}

/* order: rounds: round k runs repetition k of every config, each made
 * anew, starting at the k-th config, so that a config is not always
 * first on a machine that drifts (a disk's cache filling, a host's other
 * guests). */
static void run_rounds(struct run *r)
{
	int rounds = expansion_rounds(r->e);

	for (int k = 1; k <= rounds && !r->stop; k++)
		for (int j = 0; j < r->e->n_confs && !r->stop; j++)
			run_conf(r, expansion_round_conf(r->e, k, j), k);
}

/* In the namespace's init: every config and cell, in order. */
static int run_all(struct run *r)
{
	char replayed[240] = "", stopped[80] = "";
	struct diag d = { 0 };
	int failed, n, left;

	r->t_start = clock_now();
	if (resume_rules(r))
		return EXIT_FAILED;
	conf_workdir_warn(r);
	sink_init(&r->sink, r->csv, r->man, r->dir);
	if (lostrows_record(r, &d)) {
		diag_print(&d);
		sink_free(&r->sink);
		return EXIT_FAILED;
	}
	for (size_t i = 0; i < r->e->n_cells; i++)
		r->n_todo += todo(r, &r->e->cells[i]);
	if (r->plan->rounds)
		run_rounds(r);
	else
		for (int i = 0; i < r->e->n_confs && !r->stop; i++)
			run_conf(r, &r->e->confs[i], 0);
	if (r->progress)
		fprintf(stderr, "\r\033[K");
	manifest_set(r->man, "ended", manifest_now());
	manifest_set(r->man, "status", json_string(r->stop ? "interrupted"
							    : "complete"));
	sink_save(&r->sink);
	n = 0;
	if (r->n_replayed)
		n = snprintf(replayed, sizeof(replayed), ", %d replayed (a "
			     "resume's: not recorded again)", r->n_replayed);
	if (r->n_rerun)
		n += snprintf(replayed + n, sizeof(replayed) - (size_t)n,
			      ", %d ran unrecorded (for the later phases of "
			      "their round)", r->n_rerun);
	if (r->n_lost)
		snprintf(replayed + n, sizeof(replayed) - (size_t)n, ", %d "
			 "row%s a killed run left short now " SINK_LOST
			 " (log.txt)", r->n_lost, r->n_lost == 1 ? "" : "s");
	if (r->stop) {
		left = 0;
		for (size_t i = 0; i < r->e->n_cells; i++)
			left += todo(r, &r->e->cells[i]);
		snprintf(stopped, sizeof(stopped), " (interrupted: %d not run; "
			 "--resume continues)", left);
	}
	runlog("%s: %d ok, %d failed, %d skipped%s%s", r->run_id, r->n_ok,
	       r->n_failed, r->n_skipped, replayed, stopped);
	if (!r->quiet)
		fprintf(stderr, "fsplan: %d ok, %d failed, %d skipped%s%s; "
			"results in %s\n", r->n_ok, r->n_failed, r->n_skipped,
			replayed, stopped, r->dir);
	/* even with -q: what is missing from the run directory is an error */
	if (r->sink.write_errors)
		fprintf(stderr, "fsplan: %d writes of results failed (the "
			"first: %s); what is missing is in %s/log.txt\n",
			r->sink.write_errors, strerror(r->sink.first_error),
			r->dir);
	failed = r->n_failed || r->sink.write_errors;
	sink_free(&r->sink);
	if (r->stop)
		return EXIT_INTERRUPTED(r->stop);
	return failed ? EXIT_FAILED : EXIT_OK;
}

int runner_main(struct run *r)
{
	return ns_run(r, run_all);
}
