/* workerlua: what the w and f methods share: fails, paths, sizes, stat. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <lauxlib.h>

#include "phase/worker.h"
#include "phase/workerlua.h"
#include "phase/workpath.h"
#include "util/units.h"

/* A name as messages show it: whole up to 96 bytes; else its start,
 * its end and its length (an ENAMETOOLONG path is 4 KiB). */
static const char *shown(const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);

	if (n <= 96)
		return name;
	snprintf(buf, len, "%.48s...%s (%zu bytes)", name, name + n - 24, n);
	return buf;
}

void workerlua_check_path(lua_State *L, const char *path)
{
	const char *why = workpath_error(path);
	char buf[128];

	if (why && !*path)
		luaL_error(L, "%s", why);
	if (why)
		luaL_error(L, "'%s': %s", shown(path, buf, sizeof(buf)), why);
}

const char *workerlua_path_arg(lua_State *L, int idx)
{
	size_t len;
	const char *s = luaL_checklstring(L, idx, &len);

	if (strlen(s) != len)
		luaL_argerror(L, idx, "a path with a NUL byte in it");
	return s;
}

int workerlua_fail(lua_State *L, const char *what, int err)
{
	char buf[128];

	lua_pushnil(L);
	lua_pushfstring(L, "%s: %s", shown(what, buf, sizeof(buf)),
			strerror(err));
	lua_pushinteger(L, err);
	return 3;
}

int workerlua_fail_resolve(lua_State *L, const char *op, const char *path,
			   int err)
{
	char buf[128];

	if (err != EXDEV)
		return workerlua_fail_op(L, op, 0, path, err);
	lua_pushnil(L);
	lua_pushfstring(L, "%s: a symlink on this path leads outside the "
			"work directory", shown(path, buf, sizeof(buf)));
	lua_pushinteger(L, err);
	return 3;
}

int workerlua_fail_op(lua_State *L, const char *op, int data, const char *what,
		      int err)
{
	worker_count_error(worker_get(L), op, data, what, err);
	return workerlua_fail(L, what, err);
}

/* The size at idx into *v: 0, or why it is none. */
static const char *size_at(lua_State *L, int idx, uint64_t *v)
{
	int isint;
	lua_Integer i = lua_tointegerx(L, idx, &isint);

	/* the common case in one call: an integer, or a string Lua reads
	 * as one ("4096", as units_size would) */
	if (isint && i >= 0) {
		*v = (uint64_t)i;
		return NULL;
	}
	if (lua_type(L, idx) == LUA_TNUMBER) {
		lua_Number n = lua_tonumber(L, idx);

		if (n < 0)
			return "negative size";
		if (n != n)
			return "NaN, not a size";
		if (!(n < 9.2e18))
			return "a size past 2^63";
		*v = (uint64_t)n;
		return NULL;
	}
	if (lua_type(L, idx) != LUA_TSTRING ||
	    units_size(lua_tostring(L, idx), v))
		return "a size such as 4096 or \"4k\"";
	return NULL;
}

uint64_t workerlua_size_other(lua_State *L, int idx)
{
	uint64_t v = 0;
	const char *why = size_at(L, idx, &v);

	if (why)
		luaL_argerror(L, idx, why);
	return v;
}

uint64_t workerlua_size_field(lua_State *L, int idx, const char *call,
			      const char *key)
{
	uint64_t v = 0;
	const char *why = size_at(L, idx, &v);

	if (why && !strcmp(why, "negative size"))
		luaL_error(L, "%s: %s must not be negative", call, key);
	else if (why && lua_type(L, idx) == LUA_TNUMBER)
		luaL_error(L, "%s: %s is %s", call, key, why);
	else if (why)
		luaL_error(L, "%s: %s is %s, not %s%s%s", call, key, why,
			   lua_type(L, idx) == LUA_TSTRING ? "'" : "a ",
			   lua_type(L, idx) == LUA_TSTRING ?
			   lua_tostring(L, idx) : luaL_typename(L, idx),
			   lua_type(L, idx) == LUA_TSTRING ? "'" : "");
	return v;
}

static double ts(const struct statx_timestamp *t)
{
	return t->tv_sec + t->tv_nsec / 1e9;
}

void workerlua_push_stat(lua_State *L, const struct statx *st)
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
