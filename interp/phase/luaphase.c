/* luaphase: run a Lua phase in the dropped child — its steps, one thread and
 * one Lua state per worker, and how it fails. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <lauxlib.h>

#include "cells/expand.h"
#include "results/metrics.h"
#include "phase/lexec.h"
#include "phase/lfail.h"
#include "phase/lreport.h"
#include "phase/lseries.h"
#include "phase/luajob.h"
#include "phase/luaphase.h"
#include "phase/params.h"
#include "phase/workerapi.h"
#include "phase/optable.h"
#include "phase/worker.h"
#include "phase/phase.h"
#include "phase/libsrc.h"
#include "plan/plan.h"
#include "phase/sandbox.h"
#include "util/clock.h"

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* The watchdog's signal to a worker thread: a stop is due. */
#define SIG_ARM		SIGRTMIN
#define WATCH_NS	20000000L	/* between two looks */
#define REARM_S		0.1		/* between two signals to a worker */

static void on_arm(int sig)
{
	(void)sig;
	sandbox_arm();
}

/* What every state of the run shares, read-only once workers start. */
struct shared {
	const struct luajob *job;
	struct phase_decl decl;
	struct param_val *vals;
	struct luajob_ctx ctx;		/* what each state's ctx is made of */
	const struct engine_ops *eng;
	unsigned char *src;
	size_t src_len;
	int workers;
	int workfd;
	double deadline;
	double seconds_param;
	double thr[16];			/* the module's thresholds (ms) */
	int n_thr;
	struct sandbox_limits lim;
	size_t mem_used;		/* lim.used: all the states' bytes */
	struct optable_slot tab;	/* ctx.share's table */
	sem_t ended;			/* posted by each worker at its end */
	struct lseries ls;		/* the series, the steady watch */
	int halt;			/* atomic: the steady stop */
};

struct wthread {
	struct shared *sh;
	pthread_t tid;
	struct worker w;
	struct diag d;			/* why it failed */
	int failed;			/* 1, or 2: it never started */
	int ended;			/* atomic: the thread is done */
};

/*
 * The sandbox's deadline comes a little before the parent's kill at the
 * phase's timeout (whose clock started before the fork), so that a loop
 * still running then is stopped where it is, and the reason names the
 * line: a tenth of the timeout early, at most STOP_EARLY_S.
 */
#define STOP_EARLY_S	0.25

static double sandbox_deadline(double timeout_s)
{
	double early = timeout_s / 10 < STOP_EARLY_S ? timeout_s / 10
						      : STOP_EARLY_S;

	return clock_now() + timeout_s - early;
}

/* Whether the phase has run into its timeout: a stop the sandbox raised
 * then, or a w:done() that said so, is the timeout's, never a result. */
static int timed_out(const struct shared *sh)
{
	return sh->deadline > 0 && clock_now() >= sh->deadline;
}

/* The one way this child fails (lfail_phase), its deadline known. */
static void fail(const struct shared *sh, const char *what,
		 const struct diag *d)
{
	lfail_phase(sh->job, sh->deadline, what, d);
}

/* fail() with a message of its own. */
#define failf(sh, what, kind, ...) do {					\
		struct diag d_ = { 0 };					\
									\
		diag_fail(&d_, kind, 0, __VA_ARGS__);			\
		fail(sh, what, &d_);					\
	} while (0)

/* A state with the module loaded (left at index 1) and ctx (index 2). */
static lua_State *new_state(struct shared *sh, struct diag *d)
{
	struct phase_decl decl;
	lua_State *L = sandbox_new(&sh->lim);
	int rc;

	if (!L) {
		diag_fail(d, DIAG_SYSTEM, 0, "cannot make a Lua state");
		return NULL;
	}
	rc = phase_load(L, sh->job->module, sh->job->text, sh->job->text_len,
			&decl, d);
	phase_decl_free(&decl);
	if (rc || sandbox_cpcall(L, luajob_push_ctx, &sh->ctx, 0, d)) {
		sandbox_close(L);
		return NULL;
	}
	return L;
}

/* w (the worker at index 1) for ctx (index 2): lua_pcall'd. */
static int push_w(lua_State *L)
{
	phase_field(L, 2, "params");
	workerapi_push(L, lua_touserdata(L, 1), -1);
	return 1;
}

