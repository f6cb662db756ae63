/* loops: the C loops under f:putc_stream/getc_stream and w:files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "phase/loops.h"
#include "phase/sandbox.h"
#include "phase/worker.h"
#include "phase/workerlua.h"
#include "phase/workpath.h"
#include "util/clock.h"

/* ---- per-char: a real stdio FILE whose buffer drains through the engine ---- */

struct cookie {
	struct worker *w;
	int fd;
	uint64_t off;
	const char *tag;
	int err;
};

/* One transfer of the stdio buffer through the engine, at the cookie's
 * offset, timed under its tag. */
static ssize_t ck_io(struct cookie *ck, enum engine_op op, void *buf,
		     size_t len)
{
	struct engine_req r = { .op = op, .fd = ck->fd, .buf = buf,
				.len = len, .off = ck->off };
	int64_t res = engine_do(ck->w->eng, ck->w->e, &r);

	if (res < 0) {
		ck->err = (int)-res;
		return -1;
	}
	worker_record_req(ck->w, ck->tag, &r, (uint64_t)res);
	if (op == ENGINE_WRITE)
		ck->w->m.written += (uint64_t)res;
	ck->off += (uint64_t)res;
	return res;
}

static ssize_t ck_write(void *c, const char *buf, size_t len)
{
	/* a write request only reads its buffer: the cast is safe */
	return ck_io(c, ENGINE_WRITE, (void *)(uintptr_t)buf, len);
}

static ssize_t ck_read(void *c, char *buf, size_t len)
{
	return ck_io(c, ENGINE_READ, buf, len);
}

int loops_per_char(lua_State *L, int fd, const char *name, int writing)
{
	struct cookie ck = { worker_get(L), fd, 0, writing ? "putc" : "getc",
			     0 };
	cookie_io_functions_t io = { 0 };
	uint64_t n = workerlua_size(L, 2), i;
	FILE *fp;

	ck.off = lua_isnoneornil(L, 3) ? 0 : workerlua_size(L, 3);
	if (writing)
		io.write = ck_write;
	else
		io.read = ck_read;
	/* stdio's buffer is the phase's memory too (memory:) */
	if (sandbox_charge(L, BUFSIZ, 0))
		return luaL_error(L, "not enough memory for a %d-byte stdio "
				  "buffer (the phase's memory: cap)", BUFSIZ);
	fp = fopencookie(&ck, writing ? "w" : "r", io);
	if (!fp) {
		sandbox_charge(L, 0, BUFSIZ);
		return workerlua_fail(L, name, errno);
	}
	setvbuf(fp, NULL, _IOFBF, BUFSIZ);
	for (i = 0; i < n; i++) {
		if (writing) {
			if (putc((int)(i & 0x7f) | 0x20, fp) == EOF)
				break;
		} else if (getc(fp) == EOF) {
			break;
		}
		/* the hook cannot reach in here: look now and then */
		if (!(i & 0xfffff) && worker_stopping(ck.w))
			break;
	}
	/* the last buffer drains here: its failure is the cookie's */
	if (fclose(fp) && !ck.err)
		ck.err = errno ? errno : EIO;
	sandbox_charge(L, 0, BUFSIZ);
	if (ck.err)
		return workerlua_fail_op(L, ck.tag, 1, name, ck.err);
	lua_pushinteger(L, (lua_Integer)i);
	return 1;
}

/* ---- w:files: per-file loops ---- */

/*
 * One op on one name for w:files: create (an empty file: open with
 * O_CREAT|O_EXCL, close), stat (not following) or unlink, in the
 * name's directory. Each engine op is recorded under its own name; the
 * whole under tag — once, when tag is one of those names (the default
 * "stat" and "unlink" are their one system call). 0 or -errno.
 */
enum { FILES_CREATE, FILES_STAT, FILES_UNLINK };

/* Record an engine op under name unless name is the tag, whose record
 * then takes its place: same is set to it. */
static void files_record(struct worker *w, const char *name,
			 const struct engine_req *r, const char *tag,
			 const struct engine_req **same)
{
	if (strcmp(name, tag))
		worker_record_req(w, name, r, 0);
	else
		*same = r;
}

