/* loops: the loops in C under f:stream, f:putc_stream/getc_stream and w:files — no Lua per op. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "phase/loops.h"
#include "phase/sandbox.h"
#include "phase/worker.h"
#include "util/units.h"
#include "util/clock.h"

#define MAX_DEPTH 128

/* ---- streams: the loop in C, up to depth requests in flight ---- */

struct stream {
	enum engine_op op;
	int rewrite;
	uint64_t block, offset, span, bytes, count;
	double seconds;
	int random, depth;
	char tag[32];
};

static uint64_t opt_size(lua_State *L, const char *key, uint64_t dflt)
{
	uint64_t v = dflt;

	if (lua_getfield(L, 2, key) != LUA_TNIL)
		v = worker_size_field(L, -1, "stream", key);
	lua_pop(L, 1);
	return v;
}

/* f:stream's options (the table at index 2) into s; misuse raises. */
static void stream_args(lua_State *L, struct stream *s, int fd,
			struct worker *w)
{
	const char *op, *pat;
	struct statx st;
	struct engine_req r = { .op = ENGINE_STATX, .dirfd = fd,
				.path = "", .flags = AT_EMPTY_PATH,
				.stx = &st };

	luaL_checktype(L, 2, LUA_TTABLE);
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
	return !(fl->w->stop && *fl->w->stop);
}

static uint64_t next_offset(struct flight *fl)
{
	const struct stream *s = &fl->s;

	if (s->random)
		return s->offset +
		       (worker_random(fl->w) % fl->blocks) * s->block;
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
	r->off = next_offset(fl);
	r->res = 0;
	r->t_submit = r->t_done = 0;
	r->ring = 0;
	r->done = 0;
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
	if (!fl->err && r->res >= 0) {
		if ((uint64_t)r->res < fl->s.block)
			fl->eof = 1;
		if (r->res > 0 || !fl->eof) {
			if (fl->st) {
				hist_add(&fl->st->lat, lat);
				fl->st->ring += read_ring + r->ring;
				fl->st->sys += read_sys + !r->ring;
				fl->st->bytes += (uint64_t)r->res;
			}
			if (r->op == ENGINE_WRITE)
				w->m.written += (uint64_t)r->res;
			fl->bytes += (uint64_t)r->res;
			fl->ops++;
		}
	}
	fl->free_[fl->nfree++] = r;
}

/* Depth 1: each op alone, start to finish in the engine's fewest steps
 * (engine_do), as a lone op of a Lua loop goes. */
static void stream_lone(struct flight *fl)
{
	struct engine_req *r;

	while ((r = stream_next(fl))) {
		fl->issued++;
		(void)engine_do(fl->w->eng, fl->e, r);
		stream_reaped(fl, r);
	}
}

/*
 * After an engine error broke the loop with requests still in flight:
 * their slots point at this frame's fl->req, which a later reap would
 * write into, so none may outlive loops_stream. Their completions are
 * taken and dropped; an engine that still holds some is cleaned up here
 * (it cancels them and waits, reading nothing but their slots), and the
 * worker gets a new one. Only running out of memory for that ends the
 * phase child.
 */
static void settle(struct flight *fl)
{
	struct worker *w = fl->w;
	struct engine_req *done[MAX_DEPTH];
	char why[128];

	for (int tries = 0; tries < 100 && w->eng->inflight(fl->e); tries++)
		if (w->eng->commit(fl->e) >= 0)
			(void)w->eng->reap(fl->e, 1, done, MAX_DEPTH);
	if (w->eng->inflight(fl->e) &&
	    worker_renew_engine(w, fl->e, why, sizeof(why))) {
		fprintf(stderr, "worker %d: no engine after a failed stream: "
			"%s\n", w->id, why);
		abort();
	}
}

