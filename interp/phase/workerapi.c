/* workerapi: the `w` a phase's worker gets: its methods, every op measured. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "phase/dirapi.h"
#include "phase/fileapi.h"
#include "phase/loops.h"
#include "phase/workerapi.h"
#include "phase/worker.h"
#include "phase/workerlua.h"
#include "phase/workpath.h"
#include "util/clock.h"
#include "util/file.h"

/* One path op through the engine, timed as `what`. */
static int path_op(lua_State *L, enum engine_op op, const char *what,
		   const char *a, const char *b, int flags, mode_t mode)
{
	struct worker *w = worker_get(L);
	struct engine_req r = { .op = op, .flags = flags, .mode = mode };
	char na[256], nb[256];
	int fa = -1, fb = -1, oa = 0, ob = 0;
	int64_t res;

	/* both paths checked first: a raise must not leak a's fd */
	if (op != ENGINE_SYMLINK)
		workerlua_check_path(L, a);
	if (b)
		workerlua_check_path(L, b);
	if (op != ENGINE_SYMLINK) {
		/* with a second path, the first keeps its own fd: resolving
		 * the second may replace the cached one */
		fa = workpath_parent(w, a, na, sizeof(na), &oa, b == NULL);
		if (fa < 0)
			return workerlua_fail_resolve(L, what, a, -fa);
	}
	if (b) {
		fb = workpath_parent(w, b, nb, sizeof(nb), &ob, 1);
		if (fb < 0) {
			if (oa)
				close(fa);
			return workerlua_fail_resolve(L, what, b, -fb);
		}
	}
	r.dirfd = fa;
	r.path = op == ENGINE_SYMLINK ? a : na;
	r.dirfd2 = fb;
	r.path2 = b ? nb : NULL;
	res = engine_do(w->eng, w->e, &r);
	worker_record_req(w, what, &r, 0);
	if (oa)
		close(fa);
	if (ob)
		close(fb);
	/* a directory may have moved or gone: resolve afresh next time */
	if (op == ENGINE_RENAME || (flags & AT_REMOVEDIR))
		worker_forget_dir(w);
	if (res < 0)
		return workerlua_fail_op(L, what, 0,
					 op == ENGINE_SYMLINK ? b : a,
					 (int)-res);
	lua_pushboolean(L, 1);
	return 1;
}

static int w_unlink(lua_State *L)
{
	return path_op(L, ENGINE_UNLINK, "unlink", workerlua_path_arg(L, 2),
		       NULL, 0, 0);
}

static int w_rmdir(lua_State *L)
{
	return path_op(L, ENGINE_UNLINK, "rmdir", workerlua_path_arg(L, 2),
		       NULL, AT_REMOVEDIR, 0);
}

static int w_mkdir(lua_State *L)
{
	return path_op(L, ENGINE_MKDIR, "mkdir", workerlua_path_arg(L, 2),
		       NULL, 0, (mode_t)luaL_optinteger(L, 3, 0755));
}

static int w_rename(lua_State *L)
{
	return path_op(L, ENGINE_RENAME, "rename", workerlua_path_arg(L, 2),
		       workerlua_path_arg(L, 3), 0, 0);
}

static int w_link(lua_State *L)
{
	return path_op(L, ENGINE_LINK, "link", workerlua_path_arg(L, 2),
		       workerlua_path_arg(L, 3), 0, 0);
}

static int w_symlink(lua_State *L)
{
	return path_op(L, ENGINE_SYMLINK, "symlink", workerlua_path_arg(L, 2),
		       workerlua_path_arg(L, 3), 0, 0);
}