static int files_one(lua_State *L, struct worker *w, int op,
		     const char *path, const char *tag)
{
	struct engine_req r = { .mode = 0644 }, c = { .op = ENGINE_CLOSE };
	const struct engine_req *same = NULL;
	struct statx st;
	char name[256];
	int own, dfd;
	uint64_t t_end;
	int64_t res;

	workerlua_check_path(L, path);
	dfd = workpath_parent(w, path, name, sizeof(name), &own, 1);
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
	files_record(w, op == FILES_CREATE ? "open" : op == FILES_STAT ?
		     "stat" : "unlink", &r, tag, &same);
	if (own)
		close(dfd);
	t_end = r.t_done;
	if (res >= 0 && op == FILES_CREATE) {
		c.fd = (int)res;
		res = engine_do(w->eng, w->e, &c);
		files_record(w, "close", &c, tag, &same);
		t_end = c.t_done;
	}
	if (same) {	/* the tag's record: the whole, by that op's path */
		struct engine_req all = *same;

		all.t_submit = r.t_submit;
		all.t_done = t_end;
		worker_record_req(w, tag, &all, 0);
	} else {
		worker_record_span(w, tag, r.t_submit, t_end, 0);
	}
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
int loops_files(lua_State *L)
{
	static const char *const ops[] = { "create", "stat", "unlink", NULL };
	struct worker *w = worker_get(L);
	int op = luaL_checkoption(L, 2, NULL, ops);
	const char *dir = NULL, *tag = ops[op];
	char path[4096];
	size_t dlen = 0, tlen = strlen(tag);
	lua_Integer n, i;

	luaL_checktype(L, 3, LUA_TTABLE);
	if (!lua_isnoneornil(L, 4)) {
		luaL_checktype(L, 4, LUA_TTABLE);
		if (lua_getfield(L, 4, "dir") != LUA_TNIL)
			dir = luaL_checklstring(L, -1, &dlen);
		if (dir && strlen(dir) != dlen)
			return luaL_error(L, "files: opts.dir has a NUL byte "
					  "in it");
		if (lua_getfield(L, 4, "tag") != LUA_TNIL)
			tag = luaL_checklstring(L, -1, &tlen);
		lua_settop(L, 4);	/* opts, on the stack, keeps them */
	}
	/* inside w:op nothing is recorded: no op row made empty either */
	if (strlen(tag) != tlen || !metrics_name_ok(tag, tlen))
		luaL_error(L, "w:files: tag '%s'%s is not a name: 1-%d of A-Z "
			   "a-z 0-9 _ . -", tag, strlen(tag) != tlen ?
			   " (and a NUL byte)" : "", METRICS_NAME_LEN);
	if (!w->quiet)
		worker_op_named(L, w, tag, tlen, 0, "w:files");
	if (dir && dlen + 2 > sizeof(path))
		return workerlua_fail(L, dir, ENAMETOOLONG);
	if (dir) {
		memcpy(path, dir, dlen);
		path[dlen++] = '/';
	}
	n = luaL_len(L, 3);
	for (i = 1; i <= n; i++) {
		const char *p;
		size_t len;
		int rc;

		if ((i & 255) == 0 && worker_stopping(w))
			break;
		if (lua_rawgeti(L, 3, i) != LUA_TSTRING)
			return luaL_error(L, "names[%d] is not a string",
					  (int)i);
		p = lua_tolstring(L, -1, &len);
		if (strlen(p) != len)
			return luaL_error(L, "names[%d] has a NUL byte in it",
					  (int)i);
		if (dir) {
			if (dlen + len + 1 > sizeof(path))
				return workerlua_fail(L, p, ENAMETOOLONG);
			memcpy(path + dlen, p, len + 1);
			p = path;
		}
		rc = files_one(L, w, op, p, tag);
		if (rc < 0)
			return workerlua_fail_resolve(L, ops[op], p, -rc);
		lua_pop(L, 1);
	}
	lua_pushinteger(L, i - 1);
	return 1;
}
