/* worker: the core under w and f: its engine, op records, seeded bytes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "phase/sandbox.h"
#include "phase/worker.h"
#include "util/clock.h"
#include "util/mix.h"

#define SRC_BYTES	((size_t)2 << 20)	/* seeded write data */
#define SRC_SLACK	((size_t)1 << 20)	/* a write may run past */

/*
 * The op_stat of name, made on first use (make; else NULL when it is
 * new); NULL for a name the metrics cannot carry (or no memory). A
 * per-file loop alternates several ops (open, write, close, the test's
 * own), so the last few are cached by the name's address — and
 * checked by name, since a Lua string's address can be reused for
 * another string after it is collected.
 * A string constant's (constant) never is: a Lua string lives on the
 * heap, a constant in the binary, so the slot it finds is its own and
 * no bytes need comparing.
 */
static struct op_stat *op_cached(struct worker *w, const char *name,
				 int constant, int make)
{
	unsigned slot = (unsigned)((uintptr_t)name >> 4) % 8;
	int i = w->opc[slot].op;
	struct op_stat *op;

	if (w->opc[slot].name == name && i < w->m.n_ops &&
	    (constant || !strcmp(w->m.ops[i].name, name)))
		return &w->m.ops[i];
	op = make ? metrics_op(&w->m, name) : metrics_find_op(&w->m, name);
	if (op) {
		w->opc[slot].name = name;
		w->opc[slot].op = (int)(op - w->m.ops);
	}
	return op;
}

struct op_stat *worker_op(struct worker *w, const char *name)
{
	return op_cached(w, name, 0, 1);
}

/* The bytes the n+1-th entry of a metrics array adds to it (arrays
 * grow as metrics_grow makes them: powers of two from 4). */
static size_t entry_bytes(int n, size_t sz)
{
	if (!n)
		return 4 * sz;
	return n >= 4 && !(n & (n - 1)) ? (size_t)n * sz : 0;
}

/*
 * A new name the phase's code gives (at arg, or 0 for a table's field):
 * a NUL in it is refused, not cut there; it must be one the metrics
 * carry; it is counted against WORKER_MAX_NAMES, and its table's bytes
 * against the phase's memory (an op's histogram is 11 KiB: 20,000 names
 * held 385 MB past a 64M cap). Raises.
 */
static void new_name(lua_State *L, struct worker *w, const char *name,
		     size_t len, int arg, const char *fn, size_t bytes)
{
	if (strlen(name) != len)
		luaL_error(L, "%s: a name with a NUL byte in it ('%s' and "
			   "more)", fn, name);
	if (!metrics_name_ok(name, len) && arg)
		worker_bad_name(L, arg, "a name");
	if (!metrics_name_ok(name, len))
		luaL_error(L, "%s: '%s' is not a name: 1-%d of A-Z a-z 0-9 "
			   "_ . -", fn, name, METRICS_NAME_LEN);
	if (w->m.n_ops + w->m.n_counters >= WORKER_MAX_NAMES)
		luaL_error(L, "%s: a phase may name at most %d ops/metrics; "
			   "'%s' is one too many", fn, WORKER_MAX_NAMES, name);
	if (bytes && sandbox_charge(L, bytes, 0))
		luaL_error(L, "%s: not enough memory for '%s'", fn, name);
}

struct op_stat *worker_op_named(lua_State *L, struct worker *w,
				const char *name, size_t len, int arg,
				const char *fn)
{
	struct op_stat *op = strlen(name) == len ? op_cached(w, name, 0, 0)
						 : NULL;

	if (op)
		return op;
	/* its histogram's buckets come with its first op */
	new_name(L, w, name, len, arg, fn, entry_bytes(w->m.n_ops, sizeof(*op))
		 + HIST_BUCKETS * sizeof(*op->lat.b));
	op = op_cached(w, name, 0, 1);
	if (!op)
		luaL_error(L, "%s: not enough memory for '%s'", fn, name);
	return op;
}

struct op_stat *worker_op_arg(lua_State *L, struct worker *w, int arg,
			      const char *fn)
{
	size_t len;
	const char *name = luaL_checklstring(L, arg, &len);

	return worker_op_named(L, w, name, len, arg, fn);
}

