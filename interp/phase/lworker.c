/* lworker: the worker object — paths confined to the work directory, metadata ops, timing, RNG. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "phase/lworker.h"
#include "util/units.h"
#include "util/clock.h"

#define SRC_BYTES	((size_t)2 << 20)	/* seeded write data */
#define SRC_SLACK	((size_t)1 << 20)	/* a write may run past */

/* The worker lives in the state's extra space: no lookup per op, and
 * coroutines inherit it (lua_newthread copies the main thread's). */
struct lworker *lw_get(lua_State *L)
{
	struct lworker *w = *(struct lworker **)lua_getextraspace(L);

	if (!w)
		luaL_error(L, "no worker in this state");
	return w;
}

/*
 * The op_stat of name, made on first use; NULL for a name the metrics
 * cannot carry (or no memory). A per-file loop alternates several ops
 * (open, write, close, the test's own), so the last few are cached by
 * the name's address — and checked by name, since a Lua string's
 * address can be reused for another string after it is collected.
 */
struct op_stat *lw_op(struct lworker *w, const char *name)
{
	unsigned slot = (unsigned)((uintptr_t)name >> 4) % 8;
	int i = w->opc[slot].op;
	struct op_stat *op;

	if (w->opc[slot].name == name && i < w->m.n_ops &&
	    !strcmp(w->m.ops[i].name, name))
		return &w->m.ops[i];
	op = metrics_op(&w->m, name);
	if (op) {
		w->opc[slot].name = name;
		w->opc[slot].op = (int)(op - w->m.ops);
	}
	return op;
}

void lw_record(struct lworker *w, const char *name, uint64_t ns,
	       uint64_t bytes)
{
	struct op_stat *op = lw_op(w, name);

	if (!op)
		return;
	op->bytes += bytes;
	hist_add(&op->lat, ns);
}

int lw_fail(lua_State *L, const char *what, int err)
{
	lua_pushnil(L);
	lua_pushfstring(L, "%s: %s", what, strerror(err));
	lua_pushinteger(L, err);
	return 3;
}

uint64_t lw_size(lua_State *L, int idx)
{
	uint64_t v;
	int isint;
	lua_Integer i = lua_tointegerx(L, idx, &isint);

	if (isint && i >= 0 && lua_type(L, idx) == LUA_TNUMBER)
		return (uint64_t)i;	/* the common case, cheaply */
	if (lua_type(L, idx) == LUA_TNUMBER) {
		lua_Number n = lua_tonumber(L, idx);

		luaL_argcheck(L, n >= 0 && n < 9.2e18, idx, "negative size");
		return (uint64_t)n;
	}
	if (units_size(luaL_checkstring(L, idx), &v))
		luaL_argerror(L, idx, "a size such as 4096 or \"4k\"");
	return v;
}