static int w_stat(lua_State *L)
{
	struct worker *w = worker_get(L);
	const char *path = workerlua_path_arg(L, 2);
	struct statx st;
	struct engine_req r = { .op = ENGINE_STATX, .stx = &st,
				.flags = AT_SYMLINK_NOFOLLOW };
	char name[256];
	int64_t res;
	int fd, own;

	/* One statx of the last component in its directory (opened beneath
	 * the work directory), not following it. Only a symlink needs the
	 * longer way: resolved beneath, then stat'd by fd, so it cannot
	 * lead out. */
	workerlua_check_path(L, path);
	fd = workpath_parent(w, path, name, sizeof(name), &own, 1);
	if (fd == -EINVAL)	/* "." and the like: by fd */
		goto by_fd;
	if (fd < 0)
		return workerlua_fail_resolve(L, "stat", path, -fd);
	r.dirfd = fd;
	r.path = name;
	res = engine_do(w->eng, w->e, &r);
	if (own)
		close(fd);
	if (res == 0 && (st.stx_mode & S_IFMT) != S_IFLNK) {
		worker_record_req(w, "stat", &r, 0);
		workerlua_push_stat(L, &st);
		return 1;
	}
	if (res < 0) {
		worker_record_req(w, "stat", &r, 0);
		return workerlua_fail_op(L, "stat", 0, path, (int)-res);
	}
by_fd:
	memset(&r, 0, sizeof(r));
	r.op = ENGINE_STATX;
	r.stx = &st;
	r.flags = AT_EMPTY_PATH;
	fd = workpath_openat(w, w->workfd, path, O_PATH);
	if (fd < 0)
		return workerlua_fail_resolve(L, "stat", path, -fd);
	r.dirfd = fd;
	r.path = "";
	res = engine_do(w->eng, w->e, &r);
	worker_record_req(w, "stat", &r, 0);
	close(fd);
	if (res < 0)
		return workerlua_fail_op(L, "stat", 0, path, (int)-res);
	workerlua_push_stat(L, &st);
	return 1;
}

