/* stream: f:stream, a loop in C with up to depth requests in flight. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "phase/stream.h"
#include "phase/worker.h"
#include "phase/workerlua.h"
#include "util/clock.h"
#include "util/mix.h"
#include "util/units.h"

#define MAX_DEPTH 128

struct stream {
	enum engine_op op;
	int rewrite;
	uint64_t block, offset, span, bytes, count;
	double seconds;
	int random, depth;
	int timed;		/* 0: timed = false, no op of its own */
	int threads;		/* depth threads of blocking calls */
	char tag[32];
};

static uint64_t opt_size(lua_State *L, const char *key, uint64_t dflt)
{
	uint64_t v = dflt;

	if (lua_getfield(L, 2, key) != LUA_TNIL)
		v = workerlua_size_field(L, -1, "stream", key);
	lua_pop(L, 1);
	return v;
}

/* f:stream's op and tag (the options at index 2) into s. */
static void stream_op(lua_State *L, struct stream *s)
{
	const char *op;

	lua_getfield(L, 2, "op");
	op = luaL_optstring(L, -1, "read");
	s->rewrite = !strcmp(op, "rewrite");
	if (!strcmp(op, "read") || s->rewrite)
		s->op = ENGINE_READ;
	else if (!strcmp(op, "write"))
		s->op = ENGINE_WRITE;
	else
		luaL_error(L, "stream: op is read, write or rewrite, not '%s'",
			   op);
	snprintf(s->tag, sizeof(s->tag), "%s", op);
	lua_pop(L, 1);
	if (lua_getfield(L, 2, "tag") != LUA_TNIL) {
		size_t len;
		const char *tag = luaL_checklstring(L, -1, &len);

		/* cut, a tag would be another's name */
		if (strlen(tag) != len || len >= sizeof(s->tag) ||
		    !metrics_name_ok(tag, len))
			luaL_error(L, "stream: tag '%s'%s is not a name: 1-%d "
				   "of A-Z a-z 0-9 _ . -", tag,
				   strlen(tag) != len ? " (and a NUL byte)" : "",
				   METRICS_NAME_LEN);
		memcpy(s->tag, tag, len + 1);
	}
	lua_pop(L, 1);
}

/* f:stream's options (the table at index 2) into s; misuse raises. */
static void stream_args(lua_State *L, struct stream *s, int fd,
			struct worker *w)
{
	const char *pat;
	struct statx st;
	struct engine_req r = { .op = ENGINE_STATX, .dirfd = fd,
				.path = "", .flags = AT_EMPTY_PATH,
				.stx = &st };

	luaL_checktype(L, 2, LUA_TTABLE);
	stream_op(L, s);
	lua_getfield(L, 2, "pattern");
	pat = luaL_optstring(L, -1, "seq");
	if (strcmp(pat, "seq") && strcmp(pat, "random"))
		luaL_error(L, "stream: pattern is seq or random, not '%s'",
			   pat);
	s->random = !strcmp(pat, "random");
	lua_pop(L, 1);
	s->block = opt_size(L, "block", 4096);
	s->offset = opt_size(L, "offset", 0);
	s->bytes = opt_size(L, "bytes", 0);
	s->count = opt_size(L, "count", 0);
	s->depth = (int)opt_size(L, "depth", 1);
	lua_getfield(L, 2, "seconds");
	if (lua_type(L, -1) == LUA_TSTRING) {
		if (units_duration(lua_tostring(L, -1), &s->seconds))
			luaL_error(L, "stream: seconds is a duration");
	} else if (lua_isnoneornil(L, -1) || lua_isnumber(L, -1)) {
		s->seconds = lua_isnoneornil(L, -1) ? 0 : lua_tonumber(L, -1);
	} else {
		luaL_error(L, "stream: seconds is a duration (30, \"30s\"), "
			   "not a %s", luaL_typename(L, -1));
	}
	if (!(s->seconds >= 0))
		luaL_error(L, "stream: seconds must not be negative");
	lua_pop(L, 1);
	if (s->block == 0 || s->block > (64u << 20))
		luaL_error(L, "stream: block must be 1 byte to 64M");
	if (s->depth < 1 || s->depth > MAX_DEPTH)
		luaL_error(L, "stream: depth must be 1 to %d", MAX_DEPTH);
	if (!s->bytes && !s->count && s->seconds <= 0 &&
	    !(s->op == ENGINE_READ && !s->random))
		luaL_error(L, "stream: give bytes, count or seconds");
	if (s->rewrite)
		s->depth = 1;
	/* untimed: the caller times the loop (w:time), as bonnie++ times
	 * its per-char bytes a chunk at a time; no clock read per op */
	lua_getfield(L, 2, "timed");
	s->timed = lua_isnil(L, -1) || lua_toboolean(L, -1);
	if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
		luaL_error(L, "stream: timed is true or false");
	lua_pop(L, 1);
	lua_getfield(L, 2, "threads");
	s->threads = lua_toboolean(L, -1);
	if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
		luaL_error(L, "stream: threads is true or false");
	if (s->threads && s->rewrite)
		luaL_error(L, "stream: threads is for reads and writes, not "
			   "a rewrite (one block at a time)");
	lua_pop(L, 1);
	if (!s->timed && (s->seconds > 0 || (!s->bytes && !s->count)))
		luaL_error(L, "stream: timed = false needs bytes or count (it "
			   "reads no clock to stop by)");
	/* where random offsets fall: span=, else what bytes= covers, else
	 * the file as it is */
	s->span = opt_size(L, "span", 0);
	if (!s->span && s->bytes && s->op == ENGINE_WRITE)
		s->span = s->bytes;
	if (!s->span && engine_do(w->eng, w->e, &r) == 0 &&
	    st.stx_size > s->offset)
		s->span = st.stx_size - s->offset;
	if (s->random && s->span < s->block)
		luaL_error(L, "stream: random %s needs span= or a file of at "
			   "least one block", s->tag);
}