/* The module's function name, if it has one: worker(w, ctx), or
 * setup/teardown(ctx, w). */
static int run_fn(lua_State *L, struct worker *w, const char *name,
		  struct diag *d)
{
	if (phase_field(L, 1, name) != LUA_TFUNCTION) {
		lua_pop(L, 1);
		return 0;
	}
	if (sandbox_cpcall(L, push_w, w, 2, d)) {
		lua_pop(L, 1);
		return -1;
	}
	lua_pushvalue(L, 2);
	if (strcmp(name, "worker"))
		lua_insert(L, -2);
	return sandbox_call(L, 2, 0, d);
}

/* worker_init for this run. */
static int init_worker(struct shared *sh, struct worker *w, struct diag *d)
{
	w->workers = sh->workers;
	w->deadline = sh->deadline;
	w->stop = &stop;
	return worker_init(w, sh->eng, sh->workfd, sh->src, sh->src_len,
			   sh->job->e->plan->seed, sh->job->c->rep, d);
}

static void *worker_main(void *arg)
{
	struct wthread *t = arg;
	struct shared *sh = t->sh;
	lua_State *L;

	/*
	 * A file table of its own, as each of dbench's or bonnie's
	 * processes has: the workers' opens and closes then do not queue
	 * on one table's lock, and a table no other thread shares takes
	 * the kernel's fast path for every fd (no reference counting per
	 * call). The worker's fds close with it when it ends.
	 */
	if (unshare(CLONE_FILES))
		fprintf(stderr, "worker %d: the process's file table (cannot "
			"unshare it: %s)\n", t->w.id, strerror(errno));
	L = new_state(sh, &t->d);
	if (!L) {
		t->failed = 1;
		goto out;
	}
	sandbox_watch(L);	/* the watchdog's signal arms its hook */
	t->w.seconds = sh->seconds_param;
	/* the ring is made here: in this thread, after the drop */
	if (init_worker(sh, &t->w, &t->d) || run_fn(L, &t->w, "worker", &t->d))
		t->failed = 1;
	sandbox_unwatch(L);
	sandbox_close(L);
	worker_end_engines(&t->w);	/* in its own thread: the ring's */
out:
	__atomic_store_n(&t->ended, 1, __ATOMIC_RELEASE);
	sem_post(&sh->ended);
	return NULL;
}

/*
 * Wait for the started workers' ends. A worker's state has no polling
 * hook (sandbox_watch): once a stop is requested or the deadline has
 * passed, each worker still running gets SIG_ARM, again every REARM_S
 * while it runs, so a loop that never calls w:done() is stopped where it
 * is, as the hook would have stopped it.
 */
static void watch_workers(struct shared *sh, struct wthread *t, int started)
{
	double armed = 0;

	while (started > 0) {
		/* the steady stop: w:done() true, as at `seconds` */
		if (lseries_tick(&sh->ls))
			__atomic_store_n(&sh->halt, 1, __ATOMIC_RELAXED);
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += WATCH_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (!sem_clockwait(&sh->ended, CLOCK_MONOTONIC, &ts)) {
			started--;
			continue;
		}
		if (!stop && !timed_out(sh))
			continue;
		if (armed > 0 && clock_now() - armed < REARM_S)
			continue;
		armed = clock_now();
		for (int i = 0; i < sh->workers; i++)
			if (t[i].failed != 2 &&
			    !__atomic_load_n(&t[i].ended, __ATOMIC_ACQUIRE))
				pthread_kill(t[i].tid, SIG_ARM);
	}
}

/*
 * After the setup's mark, until the parent has read the devices'
 * counters (its METRICS_GO): a worker's write before that would count
 * as the setup's, not the workers' (write_amp 0.7 for a synced
 * sequential write). A stop (SIGTERM) ends the wait: the workers then
 * stop at once. 0, or -1 if the parent is gone.
 */
static int wait_go(void)
{
	char go;
	ssize_t n;

	while ((n = read(METRICS_REPORT_FD, &go, 1)) < 0 && errno == EINTR)
		if (stop)
			return 0;
	return n == 1 && go == METRICS_GO ? 0 : -1;
}