void worker_count_arg(lua_State *L, struct worker *w, int arg,
		      const char *fn, double n)
{
	size_t len;
	const char *name = luaL_checklstring(L, arg, &len);
	struct diag d = { 0 };
	int rc;

	/* a counter is a row as it is: what refuses a report() value
	 * (a name fsplan writes itself, a value not finite) refuses it */
	if (metrics_refuse(name, n, NULL, &d))
		luaL_error(L, "%s: %s", fn, d.msg);
	if (strlen(name) != len || !metrics_find_counter(&w->m, name))
		new_name(L, w, name, len, arg, fn,
			 entry_bytes(w->m.n_counters, sizeof(struct counter)));
	rc = metrics_count(&w->m, name, n);
	if (rc == -ENOMEM)
		luaL_error(L, "%s: not enough memory for '%s'", fn, name);
	if (rc == -EOVERFLOW)
		luaL_error(L, "%s: '%s' would pass the largest finite number",
			   fn, name);
	if (rc)
		worker_bad_name(L, arg, "a counter name");
}

/* One op that completed at t: its time and bytes, and how many went by
 * ring and syscall. */
static void record(struct worker *w, const char *name, int constant,
		   uint64_t t, uint64_t ns, uint64_t bytes, unsigned ring,
		   unsigned sys)
{
	struct op_stat *op;

	if (w->quiet)
		return;
	op = op_cached(w, name, constant, 1);
	if (!op)
		return;
	worker_record_stat(w, op, t, ns, bytes, ring, sys);
}

/* The op completed now: the clock is read only when a series or a
 * warmup wants it. */
void worker_record(struct worker *w, const char *name, uint64_t ns,
		   uint64_t bytes)
{
	record(w, name, 0, w->ser.clk || w->warm_ns ? clock_ns() : 0, ns,
	       bytes, 0, 0);
}

void worker_record_span(struct worker *w, const char *name, uint64_t t0,
			uint64_t t1, uint64_t bytes)
{
	record(w, name, 0, t1, t1 - t0, bytes, 0, 0);
}

void worker_record_req(struct worker *w, const char *name,
		       const struct engine_req *r, uint64_t bytes)
{
	w->t_last_op = r->t_done;
	record(w, name, 0, r->t_done, r->t_done - r->t_submit, bytes, r->ring,
	       !r->ring);
}

void worker_record_const(struct worker *w, const char *name,
			 const struct engine_req *r, uint64_t bytes)
{
	w->t_last_op = r->t_done;
	record(w, name, 1, r->t_done, r->t_done - r->t_submit, bytes, r->ring,
	       !r->ring);
}

/* splitmix64, which seeds worker_random's state. */
static uint64_t splitmix(uint64_t *x)
{
	return mix64(*x += 0x9e3779b97f4a7c15ull);
}

static int stopping_at(const struct worker *w, double now)
{
	return (w->stop && *w->stop) || (w->deadline > 0 && now >= w->deadline);
}

int worker_stopping(const struct worker *w)
{
	return stopping_at(w, clock_now());
}

/* In ns, once: w:done compares integers per call, and divides nothing. */
static uint64_t due_ns(const struct worker *w)
{
	uint64_t due = UINT64_MAX;

	if (w->deadline > 0)
		due = (uint64_t)(w->deadline * 1e9);
	if (w->seconds > 0 && (w->t_start + w->seconds) * 1e9 < (double)due)
		due = (uint64_t)((w->t_start + w->seconds) * 1e9);
	return due ? due : 1;
}

int worker_done(struct worker *w, uint64_t now_ns)
{
	if (!w->t_due)
		w->t_due = due_ns(w);
	return (w->stop && *w->stop) || now_ns >= w->t_due ||
	       worker_halted(w);
}

/* Non-repeating bytes from tmp's rng: compression and dedup get
 * nothing for free; len a multiple of 8. */
static void fill_seeded(struct worker *tmp, unsigned char *buf, size_t len)
{
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t v = worker_random(tmp);

		memcpy(buf + i, &v, 8);
	}
}