/* One f:stream in flight: its requests, free ones, and the tally. */
struct flight {
	struct stream s;
	struct worker *w;
	struct engine *e;	/* the worker's, for depth in flight */
	struct op_stat *st;
	int fd;
	unsigned char *rbuf;	/* a read's, block x depth */
	const unsigned char *src;	/* a write's (worker_src_at) */
	size_t src_len;
	struct engine_req req[MAX_DEPTH], *free_[MAX_DEPTH];
	int nfree, err, eof;
	uint64_t issued, ops, bytes;
	uint64_t blocks;	/* whole blocks in the span, at least 1 */
	uint64_t t0, now;	/* ns: the start; the last clock read */
	uint64_t until;		/* ns: seconds= or the deadline, or 0 */
	pthread_mutex_t mu;	/* threads = true: all of the above */
};

/*
 * Whether to queue more. The clock is the last completion's (one read
 * per reap, the engine's): no read of its own per op.
 */
static int stream_more(const struct flight *fl)
{
	const struct stream *s = &fl->s;

	if (s->count && fl->issued >= s->count)
		return 0;
	if (s->bytes && fl->issued * s->block >= s->bytes)
		return 0;
	if (fl->until && fl->now >= fl->until)
		return 0;
	return !(fl->w->stop && *fl->w->stop) && !worker_halted(fl->w);
}

/* The next request's offset; a random one drawn from rng (the worker's,
 * or a stream thread's own). */
static uint64_t next_offset(struct flight *fl, uint64_t rng[4])
{
	const struct stream *s = &fl->s;

	if (s->random)
		return s->offset + (mix_xoshiro(rng) % fl->blocks) * s->block;
	if (s->span && s->seconds > 0 && !s->bytes && !s->count)
		return s->offset + (fl->issued % fl->blocks) * s->block;
	return s->offset + fl->issued * s->block;
}

/*
 * The next request, from a free slot, or NULL when there is none or the
 * stream is done. A slot's fields that no read or write sets stay as the
 * flight's zeroing left them: only what this op sets or the engine wrote
 * is set again (a memset of the whole request was a tenth of the loop's
 * own time).
 */
static struct engine_req *stream_next(struct flight *fl)
{
	struct worker *w = fl->w;
	struct engine_req *r;
	size_t slot;

