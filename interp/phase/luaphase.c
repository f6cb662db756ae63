/* luaphase: run a Lua phase in the dropped child — one thread and one Lua state per worker. */
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
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "cells/expand.h"
#include "results/metrics.h"
#include "phase/lexec.h"
#include "phase/lreport.h"
#include "phase/luaphase.h"
#include "phase/workerapi.h"
#include "phase/optable.h"
#include "phase/worker.h"
#include "phase/workerlua.h"
#include "phase/params.h"
#include "phase/phase.h"
#include "phase/libsrc.h"
#include "plan/plan.h"
#include "phase/sandbox.h"
#include "util/file.h"
#include "util/clock.h"
#include "util/units.h"

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
	const struct luaphase_job *job;
	struct phase_decl decl;
	struct param_val *vals;
	const struct engine_ops *eng;
	unsigned char *src;
	size_t src_len;
	int workers;
	int workfd;
	double deadline;
	double seconds_param;
	struct sandbox_limits lim;
	size_t mem_used;		/* lim.used: all the states' bytes */
	struct optable_slot tab;	/* ctx.share's table */
	sem_t ended;			/* posted by each worker at its end */
};

struct wthread {
	struct shared *sh;
	pthread_t tid;
	struct worker w;
	char err[2048];
	int failed;
	int ended;			/* atomic: the thread is done */
};

/* "E <first line>" for the parent's status row; all of it to stderr. */
static void fail(const char *what, const char *msg)
{
	if (dprintf(METRICS_REPORT_FD, "E %s: %.*s\n", what,
		    (int)strcspn(msg, "\n"), msg) < 0)
		msg = "(and the report pipe to the parent is gone)";
	/* stderr is the last way out: nothing to do if it fails too */
	(void)fprintf(stderr, "%s: %s\n", what, msg);
}

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

/* fail(), as a timeout when the phase has run into it; an allocation
 * refused names the budget it ran into. */
static void fail_at(const struct shared *sh, const char *what,
		    const char *msg)
{
	char both[2400], size[32];

	if (strstr(msg, "not enough memory")) {
		units_fmt_size(sh->job->mem_bytes, size, sizeof(size));
		snprintf(both, sizeof(both), "%.*s (the phase's memory: %s, "
			 "its Lua states and their C buffers and op tables "
			 "all together; memory: in the plan sets it)",
			 (int)strcspn(msg, "\n"), msg, size);
		msg = both;
	}
	if (!timed_out(sh)) {
		fail(what, msg);
		return;
	}
	snprintf(both, sizeof(both), "%s: %.2300s", what, msg);
	fail("timeout", both);
}

/*
 * A module that raised after an I/O error ("wrote nil bytes, expected
 * to write 1", dbench's) most likely raised because of it: the error's
 * first line gets the first one, "...; first I/O error: ENOSPC in write
 * (source/x)", and the reason has the cause.
 */
static void with_io_error(char *err, size_t len, const struct worker_errors *e)
{
	const char *name = strerrorname_np(e->first_err);
	size_t line = strcspn(err, "\n"), n = strlen(err);
	char add[200];
	int k;

	if (!e->n)
		return;
	k = snprintf(add, sizeof(add), "; first I/O error: %s in %s (%s)",
		     name ? name : "?", e->first_op, e->first_what);
	if (k < 0 || (size_t)k >= sizeof(add) || n + (size_t)k >= len)
		return;
	memmove(err + line + k, err + line, n - line + 1);
	memcpy(err + line, add, (size_t)k);
}