/* xoshiro256** seeded by splitmix64: fast, and the same for a seed. */
static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t lw_random(struct lworker *w)
{
	uint64_t *s = w->rng, r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

static int stopping_at(const struct lworker *w, double now)
{
	return (w->stop && *w->stop) || (w->deadline > 0 && now >= w->deadline);
}

int lw_stopping(const struct lworker *w)
{
	return stopping_at(w, clock_now());
}

unsigned char *lworker_source(uint64_t seed, size_t *src_len)
{
	struct lworker tmp = { 0 };
	unsigned char *src;
	uint64_t x = seed ^ 0x5eed5eed5eedull;

	if (posix_memalign((void **)&src, 4096, SRC_BYTES + SRC_SLACK))
		return NULL;
	for (int i = 0; i < 4; i++)
		tmp.rng[i] = splitmix(&x);
	/* non-repeating bytes: compression and dedup get nothing for free */
	for (size_t i = 0; i < (SRC_BYTES + SRC_SLACK) / 8; i++) {
		uint64_t v = lw_random(&tmp);

		memcpy(src + 8 * i, &v, 8);
	}
	*src_len = SRC_BYTES;
	return src;
}

int lworker_init(struct lworker *w, const struct engine_ops *ops,
		 int workfd, const unsigned char *src, size_t src_len,
		 uint64_t seed, int rep, char *why, size_t len)
{
	uint64_t x = seed ^ ((uint64_t)w->id << 32) ^ ((uint64_t)rep << 48);

	w->eng = ops;
	w->workfd = workfd;
	w->pdir_fd = -1;
	w->src = src;
	w->src_len = src_len;
	w->t_start = clock_now();
	for (int i = 0; i < 4; i++)
		w->rng[i] = splitmix(&x);
	return ops->init(&w->e, 128, why, len) ? -1 : 0;
}

void lworker_free(struct lworker *w)
{
	if (w->e)
		w->eng->cleanup(w->e);
	w->e = NULL;
	if (w->eng)	/* initialised: pdir_fd is set */
		lw_forget_dir(w);
	free(w->buf);
	w->buf = NULL;
	metrics_free(&w->m);
}

/* ---- paths ---- */

void lw_check_path(lua_State *L, const char *path)
{
	const char *p = path;

	if (!*path)
		luaL_error(L, "an empty path");
	if (*path == '/')
		luaL_error(L, "'%s': paths are relative to the work directory",
			   path);
	for (;;) {	/* p: the start of a component */
		if (p[0] == '.' && p[1] == '.' && (!p[2] || p[2] == '/'))
			luaL_error(L, "'%s': '..' would leave the work "
				   "directory", path);
		p = strchr(p, '/');
		if (!p)
			return;
		while (*p == '/')
			p++;
	}
}

void lw_forget_dir(struct lworker *w)
{
	if (w->pdir_fd >= 0)
		close(w->pdir_fd);
	w->pdir_fd = -1;
	w->pdir_len = 0;
}

static int openat2_beneath(int dirfd, const char *path, int flags)
{
	struct open_how how = { .flags = (uint64_t)flags | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH |
					   RESOLVE_NO_MAGICLINKS };

	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

/*
 * The directory holding path's last component, opened beneath the work
 * directory, and that component. Returns the dir fd (the work directory
 * itself is not to be closed: *own says), or -errno.
 */
static int parent_fd(lua_State *L, struct lworker *w, const char *path,
		     char *name, size_t len, int *own, int cache)
{
	char dir[4096];
	const char *slash, *base;
	size_t n = strlen(path), dlen;
	int fd;

	lw_check_path(L, path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	slash = memrchr(path, '/', n);
	base = slash ? slash + 1 : path;
	if ((size_t)(path + n - base) >= len)
		return -ENAMETOOLONG;
	memcpy(name, base, (size_t)(path + n - base));
	name[path + n - base] = '\0';
	if (!strcmp(name, ".") || !name[0])
		return -EINVAL;
	*own = 0;
	if (!slash)
		return w->workfd;
	/*
	 * The last directory resolved is kept open: a loop over the files
	 * of one directory (bonnie's create, stat, delete) then costs one
	 * syscall per file, as the classic tools' do. This worker's renames
	 * and rmdirs drop it; another worker renaming the directory
	 * meanwhile is not seen (its ops would follow the directory).
	 */
	dlen = (size_t)(slash - path);
	if (cache && w->pdir_fd >= 0 && dlen == w->pdir_len &&
	    !memcmp(path, w->pdir, dlen))
		return w->pdir_fd;
	if (dlen >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, dlen);
	dir[dlen] = '\0';
	fd = openat2_beneath(w->workfd, dlen ? dir : "/",
			     O_PATH | O_DIRECTORY);
	if (fd < 0)
		return -errno;
	if (cache && dlen < sizeof(w->pdir)) {
		lw_forget_dir(w);
		memcpy(w->pdir, dir, dlen);
		w->pdir_len = dlen;
		w->pdir_fd = fd;
		return fd;
	}
	*own = 1;
	return fd;
}

int lw_parent(lua_State *L, struct lworker *w, const char *path,
	      char *name, size_t len, int *own)
{
	return parent_fd(L, w, path, name, len, own, 1);
}

/* One path op through the engine, timed as `what`. */
static int path_op(lua_State *L, enum engine_op op, const char *what,
		   const char *a, const char *b, int flags, mode_t mode)
{
	struct lworker *w = lw_get(L);
	struct engine_req r = { .op = op, .flags = flags, .mode = mode };
	char na[256], nb[256];
	int fa = -1, fb = -1, oa = 0, ob = 0;
	int64_t res;

	if (op != ENGINE_SYMLINK) {
		/* with a second path, the first keeps its own fd: resolving
		 * the second may replace the cached one */
		fa = parent_fd(L, w, a, na, sizeof(na), &oa, b == NULL);
		if (fa < 0)
			return lw_fail(L, a, -fa);
	}
	if (b) {
		fb = lw_parent(L, w, b, nb, sizeof(nb), &ob);
		if (fb < 0) {
			if (oa)
				close(fa);
			return lw_fail(L, b, -fb);
		}
	}
	r.dirfd = fa;
	r.path = op == ENGINE_SYMLINK ? a : na;
	r.dirfd2 = fb;
	r.path2 = b ? nb : NULL;
	res = engine_do(w->eng, w->e, &r);
	lw_record(w, what, r.t_done - r.t_submit, 0);
	if (oa)
		close(fa);
	if (ob)
		close(fb);
	/* a directory may have moved or gone: resolve afresh next time */
	if (op == ENGINE_RENAME || (flags & AT_REMOVEDIR))
		lw_forget_dir(w);
	if (res < 0)
		return lw_fail(L, op == ENGINE_SYMLINK ? b : a, (int)-res);
	lua_pushboolean(L, 1);
	return 1;
}

static int w_unlink(lua_State *L)
{
	return path_op(L, ENGINE_UNLINK, "unlink", luaL_checkstring(L, 2),
		       NULL, 0, 0);
}

static int w_rmdir(lua_State *L)
{
	return path_op(L, ENGINE_UNLINK, "rmdir", luaL_checkstring(L, 2),
		       NULL, AT_REMOVEDIR, 0);
}

static int w_mkdir(lua_State *L)
{
	return path_op(L, ENGINE_MKDIR, "mkdir", luaL_checkstring(L, 2),
		       NULL, 0, (mode_t)luaL_optinteger(L, 3, 0755));
}

static int w_rename(lua_State *L)
{
	return path_op(L, ENGINE_RENAME, "rename", luaL_checkstring(L, 2),
		       luaL_checkstring(L, 3), 0, 0);
}

static int w_link(lua_State *L)
{
	return path_op(L, ENGINE_LINK, "link", luaL_checkstring(L, 2),
		       luaL_checkstring(L, 3), 0, 0);
}

static int w_symlink(lua_State *L)
{
	return path_op(L, ENGINE_SYMLINK, "symlink", luaL_checkstring(L, 2),
		       luaL_checkstring(L, 3), 0, 0);
}

static double ts(const struct statx_timestamp *t)
{
	return t->tv_sec + t->tv_nsec / 1e9;
}

void lw_push_stat(lua_State *L, const struct statx *st)
{
	lua_createtable(L, 0, 10);
	lua_pushinteger(L, (lua_Integer)st->stx_size);
	lua_setfield(L, -2, "size");
	lua_pushinteger(L, st->stx_mode);
	lua_setfield(L, -2, "mode");
	lua_pushinteger(L, st->stx_nlink);
	lua_setfield(L, -2, "nlink");
	lua_pushinteger(L, (lua_Integer)st->stx_blocks);
	lua_setfield(L, -2, "blocks");
	lua_pushinteger(L, (lua_Integer)st->stx_ino);
	lua_setfield(L, -2, "ino");
	lua_pushinteger(L, st->stx_uid);
	lua_setfield(L, -2, "uid");
	lua_pushnumber(L, ts(&st->stx_atime));
	lua_setfield(L, -2, "atime");
	lua_pushnumber(L, ts(&st->stx_mtime));
	lua_setfield(L, -2, "mtime");
	lua_pushnumber(L, ts(&st->stx_ctime));
	lua_setfield(L, -2, "ctime");
	lua_pushboolean(L, (st->stx_mode & S_IFMT) == S_IFDIR);
	lua_setfield(L, -2, "isdir");
}

static int w_stat(lua_State *L)
{
	struct lworker *w = lw_get(L);
	const char *path = luaL_checkstring(L, 2);
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
	fd = lw_parent(L, w, path, name, sizeof(name), &own);
	if (fd == -EINVAL)	/* "." and the like: by fd */
		goto by_fd;
	if (fd < 0)
		return lw_fail(L, path, -fd);
	r.dirfd = fd;
	r.path = name;
	res = engine_do(w->eng, w->e, &r);
	if (own)
		close(fd);
	if (res == 0 && (st.stx_mode & S_IFMT) != S_IFLNK) {
		lw_record(w, "stat", r.t_done - r.t_submit, 0);
		lw_push_stat(L, &st);
		return 1;
	}
	if (res < 0) {
		lw_record(w, "stat", r.t_done - r.t_submit, 0);
		return lw_fail(L, path, (int)-res);
	}
by_fd:
	memset(&r, 0, sizeof(r));
	r.op = ENGINE_STATX;
	r.stx = &st;
	r.flags = AT_EMPTY_PATH;
	fd = openat2_beneath(w->workfd, path, O_PATH);
	if (fd < 0)
		return lw_fail(L, path, errno);
	r.dirfd = fd;
	r.path = "";
	res = engine_do(w->eng, w->e, &r);
	lw_record(w, "stat", r.t_done - r.t_submit, 0);
	close(fd);
	if (res < 0)
		return lw_fail(L, path, (int)-res);
	lw_push_stat(L, &st);
	return 1;
}

static int w_utime(lua_State *L)
{
	struct lworker *w = lw_get(L);
	const char *path = luaL_checkstring(L, 2);
	struct timespec t[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	char name[256];
	int own, fd, rc;
	double t0;

	for (int i = 0; i < 2; i++)
		if (!lua_isnoneornil(L, 3 + i)) {
			lua_Number v = luaL_checknumber(L, 3 + i);

			t[i].tv_sec = (time_t)v;
			t[i].tv_nsec = (long)((v - (double)t[i].tv_sec) * 1e9);
		}
	fd = lw_parent(L, w, path, name, sizeof(name), &own);
	if (fd < 0)
		return lw_fail(L, path, -fd);
	t0 = clock_now();
	rc = utimensat(fd, name, t, AT_SYMLINK_NOFOLLOW) ? errno : 0;
	lw_record(w, "utime", (uint64_t)((clock_now() - t0) * 1e9), 0);
	if (own)
		close(fd);
	if (rc)
		return lw_fail(L, path, rc);
	lua_pushboolean(L, 1);
	return 1;
}

static int w_readdir(lua_State *L)
{
	struct lworker *w = lw_get(L);
	const char *path = luaL_optstring(L, 2, ".");
	struct dirent *de;
	double t0 = clock_now();
	DIR *d;
	int fd, n = 0;

	if (strcmp(path, "."))
		lw_check_path(L, path);
	fd = openat2_beneath(w->workfd, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return lw_fail(L, path, errno);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return lw_fail(L, path, errno);
	}
	lua_newtable(L);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		lua_pushstring(L, de->d_name);
		lua_rawseti(L, -2, ++n);
	}
	closedir(d);
	lw_record(w, "readdir", (uint64_t)((clock_now() - t0) * 1e9), 0);
	return 1;
}

/*
 * One op on one name for w:files: create (an empty file: open with
 * O_CREAT|O_EXCL, close), stat (not following) or unlink, in the
 * name's directory. Each engine op is recorded under its own name; the
 * whole under tag. 0 or -errno.
 */
enum { FILES_CREATE, FILES_STAT, FILES_UNLINK };

static int files_one(lua_State *L, struct lworker *w, int op,
		     const char *path, const char *tag)
{
	struct engine_req r = { .mode = 0644 };
	struct statx st;
	char name[256];
	int own, dfd = lw_parent(L, w, path, name, sizeof(name), &own);
	uint64_t t0;
	int64_t res;

	if (dfd < 0)
		return dfd;
	r.dirfd = dfd;
	r.path = name;
	switch (op) {
	case FILES_CREATE:
		r.op = ENGINE_OPEN;
		r.flags = O_WRONLY | O_CREAT | O_EXCL;
		break;
	case FILES_STAT:
		r.op = ENGINE_STATX;
		r.stx = &st;
		r.flags = AT_SYMLINK_NOFOLLOW;
		break;
	default:
		r.op = ENGINE_UNLINK;
		break;
	}
	res = engine_do(w->eng, w->e, &r);
	t0 = r.t_submit;
	lw_record(w, op == FILES_CREATE ? "open" : op == FILES_STAT ?
		  "stat" : "unlink", r.t_done - r.t_submit, 0);
	if (own)
		close(dfd);
	if (res >= 0 && op == FILES_CREATE) {
		struct engine_req c = { .op = ENGINE_CLOSE, .fd = (int)res };

		res = engine_do(w->eng, w->e, &c);
		lw_record(w, "close", c.t_done - c.t_submit, 0);
		r.t_done = c.t_done;
	}
	lw_record(w, tag, r.t_done - t0, 0);
	return res < 0 ? (int)res : 0;
}

/*
 * w:files(op, names [, opts]) -> count, or nil, msg, errno: op ("create",
 * "stat", "unlink") on every path of the array names, the loop in C as
 * f:stream's is — a per-file test then costs what the classic tools'
 * loops cost, not an interpreted call per file. opts.dir: a directory
 * the names are in (a w:readdir list); opts.tag: the op each file is
 * timed as (default op). Stops at the first failure, or when the phase
 * must stop (returning the count done).
 */
static int w_files(lua_State *L)
{
	static const char *const ops[] = { "create", "stat", "unlink", NULL };
	struct lworker *w = lw_get(L);
	int op = luaL_checkoption(L, 2, NULL, ops);
	const char *dir = NULL, *tag = ops[op];
	char path[4096];
	size_t dlen = 0;
	lua_Integer n, i;

	luaL_checktype(L, 3, LUA_TTABLE);
	if (!lua_isnoneornil(L, 4)) {
		luaL_checktype(L, 4, LUA_TTABLE);
		if (lua_getfield(L, 4, "dir") != LUA_TNIL)
			dir = luaL_checklstring(L, -1, &dlen);
		if (lua_getfield(L, 4, "tag") != LUA_TNIL)
			tag = luaL_checkstring(L, -1);
		lua_settop(L, 4);	/* opts, on the stack, keeps them */
	}
	if (!lw_op(w, tag))
		luaL_argerror(L, 4, "a tag is 1-31 of A-Z a-z 0-9 _ . -");
	if (dir && dlen + 2 > sizeof(path))
		return lw_fail(L, dir, ENAMETOOLONG);
	if (dir) {
		memcpy(path, dir, dlen);
		path[dlen++] = '/';
	}
	n = luaL_len(L, 3);
	for (i = 1; i <= n; i++) {
		const char *p;
		size_t len;
		int rc;

		if ((i & 255) == 0 && lw_stopping(w))
			break;
		if (lua_rawgeti(L, 3, i) != LUA_TSTRING)
			return luaL_error(L, "names[%d] is not a string",
					  (int)i);
		p = lua_tolstring(L, -1, &len);
		if (dir) {
			if (dlen + len + 1 > sizeof(path))
				return lw_fail(L, p, ENAMETOOLONG);
			memcpy(path + dlen, p, len + 1);
			p = path;
		}
		rc = files_one(L, w, op, p, tag);
		if (rc < 0)
			return lw_fail(L, p, -rc);
		lua_pop(L, 1);
	}
	lua_pushinteger(L, i - 1);
	return 1;
}

static int w_statfs(lua_State *L)
{
	struct lworker *w = lw_get(L);
	struct statfs sf;

	if (fstatfs(w->workfd, &sf))
		return lw_fail(L, "statfs", errno);
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

static int w_sync(lua_State *L)
{
	struct lworker *w = lw_get(L);
	double t0 = clock_now();
	int rc = syncfs(w->workfd) ? errno : 0;

	lw_record(w, "sync", (uint64_t)((clock_now() - t0) * 1e9), 0);
	if (rc)
		return lw_fail(L, "syncfs", rc);
	lua_pushboolean(L, 1);
	return 1;
}

/* ---- timing, counters, randomness, time, log ---- */

static int w_time(lua_State *L)
{
	struct lworker *w = lw_get(L);
	const char *name = luaL_checkstring(L, 2);
	uint64_t t0;
	int base;

	luaL_checktype(L, 3, LUA_TFUNCTION);
	if (!lw_op(w, name))
		luaL_argerror(L, 2, "an op name is 1-31 of A-Z a-z 0-9 _ . -");
	base = 2;	/* results are what follows the name */
	t0 = clock_ns();
	lua_call(L, lua_gettop(L) - 3, LUA_MULTRET);
	lw_record(w, name, clock_ns() - t0, 0);
	return lua_gettop(L) - base;
}

static int w_count(lua_State *L)
{
	struct lworker *w = lw_get(L);
	const char *name = luaL_checkstring(L, 2);

	if (metrics_count(&w->m, name, luaL_optnumber(L, 3, 1)))
		luaL_argerror(L, 2, "a counter name is 1-31 of A-Z a-z 0-9 "
			      "_ . -");
	return 0;
}

static int w_random(lua_State *L)
{
	struct lworker *w = lw_get(L);
	lua_Integer lo = 1, hi;

	if (lua_isnoneornil(L, 3)) {
		hi = luaL_checkinteger(L, 2);
	} else {
		lo = luaL_checkinteger(L, 2);
		hi = luaL_checkinteger(L, 3);
	}
	luaL_argcheck(L, lo <= hi, 2, "an empty interval");
	lua_pushinteger(L, lo + (lua_Integer)(lw_random(w) %
					      ((uint64_t)(hi - lo) + 1)));
	return 1;
}

/* CPU seconds of the whole phase child so far (user + sys, all its
 * threads): a test's CPU% is the difference over the test's wall time. */
static int w_cpu(lua_State *L)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return lw_fail(L, "getrusage", errno);
	lua_pushnumber(L, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
			  ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return 1;
}

static int w_now(lua_State *L)
{
	lua_pushnumber(L, clock_now());
	return 1;
}

static int w_elapsed(lua_State *L)
{
	lua_pushnumber(L, clock_now() - lw_get(L)->t_start);
	return 1;
}

static int w_done(lua_State *L)
{
	struct lworker *w = lw_get(L);
	double now = clock_now();

	lua_pushboolean(L, stopping_at(w, now) ||
		(w->seconds > 0 && now - w->t_start >= w->seconds));
	return 1;
}

static int w_log(lua_State *L)
{
	struct lworker *w = lw_get(L);
	luaL_Buffer b;
	int n = lua_gettop(L);

	luaL_buffinit(L, &b);
	lua_pushfstring(L, "[worker %d]", w->id);
	luaL_addvalue(&b);
	for (int i = 2; i <= n; i++) {
		luaL_addchar(&b, ' ');
		luaL_tolstring(L, i, NULL);
		luaL_addvalue(&b);
	}
	luaL_addchar(&b, '\n');
	luaL_pushresult(&b);
	fputs(lua_tostring(L, -1), stderr);
	fflush(stderr);
	return 0;
}

/* Who the phase runs as, from /proc/self/status: uid, gid, groups,
 * the five capability sets (hex strings) and no_new_privs. */
static int w_identity(lua_State *L)
{
	static const char *const keys[] = { "Uid", "Gid", "Groups", "CapInh",
					    "CapPrm", "CapEff", "CapBnd",
					    "CapAmb", "NoNewPrivs" };
	FILE *f = fopen("/proc/self/status", "re");
	char line[512];

	if (!f)
		return lw_fail(L, "/proc/self/status", errno);
	lua_createtable(L, 0, 9);
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;

		if (!colon)
			continue;
		*colon = '\0';
		v = colon + 1;
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = '\0';
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
	fclose(f);
	return 1;
}

static const luaL_Reg worker_methods[] = {
	{ "identity", w_identity },
	{ "open", lfile_open },
	{ "unlink", w_unlink },
	{ "mkdir", w_mkdir },
	{ "rmdir", w_rmdir },
	{ "rename", w_rename },
	{ "link", w_link },
	{ "symlink", w_symlink },
	{ "stat", w_stat },
	{ "utime", w_utime },
	{ "readdir", w_readdir },
	{ "files", w_files },
	{ "statfs", w_statfs },
	{ "sync", w_sync },
	{ "time", w_time },
	{ "count", w_count },
	{ "random", w_random },
	{ "now", w_now },
	{ "cpu", w_cpu },
	{ "elapsed", w_elapsed },
	{ "done", w_done },
	{ "log", w_log },
	{ NULL, NULL }
};

void lworker_push(lua_State *L, struct lworker *w, int params_idx)
{
	params_idx = lua_absindex(L, params_idx);
	*(struct lworker **)lua_getextraspace(L) = w;
	lfile_register(L);
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