static int w_utime(lua_State *L)
{
	struct worker *w = worker_get(L);
	const char *path = workerlua_path_arg(L, 2);
	struct timespec t[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	char name[256];
	int own, fd, rc;
	double t0;

	for (int i = 0; i < 2; i++)
		if (!lua_isnoneornil(L, 3 + i)) {
			lua_Number v = luaL_checknumber(L, 3 + i);

			luaL_argcheck(L, v > -9e18 && v < 9e18, 3 + i,
				      "a time in seconds since the epoch");
			t[i].tv_sec = (time_t)v;
			t[i].tv_nsec = (long)((v - (double)t[i].tv_sec) * 1e9);
		}
	workerlua_check_path(L, path);
	fd = workpath_parent(w, path, name, sizeof(name), &own, 1);
	if (fd < 0)
		return workerlua_fail_resolve(L, "utime", path, -fd);
	t0 = clock_now();
	rc = utimensat(fd, name, t, AT_SYMLINK_NOFOLLOW) ? errno : 0;
	worker_record(w, "utime", (uint64_t)((clock_now() - t0) * 1e9), 0);
	if (own)
		close(fd);
	if (rc)
		return workerlua_fail_op(L, "utime", 0, path, rc);
	lua_pushboolean(L, 1);
	return 1;
}

static int w_statfs(lua_State *L)
{
	struct worker *w = worker_get(L);
	struct statfs sf;

	if (fstatfs(w->workfd, &sf))
		return workerlua_fail_op(L, "statfs", 0, "statfs", errno);
	lua_createtable(L, 0, 7);
	lua_pushinteger(L, sf.f_bsize);
	lua_setfield(L, -2, "bsize");
	lua_pushinteger(L, (lua_Integer)sf.f_blocks);
	lua_setfield(L, -2, "blocks");
	lua_pushinteger(L, (lua_Integer)sf.f_bfree);
	lua_setfield(L, -2, "bfree");
	lua_pushinteger(L, (lua_Integer)sf.f_bavail);
	lua_setfield(L, -2, "bavail");
	lua_pushinteger(L, (lua_Integer)sf.f_files);
	lua_setfield(L, -2, "files");
	lua_pushinteger(L, (lua_Integer)sf.f_ffree);
	lua_setfield(L, -2, "ffree");
	lua_pushinteger(L, sf.f_namelen);
	lua_setfield(L, -2, "namelen");
	return 1;
}

/* w:sync([path]): syncfs of the work directory's filesystem, or of
 * the one path is on (a volume's directory: target.volumes). */
static int w_sync(lua_State *L)
{
	struct worker *w = worker_get(L);
	const char *path = lua_isnoneornil(L, 2) ? NULL
						 : workerlua_path_arg(L, 2);
	int fd = w->workfd, rc;
	double t0;

	if (path) {
		workerlua_check_path(L, path);
		fd = workpath_openat(w, w->workfd, path,
				     O_RDONLY | O_DIRECTORY);
		if (fd < 0)
			return workerlua_fail_resolve(L, "sync", path, -fd);
	}
	t0 = clock_now();
	rc = syncfs(fd) ? errno : 0;
	if (path)
		close(fd);
	worker_record(w, "sync", (uint64_t)((clock_now() - t0) * 1e9), 0);
	if (rc)
		return workerlua_fail_op(L, "sync", 1, "syncfs", rc);
	lua_pushboolean(L, 1);
	return 1;
}

/* ---- timing, counters, randomness, time, log ---- */

static int w_time(lua_State *L)
{
	struct worker *w = worker_get(L);
	const char *name;
	uint64_t t0;
	int base;

	worker_op_arg(L, w, 2, "w:time");
	name = lua_tostring(L, 2);	/* the op's own may move */
	luaL_checktype(L, 3, LUA_TFUNCTION);
	base = 2;	/* results are what follows the name */
	t0 = clock_ns();
	lua_call(L, lua_gettop(L) - 3, LUA_MULTRET);
	worker_record_span(w, name, t0, clock_ns(), 0);
	return lua_gettop(L) - base;
}

/*
 * w:op(name, fn, ...): fn(...) as one op called name, the worker API's
 * own ops inside it not recorded on their own (a dbench Close is one
 * close, not a close and a "close"); name false records nothing at all
 * (dbench's warm-up). Counters still count. fn runs protected, so that
 * quiet is restored on a raise; the op's row is kept by index, since
 * what fn does may add rows (and move them).
 */
static int w_op(lua_State *L)
{
	struct worker *w = worker_get(L);
	struct op_stat *st = lua_toboolean(L, 2) ?
			     worker_op_arg(L, w, 2, "w:op") : NULL;
	int quiet = w->quiet, rc;
	ptrdiff_t row = -1;
	uint64_t t0;

	luaL_checktype(L, 3, LUA_TFUNCTION);
	/* nested in another w:op, it is part of that one */
	if (st && !quiet)
		row = st - w->m.ops;
	w->quiet = 1;
	t0 = clock_ns();
	rc = lua_pcall(L, lua_gettop(L) - 3, LUA_MULTRET, 0);
	w->quiet = quiet;
	if (row >= 0) {
		uint64_t t1 = clock_ns();

		worker_record_stat(w, &w->m.ops[row], t1, t1 - t0, 0, 0, 0);
	}
	if (rc != LUA_OK)
		return lua_error(L);
	return lua_gettop(L) - 2;	/* what fn returned */
}

/* w:sleep(seconds): dbench's Sleep and timed lines; wakes for a stop. */
static int w_sleep(lua_State *L)
{
	struct worker *w = worker_get(L);
	lua_Number secs = luaL_checknumber(L, 2);
	double until = clock_now() + secs;

	luaL_argcheck(L, secs == secs, 2, "a number of seconds, not NaN");
	while (!worker_stopping(w)) {
		double left = until - clock_now();
		struct timespec ts;

		if (left <= 0)
			break;
		if (left > 0.1)
			left = 0.1;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
	return 0;
}

static int w_count(lua_State *L)
{
	worker_count_arg(L, worker_get(L), 2, "w:count",
			 luaL_optnumber(L, 3, 1));
	return 0;
}

static int w_random(lua_State *L)
{
	struct worker *w = worker_get(L);
	lua_Integer lo = 1, hi;
	uint64_t span, r;

	if (lua_gettop(L) < 3 || lua_isnil(L, 3)) {	/* gettop: cheaper */
		hi = luaL_checkinteger(L, 2);
	} else {
		lo = luaL_checkinteger(L, 2);
		hi = luaL_checkinteger(L, 3);
	}
	luaL_argcheck(L, lo <= hi, 2, "an empty interval");
	/* in unsigned arithmetic: hi - lo may pass the integers' range */
	span = (uint64_t)hi - (uint64_t)lo;
	r = worker_random(w);
	if (span != UINT64_MAX)
		r %= span + 1;
	lua_pushinteger(L, (lua_Integer)((uint64_t)lo + r));
	return 1;
}

/* CPU seconds of the whole phase child so far (user + sys, all its
 * threads), then user and sys apart (ffsb prints both): a test's CPU% is
 * the difference over the test's wall time. */
static int w_cpu(lua_State *L)
{
	struct rusage ru;
	double user, sys;

	if (getrusage(RUSAGE_SELF, &ru))
		return workerlua_fail(L, "getrusage", errno);
	user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	lua_pushnumber(L, user + sys);
	lua_pushnumber(L, user);
	lua_pushnumber(L, sys);
	return 3;
}

static int w_now(lua_State *L)
{
	lua_pushnumber(L, clock_now());
	return 1;
}

static int w_elapsed(lua_State *L)
{
	lua_pushnumber(L, clock_now() - worker_get(L)->t_start);
	return 1;
}

/* w:done([at]): with at (a w:now() time), at takes the place of the
 * seconds parameter (dbench runs a warm-up and then seconds). Now is the
 * time the last op completed, when one did since the last call (its clock
 * read serves again: the limit is as late as the Lua run since), else the
 * clock. */
static int w_done(lua_State *L)
{
	struct worker *w = worker_get(L);
	uint64_t now;

	if (w->t_last_op > w->t_seen)
		now = w->t_seen = w->t_last_op;
	else
		now = clock_ns();

	if (lua_gettop(L) < 2 || lua_isnil(L, 2))
		lua_pushboolean(L, worker_done(w, now));
	else
		lua_pushboolean(L, worker_stopping(w) || worker_halted(w) ||
				(double)now / 1e9 >= luaL_checknumber(L, 2));
	return 1;
}

static int w_log(lua_State *L)
{
	struct worker *w = worker_get(L);
	luaL_Buffer b;
	int n = lua_gettop(L);

	luaL_buffinit(L, &b);
	lua_pushfstring(L, "[worker %d]", w->id);
	luaL_addvalue(&b);
	for (int i = 2; i <= n; i++) {
		size_t len;
		const char *s;

		luaL_addchar(&b, ' ');
		s = luaL_tolstring(L, i, &len);
		/* cut at it, the line would lose its end silently */
		if (strlen(s) != len)
			luaL_argerror(L, i, "a text with a NUL byte in it");
		luaL_addvalue(&b);
	}
	luaL_addchar(&b, '\n');
	luaL_pushresult(&b);
	fputs(lua_tostring(L, -1), stderr);
	fflush(stderr);
	return 0;
}

/* Who the phase runs as, from /proc/self/status: uid, gid, groups,
 * the five capability sets (hex strings) and no_new_privs. The file is
 * read whole into C memory first: nothing that can raise runs while it
 * is open. */
static int w_identity(lua_State *L)
{
	static const char *const keys[] = { "Uid", "Gid", "Groups", "CapInh",
					    "CapPrm", "CapEff", "CapBnd",
					    "CapAmb", "NoNewPrivs" };
	char text[16384], *line, *next;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC), err;
	ssize_t n;

	if (fd < 0)
		return workerlua_fail(L, "/proc/self/status", errno);
	n = file_read_into(fd, text, sizeof(text) - 1);
	err = n < 0 ? errno : EFBIG;
	close(fd);
	if (n < 0 || n == sizeof(text) - 1)
		return workerlua_fail(L, "/proc/self/status", err);
	text[n] = '\0';
	lua_createtable(L, 0, 9);
	for (line = text; *line; line = next) {
		char *colon, *v;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		v = colon + 1;
		v += strspn(v, " \t");
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			if (strcmp(line, keys[i]))
				continue;
			if (i < 2)	/* real uid/gid: the first field */
				lua_pushinteger(L, atol(v));
			else
				lua_pushstring(L, v);
			lua_setfield(L, -2, keys[i]);
		}
	}
	return 1;
}