	if (!fl->nfree || fl->err || fl->eof || !stream_more(fl))
		return NULL;
	r = fl->free_[--fl->nfree];
	slot = (size_t)(r - fl->req);
	r->t_now = fl->now;	/* queued now: the last clock read */
	r->op = fl->s.op;
	r->fd = fl->fd;
	r->len = fl->s.block;
	r->off = next_offset(fl, fl->w->rng);
	r->res = 0;
	r->t_submit = r->t_done = 0;
	r->ring = 0;
	r->done = 0;
	r->untimed = !fl->s.timed;
	r->buf = fl->s.op == ENGINE_READ ? fl->rbuf + slot * fl->s.block :
		 worker_src_at(w, fl->src, fl->src_len, r->off, fl->s.block);
	return r;
}

/* Queue requests until depth are in flight or the stream is done. */
static void stream_fill(struct flight *fl)
{
	struct engine_req *r;

	while ((r = stream_next(fl))) {
		if (fl->w->eng->queue(fl->e, r)) {
			fl->free_[fl->nfree++] = r;
			break;
		}
		fl->issued++;
	}
}

/* A transfer of res bytes (>= 0) done: a short one ends the stream; one
 * that moved bytes, or a whole one, counts. 1 when it counted. */
static int stream_count(struct flight *fl, enum engine_op op, int64_t res)
{
	if ((uint64_t)res < fl->s.block)
		fl->eof = 1;
	if (res == 0 && fl->eof)
		return 0;
	if (op == ENGINE_WRITE)
		fl->w->m.written += (uint64_t)res;
	fl->bytes += (uint64_t)res;
	fl->ops++;
	return 1;
}

/* A request came back: count it (a rewrite's read first writes its
 * block back) and free its slot. */
static void stream_reaped(struct flight *fl, struct engine_req *r)
{
	struct worker *w = fl->w;
	uint64_t lat = r->t_done - r->t_submit;
	unsigned read_ring = 0, read_sys = 0;	/* a rewrite's read's path */

	if (r->res < 0) {
		fl->err = (int)-r->res;
	} else if (fl->s.rewrite && r->op == ENGINE_READ && r->res > 0) {
		/* bonnie's rewrite: the block back where it came from,
		 * timed as one op with its read; its path row counts both
		 * halves, which auto may send different ways */
		uint64_t t_first = r->t_submit;

		read_ring = r->ring;
		read_sys = !r->ring;
		r->op = ENGINE_WRITE;
		r->len = (uint64_t)r->res;
		r->res = 0;
		r->done = 0;
		if (engine_do(w->eng, fl->e, r) < 0)
			fl->err = (int)-r->res;
		r->t_submit = t_first;
		lat = r->t_done - t_first;
	}
	if (r->t_done > fl->now)
		fl->now = r->t_done;
	if (!fl->err && r->res >= 0 && stream_count(fl, r->op, r->res) &&
	    fl->st)
		worker_record_stat(w, fl->st, r->t_done, lat, (uint64_t)r->res,
				   read_ring + r->ring, read_sys + !r->ring);
	fl->free_[fl->nfree++] = r;
}

/*
 * Untimed, on an engine whose lone op is a plain system call: the calls
 * in a loop of their own, as bonnie++'s per-char loop makes them (the
 * engine's layers around them were a tenth of a 1-byte read's time),
 * counted as stream_reaped counts a request no op records.
 */
static void stream_plain(struct flight *fl)
{
	struct engine_req *r = &fl->req[0];
	const struct stream *s = &fl->s;

	while (!fl->eof && stream_more(fl)) {
		int64_t res;

		r->op = s->op;
		r->fd = fl->fd;
		r->len = s->block;
		r->off = next_offset(fl, fl->w->rng);
		r->done = 0;
		r->buf = s->op == ENGINE_READ ? fl->rbuf :
			 worker_src_at(fl->w, fl->src, fl->src_len, r->off,
				       s->block);
		fl->issued++;
		res = engine_plain_rw(r);
		if (res < 0) {
			fl->err = (int)-res;
			return;
		}
		(void)stream_count(fl, s->op, res);
	}
}

/* Depth 1: each op alone, start to finish in the engine's fewest steps
 * (engine_do), as a lone op of a Lua loop goes. */
static void stream_lone(struct flight *fl)
{
	struct engine_req *r;

	if (!fl->s.timed && !fl->s.rewrite &&
	    (fl->w->eng->flags & ENGINE_LONE_PLAIN)) {
		stream_plain(fl);
		return;
	}
	while ((r = stream_next(fl))) {
		fl->issued++;
		(void)engine_do(fl->w->eng, fl->e, r);
		stream_reaped(fl, r);
	}
}