/*
 * Load the module in L (index 1), type the cell's values, find the
 * engine, make the seeded bytes and push ctx (index 2). 0, or -1 after
 * fail().
 */
static int prepare(lua_State *L, struct shared *sh)
{
	const struct luajob *job = sh->job;
	struct diag d = { 0 };
	char engine[16];

	if (phase_load(L, job->module, job->text, job->text_len, &sh->decl,
		       &d))
		goto fail_load;
	sh->vals = calloc(sh->decl.n_params + 1, sizeof(*sh->vals));
	if (!sh->vals) {
		failf(sh, "plan", DIAG_SYSTEM, "out of memory");
		return -1;
	}
	if (params_read(job->e, job->c, &sh->decl, sh->vals, &sh->workers,
			engine, sizeof(engine), &d)) {
		fail(sh, NULL, &d);	/* its place in the plan: its own */
		return -1;
	}
	for (int i = 0; i < sh->decl.n_params; i++)
		if (!strcmp(sh->vals[i].name, "seconds"))
			sh->seconds_param = lseries_seconds(&sh->ls,
							   &sh->vals[i]);
	sh->eng = engine_find(engine);
	sh->src = worker_source(job->e->plan->seed, &sh->src_len);
	if (!sh->eng || !sh->src) {
		failf(sh, "engine", sh->eng ? DIAG_SYSTEM : DIAG_INPUT, "%s",
		      sh->eng ? "out of memory" : engine);
		return -1;
	}
	sh->ctx = (struct luajob_ctx){ job, sh->vals, sh->decl.n_params,
				   sh->workers, &sh->tab };
	if (!sandbox_cpcall(L, luajob_push_ctx, &sh->ctx, 0, &d))
		return 0;
	fail(sh, "phase", &d);
	diag_release(&d);
	return -1;
fail_load:
	fail(sh, "load", &d);
	diag_release(&d);
	return -1;
}

/* Start a thread per worker, each with its stack size. How many
 * started; one that did not has failed 2 and its why in t->d. */
static int start_workers(struct shared *sh, struct wthread *t)
{
	pthread_attr_t attr;
	int attr_ok, started = 0;

	/* without its own attributes a thread gets the default stack */
	attr_ok = !pthread_attr_init(&attr);
	if (attr_ok && pthread_attr_setstacksize(&attr, 512 << 10))
		fprintf(stderr, "workers: the default stack size, not 512K\n");
	for (int i = 0; i < sh->workers; i++) {
		int err;

		t[i].sh = sh;
		t[i].w.id = i + 1;
		err = pthread_create(&t[i].tid, attr_ok ? &attr : NULL,
				     worker_main, &t[i]);
		if (!err) {
			started++;
			continue;
		}
		diag_fail(&t[i].d, DIAG_SYSTEM, 0, "cannot start worker %d: "
			  "%s%s", i + 1, strerror(err), err != EAGAIN ? "" :
			  ": a limit on threads was reached: the user's "
			  "RLIMIT_NPROC (ulimit -u, which counts every thread "
			  "of the user's processes), kernel.threads-max, or "
			  "the pids.max of the cgroup fsplan runs in; raise "
			  "it or use fewer workers");
		t[i].d.err = err;
		t[i].failed = 2;
		stop = 1;
	}
	if (attr_ok)
		pthread_attr_destroy(&attr);
	return started;
}

/* Worker i's end: its failure (the first one only fails the phase), its
 * metrics and I/O errors into total and errs. 0, or -1 after fail(). */
static int end_worker(struct shared *sh, struct wthread *t, int i, int rc,
		      struct metrics *total, struct worker_errors *errs)
{
	char what[32];
	int merged;

	if (t->failed && !rc) {
		snprintf(what, sizeof(what), "worker %d", i + 1);
		lfail_io_error(&t->d, &t->w.errs);
		fail(sh, what, &t->d);
		rc = -1;
	}
	merged = metrics_merge(total, &t->w.m);
	if ((merged || worker_errors_merge(errs, &t->w.errs)) && !rc) {
		/* each worker's counters are finite (w:count), not always
		 * their sum: the value's fault, not memory's */
		if (merged == -EOVERFLOW)
			failf(sh, "workers", DIAG_LIMIT, "the workers' metrics "
			      "summed overflow: a counter past the largest "
			      "finite number, or an op's count or bytes past "
			      "2^64");
		else
			failf(sh, "workers", DIAG_SYSTEM, "out of memory "
			      "merging the workers' metrics");
		rc = -1;
	}
	worker_free(&t->w);
	diag_release(&t->d);
	return rc;
}

