/* workerlua: what the w and f methods share: fails, paths, sizes, stat. */
#ifndef FSPLAN_WORKERLUA_H
#define FSPLAN_WORKERLUA_H

#include <stdint.h>
#include <sys/stat.h>

#include <lua.h>

/* Raise unless path is one a phase may use (workpath_error). */
void workerlua_check_path(lua_State *L, const char *path);
/* Push nil, "what: strerror", errno (a long what cut to a readable
 * length); returns 3. */
int workerlua_fail(lua_State *L, const char *what, int err);
/* workerlua_fail_op for a path that failed to resolve: EXDEV there means a
 * symlink on it leads out of the work directory, and says so. */
int workerlua_fail_resolve(lua_State *L, const char *op, const char *path,
			   int err);
/* The path argument at idx: a string with no NUL byte in it (the
 * kernel would see only what comes before it). */
const char *workerlua_path_arg(lua_State *L, int idx);
/* worker_count_error, then workerlua_fail: returns 3. */
int workerlua_fail_op(lua_State *L, const char *op, int data, const char *what,
		      int err);
/* workerlua_size for all but a non-negative integer. */
uint64_t workerlua_size_other(lua_State *L, int idx);
/* A size argument: a number, or a string such as "4k" (Lua reads a
 * numeric one such as "4096" as the integer, in the one call here). */
static inline uint64_t workerlua_size(lua_State *L, int idx)
{
	int isint;
	lua_Integer i = lua_tointegerx(L, idx, &isint);

	return isint && i >= 0 ? (uint64_t)i : workerlua_size_other(L, idx);
}
/* The same for the field key of a call's options table (the value at
 * idx): errors name the call and the field ("stream: block ..."). */
uint64_t workerlua_size_field(lua_State *L, int idx, const char *call,
			      const char *key);
/* A statx result as the table w:stat and f:stat return. */
void workerlua_push_stat(lua_State *L, const struct statx *st);

#endif
