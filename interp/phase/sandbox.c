/* sandbox: Lua states that phase code cannot escape, hog or blow up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "phase/sandbox.h"
#include "phase/sandboxlib.h"
#include "util/clock.h"
#include "util/strbuf.h"

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

static const char *sb_stopping(lua_State *L)
{
	return stop_reason(sb_of(L)->lim);
}

static const char *sb_libdir(lua_State *L)
{
	return sb_of(L)->lim->libdir;
}

/* What the globals (sandboxlib) need of the state's keeper. */
static const struct sandboxlib_env env = {
	.stopping = sb_stopping,
	.hook = sb_hook,
	.hook_every = HOOK_EVERY,
	.libdir = sb_libdir,
};

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
	/* protected: lua_newstate's state has no panic handler */
	lua_pushcfunction(L, sandboxlib_open);
	lua_pushlightuserdata(L, (void *)&env);
	if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
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
	sandboxlib_strict(L, on);
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

/*
 * The error at the top into d (popped): the message in msg (cut in the
 * middle with a mark when long) and, when the text says more than msg
 * holds (the traceback msghandler added, a message msg had to cut), the
 * whole text in detail, as a failure record wants (results/metrics.h).
 */
static int take_error(lua_State *L, enum diag_kind kind, const char *prefix,
		      struct diag *d)
{
	const char *msg = lua_tostring(L, -1);
	const char *tb;
	size_t n;

	if (!msg)
		msg = "(error object is not a string)";
	tb = strstr(msg, "\nstack traceback:\n");
	n = tb ? (size_t)(tb - msg) : strlen(msg);
	diag_fail(d, kind, 0, "%s%.*s", prefix, (int)n, msg);
	if (d && d->detail.p) {		/* the whole text replaces any */
		d->detail.len = 0;
		d->detail.p[0] = '\0';
	}
	if (d && (tb || strlen(prefix) + n >= sizeof(d->msg)))
		strbuf_printf(&d->detail, "%s%s", prefix, msg);
	lua_pop(L, 1);
	return -1;
}

/*
 * A stop caught by a pcall right before the function returns (say
 * `return pcall(f)`, a tail call) leaves no instruction for the re-armed
 * hook to fire on, so the call looks successful: count the stops.
 */
int sandbox_call(lua_State *L, int nargs, int nres, struct diag *d)
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
		return take_error(L, DIAG_PHASE, "", d);
	if (sb->stops != stops) {
		lua_settop(L, base - 1);
		return diag_fail(d, DIAG_PHASE, 0, "phase stopped: %s (the "
				 "stop was caught at the end of the call)",
				 sb->why);
	}
	return 0;
}

int sandbox_dofile(lua_State *L, const char *path, struct diag *d)
{
	/* Errors from the parser name the file; the binary-chunk refusal
	 * does not, so give it one. */
	int rc = sandboxlib_load_file(L, path);

	if (rc != LUA_OK) {
		const char *msg = lua_tostring(L, -1);
		enum diag_kind kind = rc == LUA_ERRFILE ? DIAG_SYSTEM
				      : rc == LUA_ERRSYNTAX ? DIAG_INPUT
				      : DIAG_PHASE;
		struct strbuf where = { 0 };

		if (msg && !strstr(msg, path))
			strbuf_printf(&where, "%s: ", path);
		rc = take_error(L, kind, where.p ? where.p : "", d);
		free(where.p);
		return rc;
	}
	return sandbox_call(L, 0, 1, d);
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
		   struct diag *d)
{
	idx = idx ? lua_absindex(L, idx) : 0;
	lua_pushcfunction(L, fn);
	lua_pushlightuserdata(L, arg);
	if (idx)
		lua_pushvalue(L, idx);
	return sandbox_call(L, idx ? 2 : 1, 1, d);
}
