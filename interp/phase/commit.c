/* commit: f:group_sync and f:group_commit, a database's group commit. */
#include <errno.h>
#include <string.h>

#include <lauxlib.h>

#include "phase/commit.h"
#include "phase/groupsync.h"
#include "phase/worker.h"
#include "phase/workerlua.h"
#include "results/metrics.h"

/* A leader's turn: its writes and its sync, each measured as an op. */
struct leader {
	struct worker *w;
	int fd;
	const char *write, *sync;	/* the ops' names */
	uint64_t size, block;		/* the circular log's, group_commit's */
	uint64_t wrote;			/* bytes this caller's turns wrote */
};

static int leader_sync(void *ctx)
{
	struct leader *l = ctx;
	struct engine_req r = { .op = ENGINE_FDATASYNC, .fd = l->fd };
	int64_t res = engine_do(l->w->eng, l->w->e, &r);

	worker_record_span(l->w, l->sync, r.t_submit, r.t_done, 0);
	return res < 0 ? (int)res : 0;
}

int commit_sync(lua_State *L, int fd, const char *what)
{
	struct worker *w = worker_get(L);
	struct leader l = { .w = w, .fd = fd,
			    .sync = luaL_optstring(L, 2, "group_sync") };
	int rc;

	worker_op_named(L, w, l.sync, lua_isnoneornil(L, 2) ? strlen(l.sync)
			: lua_rawlen(L, 2), 2, "f:group_sync");
	rc = groupsync_wait(fd, leader_sync, &l);
	if (rc < 0)
		return workerlua_fail(L, what, -rc);
	lua_pushboolean(L, 1);
	lua_pushboolean(L, rc);
	return 2;
}

/* len bytes of the log at off, one op, in the pieces the worker's
 * source buffer holds. 0 or -errno. */
static int put(struct leader *l, uint64_t off, uint64_t len)
{
	struct worker *w = l->w;
	uint64_t t0 = 0, t1 = 0, done = 0;
	int rc = 0;

	while (done < len && !rc) {
		uint64_t n = len - done < w->src_len ? len - done : w->src_len;
		struct engine_req r = { .op = ENGINE_WRITE, .fd = l->fd,
					.off = off + done, .len = n };
		int64_t res;

		r.buf = worker_src_at(w, w->src, w->src_len, r.off, n);
		res = engine_do(w->eng, w->e, &r);
		t0 = t0 ? t0 : r.t_submit;
		t1 = r.t_done;
		if (res <= 0)
			rc = res < 0 ? (int)res : -EIO;
		else
			done += (uint64_t)res;
	}
	w->m.written += done;
	l->wrote += done;
	worker_record_span(w, l->write, t0, t1, done);
	return rc;
}

/* A turn of group_commit: the log positions [from, upto) in whole
 * blocks, from the start of the block the last turn ended in (written
 * again, as InnoDB rewrites its last, partly filled block), wrapping at
 * the log's size: one write, two where it wraps; then the sync. */
static int lead_commit(void *ctx, uint64_t from, uint64_t upto)
{
	struct leader *l = ctx;
	uint64_t lo = from / l->block * l->block;
	uint64_t n = (upto + l->block - 1) / l->block * l->block - lo;
	uint64_t at = lo % l->size;
	uint64_t first = n < l->size - at ? n : l->size - at;
	int rc;

	if (n > l->size)
		return -ENOSPC;	/* more waiting than the log holds */
	rc = put(l, at, first);
	if (!rc && n > first)
		rc = put(l, 0, n - first);
	return rc ? rc : leader_sync(l);
}

/* An op name of group_commit's options (at index 3): the default, or
 * the field's string, checked as w:op's names are; left on the stack
 * (the name is the string's). */
static const char *opt_name(lua_State *L, struct worker *w, const char *key,
			    const char *dflt)
{
	size_t len;
	const char *name;

	if (lua_getfield(L, 3, key) == LUA_TNIL) {
		lua_pushstring(L, dflt);
		lua_replace(L, -2);
	}
	if (lua_type(L, -1) != LUA_TSTRING)
		luaL_error(L, "f:group_commit: %s is a %s, not an op's name",
			   key, luaL_typename(L, -1));
	name = lua_tolstring(L, -1, &len);
	if (strlen(name) != len || !metrics_name_ok(name, len))
		luaL_error(L, "f:group_commit: %s '%s' is not a name: 1-%d of "
			   "A-Z a-z 0-9 _ . -", key, name, METRICS_NAME_LEN);
	worker_op_named(L, w, name, len, lua_gettop(L), "f:group_commit");
	return name;
}

/* Every key of group_commit's options is one it knows (a misspelt one
 * must not leave its default in place unsaid). */
static void known_keys(lua_State *L)
{
	static const char *const keys[] = { "size", "block", "write", "sync" };

	lua_pushnil(L);
	while (lua_next(L, 3)) {
		size_t i = 0;

		while (i < 4 && (lua_type(L, -2) != LUA_TSTRING ||
				 strcmp(lua_tostring(L, -2), keys[i])))
			i++;
		if (i == 4)
			luaL_error(L, "f:group_commit: unknown option '%s' "
				   "(size, block, write, sync)",
				   lua_type(L, -2) == LUA_TSTRING ?
				   lua_tostring(L, -2) : luaL_typename(L, -2));
		lua_pop(L, 1);
	}
}

int commit_log(lua_State *L, int fd, const char *what)
{
	struct worker *w = worker_get(L);
	uint64_t len = workerlua_size(L, 2);
	struct leader l = { .w = w, .fd = fd, .block = 512 };
	int rc;

	luaL_checktype(L, 3, LUA_TTABLE);
	known_keys(L);
	if (lua_getfield(L, 3, "block") != LUA_TNIL)
		l.block = workerlua_size_field(L, -1, "f:group_commit", "block");
	if (lua_getfield(L, 3, "size") == LUA_TNIL)
		luaL_error(L, "f:group_commit: size (the log's bytes) is "
			   "missing");
	l.size = workerlua_size_field(L, -1, "f:group_commit", "size");
	if (!l.block || l.block & (l.block - 1) || l.size < l.block ||
	    l.size % l.block)
		luaL_error(L, "f:group_commit: size %I is not a whole number "
			   "of blocks of %I, a power of 2", (lua_Integer)l.size,
			   (lua_Integer)l.block);
	if (!len || len > l.size)
		luaL_error(L, "f:group_commit: a record of %I bytes: 1 to the "
			   "log's size, %I", (lua_Integer)len,
			   (lua_Integer)l.size);
	l.write = opt_name(L, w, "write", "group_write");
	l.sync = opt_name(L, w, "sync", "group_sync");
	if (!strcmp(l.write, l.sync))
		luaL_error(L, "f:group_commit: write and sync are both '%s': "
			   "the log's writes and syncs would be one op", l.sync);
	rc = groupsync_commit(fd, len, lead_commit, &l);
	if (rc < 0)
		return workerlua_fail(L, what, -rc);
	lua_pushboolean(L, 1);
	lua_pushinteger(L, (lua_Integer)l.wrote);
	return 2;
}
