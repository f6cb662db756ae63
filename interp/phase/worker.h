/* worker: the core under w and f: its engine, op records, seeded bytes. */
#ifndef FSPLAN_WORKER_H
#define FSPLAN_WORKER_H

#include <signal.h>
#include <stdint.h>

#include <lua.h>

#include "engine.h"
#include "phase/opseries.h"
#include "results/metrics.h"
#include "util/diag.h"
#include "util/mix.h"

/*
 * The I/O errors a worker met (DESIGN.md section 4): one "<op>_errors"
 * counter per op in m, their sum, and the first (when, which errno, in
 * which op, on what).
 */
struct worker_errors {
	struct metrics m;	/* counters only */
	uint64_t n;
	double first_t;
	int first_err;
	char first_op[32];
	char first_what[96];
};

struct worker {
	int id;			/* 1..workers; 0 for setup/teardown */
	int workers;
	const struct engine_ops *eng;
	struct engine *e;	/* one op at a time: w:, f: and the loops */
	struct engine *se;	/* f:stream's with depth > 1, made on use */
	unsigned se_depth;
	int workfd;		/* the work directory (O_RDONLY) */
	struct metrics m;
	uint64_t rng[4];
	const unsigned char *src;	/* seeded bytes writes take from,
					 * shared by the run's workers */
	size_t src_len;
	unsigned char *buf;	/* reads land here */
	size_t buf_len;
	double t_start;		/* when the worker began */
	uint64_t t_last_op;	/* ns: the last recorded op's completion, */
	uint64_t t_seen;	/* and the one w:done last took as now */
	double seconds;		/* the phase's `seconds` parameter, or 0 */
	double deadline;	/* the phase run's timeout, absolute */
	uint64_t t_due;		/* ns: the earlier of the two, UINT64_MAX
				 * neither; 0 until w:done first needs it */
	volatile sig_atomic_t *stop;
	int quiet;		/* inside w:op: the API's own ops unrecorded */
	char pdir[256];		/* the last parent directory resolved ... */
	size_t pdir_len;	/* ... its length (no NUL kept) ... */
	int pdir_fd;	/* ... and its fd, -1 none (workpath_parent) */
	char pdir2[256];	/* the one before it (a copy's source and */
	size_t pdir2_len;	/* destination take turns) */
	int pdir2_fd;
	struct worker_errors errs;
	struct opseries ser;	/* its ops per interval (ser.clk NULL: none) */
	uint64_t warm_ns;	/* ops completing before: series only */
	const int *halt;	/* the steady stop: w:done() true (atomic) */
	struct {		/* worker_op's cache: name pointer -> m.ops */
		const char *name;
		int op;
	} opc[8];
};

/* ---- the worker itself: no Lua in these ---- */

/*
 * The bytes writes take from: src_len seeded, non-repeating bytes (and
 * slack after them), made once per phase run and shared read-only.
 */
unsigned char *worker_source(uint64_t seed, size_t *src_len);

/*
 * Make the worker: an engine of ops (its ring, made here in this thread),
 * the RNG from (seed, id, rep). 0 or -1 with d (DIAG_SYSTEM: the
 * engine's words).
 */
int worker_init(struct worker *w, const struct engine_ops *ops,
		int workfd, const unsigned char *src, size_t src_len,
		uint64_t seed, int rep, struct diag *d);
void worker_free(struct worker *w);

/*
 * Clean up w's engines now, in the thread that made them: a ring set up
 * for one issuer takes its cancel and its waits from that thread only,
 * so requests a failed loop left in flight are waited for before the
 * buffers go. worker_free then has none left to clean up.
 */
void worker_end_engines(struct worker *w);

/*
 * e, one of w's engines, cleaned up (what it holds in flight cancelled
 * and waited for) and replaced: the streams' engine by the next
 * worker_engine, the depth-1 one at once. 0, or -1 with d.
 */
int worker_renew_engine(struct worker *w, struct engine *e, struct diag *d);
/*
 * The engine for up to depth requests in flight: w->e for 1, else one
 * of at least depth kept for the worker's streams (made, or made again
 * larger, here; its ring then counts against RLIMIT_MEMLOCK). NULL with
 * d when it cannot be made.
 */
struct engine *worker_engine(struct worker *w, unsigned depth,
			     struct diag *d);

/* The op_stat of name (made on first use), or NULL for a name the
 * metrics cannot carry (metrics_name_ok) or no memory. */
struct op_stat *worker_op(struct worker *w, const char *name);

/* The most distinct op and counter names a worker (and the phase, its
 * workers' merged) may have: each op keeps a histogram of 11 KiB. */
#define WORKER_MAX_NAMES	4096

/*
 * The op_stat of the name the phase's code passed at arg to fn ("w:time"),
 * made on first use: a NUL in it, a name the metrics cannot carry, the
 * WORKER_MAX_NAMES+1-th name, and no memory for it under the phase's
 * memory (its table is charged there) raise.
 */
struct op_stat *worker_op_arg(lua_State *L, struct worker *w, int arg,
			      const char *fn);
/* The same for a name from elsewhere (a table's field: arg 0). */
struct op_stat *worker_op_named(lua_State *L, struct worker *w,
				const char *name, size_t len, int arg,
				const char *fn);