/* One thread per worker; joined, their metrics merged into total. 0, or
 * -1 after fail(). */
static int run_workers(struct shared *sh, struct metrics *total,
		       struct worker_errors *errs)
{
	struct wthread *t = calloc(sh->workers, sizeof(*t));
	int rc = 0;
	double end;

	if (!t || lseries_workers(&sh->ls, sh->workers)) {
		failf(sh, "workers", DIAG_SYSTEM, "out of memory");
		free(t);
		return -1;
	}
	lseries_start(&sh->ls);
	for (int i = 0; i < sh->workers; i++)
		lseries_worker(&sh->ls, i, &t[i].w, &sh->halt);
	watch_workers(sh, t, start_workers(sh, t));
	for (int i = 0; i < sh->workers; i++)
		if (t[i].failed != 2)
			pthread_join(t[i].tid, NULL);
	end = clock_now() - sh->ls.t0;
	/* the rows' time is the measured one: after the warmup */
	total->seconds = end > sh->ls.warmup_s ? end - sh->ls.warmup_s : 0;
	lseries_encode(&sh->ls, end);
	for (int i = 0; i < sh->workers; i++)
		rc = end_worker(sh, &t[i], i, rc, total, errs);
	free(t);
	/* each worker kept to the names' cap, their sum is the phase's */
	if (!rc && total->n_ops + total->n_counters > WORKER_MAX_NAMES) {
		failf(sh, "workers", DIAG_LIMIT, "the workers named %d "
		      "ops/metrics together; a phase may name at most %d",
		      total->n_ops + total->n_counters, WORKER_MAX_NAMES);
		rc = -1;
	}
	return rc;
}

/* setup(ctx, w0) or teardown: 0, or -1 after fail(). */
static int step(lua_State *L, const struct shared *sh, struct worker *w0,
		const char *name)
{
	struct diag d = { 0 };

	if (!run_fn(L, w0, name, &d))
		return 0;
	lfail_io_error(&d, &w0->errs);
	fail(sh, name, &d);
	diag_release(&d);
	return -1;
}

/* w0 and setup, then the parent's go (it reads the devices' counters
 * now: setup's writes, a fill it synced, are not the workers'). 0, or
 * -1 after fail(). */
static int set_up(lua_State *L, struct shared *sh, struct worker *w0)
{
	struct diag d = { 0 };

	if (init_worker(sh, w0, &d)) {
		fail(sh, "engine", &d);
		diag_release(&d);
		return -1;
	}
	if (step(L, sh, w0, "setup"))
		return -1;
	if (dprintf(METRICS_REPORT_FD, "%s", METRICS_SETUP_DONE) < 0 ||
	    wait_go()) {
		failf(sh, "phase", DIAG_SYSTEM, "the report pipe to the "
		      "parent is gone");
		return -1;
	}
	sh->tab.frozen = 1;	/* read-only for the workers' threads */
	return 0;
}

/* After the workers: teardown, the I/O errors, report(), and the report
 * to the parent. The child's exit status: 0, or 1 (after fail()). */
static int finish(lua_State *L, const struct shared *sh, struct worker *w0,
		  struct metrics *total, struct worker_errors *errs)
{
	struct diag d = { 0 };
	struct rusage ru;
	int rc = 1;