/* One of stream_threads' threads: its own random sequence (the
 * worker's is not to be shared) and its slot of the read buffer. */
struct seeker {
	struct flight *fl;
	uint64_t rng[4];
	unsigned char *rbuf;
	pthread_t tid;
};

/* The next offset, or UINT64_MAX when the stream is done; under mu. */
static uint64_t seeker_next(struct seeker *k)
{
	struct flight *fl = k->fl;
	uint64_t off;

	if (fl->err || fl->eof || !stream_more(fl))
		return UINT64_MAX;
	off = next_offset(fl, k->rng);
	fl->issued++;
	return off;
}

/* A thread's share: take an offset, make the call and block in it,
 * count it; the tally and the op's record under mu. */
static void *seeker_run(void *arg)
{
	struct seeker *k = arg;
	struct flight *fl = k->fl;
	const struct stream *s = &fl->s;
	struct engine_req r = { .op = s->op, .fd = fl->fd, .len = s->block };

	for (;;) {
		uint64_t off, t0 = 0, t1 = 0;
		int64_t res;

		pthread_mutex_lock(&fl->mu);
		off = seeker_next(k);
		pthread_mutex_unlock(&fl->mu);
		if (off == UINT64_MAX)
			return NULL;
		r.off = off;
		r.done = 0;
		r.buf = s->op == ENGINE_READ ? k->rbuf :
			worker_src_at(fl->w, fl->src, fl->src_len, off,
				      s->block);
		if (s->timed)
			t0 = clock_ns();
		res = engine_plain_rw(&r);
		if (s->timed)
			t1 = clock_ns();
		pthread_mutex_lock(&fl->mu);
		if (res < 0 && !fl->err)
			fl->err = (int)-res;
		if (t1 > fl->now)
			fl->now = t1;
		if (res >= 0 && !fl->err && stream_count(fl, s->op, res) &&
		    fl->st)
			worker_record_stat(fl->w, fl->st, t1, t1 - t0,
					   (uint64_t)res, 0, 1);
		pthread_mutex_unlock(&fl->mu);
	}
}

/*
 * threads = true, on an engine whose lone op is a plain system call:
 * depth threads (the worker's and depth - 1 more), each taking the next
 * offset and blocking in its call, as bonnie++'s seeker threads do
 * (their blocking costs the CPU a seek that one ring of depth in flight
 * does not). A thread that could not start raises, after those that
 * did have finished the stream.
 */
static void stream_threads(lua_State *L, struct flight *fl)
{
	struct seeker k[MAX_DEPTH];
	pthread_attr_t attr;
	int started = 1, err = 0, attr_ok;

	if (pthread_mutex_init(&fl->mu, NULL))
		luaL_error(L, "stream: threads: cannot start %d threads: %s",
			   fl->s.depth, strerror(ENOMEM));
	for (int i = 0; i < fl->s.depth; i++) {
		k[i].fl = fl;
		for (int j = 0; j < 4; j++)	/* from the worker's */
			k[i].rng[j] = worker_random(fl->w);
		k[i].rbuf = fl->rbuf ? fl->rbuf + (size_t)i * fl->s.block :
			    NULL;
	}
	attr_ok = !(err = pthread_attr_init(&attr));
	if (attr_ok)
		err = pthread_attr_setstacksize(&attr, 256 << 10);
	while (!err && started < fl->s.depth) {
		err = pthread_create(&k[started].tid, &attr, seeker_run,
				     &k[started]);
		if (!err)
			started++;
	}
	if (err) {	/* the ones running stop at the next offset */
		pthread_mutex_lock(&fl->mu);
		fl->eof = 1;
		pthread_mutex_unlock(&fl->mu);
	}
	(void)seeker_run(&k[0]);
	for (int i = 1; i < started; i++)
		pthread_join(k[i].tid, NULL);
	if (attr_ok)
		pthread_attr_destroy(&attr);
	pthread_mutex_destroy(&fl->mu);
	if (err)
		luaL_error(L, "stream: threads: cannot start %d threads: %s%s",
			   fl->s.depth, strerror(err), err != EAGAIN ? "" :
			   " (a limit on threads: ulimit -u, or the cgroup's "
			   "pids.max)");
}