/* The same for a counter, and add n to it (a sum that is not finite
 * raises too). */
void worker_count_arg(lua_State *L, struct worker *w, int arg,
		      const char *fn, double n);
/* One op of name that took ns and moved bytes (nothing if no op_stat). */
void worker_record(struct worker *w, const char *name, uint64_t ns,
		   uint64_t bytes);
/* One op of name from t0 to t1 (ns, the clock's) that moved bytes. */
void worker_record_span(struct worker *w, const char *name, uint64_t t0,
			uint64_t t1, uint64_t bytes);
/* One engine op of name, as r took it (its time and its path: ring or
 * syscall), that moved bytes. */
void worker_record_req(struct worker *w, const char *name,
		       const struct engine_req *r, uint64_t bytes);
/* worker_record_req for a name that is a string constant (the file
 * methods' own: "read", "write"), by worker_op_const. */
void worker_record_const(struct worker *w, const char *name,
			 const struct engine_req *r, uint64_t bytes);
/*
 * One op of op (w's) that completed at t (ns) after ns: in the series,
 * and, when it completed after the warmup, in the op's rows.
 */
static inline void worker_record_stat(struct worker *w, struct op_stat *op,
				      uint64_t t, uint64_t ns, uint64_t bytes,
				      unsigned ring, unsigned sys)
{
	opseries_add(&w->ser, (int)(op - w->m.ops), op->name, t, ns, bytes);
	if (t < w->warm_ns)
		return;
	op->bytes += bytes;
	op->ring += ring;
	op->sys += sys;
	hist_add(&op->lat, ns);
}
/* xoshiro256** seeded by splitmix64: fast, and the same for a seed.
 * Inline: a phase's op loop calls it every op. */
static inline uint64_t worker_random(struct worker *w)
{
	return mix_xoshiro(w->rng);
}
/* Whether the run must stop now (stop requested, deadline passed), and
 * whether w:done() is true at now (that, or `seconds` passed). */
int worker_stopping(const struct worker *w);
int worker_done(struct worker *w, uint64_t now_ns);
/* Whether a steady stop has ended the run (w:done() is true then). */
static inline int worker_halted(const struct worker *w)
{
	return w->halt && __atomic_load_n(w->halt, __ATOMIC_RELAXED);
}

/* Where a write of len at off takes its bytes from, in src (src_len
 * bytes: w->src, or a stream's worker_big_source): page-aligned, and
 * different for different offsets. */
void *worker_src_at(const struct worker *w, const unsigned char *src,
		    size_t src_len, uint64_t off, uint64_t len);

/* Drop the kept parent directory (workpath_parent). */
void worker_forget_dir(struct worker *w);

/* ---- what the worker and file APIs share in Lua ---- */

/* Raise: this state has no worker. */
struct worker *worker_none(lua_State *L);
/* The worker of this state (raises when there is none). */
static inline struct worker *worker_get(lua_State *L)
{
	struct worker *w = *(struct worker **)lua_getextraspace(L);

	return w ? w : worker_none(L);
}
/*
 * The rule of what an I/O error is: a failure of an op that moves or
 * syncs data (data: read, write, fsync, fdatasync, truncate, allocate,
 * sync, stream, putc/getc, copy), whatever its errno; and any op that
 * fails because the storage did (EIO, ENOSPC, EDQUOT, EROFS, EFBIG,
 * EUCLEAN, EBADMSG, ESTALE, ENXIO). Other failures of namespace ops and
 * locks (ENOENT, EEXIST, ENOTEMPTY, EACCES, EAGAIN, ...) are answers: a
 * phase asks whether a name exists, a lock is free.
 */
int worker_io_error(int data, int err);
/* Count err of op (an I/O error by worker_io_error) in w->errs. */
void worker_count_error(struct worker *w, const char *op, int data,
			const char *what, int err);
/* Add src's errors to dst (the earliest first stays first). 0 or -errno. */
int worker_errors_merge(struct worker_errors *dst,
			const struct worker_errors *src);
/* "3 I/O errors, first: ENOSPC in write (f: No space left on device)". */
void worker_errors_reason(const struct worker_errors *e, char *buf,
			  size_t len);
/* Raise: argument arg, an op or counter name (what), is not one the
 * metrics carry (metrics_name_ok). */
void worker_bad_name(lua_State *L, int arg, const char *what);
/* The worker's buffer of len bytes, where reads land: page-aligned,
 * grown as needed; raises when out of memory or past the phase's
 * memory: cap, naming what it is for ("read", "copy"). */
unsigned char *worker_buf_grow(lua_State *L, struct worker *w, size_t len,
			       const char *what);
static inline unsigned char *worker_buf(lua_State *L, struct worker *w,
					size_t len, const char *what)
{
	return w->buf && len <= w->buf_len ? w->buf :
	       worker_buf_grow(L, w, len, what);
}
/* The source of a write stream whose blocks are larger than w->src:
 * the worker's buffer, filled with *len (block + w->src_len) bytes
 * seeded per worker (raises as worker_buf does). */
const unsigned char *worker_big_source(lua_State *L, struct worker *w,
				       size_t block, size_t *len);
#endif