static const luaL_Reg worker_methods[] = {
	{ "identity", w_identity },
	{ "open", fileapi_open },
	{ "unlink", w_unlink },
	{ "mkdir", w_mkdir },
	{ "rmdir", w_rmdir },
	{ "rename", w_rename },
	{ "link", w_link },
	{ "symlink", w_symlink },
	{ "stat", w_stat },
	{ "utime", w_utime },
	{ "readdir", dirapi_readdir },
	{ "scandir", dirapi_scandir },
	{ "lookup", dirapi_lookup },
	{ "files", loops_files },
	{ "statfs", w_statfs },
	{ "sync", w_sync },
	{ "time", w_time },
	{ "op", w_op },
	{ "sleep", w_sleep },
	{ "count", w_count },
	{ "random", w_random },
	{ "now", w_now },
	{ "cpu", w_cpu },
	{ "elapsed", w_elapsed },
	{ "done", w_done },
	{ "log", w_log },
	{ NULL, NULL }
};

void workerapi_push(lua_State *L, struct worker *w, int params_idx)
{
	params_idx = lua_absindex(L, params_idx);
	*(struct worker **)lua_getextraspace(L) = w;
	fileapi_register(L);
	lua_createtable(L, 0, 32);
	/* methods on the object itself: a call skips the __index hop */
	luaL_setfuncs(L, worker_methods, 0);
	lua_pushinteger(L, w->id);
	lua_setfield(L, -2, "id");
	lua_pushinteger(L, w->workers);
	lua_setfield(L, -2, "workers");
	lua_pushvalue(L, params_idx);
	lua_setfield(L, -2, "params");
	lua_createtable(L, 0, 1);
	lua_pushliteral(L, "fsplan.worker");
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, -2);
}