unsigned char *worker_source(uint64_t seed, size_t *src_len)
{
	struct worker tmp = { 0 };
	unsigned char *src;
	uint64_t x = seed ^ 0x5eed5eed5eedull;

	if (posix_memalign((void **)&src, 4096, SRC_BYTES + SRC_SLACK))
		return NULL;
	for (int i = 0; i < 4; i++)
		tmp.rng[i] = splitmix(&x);
	fill_seeded(&tmp, src, SRC_BYTES + SRC_SLACK);
	*src_len = SRC_BYTES;
	return src;
}

/*
 * An engine of w's ops for up to depth requests in flight, or -1 with d
 * as the engine filled it: a depth out of range, a system failure (no
 * ring, no locked memory).
 */
static int engine_make(struct worker *w, struct engine **out, unsigned depth,
		       struct diag *d)
{
	return w->eng->init(out, depth, d) ? -1 : 0;
}

int worker_init(struct worker *w, const struct engine_ops *ops,
		int workfd, const unsigned char *src, size_t src_len,
		uint64_t seed, int rep, struct diag *d)
{
	uint64_t x = seed ^ ((uint64_t)w->id << 32) ^ ((uint64_t)rep << 48);

	w->eng = ops;
	w->workfd = workfd;
	w->pdir_fd = -1;
	w->pdir2_fd = -1;
	w->src = src;
	w->src_len = src_len;
	w->t_start = clock_now();
	for (int i = 0; i < 4; i++)
		w->rng[i] = splitmix(&x);
	return engine_make(w, &w->e, 1, d);
}

/* The streams' engine cleaned up; the next worker_engine makes one. */
static void drop_stream_engine(struct worker *w)
{
	if (w->se)
		w->eng->cleanup(w->se);
	w->se = NULL;
	w->se_depth = 0;
}

int worker_renew_engine(struct worker *w, struct engine *e, struct diag *d)
{
	if (e == w->se) {
		drop_stream_engine(w);
		return 0;
	}
	w->eng->cleanup(w->e);
	return engine_make(w, &w->e, 1, d);
}

struct engine *worker_engine(struct worker *w, unsigned depth,
			     struct diag *d)
{
	unsigned want = 8;

	if (depth <= 1)
		return w->e;
	if (w->se && w->se_depth >= depth)
		return w->se;
	while (want < depth)
		want <<= 1;
	drop_stream_engine(w);
	if (engine_make(w, &w->se, want, d)) {
		w->se = NULL;
		return NULL;
	}
	w->se_depth = want;
	return w->se;
}

void worker_end_engines(struct worker *w)
{
	if (w->e)
		w->eng->cleanup(w->e);
	w->e = NULL;
	drop_stream_engine(w);
}

void worker_free(struct worker *w)
{
	if (w->eng)	/* initialised: pdir_fd is set */
		worker_forget_dir(w);
	worker_end_engines(w);
	free(w->buf);
	w->buf = NULL;
	metrics_free(&w->m);
	/* the cache's indexes were into m: a constant's hit trusts them */
	memset(w->opc, 0, sizeof(w->opc));
	metrics_free(&w->errs.m);
	opseries_free(&w->ser);
}

void worker_forget_dir(struct worker *w)
{
	if (w->pdir_fd >= 0)
		close(w->pdir_fd);
	if (w->pdir2_fd >= 0)
		close(w->pdir2_fd);
	w->pdir_fd = w->pdir2_fd = -1;
	w->pdir_len = w->pdir2_len = 0;
}

void *worker_src_at(const struct worker *w, const unsigned char *src,
		    size_t src_len, uint64_t off, uint64_t len)
{
	/* start pages from which len bytes still fit in the buffer */
	uint64_t pages = len < src_len ? (src_len - len) / 4096 + 1 : 1;
	uint64_t key = (off / 4096) ^ ((uint64_t)w->id << 40);
	uint64_t page = (key * 0x9e3779b97f4a7c15ull >> 20) % pages;

	/* a write request only reads its buffer: the cast is safe */
	return (void *)(uintptr_t)(src + page * 4096);
}

/* ---- what the worker and file APIs share in Lua ---- */

/* The worker lives in the state's extra space: no lookup per op, and
 * coroutines inherit it (lua_newthread copies the main thread's). */
struct worker *worker_none(lua_State *L)
{
	luaL_error(L, "no worker in this state");
	return NULL;
}

