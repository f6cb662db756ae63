/* sandboxlib: the globals a phase's Lua gets: an allow list, safe stand-ins. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "phase/libsrc.h"
#include "phase/sandboxlib.h"
#include "util/strbuf.h"

/* Registry keys: only their addresses matter. */
static const char env_key;	/* the sandboxlib_env of the state */
static const char strict_key;	/* boolean: no new globals */
static const char loaded_key;	/* require()'s cache */

/* Sentinel in the cache while a module runs, to catch require loops. */
static const char loading_mark;

/*
 * The globals a phase gets: everything else the base library defines
 * (dofile, loadfile, warn, and whatever a later Lua adds) is dropped.
 * load, print, collectgarbage, setmetatable and xpcall are replaced;
 * require is ours.
 */
static const char *const allowed_globals[] = {
	"_G", "_VERSION", "assert", "collectgarbage", "error",
	"getmetatable", "ipairs", "load", "next", "pairs", "pcall", "print",
	"rawequal", "rawget", "rawlen", "rawset", "require", "select",
	"setmetatable", "tonumber", "tostring", "type", "xpcall",
	"coroutine", "math", "string", "table", "utf8",
	NULL,
};

/* What the state's keeper gave sandboxlib_open. */
static const struct sandboxlib_env *env_of(lua_State *L)
{
	const struct sandboxlib_env *env;

	lua_rawgetp(L, LUA_REGISTRYINDEX, &env_key);
	env = lua_touserdata(L, -1);
	lua_pop(L, 1);
	return env;
}

/*
 * _G's metatable. Reading a global that does not exist is always an
 * error (a typo is never useful); defining one only while the caller
 * allows it. rawget/rawset on _G bypass both on purpose: they are how a
 * phase tests for or defines a global deliberately, and they reach
 * nothing outside this state.
 */
static int g_index(lua_State *L)
{
	if (lua_type(L, 2) == LUA_TSTRING)
		return luaL_error(L, "undefined global '%s'",
				  lua_tostring(L, 2));
	return luaL_error(L, "undefined global (a %s key)",
			  luaL_typename(L, 2));
}

static int g_newindex(lua_State *L)
{
	int strict;

	lua_rawgetp(L, LUA_REGISTRYINDEX, &strict_key);
	strict = lua_toboolean(L, -1);
	lua_pop(L, 1);
	if (strict) {
		if (lua_type(L, 2) == LUA_TSTRING)
			return luaL_error(L, "assignment to undefined "
					  "global '%s'", lua_tostring(L, 2));
		return luaL_error(L, "assignment to undefined global (a %s "
				  "key)", luaL_typename(L, 2));
	}
	lua_settop(L, 3);
	lua_rawset(L, 1);
	return 0;
}

/* print: one line on stderr, which is the run log in a phase child. */
static int sb_print(lua_State *L)
{
	int n = lua_gettop(L);
	const char *line;
	luaL_Buffer b;
	size_t len;

	luaL_buffinit(L, &b);
	luaL_addstring(&b, "lua: ");
	for (int i = 1; i <= n; i++) {
		if (i > 1)
			luaL_addchar(&b, '\t');
		luaL_tolstring(L, i, NULL);
		luaL_addvalue(&b);
	}
	luaL_addchar(&b, '\n');
	luaL_pushresult(&b);
	line = lua_tolstring(L, -1, &len);
	fwrite(line, 1, len, stderr);
	fflush(stderr);
	return 0;
}

/*
 * load(chunk [, name [, mode [, env]]]) with mode forced to "t": the
 * stock load with upvalue 1. Without env the chunk gets the registry's
 * globals, which is this sandbox's _G.
 */
static int sb_load(lua_State *L)
{
	int n = lua_gettop(L);

	/* Checked here so that errors name 'load', not '?'. */
	if (!lua_isstring(L, 1))
		luaL_checktype(L, 1, LUA_TFUNCTION);
	luaL_optstring(L, 2, NULL);
	if (n < 2)
		lua_settop(L, n = 2);
	lua_pushliteral(L, "t");
	if (n >= 3)
		lua_replace(L, 3);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
	return lua_gettop(L);
}

/*
 * collectgarbage with only the options that cannot change how the
 * collector runs: "stop" would make the phase run into the memory cap
 * far from the cause, and tuning belongs to the harness.
 */
static int sb_collectgarbage(lua_State *L)
{
	static const char *const opts[] = { "collect", "step", "count", NULL };

	if (luaL_checkoption(L, 1, "collect", opts) == 1)
		luaL_optinteger(L, 2, 0);	/* as above, for the name */
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
	return lua_gettop(L);
}