/*
 * After an engine error broke the loop with requests still in flight:
 * their slots point at this frame's fl->req, which a later reap would
 * write into, so none may outlive stream_run. Their completions are
 * taken and dropped; an engine that still holds some is cleaned up here
 * (it cancels them and waits, reading nothing but their slots), and the
 * worker gets a new one. Only running out of memory for that ends the
 * phase child.
 */
static void settle(struct flight *fl)
{
	struct worker *w = fl->w;
	struct engine_req *done[MAX_DEPTH];
	struct diag d = { 0 };

	for (int tries = 0; tries < 100 && w->eng->inflight(fl->e); tries++)
		if (w->eng->commit(fl->e) >= 0)
			(void)w->eng->reap(fl->e, 1, done, MAX_DEPTH);
	if (w->eng->inflight(fl->e) &&
	    worker_renew_engine(w, fl->e, &d)) {
		fprintf(stderr, "worker %d: no engine after a failed stream: "
			"%s\n", w->id, d.msg);
		abort();
	}
}

int stream_run(lua_State *L, int fd, const char *name)
{
	struct flight flight = { 0 }, *fl = &flight;
	struct engine_req *done[MAX_DEPTH];
	struct worker *w = worker_get(L);
	struct diag d = { 0 };	/* no detail: nothing to free on a raise */
	int threaded;

	fl->w = w;
	fl->fd = fd;
	stream_args(L, &fl->s, fd, w);
	/* inside w:op the requests are the op's: none recorded on its own;
	 * an untimed stream records none either */
	if (w->quiet || !fl->s.timed) {
		if (!metrics_name_ok(fl->s.tag, strlen(fl->s.tag)))
			worker_bad_name(L, 2, "a tag");
	} else {
		fl->st = worker_op_named(L, w, fl->s.tag, strlen(fl->s.tag), 0,
					 "f:stream");
	}
	/* a write reads only its source: the shared one, or, for blocks
	 * larger than it, one of its own */
	fl->src = w->src;
	fl->src_len = w->src_len;
	if (fl->s.op == ENGINE_READ)
		fl->rbuf = worker_buf(L, w, (size_t)fl->s.block * fl->s.depth,
				      "read");
	else if (fl->s.block > w->src_len)
		fl->src = worker_big_source(L, w, fl->s.block, &fl->src_len);
	/* threads make their own calls: no engine holds their depth */
	threaded = fl->s.depth > 1 && fl->s.threads &&
		   (w->eng->flags & ENGINE_LONE_PLAIN);
	fl->e = worker_engine(w, threaded ? 1 : (unsigned)fl->s.depth, &d);
	if (!fl->e)
		return luaL_error(L, "stream: depth %d: %s", fl->s.depth,
				  d.msg);
	for (fl->nfree = 0; fl->nfree < fl->s.depth; fl->nfree++)
		fl->free_[fl->nfree] = &fl->req[fl->nfree];
	fl->blocks = fl->s.block ? fl->s.span / fl->s.block : 0;
	if (!fl->blocks)
		fl->blocks = 1;
	fl->t0 = fl->now = clock_ns();
	if (fl->s.seconds > 0)
		fl->until = fl->t0 + (uint64_t)(fl->s.seconds * 1e9);
	if (w->deadline > 0) {
		uint64_t dl = (uint64_t)(w->deadline * 1e9);

		if (!fl->until || dl < fl->until)
			fl->until = dl;
	}
	if (fl->s.depth == 1) {
		stream_lone(fl);
	} else if (threaded) {
		stream_threads(L, fl);
	}
	for (;;) {
		int n;

		stream_fill(fl);
		if (!w->eng->inflight(fl->e))
			break;
		n = w->eng->commit(fl->e);
		if (n >= 0)
			n = w->eng->reap(fl->e, 1, done, MAX_DEPTH);
		if (n < 0) {
			fl->err = -n;
			break;
		}
		for (int i = 0; i < n; i++)
			stream_reaped(fl, done[i]);
	}
	if (w->eng->inflight(fl->e))
		settle(fl);
	if (fl->err)
		return workerlua_fail_op(L, fl->s.tag, 1, name, fl->err);
	lua_pushinteger(L, (lua_Integer)fl->bytes);
	lua_pushinteger(L, (lua_Integer)fl->ops);
	return 2;
}