	if (timed_out(sh)) {	/* the workers' w:done() said so */
		failf(sh, "timeout", DIAG_LIMIT, "still running at the "
		      "phase's timeout of %g s: its workers stopped there",
		      sh->job->timeout_s);
		return 1;
	}
	if (sh->ls.warmup_s > 0 && !(total->seconds > 0)) {
		failf(sh, "warmup", DIAG_PHASE, "the workers ended within the "
		      "phase's warmup of %g s: nothing was measured",
		      sh->ls.warmup_s);
		return 1;
	}
	/* the child's peak resident memory, all its workers at once */
	if (!getrusage(RUSAGE_SELF, &ru) &&
	    metrics_count(total, METRICS_RSS_PEAK, (double)ru.ru_maxrss)) {
		failf(sh, "workers", DIAG_SYSTEM, "out of memory");
		return 1;
	}
	/* setup's and teardown's own ops are not the workload's (their
	 * I/O errors are the run's) */
	if (step(L, sh, w0, "teardown"))
		return 1;
	if (worker_errors_merge(errs, &w0->errs) ||
	    metrics_merge(total, &errs->m)) {
		failf(sh, "workers", DIAG_SYSTEM, "out of memory merging the "
		      "I/O errors");
		return 1;
	}
	if (errs->n && !sh->decl.tolerate_errors) {
		/* an error never passes as a result: the reason says how
		 * many, and the first (the run log keeps it) */
		char why[2048];	/* counts and names: bounded */

		worker_errors_reason(errs, why, sizeof(why));
		lfail_text(&d, DIAG_PHASE, NULL, why);
		fail(sh, NULL, &d);
	} else if (lreport_call(L, total, sh->thr, sh->n_thr, &d)) {
		fail(sh, "report", &d);
	} else {
		/* the points first: the metrics' END ends the report */
		rc = lseries_send(&sh->ls, METRICS_REPORT_FD) ||
		     lreport_send(L, total, sh->thr, sh->n_thr) ? 1 : 0;
	}
	diag_release(&d);
	return rc;
}

/* The signals, the deadline, the limits and the work directory. 0, or
 * -1 after fail(). */
static int set_child_up(struct shared *sh)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct sigaction arm = { .sa_handler = on_arm, .sa_flags = SA_RESTART };

	sh->workfd = -1;
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL) ||
	    sigaction(SIG_ARM, &arm, NULL) || sem_init(&sh->ended, 0, 0)) {
		failf(sh, "phase", DIAG_SYSTEM, "cannot catch SIGTERM, SIGINT "
		      "and SIGRTMIN");
		return -1;
	}
	sh->deadline = sandbox_deadline(sh->job->timeout_s);
	if (lseries_init(&sh->ls, sh->job)) {
		failf(sh, "phase", DIAG_SYSTEM, "out of memory");
		return -1;
	}
	sh->lim = (struct sandbox_limits){ sh->job->mem_bytes, sh->deadline,
					   &stop, libsrc_dir(), &sh->mem_used };
	/* not O_PATH: syncfs and fstatfs want a real fd */
	sh->workfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return 0;
}

int luaphase_body(void *arg)
{
	struct shared sh = { .job = arg };
	struct worker w0 = { 0 };
	struct metrics total = { 0 };
	struct worker_errors errs = { 0 };
	struct diag d = { 0 };
	lua_State *L = NULL;
	int rc = 1;

	if (set_child_up(&sh))
		return 1;
	L = sandbox_new(&sh.lim);
	if (sh.workfd < 0 || !L) {
		failf(&sh, "phase", DIAG_SYSTEM, "cannot set up the Lua state");
		goto out;
	}
	if (prepare(L, &sh))
		goto out;
	if (sh.decl.exec[0]) {		/* an exec module: no Lua runs */
		lexec_run(sh.job->module, &sh.decl, sh.vals, sh.workers,
			  &d);
		fail(&sh, "exec", &d);
		goto out;
	}
	sh.n_thr = lreport_thresholds(L, sh.thr, 16);
	if (!set_up(L, &sh, &w0) && !run_workers(&sh, &total, &errs))
		rc = finish(L, &sh, &w0, &total, &errs);
out:
	diag_release(&d);
	worker_free(&w0);
	metrics_free(&total);
	metrics_free(&errs.m);
	if (sh.vals)
		params_free(sh.vals, sh.decl.n_params);
	free(sh.vals);
	phase_decl_free(&sh.decl);
	free(sh.src);
	if (L)
		sandbox_close(L);
	if (sh.workfd >= 0)
		close(sh.workfd);
	sem_destroy(&sh.ended);
	lseries_free(&sh.ls);
	return rc;
}
