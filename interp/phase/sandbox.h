/* sandbox: Lua states that phase code cannot escape, hog or blow up. */
#ifndef FSPLAN_SANDBOX_H
#define FSPLAN_SANDBOX_H

#include <signal.h>
#include <stddef.h>

#include <lua.h>

#include "util/diag.h"

struct sandbox_limits {
	size_t mem_bytes;		/* allocator cap, 0: none */
	double deadline;		/* CLOCK_MONOTONIC seconds; 0: none */
	volatile sig_atomic_t *stop;	/* stop requested when *stop != 0 */
	const char *libdir;		/* where require() finds modules */
	/* The bytes held by every state made with these limits together,
	 * which mem_bytes caps (a phase's budget: its main state and its
	 * workers' share it; atomic, any thread); NULL: each state has a
	 * cap of its own. */
	size_t *used;
};

/*
 * A new state: only base (without dofile, loadfile, collectgarbage's
 * dangerous options are fine but print goes to the log), string (without
 * string.dump), table, math, utf8 and coroutine; load() in text mode only;
 * require() loads only <libdir>/<name>.lua (name: [A-Za-z0-9_]+, also
 * "parse.<name>" for lua/parse/) in this sandbox, cached like package.loaded;
 * reading or writing an undefined global raises "undefined global 'x'";
 * an instruction-count hook (every 10000 instructions, inherited by
 * coroutines) raises "phase stopped: deadline passed" or "... stop
 * requested" and keeps raising so pcall cannot swallow it; the allocator
 * refuses to grow past mem_bytes, this state's or (used) all the states'
 * together ("not enough memory"). NULL on failure.
 * The limits struct must outlive the state.
 */
lua_State *sandbox_new(const struct sandbox_limits *lim);
void sandbox_close(lua_State *L);

/*
 * A state whose loop must run at full speed (a worker's): called in the
 * thread that runs it, it takes the polling hook off L's main thread
 * (its coroutines keep theirs), and from then on sandbox_arm, called
 * from a signal handler of that thread once a stop is due, sets it back
 * with the same effect. The caller must make sure the signal comes
 * (luaphase's watchdog sends it at the deadline and for a stop). A stop
 * already due when L is taken arms it at once. sandbox_unwatch puts the
 * polling hook back (before the state closes: a __gc can loop too).
 */
void sandbox_watch(lua_State *L);
void sandbox_unwatch(lua_State *L);
void sandbox_arm(void);		/* async-signal-safe */

/* Let the phase's code define new globals (while loading a chunk) or
 * not (afterwards). */
void sandbox_strict(lua_State *L, int on);

/*
 * Load a file as a text chunk named "@path" and run it, leaving its one
 * result on the stack. 0, or -1 with d filled as sandbox_call does
 * ("file:line: message" in msg).
 */
int sandbox_dofile(lua_State *L, const char *path, struct diag *d);

/*
 * Call the function at stack top - nargs with nargs arguments and nres
 * results, with a message handler that adds a traceback. 0, or -1 with
 * d a DIAG_PHASE failure: the error message in msg and, when there is a
 * traceback or msg had to cut the message, the whole text Lua made in
 * detail (the stack is popped of the function and arguments either way;
 * on success nres results are left).
 */
int sandbox_call(lua_State *L, int nargs, int nres, struct diag *d);

/*
 * Push the one result of C function fn, called protected (sandbox_call)
 * with arg as a light userdata and the value at idx (0: none): C that
 * builds tables must not raise where nothing catches it, which would
 * abort the process. 0, or -1 with d (nothing pushed).
 */
int sandbox_cpcall(lua_State *L, lua_CFunction fn, void *arg, int idx,
		   struct diag *d);

/* Bytes the allocator holds now, and at most so far. */
size_t sandbox_mem(lua_State *L, size_t *peak);

/*
 * C memory that the state's calls keep for it (a read buffer, a stdio
 * buffer): count grow more bytes and shrink fewer against the same cap
 * as the allocator's, so `memory:` bounds everything a phase can make
 * grow. 0, or -1 when grow would pass the cap (nothing counted; the
 * caller raises "not enough memory").
 */
int sandbox_charge(lua_State *L, size_t grow, size_t shrink);

#endif