/*
 * setmetatable, refusing a __gc field: finalizers run with hooks off
 * (lgc.c GCTM), so a looping __gc could never be stopped. An object is
 * only marked for finalization if its metatable has __gc when it is set,
 * so checking here is enough. Written out rather than wrapped so that
 * argument errors name 'setmetatable' and the caller's line.
 */
static int sb_setmetatable(lua_State *L)
{
	int t = lua_type(L, 2);

	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2,
			 "nil or table");
	if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
		return luaL_error(L, "cannot change a protected metatable");
	if (t == LUA_TTABLE) {
		lua_pushliteral(L, "__gc");
		if (lua_rawget(L, 2) != LUA_TNIL)
			return luaL_error(L, "setmetatable: __gc metamethods "
					  "are not allowed in a phase");
	}
	lua_settop(L, 2);
	lua_setmetatable(L, 1);
	return 1;
}

/*
 * The message handler given to xpcall runs from inside luaG_errormsg
 * before the error unwinds; when the error comes from our hook, hooks
 * are still off (the hook is running), so a looping handler could never
 * be stopped. Ours stands in front of the phase's handler and, once the
 * phase is being stopped, passes the error through without calling it.
 */
static int xpcall_handler(lua_State *L)
{
	if (env_of(L)->stopping(L))
		return 1;
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

/* After the protected call, or when a yield inside it resumes. */
static int xpcall_done(lua_State *L, int status, lua_KContext base)
{
	if (status == LUA_OK || status == LUA_YIELD)
		return lua_gettop(L) - (int)base;	/* true, results */
	lua_pushboolean(L, 0);
	lua_pushvalue(L, -2);
	return 2;					/* false, error */
}

/*
 * xpcall(f, msgh, ...) with msgh behind xpcall_handler. Written out with
 * a continuation, rather than wrapped, so that f may still yield.
 */
static int sb_xpcall(lua_State *L)
{
	int nargs = lua_gettop(L) - 2;

	luaL_checktype(L, 2, LUA_TFUNCTION);
	lua_pushvalue(L, 2);
	lua_pushcclosure(L, xpcall_handler, 1);
	lua_replace(L, 2);
	/* f, handler, args... -> f, handler, true, f, args... */
	lua_pushboolean(L, 1);
	lua_insert(L, 3);
	lua_pushvalue(L, 1);
	lua_insert(L, 4);
	return xpcall_done(L, lua_pcallk(L, nargs, LUA_MULTRET, 2, 2,
					 xpcall_done), 2);
}

/* [A-Za-z0-9_]+, spelled out: isalnum() would follow the locale. */
static int valid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* A text chunk named "@path": the copy root read (libsrc) when there is
 * one, for runas may not reach the library; else the file. */
int sandboxlib_load_file(lua_State *L, const char *path)
{
	size_t len;
	const char *text = libsrc_get(path, &len);
	struct strbuf name = { 0 };
	int rc;

	if (!text)
		return luaL_loadfilex(L, path, "t");
	if (strbuf_printf(&name, "@%s", path)) {
		free(name.p);
		lua_pushliteral(L, "not enough memory");
		return LUA_ERRMEM;
	}
	rc = luaL_loadbufferx(L, text, len, name.p, "t");
	free(name.p);
	return rc;
}

/*
 * require(name): "x" is <libdir>/x.lua and "parse.x" is
 * <libdir>/parse/x.lua, x being [A-Za-z0-9_]+, so no name reaches
 * outside the library. The module runs in this sandbox with the name as
 * its argument; its result (true for none) is cached. A module whose
 * load failed stays marked, like Lua 5.1's require.
 */
static int sb_require(lua_State *L)
{
	size_t len;
	const char *name = luaL_checklstring(L, 1, &len);
	const char *libdir = env_of(L)->libdir(L);
	int parse = !strncmp(name, "parse.", 6);
	const char *path;
	int rc;

	if (!valid_name(parse ? name + 6 : name) || strlen(name) != len ||
	    !libdir)
		return luaL_error(L, "require: '%s' is not a phase-library "
				  "module", name);
	lua_settop(L, 1);
	lua_rawgetp(L, LUA_REGISTRYINDEX, &loaded_key);	/* 2: cache */
	if (lua_getfield(L, 2, name) != LUA_TNIL) {
		if (lua_touserdata(L, -1) == &loading_mark)
			return luaL_error(L, "require: loop or previous error "
					  "loading module '%s'", name);
		return 1;
	}
	lua_pop(L, 1);
	path = lua_pushfstring(L, "%s/%s%s.lua", libdir,	/* 3 */
			       parse ? "parse/" : "", parse ? name + 6 : name);
	rc = sandboxlib_load_file(L, path);
	if (rc == LUA_ERRFILE && access(path, F_OK) && errno == ENOENT)
		return luaL_error(L, "require: no such module '%s' (looked for "
				  "%s: require loads the phase library's "
				  "modules only, not files beside the plan)",
				  name, path);
	if (rc == LUA_ERRFILE)
		return luaL_error(L, "require: '%s' is not a phase-library "
				  "module (%s)", name, lua_tostring(L, -1));
	if (rc != LUA_OK)
		return lua_error(L);
	lua_pushlightuserdata(L, (void *)&loading_mark);
	lua_setfield(L, 2, name);
	lua_pushvalue(L, 1);
	lua_call(L, 1, 1);
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		lua_pushboolean(L, 1);
	}
	lua_pushvalue(L, -1);
	lua_setfield(L, 2, name);
	return 1;
}

