/* sandbox: Lua states that phase code cannot escape, hog or blow up. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "phase/libsrc.h"
#include "phase/sandbox.h"
#include "util/clock.h"

/* Instructions between two looks at the deadline and the stop flag. */
#define HOOK_EVERY	10000

/* The allocator's ud: everything the C side keeps per state. */
struct sandbox {
	const struct sandbox_limits *lim;
	lua_State *main;	/* the state's main thread */
	int watched;		/* main runs without the polling hook */
	size_t cur;		/* bytes held now */
	size_t peak;		/* most bytes ever held */
	size_t taken;		/* of the phase's budget, for cur and slack */
	size_t own;		/* the budget's count when lim has none */
	size_t *used;		/* lim->used, or &own */
	unsigned long stops;	/* times the hook raised a stop */
	const char *why;	/* the last stop's reason */
};

/* This thread's watched state (sandbox_watch), for sandbox_arm. */
static _Thread_local lua_State *volatile watched;

/* Registry keys: only their addresses matter. */
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

static struct sandbox *sb_of(lua_State *L)
{
	void *ud;

	lua_getallocf(L, &ud);
	return ud;
}

/*
 * The budget (lim->mem_bytes, 0: none) is the phase's, all its states
 * together: each takes from the shared count in POOL_CHUNK steps, so an
 * allocation touches it (an atomic add other threads' adds contend on)
 * only once in that many bytes of growth, and gives back what it holds
 * two chunks past its needs. Whether the state may hold grow more bytes
 * and shrink fewer: 0, or -1 (nothing changed).
 */
#define POOL_CHUNK	((size_t)64 << 10)

static size_t round_chunk(size_t n)
{
	return (n + POOL_CHUNK - 1) / POOL_CHUNK * POOL_CHUNK;
}

static int sb_take(struct sandbox *sb, size_t grow, size_t shrink)
{
	size_t cap = sb->lim->mem_bytes, want, need, was;

	if (grow <= shrink) {
		sb->cur -= shrink - grow;
		if (sb->taken - sb->cur > 2 * POOL_CHUNK) {
			need = round_chunk(sb->cur) + POOL_CHUNK;
			__atomic_fetch_sub(sb->used, sb->taken - need,
					   __ATOMIC_RELAXED);
			sb->taken = need;
		}
		return 0;
	}
	if (cap && grow - shrink > cap)
		return -1;
	want = sb->cur + (grow - shrink);
	if (cap && want > cap)		/* the slack taken is not all there */
		return -1;
	if (want > sb->taken) {
		/* a chunk, or at the budget's end what is left of it */
		need = round_chunk(want - sb->taken);
		was = __atomic_fetch_add(sb->used, need, __ATOMIC_RELAXED);
		if (cap && was + need > cap) {
			__atomic_fetch_sub(sb->used, need, __ATOMIC_RELAXED);
			need = want - sb->taken;
			was = __atomic_fetch_add(sb->used, need,
						 __ATOMIC_RELAXED);
			if (was + need > cap) {
				__atomic_fetch_sub(sb->used, need,
						   __ATOMIC_RELAXED);
				return -1;
			}
		}
		sb->taken += need;
	}
	sb->cur = want;
	if (sb->cur > sb->peak)
		sb->peak = sb->cur;
	return 0;
}

/*
 * Growth past the budget fails, which Lua turns into an emergency
 * collection and then "not enough memory". Shrinking and freeing always
 * succeed. When ptr is NULL, osize is a type tag, not a size.
 */
static void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct sandbox *sb = ud;
	size_t old = ptr ? osize : 0;
	void *p;

	if (nsize == 0) {
		free(ptr);
		sb_take(sb, 0, old);
		return NULL;
	}
	if (sb_take(sb, nsize, old))
		return NULL;
	p = realloc(ptr, nsize);
	if (!p)
		sb_take(sb, old, nsize);
	return p;
}

/* Why the phase must stop, or NULL to let it run. */
static const char *stop_reason(const struct sandbox_limits *lim)
{
	if (lim->stop && *lim->stop)
		return "stop requested";
	if (lim->deadline > 0 && clock_now() >= lim->deadline)
		return "deadline passed";
	return NULL;
}