int loops_stream(lua_State *L, int fd, const char *name)
{
	struct flight flight = { 0 }, *fl = &flight;
	struct engine_req *done[MAX_DEPTH];
	struct worker *w = worker_get(L);
	char why[512];

	fl->w = w;
	fl->fd = fd;
	stream_args(L, &fl->s, fd, w);
	/* inside w:op the requests are the op's: none recorded on its own */
	if (w->quiet) {
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
	fl->e = worker_engine(w, (unsigned)fl->s.depth, why, sizeof(why));
	if (!fl->e)
		return luaL_error(L, "stream: depth %d: %s", fl->s.depth, why);
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
	if (fl->s.depth == 1)
		stream_lone(fl);
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
		return worker_fail_op(L, fl->s.tag, 1, name, fl->err);
	lua_pushinteger(L, (lua_Integer)fl->bytes);
	lua_pushinteger(L, (lua_Integer)fl->ops);
	return 2;
}

/* ---- per-char: a real stdio FILE whose buffer drains through the engine ---- */

struct cookie {
	struct worker *w;
	int fd;
	uint64_t off;
	const char *tag;
	int err;
};

/* One transfer of the stdio buffer through the engine, at the cookie's
 * offset, timed under its tag. */
static ssize_t ck_io(struct cookie *ck, enum engine_op op, void *buf,
		     size_t len)
{
	struct engine_req r = { .op = op, .fd = ck->fd, .buf = buf,
				.len = len, .off = ck->off };
	int64_t res = engine_do(ck->w->eng, ck->w->e, &r);

	if (res < 0) {
		ck->err = (int)-res;
		return -1;
	}
	worker_record_req(ck->w, ck->tag, &r, (uint64_t)res);
	if (op == ENGINE_WRITE)
		ck->w->m.written += (uint64_t)res;
	ck->off += (uint64_t)res;
	return res;
}

static ssize_t ck_write(void *c, const char *buf, size_t len)
{
	/* a write request only reads its buffer: the cast is safe */
	return ck_io(c, ENGINE_WRITE, (void *)(uintptr_t)buf, len);
}

static ssize_t ck_read(void *c, char *buf, size_t len)
{
	return ck_io(c, ENGINE_READ, buf, len);
}

int loops_per_char(lua_State *L, int fd, const char *name, int writing)
{
	struct cookie ck = { worker_get(L), fd, 0, writing ? "putc" : "getc",
			     0 };
	cookie_io_functions_t io = { 0 };
	uint64_t n = worker_size(L, 2), i;
	FILE *fp;

	ck.off = lua_isnoneornil(L, 3) ? 0 : worker_size(L, 3);
	if (writing)
		io.write = ck_write;
	else
		io.read = ck_read;
	/* stdio's buffer is the phase's memory too (memory:) */
	if (sandbox_charge(L, BUFSIZ, 0))
		return luaL_error(L, "not enough memory for a %d-byte stdio "
				  "buffer (the phase's memory: cap)", BUFSIZ);
	fp = fopencookie(&ck, writing ? "w" : "r", io);
	if (!fp) {
		sandbox_charge(L, 0, BUFSIZ);
		return worker_fail(L, name, errno);
	}
	setvbuf(fp, NULL, _IOFBF, BUFSIZ);
	for (i = 0; i < n; i++) {
		if (writing) {
			if (putc((int)(i & 0x7f) | 0x20, fp) == EOF)
				break;
		} else if (getc(fp) == EOF) {
			break;
		}
		/* the hook cannot reach in here: look now and then */
		if (!(i & 0xfffff) && worker_stopping(ck.w))
			break;
	}
	/* the last buffer drains here: its failure is the cookie's */
	if (fclose(fp) && !ck.err)
		ck.err = errno ? errno : EIO;
	sandbox_charge(L, 0, BUFSIZ);
	if (ck.err)
		return worker_fail_op(L, ck.tag, 1, name, ck.err);
	lua_pushinteger(L, (lua_Integer)i);
	return 1;
}

/* ---- w:files: per-file loops ---- */

/*
 * One op on one name for w:files: create (an empty file: open with
 * O_CREAT|O_EXCL, close), stat (not following) or unlink, in the
 * name's directory. Each engine op is recorded under its own name; the
 * whole under tag — once, when tag is one of those names (the default
 * "stat" and "unlink" are their one system call). 0 or -errno.
 */
enum { FILES_CREATE, FILES_STAT, FILES_UNLINK };

/* Record an engine op under name unless name is the tag, whose record
 * then takes its place: same is set to it. */
static void files_record(struct worker *w, const char *name,
			 const struct engine_req *r, const char *tag,
			 const struct engine_req **same)
{
	if (strcmp(name, tag))
		worker_record_req(w, name, r, 0);
	else
		*same = r;
}

static int files_one(lua_State *L, struct worker *w, int op,
		     const char *path, const char *tag)
{
	struct engine_req r = { .mode = 0644 }, c = { .op = ENGINE_CLOSE };
	const struct engine_req *same = NULL;
	struct statx st;
	char name[256];
	int own, dfd;
	uint64_t t_end;
	int64_t res;

	worker_check_path(L, path);
	dfd = worker_parent(w, path, name, sizeof(name), &own, 1);
	if (dfd < 0)
		return dfd;
	r.dirfd = dfd;
	r.path = name;
	switch (op) {
	case FILES_CREATE:
		r.op = ENGINE_OPEN;
		r.flags = O_WRONLY | O_CREAT | O_EXCL;
		break;
	case FILES_STAT:
		r.op = ENGINE_STATX;
		r.stx = &st;
		r.flags = AT_SYMLINK_NOFOLLOW;
		break;
	default:
		r.op = ENGINE_UNLINK;
		break;
	}
	res = engine_do(w->eng, w->e, &r);
	files_record(w, op == FILES_CREATE ? "open" : op == FILES_STAT ?
		     "stat" : "unlink", &r, tag, &same);
	if (own)
		close(dfd);
	t_end = r.t_done;
	if (res >= 0 && op == FILES_CREATE) {
		c.fd = (int)res;
		res = engine_do(w->eng, w->e, &c);
		files_record(w, "close", &c, tag, &same);
		t_end = c.t_done;
	}
	if (same) {	/* the tag's record: the whole, by that op's path */
		struct engine_req all = *same;

		all.t_submit = r.t_submit;
		all.t_done = t_end;
		worker_record_req(w, tag, &all, 0);
	} else {
		worker_record(w, tag, t_end - r.t_submit, 0);
	}
	return res < 0 ? (int)res : 0;
}

/*
 * w:files(op, names [, opts]) -> count, or nil, msg, errno: op ("create",
 * "stat", "unlink") on every path of the array names, the loop in C as
 * f:stream's is — a per-file test then costs what the classic tools'
 * loops cost, not an interpreted call per file. opts.dir: a directory
 * the names are in (a w:readdir list); opts.tag: the op each file is
 * timed as (default op). Stops at the first failure, or when the phase
 * must stop (returning the count done).
 */
int loops_files(lua_State *L)
{
	static const char *const ops[] = { "create", "stat", "unlink", NULL };
	struct worker *w = worker_get(L);
	int op = luaL_checkoption(L, 2, NULL, ops);
	const char *dir = NULL, *tag = ops[op];
	char path[4096];
	size_t dlen = 0, tlen = strlen(tag);
	lua_Integer n, i;

	luaL_checktype(L, 3, LUA_TTABLE);
	if (!lua_isnoneornil(L, 4)) {
		luaL_checktype(L, 4, LUA_TTABLE);
		if (lua_getfield(L, 4, "dir") != LUA_TNIL)
			dir = luaL_checklstring(L, -1, &dlen);
		if (dir && strlen(dir) != dlen)
			return luaL_error(L, "files: opts.dir has a NUL byte "
					  "in it");
		if (lua_getfield(L, 4, "tag") != LUA_TNIL)
			tag = luaL_checklstring(L, -1, &tlen);
		lua_settop(L, 4);	/* opts, on the stack, keeps them */
	}
	/* inside w:op nothing is recorded: no op row made empty either */
	if (strlen(tag) != tlen || !metrics_name_ok(tag, tlen))
		luaL_error(L, "w:files: tag '%s'%s is not a name: 1-%d of A-Z "
			   "a-z 0-9 _ . -", tag, strlen(tag) != tlen ?
			   " (and a NUL byte)" : "", METRICS_NAME_LEN);
	if (!w->quiet)
		worker_op_named(L, w, tag, tlen, 0, "w:files");
	if (dir && dlen + 2 > sizeof(path))
		return worker_fail(L, dir, ENAMETOOLONG);
	if (dir) {
		memcpy(path, dir, dlen);
		path[dlen++] = '/';
	}
	n = luaL_len(L, 3);
	for (i = 1; i <= n; i++) {
		const char *p;
		size_t len;
		int rc;

		if ((i & 255) == 0 && worker_stopping(w))
			break;
		if (lua_rawgeti(L, 3, i) != LUA_TSTRING)
			return luaL_error(L, "names[%d] is not a string",
					  (int)i);
		p = lua_tolstring(L, -1, &len);
		if (strlen(p) != len)
			return luaL_error(L, "names[%d] has a NUL byte in it",
					  (int)i);
		if (dir) {
			if (dlen + len + 1 > sizeof(path))
				return worker_fail(L, p, ENAMETOOLONG);
			memcpy(path + dlen, p, len + 1);
			p = path;
		}
		rc = files_one(L, w, op, p, tag);
		if (rc < 0)
			return worker_fail_resolve(L, ops[op], p, -rc);
		lua_pop(L, 1);
	}
	lua_pushinteger(L, i - 1);
	return 1;
}
