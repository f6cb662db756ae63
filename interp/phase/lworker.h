/* lworker: the `w` a phase's worker function gets — every op through the engine, measured. */
#ifndef FSPLAN_LWORKER_H
#define FSPLAN_LWORKER_H

#include <signal.h>
#include <stdint.h>

#include <lua.h>

#include "engine.h"
#include "results/metrics.h"

struct lworker {
	int id;			/* 1..workers; 0 for setup/teardown */
	int workers;
	const struct engine_ops *eng;
	struct engine *e;
	int workfd;		/* the work directory (O_RDONLY) */
	struct metrics m;
	uint64_t rng[4];
	const unsigned char *src;	/* seeded bytes writes take from,
					 * shared by the run's workers */
	size_t src_len;
	unsigned char *buf;	/* reads land here */
	size_t buf_len;
	double t_start;		/* when the worker began */
	double seconds;		/* the phase's `seconds` parameter, or 0 */
	double deadline;	/* the phase run's timeout, absolute */
	volatile sig_atomic_t *stop;
	char pdir[256];		/* the last parent directory resolved ... */
	size_t pdir_len;	/* ... its length (no NUL kept) ... */
	int pdir_fd;		/* ... and its fd (-1 none): see lw_parent */
	struct {		/* lw_op's cache: name pointer -> m.ops index */
		const char *name;
		int op;
	} opc[8];
};

/*
 * The bytes writes take from: src_len seeded, non-repeating bytes (and
 * slack after them), made once per phase run and shared read-only.
 */
unsigned char *lworker_source(uint64_t seed, size_t *src_len);

/*
 * Make the worker: an engine of ops (its ring, made here in this thread),
 * the RNG from (seed, id, rep). 0 or -1 with why.
 */
int lworker_init(struct lworker *w, const struct engine_ops *ops,
		 int workfd, const unsigned char *src, size_t src_len,
		 uint64_t seed, int rep, char *why, size_t len);
void lworker_free(struct lworker *w);

/*
 * Push the `w` object for this state (one worker per state): a table
 * with id, workers and params (the value at params_idx), whose metatable
 * carries the methods of DESIGN.md section 4.
 */
void lworker_push(lua_State *L, struct lworker *w, int params_idx);



/* Shared with lfile.c: the worker of this state, results, arguments. */
struct lworker *lw_get(lua_State *L);
struct op_stat *lw_op(struct lworker *w, const char *name);
void lw_record(struct lworker *w, const char *name, uint64_t ns,
	       uint64_t bytes);
/* Push nil, "what: strerror", errno; returns 3. */
int lw_fail(lua_State *L, const char *what, int err);
/* A size argument: a number, or a string such as "4k". */
uint64_t lw_size(lua_State *L, int idx);
uint64_t lw_random(struct lworker *w);
/* A statx result as the table w:stat and f:stat return. */
void lw_push_stat(lua_State *L, const struct statx *st);
/*
 * The directory holding path's last component (opened beneath the work
 * directory, the last one kept open) and that component in name. The
 * fd is the caller's to close only when *own; -errno on failure.
 */
int lw_parent(lua_State *L, struct lworker *w, const char *path,
	      char *name, size_t len, int *own);
/* Drop the cached parent directory (lw_parent). */
void lw_forget_dir(struct lworker *w);
/* A path a phase may use: relative, no '..' component; else raises. */
void lw_check_path(lua_State *L, const char *path);
/* Whether the run must stop now (stop requested, deadline passed). */
int lw_stopping(const struct lworker *w);

/* lfile.c: the file objects w:open returns. */
int lfile_open(lua_State *L);
void lfile_register(lua_State *L);
#endif
