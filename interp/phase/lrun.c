/* lrun: run a Lua phase in the dropped child — one thread and one Lua state per worker. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "cells/expand.h"
#include "results/metrics.h"
#include "phase/lrun.h"
#include "phase/wapi.h"
#include "phase/worker.h"
#include "phase/phase.h"
#include "plan/plan.h"
#include "phase/sandbox.h"
#include "util/file.h"
#include "util/clock.h"

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* What every state of the run shares, read-only once workers start. */
struct shared {
	const struct lrun_job *job;
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
};

struct wthread {
	struct shared *sh;
	pthread_t tid;
	struct worker w;
	char err[2048];
	int failed;
};

/* "E <first line>" for the parent's status row; all of it to stderr. */
static void fail(const char *what, const char *msg)
{
	fprintf(stderr, "%s: %s\n", what, msg);
	dprintf(METRICS_REPORT_FD, "E %s: %.*s\n", what,
		(int)strcspn(msg, "\n"), msg);
}

/* Where ctx.input looks for a parameter's value: relative to the plan. */
static int input_path(const char *plandir, const char *val, char *path,
		      size_t len)
{
	int n = val[0] == '/' ? snprintf(path, len, "%s", val)
			      : snprintf(path, len, "%s/%s", plandir, val);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static void preread(struct lrun_job *j, const char *val)
{
	char path[4200];
	struct lrun_input *in;
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

void lrun_preread(struct lrun_job *j)
{
	const struct plan_phase *ph = &j->e->plan->phases[j->c->phase];

	for (int i = 0; i < ph->n_with; i++) {
		char *v = cell_with(j->e, j->c, ph->with[i].key);

		preread(j, v);
		free(v);
	}
	for (int i = 0; i < ph->n_matrix; i++)
		preread(j, cell_coord(j->e, j->c, ph->matrix[i].name));
	if (j->e->checked) {
		const struct phase_checked *chk = &j->e->checked[j->c->phase];

		for (int i = 0; i < chk->n_inputs; i++)
			preread(j, chk->input[i]);
	}
}

void lrun_job_free(struct lrun_job *j)
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
 * fork (lrun_preread: the plan's directory may be a 0700 home); a
 * module's own default is read here, as runas. Returns the text, or
 * nil, message, errno.
 */
static int ctx_input(lua_State *L)
{
	const struct lrun_job *j = lua_touserdata(L, lua_upvalueindex(2));
	const char *name = luaL_checkstring(L, 1);
	char path[4200], *buf;
	const char *val;
	struct stat st;
	ssize_t n;
	size_t got = 0;
	int fd;

	lua_getfield(L, lua_upvalueindex(1), name);
	val = lua_tostring(L, -1);
	if (!val)
		return luaL_error(L, "input: '%s' is not a string parameter",
				  name);
	if (input_path(j->e->plan->dir, val, path, sizeof(path)))
		return worker_fail(L, val, ENAMETOOLONG);
	for (int i = 0; i < j->n_inputs; i++)
		if (!strcmp(j->inputs[i].path, path)) {
			lua_pushlstring(L, j->inputs[i].text,
					j->inputs[i].len);
			return 1;
		}
	if (stat(path, &st))
		return worker_fail(L, path, errno);
	if (!S_ISREG(st.st_mode) || st.st_size > LRUN_MAX_INPUT)
		return worker_fail(L, path, S_ISREG(st.st_mode) ? EFBIG : EINVAL);
	/* the buffer first: nothing can raise while the file is open */
	buf = lua_newuserdatauv(L, (size_t)st.st_size + 1, 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return worker_fail(L, path, errno);
	while (got < (size_t)st.st_size &&
	       ((n = read(fd, buf + got, (size_t)st.st_size - got)) > 0 ||
		(n < 0 && errno == EINTR)))
		if (n > 0)
			got += (size_t)n;
	close(fd);
	lua_pushlstring(L, buf, got);
	return 1;
}

static void push_ctx(lua_State *L, struct shared *sh)
{
	const struct lrun_job *j = sh->job;

	lua_createtable(L, 0, 6);
	lua_createtable(L, 0, sh->decl.n_params);
	for (int i = 0; i < sh->decl.n_params; i++) {
		const struct param_val *v = &sh->vals[i];

		switch (v->type) {
		case PARAM_NUMBER:
		case PARAM_DURATION:
			lua_pushnumber(L, v->num);
			if (v->num == (lua_Integer)v->num)
				lua_pop(L, 1),
				lua_pushinteger(L, (lua_Integer)v->num);
			break;
		case PARAM_SIZE:
			lua_pushinteger(L, (lua_Integer)v->num);
			break;
		case PARAM_BOOL:
			lua_pushboolean(L, v->num != 0);
			break;
		case PARAM_STRING:
			lua_pushstring(L, v->str);
			break;
		}
		lua_setfield(L, -2, v->name);
	}
	lua_pushinteger(L, sh->workers);
	lua_setfield(L, -2, "workers");
	lua_pushvalue(L, -1);
	lua_pushlightuserdata(L, (void *)j);
	lua_pushcclosure(L, ctx_input, 2);
	lua_setfield(L, -3, "input");
	lua_setfield(L, -2, "params");
	lua_createtable(L, 0, 6);
	lua_pushstring(L, j->fs_type);
	lua_setfield(L, -2, "type");
	lua_pushstring(L, j->fs_label);
	lua_setfield(L, -2, "label");
	lua_pushstring(L, j->fs_mkfs);
	lua_setfield(L, -2, "mkfs");
	lua_pushstring(L, j->fs_mount);
	lua_setfield(L, -2, "mount");
	lua_pushinteger(L, (lua_Integer)j->fs_size_bytes);
	lua_setfield(L, -2, "size_bytes");
	lua_pushinteger(L, (lua_Integer)j->fs_block_size);
	lua_setfield(L, -2, "block_size");
	lua_setfield(L, -2, "fs");
	lua_pushinteger(L, (lua_Integer)j->ram_bytes);
	lua_setfield(L, -2, "ram_bytes");
	lua_pushinteger(L, (lua_Integer)j->e->plan->seed);
	lua_setfield(L, -2, "seed");
	lua_pushinteger(L, j->c->rep);
	lua_setfield(L, -2, "rep");
	lua_pushstring(L, j->e->plan->phases[j->c->phase].name);
	lua_setfield(L, -2, "phase");
	/* unique per phase run: names that must not meet an earlier run's */
	lua_pushinteger(L, (lua_Integer)j->c->index);
	lua_setfield(L, -2, "index");
}

/* A state with the module loaded (left at index 1) and ctx (index 2). */
static lua_State *new_state(struct shared *sh, char *err, size_t len)
{
	struct phase_decl decl;
	lua_State *L = sandbox_new(&sh->lim);

	if (!L) {
		snprintf(err, len, "cannot make a Lua state");
		return NULL;
	}
	if (phase_load(L, sh->job->module, sh->job->text, sh->job->text_len,
		       &decl, err, len)) {
		phase_decl_free(&decl);
		sandbox_close(L);
		return NULL;
	}
	phase_decl_free(&decl);
	push_ctx(L, sh);
	return L;
}

static int run_fn(lua_State *L, struct worker *w, const char *name,
		  char *err, size_t len)
{
	int nargs;

	if (lua_getfield(L, 1, name) != LUA_TFUNCTION) {
		lua_pop(L, 1);
		return 0;
	}
	lua_getfield(L, 2, "params");
	wapi_push(L, w, -1);
	lua_remove(L, -2);
	if (!strcmp(name, "worker")) {
		lua_pushvalue(L, 2);		/* worker(w, ctx) */
	} else {
		lua_pushvalue(L, 2);		/* setup(ctx, w) */
		lua_insert(L, -2);
	}
	nargs = 2;
	return sandbox_call(L, nargs, 0, err, len);
}

static void *worker_main(void *arg)
{
	struct wthread *t = arg;
	struct shared *sh = t->sh;
	lua_State *L = new_state(sh, t->err, sizeof(t->err));

	if (!L) {
		t->failed = 1;
		return NULL;
	}
	t->w.workers = sh->workers;
	t->w.seconds = sh->seconds_param;
	t->w.deadline = sh->deadline;
	t->w.stop = &stop;
	/* the ring is made here: in this thread, after the drop */
	if (worker_init(&t->w, sh->eng, sh->workfd, sh->src, sh->src_len,
			 sh->job->e->plan->seed, sh->job->c->rep, t->err,
			 sizeof(t->err)) ||
	    run_fn(L, &t->w, "worker", t->err, sizeof(t->err)))
		t->failed = 1;
	sandbox_close(L);
	return NULL;
}

static int thresholds(lua_State *L, double *thr, int max)
{
	int n = 0;

	if (lua_getfield(L, 1, "thresholds") == LUA_TTABLE) {
		for (int i = 1; n < max; i++) {
			if (lua_rawgeti(L, -1, i) != LUA_TNUMBER) {
				lua_pop(L, 1);
				break;
			}
			thr[n++] = lua_tonumber(L, -1);
			lua_pop(L, 1);
		}
	}
	lua_pop(L, 1);
	return n;
}

/* r for report(r, ctx): seconds, and per op its automatic metrics. */
static void push_results(lua_State *L, const struct metrics *m,
			 const double *thr, int n_thr)
{
	int n = 0;
	struct metric_row *rows = metrics_rows(m, thr, n_thr, &n);

	lua_createtable(L, 0, n + 1);
	lua_pushnumber(L, m->seconds);
	lua_setfield(L, -2, "seconds");
	for (int i = 0; i < n; i++) {
		lua_pushnumber(L, rows[i].value);
		lua_setfield(L, -2, rows[i].name);
	}
	free(rows);
}

/* One R line, if the name fits the wire format; else a note on stderr
 * (one bad name must not cost the run its other metrics). */
static void send_value(const char *name, double v)
{
	size_t n = strlen(name);
	int ok = n > 0 && n <= 31;

	for (size_t i = 0; ok && i < n; i++)
		ok = isalnum((unsigned char)name[i]) || strchr("_.-", name[i]);
	if (!ok || !isfinite(v)) {
		fprintf(stderr, "report: '%s' is not usable as a metric (names "
			"are 1-31 of A-Z a-z 0-9 _ . -, values finite); left "
			"out\n", name);
		return;
	}
	dprintf(METRICS_REPORT_FD, "R %s %.17g\n", name, v);
}

static int send_report(lua_State *L, const struct metrics *m,
		       const double *thr, int n_thr)
{
	size_t len;
	char *text = metrics_encode(m, &len);
	int rc = 0;

	if (!text)
		return -1;
	/* the encoded text ends with END: the extra lines go before it */
	if (len >= 4 && !strcmp(text + len - 4, "END\n"))
		len -= 4;
	if (write(METRICS_REPORT_FD, text, len) != (ssize_t)len)
		rc = -1;
	free(text);
	for (int i = 0; i < m->n_ops; i++)
		for (int t = 0; t < n_thr; t++) {
			char name[64];

			snprintf(name, sizeof(name), "%s_over_%gms_pct",
				 m->ops[i].name, thr[t]);
			send_value(name, 100 * hist_share_above(
				   &m->ops[i].lat, (uint64_t)(thr[t] * 1e6)));
		}
	/* report()'s values: a table of name = number */
	if (L && lua_istable(L, -1)) {
		lua_pushnil(L);
		while (lua_next(L, -2)) {
			if (lua_type(L, -2) == LUA_TSTRING &&
			    lua_type(L, -1) == LUA_TNUMBER)
				send_value(lua_tostring(L, -2),
					   lua_tonumber(L, -1));
			else
				fprintf(stderr, "report: a %s key with a %s "
					"value is not a metric; left out\n",
					luaL_typename(L, -2),
					luaL_typename(L, -1));
			lua_pop(L, 1);
		}
	}
	dprintf(METRICS_REPORT_FD, "END\n");
	return rc;
}

int lrun_body(void *arg)
{
	const struct lrun_job *job = arg;
	struct shared sh = { .job = job };
	struct worker w0 = { 0 };
	struct wthread *t = NULL;
	struct metrics total = { 0 };
	struct sigaction sa = { .sa_handler = on_stop };
	struct diag d = { 0 };
	char err[2048] = "", engine[16];
	double thr[16], t0;
	int n_thr, rc = 1;
	lua_State *L = NULL;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sh.deadline = clock_now() + job->timeout_s;
	sh.lim = (struct sandbox_limits){ job->mem_bytes, sh.deadline, &stop,
					  plan_library_dir() };
	/* not O_PATH: syncfs and fstatfs want a real fd */
	sh.workfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	L = sandbox_new(&sh.lim);
	if (sh.workfd < 0 || !L) {
		fail("phase", "cannot set up the Lua state");
		goto out;
	}
	if (phase_load(L, job->module, job->text, job->text_len, &sh.decl,
		       err, sizeof(err))) {
		fail("load", err);
		goto out;
	}
	sh.vals = calloc(sh.decl.n_params + 1, sizeof(*sh.vals));
	if (!sh.vals || phase_values(job->e, job->c, &sh.decl, sh.vals,
				     &sh.workers, engine, sizeof(engine),
				     &d)) {
		diag_format(&d, err, sizeof(err));
		fail("plan", err);
		goto out;
	}
	for (int i = 0; i < sh.decl.n_params; i++)
		if (!strcmp(sh.vals[i].name, "seconds"))
			sh.seconds_param = sh.vals[i].num;
	sh.eng = engine_find(engine);
	sh.src = worker_source(job->e->plan->seed, &sh.src_len);
	if (!sh.eng || !sh.src) {
		fail("engine", sh.eng ? "out of memory" : engine);
		goto out;
	}
	push_ctx(L, &sh);
	n_thr = thresholds(L, thr, 16);
	w0.workers = sh.workers;
	w0.deadline = sh.deadline;
	w0.stop = &stop;
	if (worker_init(&w0, sh.eng, sh.workfd, sh.src, sh.src_len,
			 job->e->plan->seed, job->c->rep, err, sizeof(err))) {
		fail("engine", err);
		goto out;
	}
	if (run_fn(L, &w0, "setup", err, sizeof(err))) {
		fail("setup", err);
		goto out;
	}
	t = calloc(sh.workers, sizeof(*t));
	if (!t) {
		fail("workers", "out of memory");
		goto out;
	}
	t0 = clock_now();
	for (int i = 0; i < sh.workers; i++) {
		pthread_attr_t attr;

		t[i].sh = &sh;
		t[i].w.id = i + 1;
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 512 << 10);
		if (pthread_create(&t[i].tid, &attr, worker_main, &t[i])) {
			snprintf(t[i].err, sizeof(t[i].err), "cannot start "
				 "worker %d: %s", i + 1, strerror(errno));
			t[i].failed = 2;
			stop = 1;
		}
		pthread_attr_destroy(&attr);
	}
	for (int i = 0; i < sh.workers; i++)
		if (t[i].failed != 2)
			pthread_join(t[i].tid, NULL);
	total.seconds = clock_now() - t0;
	for (int i = 0; i < sh.workers; i++) {
		if (t[i].failed && !err[0]) {
			char what[32];

			snprintf(what, sizeof(what), "worker %d", i + 1);
			snprintf(err, sizeof(err), "%s", t[i].err);
			fail(what, t[i].err);
		}
		metrics_merge(&total, &t[i].w.m);
		worker_free(&t[i].w);
	}
	if (err[0])
		goto out;
	/* setup's and teardown's own ops are not the workload's */
	if (run_fn(L, &w0, "teardown", err, sizeof(err))) {
		fail("teardown", err);
		goto out;
	}
	if (lua_getfield(L, 1, "report") == LUA_TFUNCTION) {
		push_results(L, &total, thr, n_thr);
		lua_pushvalue(L, 2);
		if (sandbox_call(L, 2, 1, err, sizeof(err))) {
			fail("report", err);
			goto out;
		}
	} else {
		lua_pop(L, 1);
		lua_pushnil(L);
	}
	rc = send_report(L, &total, thr, n_thr) ? 1 : 0;
out:
	if (t)
		free(t);
	worker_free(&w0);
	metrics_free(&total);
	if (sh.vals)
		phase_values_free(sh.vals, sh.decl.n_params);
	free(sh.vals);
	phase_decl_free(&sh.decl);
	free(sh.src);
	if (L)
		sandbox_close(L);
	return rc;
}
