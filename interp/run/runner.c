/* runner: each config's lifecycle and its phase runs, in the namespace. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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
#include "host/sampler.h"
#include "run/between.h"
#include "run/conf.h"
#include "run/confage.h"
#include "run/job.h"
#include "run/lostrows.h"
#include "run/measure.h"
#include "run/phfiles.h"
#include "run/progress.h"
#include "run/ns.h"
#include "run/run.h"
#include "run/runlog.h"
#include "run/runprobe.h"
#include "run/stoprule.h"
#include "run/timeline.h"
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
			const struct measured *ms, const struct timeline *tl,
			enum res_status status, const char *reason)
{
	struct strbuf params = { 0 };
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
		.measured = ms, .fs_used_bytes = -1, .tl = tl,
		.status = status, .reason = reason,
	};

	live_key(r, l, c, &params, &k);
	if (status == RES_FAILED)
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
	eta_done(&r->eta, c, res != NULL, clock_now());
	free(r->parsed);
	r->parsed = NULL;
	if (o.status == RES_OK)
		r->n_ok++;
	else if (o.status == RES_SKIPPED)
		r->n_skipped++;
	else
		r->n_failed++;
	r->n_run++;
	runlog("%s: %s%s%s", c->id, results_status_name(o.status),
	       o.reason && *o.reason ? ": " : "", o.reason ? o.reason : "");
	sink_save_soon(&r->sink);
	free(params.p);
}

static int todo(const struct run *r, const struct cell *c)
{
	return c->selected && r->done[c - r->e->cells] == RUN_TODO;
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
static void settle_conf(struct run *r, struct live *l,
			enum res_status status, const char *reason)
{
	for (size_t i = 0; i < l->fc->n_cells; i++) {
		struct cell *c = &r->e->cells[l->fc->first_cell + i];

		if (!todo(r, c))
			continue;
		r->done[c - r->e->cells] = RUN_RECORDED;
		finish_cell(r, l, c, NULL, NULL, NULL, status, reason);
	}
	manifest_conf_state(r->man, l->fc->index - 1,
			    manifest_state_of(status));
	if (reason)
		manifest_conf(r->man, l->fc->index - 1, "reason",
			      json_string(reason));
	sink_save(&r->sink);
}

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
		finish_cell(r, l, c, NULL, NULL, NULL, RES_FAILED, why);
}

/* What the child's ticks serve: the sampler at the phase's interval,
 * the progress line once a second. */
struct ticking {
	struct run *r;
	struct sampler *sm;
	double shown;
};

static void tick(void *ctx)
{
	struct ticking *tk = ctx;
	double now = clock_now();

	sampler_tick(tk->sm);
	if (now - tk->shown >= 1.0 - 0.01) {
		progress_show(tk->r, tk->r->current, 1);
		tk->shown = now;
	}
}

/* The ticks' period: the interval, or a part of it a second at most
 * (so the progress line moves), or a second without a series. */
static double tick_period(double interval_s)
{
	if (interval_s <= 0)
		return 1.0;
	return interval_s / ceil(interval_s);
}

/* The phase run's series: root's points, the T lines of its report (a
 * Lua phase's) and of its parser's, the steady test of its key. */
