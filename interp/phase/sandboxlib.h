/* sandboxlib: the globals a phase's Lua gets: an allow list, safe stand-ins. */
#ifndef FSPLAN_SANDBOXLIB_H
#define FSPLAN_SANDBOXLIB_H

#include <lua.h>

/* What the globals need of the state's keeper (sandbox.c), which owns
 * the limits and the hook. */
struct sandboxlib_env {
	/* why the phase must stop now ("deadline passed"), or NULL */
	const char *(*stopping)(lua_State *L);
	lua_Hook hook;		/* the polling hook, for new coroutines */
	int hook_every;		/* its instruction count */
	const char *(*libdir)(lua_State *L);	/* where require looks */
};

/*
 * A lua_CFunction, called protected with the env (a light userdata that
 * outlives the state) as its argument: open the libraries, put the
 * stand-ins in (load, print, collectgarbage, setmetatable, xpcall,
 * require, coroutine.create and wrap), drop every global not on the
 * allow list, and make _G strict (sandbox.h says what each one does).
 */
int sandboxlib_open(lua_State *L);

/* on: the phase's code may not define new globals (strict); 0: it may
 * (while a chunk loads). */
void sandboxlib_strict(lua_State *L, int on);

/* Load path as a text chunk named "@path": the copy root read (libsrc)
 * when there is one, else the file. A lua_load status. */
int sandboxlib_load_file(lua_State *L, const char *path);

#endif