/*
 * coroutine.create and coroutine.wrap: the stock functions, then the
 * polling hook on the new coroutine if its creator had none (a watched
 * state's main thread): sandbox_arm reaches only the main thread, so a
 * coroutine keeps looking for a stop itself. A coroutine made while a
 * hook is set copies it (lua_newthread does).
 */
static void hook_coroutine(lua_State *L, lua_State *co)
{
	const struct sandboxlib_env *env = env_of(L);

	if (co && !lua_gethook(co))
		lua_sethook(co, env->hook, LUA_MASKCOUNT, env->hook_every);
}

static int sb_cocreate(lua_State *L)
{
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	hook_coroutine(L, lua_tothread(L, -1));
	return 1;
}

/* The stock wrap's closure keeps its coroutine as upvalue 1. */
static int sb_cowrap(lua_State *L)
{
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	if (lua_getupvalue(L, -1, 1)) {
		hook_coroutine(L, lua_tothread(L, -1));
		lua_pop(L, 1);
	}
	return 1;
}

/* Open one library into _G, as luaL_openlibs does for all of them. */
static void open_lib(lua_State *L, const char *name, lua_CFunction open)
{
	luaL_requiref(L, name, open, 1);
	lua_pop(L, 1);
}

/* Replace global name by f with the stock function as its upvalue. */
static void wrap_global(lua_State *L, const char *name, lua_CFunction f)
{
	lua_getglobal(L, name);
	lua_pushcclosure(L, f, 1);
	lua_setglobal(L, name);
}

static int allowed(const char *name)
{
	for (int i = 0; allowed_globals[i]; i++)
		if (!strcmp(name, allowed_globals[i]))
			return 1;
	return 0;
}

int sandboxlib_open(lua_State *L)
{
	lua_rawsetp(L, LUA_REGISTRYINDEX, &env_key);	/* the env, arg 1 */
	open_lib(L, LUA_GNAME, luaopen_base);
	open_lib(L, LUA_STRLIBNAME, luaopen_string);
	open_lib(L, LUA_TABLIBNAME, luaopen_table);
	open_lib(L, LUA_MATHLIBNAME, luaopen_math);
	open_lib(L, LUA_UTF8LIBNAME, luaopen_utf8);
	open_lib(L, LUA_COLIBNAME, luaopen_coroutine);
	lua_getglobal(L, LUA_COLIBNAME);
	lua_getfield(L, -1, "create");
	lua_pushcclosure(L, sb_cocreate, 1);
	lua_setfield(L, -2, "create");
	lua_getfield(L, -1, "wrap");
	lua_pushcclosure(L, sb_cowrap, 1);
	lua_setfield(L, -2, "wrap");
	lua_pop(L, 1);

	wrap_global(L, "load", sb_load);
	wrap_global(L, "collectgarbage", sb_collectgarbage);
	lua_register(L, "setmetatable", sb_setmetatable);
	lua_register(L, "xpcall", sb_xpcall);
	lua_register(L, "print", sb_print);
	lua_register(L, "require", sb_require);

	/* Drop whatever is not on the list; clearing during next is fine. */
	lua_pushglobaltable(L);
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING ||
		    !allowed(lua_tostring(L, -1))) {
			lua_pushvalue(L, -1);
			lua_pushnil(L);
			lua_rawset(L, -4);
		}
	}
	/* The same table is the strings' __index: one removal covers both. */
	lua_getfield(L, -1, LUA_STRLIBNAME);
	lua_pushnil(L);
	lua_setfield(L, -2, "dump");
	lua_pop(L, 1);

	/* A protected metatable: getmetatable(_G) is false, setmetatable
	 * on _G fails, so strict globals cannot be switched off. */
	lua_createtable(L, 0, 3);
	lua_pushcfunction(L, g_index);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, g_newindex);
	lua_setfield(L, -2, "__newindex");
	lua_pushboolean(L, 0);
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, -2);
	lua_pop(L, 1);

	lua_newtable(L);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &loaded_key);
	lua_pushboolean(L, 1);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &strict_key);
	return 0;
}

void sandboxlib_strict(lua_State *L, int on)
{
	lua_pushboolean(L, on);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &strict_key);
}