int worker_io_error(int data, int err)
{
	switch (err) {
	case EIO: case ENOSPC: case EDQUOT: case EROFS: case EFBIG:
	case EUCLEAN: case EBADMSG: case ESTALE: case ENXIO:
		return 1;
	default:
		return data && err;
	}
}

void worker_count_error(struct worker *w, const char *op, int data,
			const char *what, int err)
{
	struct worker_errors *e = &w->errs;
	char name[METRICS_NAME_LEN + 1];

	if (!worker_io_error(data, err))
		return;
	/* a long tag is cut: the counter's name must stay one */
	snprintf(name, sizeof(name), "%.*s_errors",
		 METRICS_NAME_LEN - 7, op);
	if (metrics_count(&e->m, name, 1))
		(void)metrics_count(&e->m, "io_errors", 1);
	if (!e->n++) {
		e->first_t = clock_now();
		e->first_err = err;
		snprintf(e->first_op, sizeof(e->first_op), "%s", op);
		/* a long path by its ends and its length, never cut short */
		if (strlen(what) < sizeof(e->first_what))
			snprintf(e->first_what, sizeof(e->first_what), "%s",
				 what);
		else
			snprintf(e->first_what, sizeof(e->first_what),
				 "%.40s...%s (%zu bytes)", what,
				 what + strlen(what) - 24, strlen(what));
	}
}

int worker_errors_merge(struct worker_errors *dst,
			const struct worker_errors *src)
{
	if (!src->n)
		return 0;
	if (!dst->n || src->first_t < dst->first_t) {
		dst->first_t = src->first_t;
		dst->first_err = src->first_err;
		memcpy(dst->first_op, src->first_op, sizeof(dst->first_op));
		memcpy(dst->first_what, src->first_what,
		       sizeof(dst->first_what));
	}
	dst->n += src->n;
	return metrics_merge(&dst->m, &src->m);
}

void worker_errors_reason(const struct worker_errors *e, char *buf,
			  size_t len)
{
	const char *name = strerrorname_np(e->first_err);

	snprintf(buf, len, "%llu I/O error%s, first: %s in %s (%s: %s)",
		 (unsigned long long)e->n, e->n == 1 ? "" : "s",
		 name ? name : "?", e->first_op, e->first_what,
		 strerror(e->first_err));
}

/* An op or counter name the metrics cannot carry (metrics_name_ok). */
void worker_bad_name(lua_State *L, int arg, const char *what)
{
	luaL_argerror(L, arg, lua_pushfstring(L, "%s is 1-%d of A-Z a-z 0-9 "
					      "_ . -, not - first", what,
					      METRICS_NAME_LEN));
}

unsigned char *worker_buf_grow(lua_State *L, struct worker *w, size_t len,
			       const char *what)
{
	/* a page at least: a 0-byte read still gets a buffer, not NULL */
	if (len > w->buf_len || !w->buf) {
		size_t n = ((len ? len : 1) + 4095) & ~(size_t)4095;
		void *p;

		/* the phase's memory: cap covers it, as it covers Lua's */
		if (n < len || sandbox_charge(L, n, w->buf_len))
			luaL_error(L, "not enough memory for a %I-byte %s "
				   "buffer (the phase's memory: cap)",
				   (lua_Integer)len, what);
		if (posix_memalign(&p, 4096, n)) {
			sandbox_charge(L, w->buf_len, n);
			luaL_error(L, "not enough memory for a %I-byte %s "
				   "buffer", (lua_Integer)len, what);
		}
		free(w->buf);
		w->buf = p;
		w->buf_len = n;
	}
	return w->buf;
}

const unsigned char *worker_big_source(lua_State *L, struct worker *w,
				       size_t block, size_t *len)
{
	struct worker tmp = { 0 };
	unsigned char *buf;

	/* the worker's rng copied, not advanced: its offsets stay the
	 * seed's; fresh bytes, so dedup gets nothing from a big block */
	*len = block + w->src_len;
	buf = worker_buf(L, w, *len, "write source");
	memcpy(tmp.rng, w->rng, sizeof(tmp.rng));
	fill_seeded(&tmp, buf, (*len + 7) & ~(size_t)7);	/* pages hold it */
	return buf;
}