/* Where ctx.input looks for a parameter's value: relative to the plan. */
static int input_path(const char *plandir, const char *val, char *path,
		      size_t len)
{
	int n = val[0] == '/' ? snprintf(path, len, "%s", val)
			      : snprintf(path, len, "%s/%s", plandir, val);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static void preread(struct luaphase_job *j, const char *val)
{
	char path[4200];
	struct luaphase_input *in;
	struct stat st;
	int fd, more;

	if (!val || !*val || strchr(val, '\n') ||
	    input_path(j->e->plan->dir, val, path, sizeof(path)) ||
	    stat(path, &st) || !S_ISREG(st.st_mode) ||
	    j->n_inputs == LRUN_MAX_INPUTS)
		return;
	for (int i = 0; i < j->n_inputs; i++)
		if (!strcmp(j->inputs[i].path, path))
			return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;		/* then the phase tries as runas */
	in = &j->inputs[j->n_inputs];
	in->text = file_read_all(fd, LRUN_MAX_INPUT, &in->len, &more);
	close(fd);
	in->path = strdup(path);
	if (!in->text || !in->path || more) {
		free(in->text);
		free(in->path);
		return;
	}
	j->n_inputs++;
}

void luaphase_preread(struct luaphase_job *j)
{
	const struct plan_phase *ph = &j->e->plan->phases[j->c->phase];

	for (int i = 0; i < ph->n_with; i++) {
		char *v = cell_with(j->e, j->c, ph->with[i].key);

		preread(j, v);
		free(v);
	}
	for (int i = 0; i < ph->n_matrix; i++)
		preread(j, cell_coord(j->e, j->c, ph->matrix[i].name));
}

void luaphase_job_free(struct luaphase_job *j)
{
	for (int i = 0; i < j->n_inputs; i++) {
		free(j->inputs[i].path);
		free(j->inputs[i].text);
	}
	j->n_inputs = 0;
	free((char *)j->text);
	j->text = NULL;
}

/*
 * ctx.input(name): the contents of the file a string parameter names (a
 * dbench loadfile, say); a relative path is taken from the plan's
 * directory. What the plan itself names was read by root before the
 * fork (luaphase_preread: the plan's directory may be a 0700 home); a
 * module's own default is read here, as runas. Returns the text, or
 * nil, message, errno.
 */
static int ctx_input(lua_State *L)
{
	const struct luaphase_job *j = lua_touserdata(L, lua_upvalueindex(2));
	const char *name = luaL_checkstring(L, 1);
	char path[4200], *buf;
	const char *val;
	struct stat st;
	ssize_t n;
	int err, fd;

	lua_getfield(L, lua_upvalueindex(1), name);
	val = lua_tostring(L, -1);
	if (!val)
		return luaL_error(L, "input: '%s' is not a string parameter",
				  name);
	if (input_path(j->e->plan->dir, val, path, sizeof(path)))
		return workerlua_fail(L, val, ENAMETOOLONG);
	for (int i = 0; i < j->n_inputs; i++)
		if (!strcmp(j->inputs[i].path, path)) {
			lua_pushlstring(L, j->inputs[i].text,
					j->inputs[i].len);
			return 1;
		}
	if (stat(path, &st))
		return workerlua_fail(L, path, errno);
	if (!S_ISREG(st.st_mode) || st.st_size > LRUN_MAX_INPUT)
		return workerlua_fail(L, path, S_ISREG(st.st_mode) ? EFBIG
								 : EINVAL);
	/* the buffer first: nothing can raise while the file is open */
	buf = lua_newuserdatauv(L, (size_t)st.st_size + 1, 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return workerlua_fail(L, path, errno);
	n = file_read_into(fd, buf, (size_t)st.st_size);
	err = errno;
	close(fd);
	if (n < 0)
		return workerlua_fail(L, path, err);
	lua_pushlstring(L, buf, (size_t)n);
	return 1;
}

/* ctx (the shared run at index 1): lua_pcall'd, as it allocates. */
static int push_ctx(lua_State *L)
{
	struct shared *sh = lua_touserdata(L, 1);
	const struct luaphase_job *j = sh->job;

	lua_createtable(L, 0, 6);
	params_push(L, sh->vals, sh->decl.n_params, sh->workers);
	lua_pushvalue(L, -1);
	lua_pushlightuserdata(L, (void *)j);
	lua_pushcclosure(L, ctx_input, 2);
	lua_setfield(L, -3, "input");
	lua_setfield(L, -2, "params");
	optable_push_ctx(L, &sh->tab);
	lua_setfield(L, -3, "shared");
	lua_setfield(L, -2, "share");
	params_set_cell(L, j->e, j->c, j->ram_bytes);
	lua_getfield(L, -1, "fs");
	lua_pushinteger(L, (lua_Integer)j->fs_size_bytes);
	lua_setfield(L, -2, "size_bytes");
	lua_pushinteger(L, (lua_Integer)j->fs_block_size);
	lua_setfield(L, -2, "block_size");
	lua_pop(L, 1);
	return 1;
}

/* A state with the module loaded (left at index 1) and ctx (index 2). */
static lua_State *new_state(struct shared *sh, char *err, size_t len)
{
	struct phase_decl decl;
	struct diag d = { 0 };
	lua_State *L = sandbox_new(&sh->lim);

	if (!L) {
		snprintf(err, len, "cannot make a Lua state");
		return NULL;
	}
	if (phase_load(L, sh->job->module, sh->job->text, sh->job->text_len,
		       &decl, &d)) {
		sandbox_diag_text(&d, err, len);
		phase_decl_free(&decl);
		sandbox_close(L);
		return NULL;
	}
	phase_decl_free(&decl);
	if (sandbox_cpcall(L, push_ctx, sh, 0, &d)) {
		sandbox_diag_text(&d, err, len);
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
		  char *err, size_t len)
{
	struct diag d = { 0 };

	if (phase_field(L, 1, name) != LUA_TFUNCTION) {
		lua_pop(L, 1);
		return 0;
	}
	if (sandbox_cpcall(L, push_w, w, 2, &d)) {
		lua_pop(L, 1);
		return sandbox_diag_text(&d, err, len);
	}
	lua_pushvalue(L, 2);
	if (strcmp(name, "worker"))
		lua_insert(L, -2);
	if (sandbox_call(L, 2, 0, &d))
		return sandbox_diag_text(&d, err, len);
	return 0;
}

static void *worker_main(void *arg)
{
	struct wthread *t = arg;
	struct shared *sh = t->sh;
	struct diag d = { 0 };
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
	L = new_state(sh, t->err, sizeof(t->err));
	if (!L) {
		t->failed = 1;
		goto out;
	}
	sandbox_watch(L);	/* the watchdog's signal arms its hook */
	t->w.workers = sh->workers;
	t->w.seconds = sh->seconds_param;
	t->w.deadline = sh->deadline;
	t->w.stop = &stop;
	/* the ring is made here: in this thread, after the drop */
	if (worker_init(&t->w, sh->eng, sh->workfd, sh->src, sh->src_len,
			 sh->job->e->plan->seed, sh->job->c->rep, &d) ?
	    sandbox_diag_text(&d, t->err, sizeof(t->err)) :
	    run_fn(L, &t->w, "worker", t->err, sizeof(t->err)))
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
	const struct luaphase_job *job = sh->job;
	struct diag d = { 0 };
	char err[2048] = "", engine[16];

	if (phase_load(L, job->module, job->text, job->text_len, &sh->decl,
		       &d)) {
		sandbox_diag_text(&d, err, sizeof(err));
		fail("load", err);
		return -1;
	}
	sh->vals = calloc(sh->decl.n_params + 1, sizeof(*sh->vals));
	if (!sh->vals || params_read(job->e, job->c, &sh->decl, sh->vals,
				     &sh->workers, engine, sizeof(engine),
				     &d)) {
		if (!sh->vals)
			diag_set(&d, job->e->plan->file, NULL,
				 (struct pos){ 0, 0 }, "out of memory");
		diag_format(&d, err, sizeof(err));
		fail("plan", err);
		return -1;
	}
	for (int i = 0; i < sh->decl.n_params; i++)
		if (!strcmp(sh->vals[i].name, "seconds"))
			sh->seconds_param = sh->vals[i].num;
	sh->eng = engine_find(engine);
	sh->src = worker_source(job->e->plan->seed, &sh->src_len);
	if (!sh->eng || !sh->src) {
		fail("engine", sh->eng ? "out of memory" : engine);
		return -1;
	}
	if (sandbox_cpcall(L, push_ctx, sh, 0, &d)) {
		sandbox_diag_text(&d, err, sizeof(err));
		fail("phase", err);
		return -1;
	}
	return 0;
}

/* One thread per worker, each with its stack size; joined, their
 * metrics merged into total. 0, or -1 after fail() (err says why). */
static int run_workers(struct shared *sh, struct metrics *total,
		       struct worker_errors *errs, char *err, size_t len)
{
	struct wthread *t = calloc(sh->workers, sizeof(*t));
	pthread_attr_t attr;
	int rc = 0, attr_ok, started;
	double t0;

	if (!t) {
		fail("workers", "out of memory");
		return -1;
	}
	/* without its own attributes a thread gets the default stack */
	attr_ok = !pthread_attr_init(&attr);
	if (attr_ok && pthread_attr_setstacksize(&attr, 512 << 10))
		fprintf(stderr, "workers: the default stack size, not 512K\n");
	t0 = clock_now();
	for (int i = 0; i < sh->workers; i++) {
		t[i].sh = sh;
		t[i].w.id = i + 1;
		errno = pthread_create(&t[i].tid, attr_ok ? &attr : NULL,
				       worker_main, &t[i]);
		if (errno == EAGAIN) {
			snprintf(t[i].err, sizeof(t[i].err), "cannot start "
				 "worker %d: %s: a limit on threads was reached: "
				 "the user's RLIMIT_NPROC (ulimit -u, which "
				 "counts every thread of the user's processes), "
				 "kernel.threads-max, or the pids.max of the "
				 "cgroup fsplan runs in; raise it or use fewer "
				 "workers", i + 1, strerror(errno));
			t[i].failed = 2;
			stop = 1;
		} else if (errno) {
			snprintf(t[i].err, sizeof(t[i].err), "cannot start "
				 "worker %d: %s", i + 1, strerror(errno));
			t[i].failed = 2;
			stop = 1;
		}
	}
	if (attr_ok)
		pthread_attr_destroy(&attr);
	started = 0;
	for (int i = 0; i < sh->workers; i++)
		started += t[i].failed != 2;
	watch_workers(sh, t, started);
	for (int i = 0; i < sh->workers; i++)
		if (t[i].failed != 2)
			pthread_join(t[i].tid, NULL);
	total->seconds = clock_now() - t0;
	for (int i = 0; i < sh->workers; i++) {
		int merged;

		if (t[i].failed && !rc) {
			char what[32];

			snprintf(what, sizeof(what), "worker %d", i + 1);
			with_io_error(t[i].err, sizeof(t[i].err), &t[i].w.errs);
			snprintf(err, len, "%s", t[i].err);
			fail_at(sh, what, t[i].err);
			rc = -1;
		}
		merged = metrics_merge(total, &t[i].w.m);
		if ((merged || worker_errors_merge(errs, &t[i].w.errs)) &&
		    !rc) {
			/* each worker's counters are finite (w:count), not
			 * always their sum: the value's fault, not memory's */
			snprintf(err, len, "%s", merged == -EOVERFLOW ?
				 "the workers' metrics summed overflow: a "
				 "counter past the largest finite number, or "
				 "an op's count or bytes past 2^64" :
				 "out of memory merging the workers' metrics");
			fail("workers", err);
			rc = -1;
		}
		worker_free(&t[i].w);
	}
	free(t);
	/* each worker kept to the names' cap, their sum is the phase's */
	if (!rc && total->n_ops + total->n_counters > WORKER_MAX_NAMES) {
		snprintf(err, len, "the workers named %d ops/metrics "
			 "together; a phase may name at most %d",
			 total->n_ops + total->n_counters, WORKER_MAX_NAMES);
		fail("workers", err);
		rc = -1;
	}
	return rc;
}

int luaphase_body(void *arg)
{
	const struct luaphase_job *job = arg;
	struct shared sh = { .job = job };
	struct worker w0 = { 0 };
	struct metrics total = { 0 };
	struct worker_errors errs = { 0 };
	struct diag d = { 0 };
	struct sigaction sa = { .sa_handler = on_stop };
	struct sigaction arm = { .sa_handler = on_arm, .sa_flags = SA_RESTART };
	char err[2048] = "";
	struct rusage ru;
	double thr[16];
	int n_thr, rc = 1;
	lua_State *L = NULL;

	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL) ||
	    sigaction(SIG_ARM, &arm, NULL) || sem_init(&sh.ended, 0, 0)) {
		fail("phase", "cannot catch SIGTERM, SIGINT and SIGRTMIN");
		return 1;
	}
	sh.deadline = sandbox_deadline(job->timeout_s);
	sh.lim = (struct sandbox_limits){ job->mem_bytes, sh.deadline, &stop,
					  libsrc_dir(), &sh.mem_used };
	/* not O_PATH: syncfs and fstatfs want a real fd */
	sh.workfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	L = sandbox_new(&sh.lim);
	if (sh.workfd < 0 || !L) {
		fail("phase", "cannot set up the Lua state");
		goto out;
	}
	if (prepare(L, &sh))
		goto out;
	if (sh.decl.exec[0]) {		/* an exec module: no Lua runs */
		lexec_run(&sh.decl, sh.vals, sh.workers, err, sizeof(err));
		fail("exec", err);
		goto out;
	}
	n_thr = lreport_thresholds(L, thr, 16);
	w0.workers = sh.workers;
	w0.deadline = sh.deadline;
	w0.stop = &stop;
	if (worker_init(&w0, sh.eng, sh.workfd, sh.src, sh.src_len,
			job->e->plan->seed, job->c->rep, &d)) {
		sandbox_diag_text(&d, err, sizeof(err));
		fail("engine", err);
		goto out;
	}
	if (run_fn(L, &w0, "setup", err, sizeof(err))) {
		with_io_error(err, sizeof(err), &w0.errs);
		fail_at(&sh, "setup", err);
		goto out;
	}
	/* the parent reads the devices' counters now: setup's writes (a
	 * fill it synced) are not the workers' */
	if (dprintf(METRICS_REPORT_FD, "%s", METRICS_SETUP_DONE) < 0 ||
	    wait_go()) {
		fail("phase", "the report pipe to the parent is gone");
		goto out;
	}
	sh.tab.frozen = 1;	/* read-only for the workers' threads */
	if (run_workers(&sh, &total, &errs, err, sizeof(err)))
		goto out;
	if (timed_out(&sh)) {	/* the workers' w:done() said so */
		snprintf(err, sizeof(err), "still running at the phase's "
			 "timeout of %g s: its workers stopped there",
			 job->timeout_s);
		fail("timeout", err);
		goto out;
	}
	/* the child's peak resident memory, all its workers at once */
	if (!getrusage(RUSAGE_SELF, &ru) &&
	    metrics_count(&total, METRICS_RSS_PEAK, (double)ru.ru_maxrss)) {
		fail("workers", "out of memory");
		goto out;
	}
	/* setup's and teardown's own ops are not the workload's (their
	 * I/O errors are the run's) */
	if (run_fn(L, &w0, "teardown", err, sizeof(err))) {
		with_io_error(err, sizeof(err), &w0.errs);
		fail_at(&sh, "teardown", err);
		goto out;
	}
	if (worker_errors_merge(&errs, &w0.errs) ||
	    metrics_merge(&total, &errs.m)) {
		fail("workers", "out of memory merging the I/O errors");
		goto out;
	}
	if (errs.n && !sh.decl.tolerate_errors) {
		/* an error never passes as a result: the reason says how
		 * many, and the first (the run log keeps it) */
		worker_errors_reason(&errs, err, sizeof(err));
		(void)dprintf(METRICS_REPORT_FD, "E %s\n", err);
		fprintf(stderr, "%s\n", err);
		goto out;
	}
	if (lreport_call(L, &total, thr, n_thr, err, sizeof(err))) {
		fail_at(&sh, "report", err);
		goto out;
	}
	rc = lreport_send(L, &total, thr, n_thr) ? 1 : 0;
out:
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
	return rc;
}