static void series_of_run(struct run *r, const struct cell *c,
			  const struct child_result *res,
			  const struct sampler *sm, struct timeline *tl)
{
	const struct plan_phase *ph = &r->plan->phases[c->phase];
	const struct phase_checked *pc = r->e->checked ?
					 &r->e->checked[c->phase] : NULL;
	int lua = job_measured(r, c);

	if (timeline_join(tl, &sm->s, lua ? res->report : NULL,
			  lua ? res->report_len : 0, r->parsed,
			  r->parsed_len) || sm->lost)
		runlog("%s: out of memory: its series is not whole", c->id);
	if (tl->refused[0])
		runlog("%s: %s", c->id, tl->refused);
	timeline_steady(tl, &ph->steady, ph->warmup_s, lua,
			pc && pc->key.n ? pc->key.name[0] : NULL);
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
	struct ticking tk;
	struct timeline tl;
	struct job j;
	struct diag d = { 0 };

	if (!replay)
		progress_show(r, c, 0);
	if (between_run(l, b, &d)) {
		unrun_cell(r, l, c, replay, d.msg);
		return;
	}
	if (phfiles_put(r->plan, ph, l->work, &r->runas, &d) ||
	    job_open(&j, r, l->fc, l->work, conf_vol_dir(l, 0), c, &d)) {
		unrun_cell(r, l, c, replay, d.msg);
		goto out;
	}
	if (measure_open(&ms, r, l, c, &j.child, &j.lua.ram_bytes, &d)) {
		unrun_cell(r, l, c, replay, d.msg);
		goto out;
	}
	tk = (struct ticking){ r, &ms.sm, clock_now() };
	j.child.tick = tick;
	j.child.tick_ctx = &tk;
	j.child.tick_s = tick_period(ms.sm.interval_s);
	j.child.tick_from = &ms.sm.t0;
	j.child.pid = &ms.sm.pid;
	if (job_measured(r, c)) {
		j.child.setup_done = measure_setup_done;
		j.child.setup_done_ctx = &ms;
	}
	r->current = c;
	runlog("%s: %s: %s", c->id, replay == REPLAY_ROUND ? "unrecorded run"
	       : replay ? "replay" : "run", j.cmd);
	measure_start(&ms);
	if (!job_measured(r, c))
		sampler_start(&ms.sm);	/* an exec phase is timed whole */
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
		manifest_cell(r->man, c - r->e->cells, MANIFEST_INTERRUPTED,
			      NULL);
		sink_save(&r->sink);
	} else {
		r->done[c - r->e->cells] = RUN_RECORDED;
		series_of_run(r, c, &res, &ms.sm, &tl);
		finish_cell(r, l, c, &res, &ms.out, &tl, res.ok ? RES_OK :
			    RES_FAILED, child_reason(&res));
		timeline_free(&tl);
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
 * the config anew, so is a repetition its stop rule ended (RUN_STOPPED). 0:
 * neither.
 */
static int replay_kind(const struct run *r, const struct cell *c,
		       int round)
{
	int done = r->done[c - r->e->cells];

	if (done == RUN_RECORDED)
		return REPLAY_RESUME;
	return round && done == RUN_STOPPED ? REPLAY_ROUND : 0;
}

/* The config's id (label/axes) and its own rows' cell (the id, and in a
 * rounds run #round), as long as the plan makes them; logged. 0, or -1
 * out of memory. */
static int conf_names(const struct run *r, struct live *l)
{
	struct strbuf axes = { 0 }, cid = { 0 }, cell = { 0 };
	const struct fsconf *fc = l->fc;
	int rc;

	live_axes(r->e, NULL, fc, &axes);
	strbuf_printf(&cid, "%s%s%s", fc->label, axes.len ? "/" : "",
		      axes.oom ? "" : axes.p);
	strbuf_printf(&cell, "%s", cid.oom ? "" : cid.p);
	if (l->round)
		strbuf_printf(&cell, "#%d", l->round);
	rc = axes.oom || cid.oom || cell.oom ? -1 : 0;
	free(axes.p);
	l->cid = cid.p;
	l->cell = cell.p;
	if (rc)
		return -1;
	if (l->round)
		runlog("config %d: %s, round %d", fc->index, l->cid, l->round);
	else
		runlog("config %d: %s", fc->index, l->cid);
	return 0;
}

/* fc made, its cells of round run (round 0: all of them), unmade. */
static void run_conf(struct run *r, struct fsconf *fc, int round)
{
	const struct plan_target *pt = &r->plan->target;
	struct live l = { .fc = fc, .round = round };
	struct diag d = { 0 };
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
	if (conf_names(r, &l)) {
		runlog("config %d: out of memory", fc->index);
		goto out;
	}
	if (!is_dir && fs_available(fc->fs->type.s, fc->fs->nodev, &d)) {
		settle_conf(r, &l, RES_SKIPPED, d.msg);
		goto out;
	}
	for (size_t i = 0; i < fc->n_cells; i++) {
		struct cell *c = &r->e->cells[fc->first_cell + i];

		if (todo(r, c) && in_round(c, round)) {
			progress_making(r, c, l.cid);
			break;
		}
	}
	if (conf_up(r, &l, &d))
		goto fail;
	manifest_conf_state(r->man, fc->index - 1, MANIFEST_RUNNING);
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
			diag_fail(&d, DIAG_SYSTEM, 0, "the filesystem could "
				  "not be mounted again (remount)");
			goto fail;
		}
	}
	/* a rounds run comes back to it: "running" until its last round */
	for (size_t i = 0; i < fc->n_cells && !r->stop; i++)
		left += todo(r, &r->e->cells[fc->first_cell + i]);
	manifest_conf_state(r->man, fc->index - 1, r->stop ?
			    MANIFEST_INTERRUPTED : left ? MANIFEST_RUNNING :
			    MANIFEST_DONE);
	if (!r->stop)
		confage_end(r, &l);
	conf_down(r, &l);
	goto out;
fail:
	runlog("%s: %s", l.cid, d.msg);
	/* a mkfs or setup hook the stop cut short failed nothing */
	if (r->stop)
		manifest_conf_state(r->man, fc->index - 1,
				    MANIFEST_INTERRUPTED);
	else
		settle_conf(r, &l, RES_FAILED, d.msg);
	conf_down(r, &l);
out:
	free(l.cid);
	free(l.cell);
}

/* --resume: the stop rules' cells go on from what results.csv holds. */
static int resume_rules(struct run *r, struct diag *d)
{
	char path[PATH_MAX + 16];
	int resumed = 0;

	for (size_t i = 0; i < r->e->n_cells && !resumed; i++)
		resumed = r->done[i] != RUN_TODO;
	snprintf(path, sizeof(path), "%s/results.csv", r->dir);
	return resumed ? stoprule_resume(r, path, d) : 0;
}

int runner_prepare(struct run *r, struct diag *d)
{
	if (resume_rules(r, d))
		return -1;
	conf_workdir_warn(r);
	sink_init(&r->sink, r->csv, r->man, r->dir);
	if (sink_open_series(&r->sink, d) || lostrows_record(r, d)) {
		sink_free(&r->sink);
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
	int failed, n, left = runprobe(r);

	if (left) {
		sink_free(&r->sink);
		return left;
	}
	r->t_start = clock_now();
	if (eta_init(&r->eta, r->e, r->t_start))
		runlog("out of memory: the progress line has no ETA");
	for (size_t i = 0; i < r->e->n_cells; i++)
		r->n_todo += todo(r, &r->e->cells[i]);
	if (r->plan->rounds)
		run_rounds(r);
	else
		for (int i = 0; i < r->e->n_confs && !r->stop; i++)
			run_conf(r, &r->e->confs[i], 0);
	progress_clear(r);
	eta_free(&r->eta);
	manifest_set(r->man, "ended", manifest_now());
	manifest_run_state(r->man, r->stop ? MANIFEST_INTERRUPTED :
			   MANIFEST_COMPLETE);
	confage_forget(r);
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