/*
 * Once a stop fires, the hook runs before every instruction of this
 * thread and of the main thread, so a pcall (or a coroutine) that
 * swallows the error is stopped again at its next instruction. New
 * coroutines copy their creator's hook. If the caller lifts the stop
 * (clears the flag, moves the deadline), the hook slows down again.
 * What no hook can stop is a single long C call, such as string.find
 * with a pathological pattern: the parent's wall-clock kill covers that.
 */
static void sb_hook(lua_State *L, lua_Debug *ar)
{
	struct sandbox *sb = sb_of(L);
	const char *why = stop_reason(sb->lim);
	lua_State *main_L;

	(void)ar;
	if (!why) {
		if (sb->watched && L == sb->main)
			lua_sethook(L, NULL, 0, 0);	/* the stop lifted */
		else if (lua_gethookcount(L) != HOOK_EVERY)
			lua_sethook(L, sb_hook, LUA_MASKCOUNT, HOOK_EVERY);
		return;
	}
	sb->stops++;
	sb->why = why;
	lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
	lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
	main_L = lua_tothread(L, -1);
	lua_pop(L, 1);
	if (main_L != L)
		lua_sethook(main_L, sb_hook, LUA_MASKCOUNT, 1);
	/* Level 0 is the Lua function that was running: blame its line. */
	luaL_where(L, 0);
	lua_pushfstring(L, "phase stopped: %s", why);
	lua_concat(L, 2);
	lua_error(L);
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
	if (stop_reason(sb_of(L)->lim))
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
static int load_file(lua_State *L, const char *path)
{
	size_t len;
	const char *text = libsrc_get(path, &len);
	char name[4200];

	if (!text)
		return luaL_loadfilex(L, path, "t");
	snprintf(name, sizeof(name), "@%s", path);
	return luaL_loadbufferx(L, text, len, name, "t");
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
	const char *libdir = sb_of(L)->lim->libdir;
	int parse = !strncmp(name, "parse.", 6);
	char path[4096];
	int n, rc;

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
	n = snprintf(path, sizeof(path), "%s/%s%s.lua", libdir,
		     parse ? "parse/" : "", parse ? name + 6 : name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return luaL_error(L, "require: library path too long");
	rc = load_file(L, path);
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
static void hook_coroutine(lua_State *co)
{
	if (co && !lua_gethook(co))
		lua_sethook(co, sb_hook, LUA_MASKCOUNT, HOOK_EVERY);
}

static int sb_cocreate(lua_State *L)
{
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	hook_coroutine(lua_tothread(L, -1));
	return 1;
}

/* The stock wrap's closure keeps its coroutine as upvalue 1. */
static int sb_cowrap(lua_State *L)
{
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	if (lua_getupvalue(L, -1, 1)) {
		hook_coroutine(lua_tothread(L, -1));
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

/* Runs protected (lua_newstate's state has no panic handler). */
static int setup(lua_State *L)
{
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

lua_State *sandbox_new(const struct sandbox_limits *lim)
{
	struct sandbox *sb = calloc(1, sizeof(*sb));
	lua_State *L;

	if (!sb)
		return NULL;
	sb->lim = lim;
	sb->used = lim->used ? lim->used : &sb->own;
	L = lua_newstate(sb_alloc, sb);
	if (!L) {
		free(sb);
		return NULL;
	}
	sb->main = L;
	lua_pushcfunction(L, setup);
	if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
		sandbox_close(L);
		return NULL;
	}
	lua_sethook(L, sb_hook, LUA_MASKCOUNT, HOOK_EVERY);
	return L;
}

/*
 * The hook costs every instruction a call (Lua's trap path), a third of
 * a tight loop's time: a worker's state runs without it, and a signal
 * handler of its thread sets it when a stop is due (lua_sethook is made
 * to be called from one, as lua.c's SIGINT handler does). Taking the
 * state clears the hook; a stop already due arms it at once.
 */
void sandbox_watch(lua_State *L)
{
	struct sandbox *sb = sb_of(L);

	sb->watched = 1;
	lua_sethook(L, NULL, 0, 0);
	watched = L;
	if (stop_reason(sb->lim))
		sandbox_arm();
}

void sandbox_unwatch(lua_State *L)
{
	struct sandbox *sb = sb_of(L);

	if (watched == L)
		watched = NULL;
	sb->watched = 0;
	if (!lua_gethook(L))
		lua_sethook(L, sb_hook, LUA_MASKCOUNT, HOOK_EVERY);
}

void sandbox_arm(void)
{
	lua_State *L = watched;

	if (L)
		lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
}

void sandbox_close(lua_State *L)
{
	struct sandbox *sb;

	if (!L)
		return;
	sb = sb_of(L);
	if (watched == L)
		watched = NULL;
	lua_close(L);
	__atomic_fetch_sub(sb->used, sb->taken, __ATOMIC_RELAXED);
	free(sb);
}

void sandbox_strict(lua_State *L, int on)
{
	lua_pushboolean(L, on);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &strict_key);
}

/*
 * As lua.c's msghandler, except that a non-string error object is only
 * named, never passed to its __tostring: no phase code runs while an
 * error is being handled, where a second error would lose the first.
 */
static int msghandler(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);

	if (!msg)
		msg = lua_pushfstring(L, "(error object is a %s value)",
				      luaL_typename(L, 1));
	luaL_traceback(L, L, msg, 1);
	return 1;
}

/* Copy the error at the top into err and pop it. */
static int take_error(lua_State *L, const char *prefix, char *err,
		      size_t len)
{
	const char *msg = lua_tostring(L, -1);

	if (!msg)
		msg = "(error object is not a string)";
	if (len)
		snprintf(err, len, "%s%s", prefix, msg);
	lua_pop(L, 1);
	return -1;
}

/*
 * A stop caught by a pcall right before the function returns (say
 * `return pcall(f)`, a tail call) leaves no instruction for the re-armed
 * hook to fire on, so the call looks successful: count the stops.
 */
int sandbox_call(lua_State *L, int nargs, int nres, char *err, size_t len)
{
	struct sandbox *sb = sb_of(L);
	unsigned long stops = sb->stops;
	int base = lua_gettop(L) - nargs;
	int rc;

	lua_pushcfunction(L, msghandler);
	lua_insert(L, base);
	rc = lua_pcall(L, nargs, nres, base);
	lua_remove(L, base);
	if (rc != LUA_OK)
		return take_error(L, "", err, len);
	if (sb->stops != stops) {
		lua_settop(L, base - 1);
		if (len)
			snprintf(err, len, "phase stopped: %s (the stop was "
				 "caught at the end of the call)", sb->why);
		return -1;
	}
	return 0;
}

int sandbox_dofile(lua_State *L, const char *path, char *err, size_t len)
{
	char where[1024] = "";

	/* Errors from the parser name the file; the binary-chunk refusal
	 * does not, so give it one. */
	if (load_file(L, path) != LUA_OK) {
		const char *msg = lua_tostring(L, -1);

		if (msg && !strstr(msg, path))
			snprintf(where, sizeof(where), "%s: ", path);
		return take_error(L, where, err, len);
	}
	return sandbox_call(L, 0, 1, err, len);
}

size_t sandbox_mem(lua_State *L, size_t *peak)
{
	struct sandbox *sb = sb_of(L);

	if (peak)
		*peak = sb->peak;
	return sb->cur;
}

int sandbox_charge(lua_State *L, size_t grow, size_t shrink)
{
	struct sandbox *sb = sb_of(L);

	if (!sb_take(sb, grow, shrink))
		return 0;
	/* what the collector can free first, as Lua itself does */
	lua_gc(L, LUA_GCCOLLECT);
	return sb_take(sb, grow, shrink);
}

int sandbox_cpcall(lua_State *L, lua_CFunction fn, void *arg, int idx,
		   char *err, size_t len)
{
	idx = idx ? lua_absindex(L, idx) : 0;
	lua_pushcfunction(L, fn);
	lua_pushlightuserdata(L, arg);
	if (idx)
		lua_pushvalue(L, idx);
	return sandbox_call(L, idx ? 2 : 1, 1, err, len);
}
