/* lfile: files a phase opens — single ops, C-speed streams, and stdio-like per-char loops. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "phase/lworker.h"
#include "util/units.h"
#include "util/clock.h"

#define FILE_MT "fsplan.file"
#define MAX_DEPTH 128

/* The one full userdata type a phase sees (check_file relies on it). */
struct lfile {
	int fd;
	char name[200];
};

/* The metatables of open and of closed files, by address in the
 * registry (lfile_register). */
static const char open_mt, closed_mt;

/* The file at index 1. */
static struct lfile *check_file(lua_State *L)
{
	struct lfile *f;

	/* Files are the only full userdata a phase can hold (the sandbox
	 * has no io library, no C modules): the type settles it, without
	 * a metatable lookup per op. A second userdata type must bring
	 * back the metatable check. */
	if (lua_type(L, 1) != LUA_TUSERDATA)
		luaL_typeerror(L, 1, FILE_MT);
	f = lua_touserdata(L, 1);
	if (f->fd < 0)
		luaL_error(L, "'%s' is closed", f->name);
	return f;
}

static int mode_flags(lua_State *L, const char *mode)
{
	if (!strcmp(mode, "r"))
		return O_RDONLY;
	if (!strcmp(mode, "w"))
		return O_WRONLY | O_CREAT | O_TRUNC;
	if (!strcmp(mode, "rw") || !strcmp(mode, "r+"))
		return O_RDWR | O_CREAT;
	if (!strcmp(mode, "a"))
		return O_WRONLY | O_CREAT | O_APPEND;
	return luaL_error(L, "mode '%s': r, w, rw or a", mode);
}

/* A closed file has nothing to finalize: its metatable then lacks __gc,
 * so the collector frees it without calling into C (a per-file loop
 * opens and closes thousands). */
static void set_closed(lua_State *L, int idx, struct lfile *f)
{
	f->fd = -1;
	lua_rawgetp(L, LUA_REGISTRYINDEX, &closed_mt);
	lua_setmetatable(L, idx);
}

/* open's options table, one pass over what it holds: an unknown key is
 * an error (a misspelt "excl" must not silently open without it). */
static int open_opts(lua_State *L, int idx)
{
	static const struct { const char *key; int flags; } opt[] = {
		{ "create", O_CREAT }, { "trunc", O_TRUNC },
		{ "excl", O_EXCL | O_CREAT }, { "direct", O_DIRECT },
		{ "sync", O_SYNC },
	};
	int flags = 0;

	if (lua_isnoneornil(L, idx))
		return 0;
	luaL_checktype(L, idx, LUA_TTABLE);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		const char *key = lua_type(L, -2) == LUA_TSTRING ?
				  lua_tostring(L, -2) : "";
		size_t i;

		for (i = 0; i < sizeof(opt) / sizeof(opt[0]); i++)
			if (!strcmp(key, opt[i].key))
				break;
		if (i == sizeof(opt) / sizeof(opt[0]))
			luaL_error(L, "open: unknown option '%s' (create, "
				   "trunc, excl, direct, sync)",
				   lua_type(L, -2) == LUA_TSTRING ? key :
				   luaL_typename(L, -2));
		if (lua_toboolean(L, -1))
			flags |= opt[i].flags;
		lua_pop(L, 1);
	}
	return flags;
}

/*
 * Open path through the engine, beneath the work directory. A path in a
 * subdirectory is opened from that directory's fd, which the worker
 * keeps (lw_parent): a per-file loop then walks one component per open,
 * as bonnie++ does from its cwd. Beneath the directory implies beneath
 * the work directory; the converse does not hold — a symlink to
 * ../other/file is refused there with EXDEV — so that is tried again
 * from the work directory, which decides.
 */
static int64_t open_beneath(struct lworker *w, lua_State *L,
			    struct engine_req *r, const char *path,
			    size_t len)
{
	char name[256];
	int64_t res = -EXDEV;
	int own = 0, fd = -1;

	if (len && path[len - 1] != '/' && strchr(path, '/'))
		fd = lw_parent(L, w, path, name, sizeof(name), &own);
	else
		lw_check_path(L, path);	/* lw_parent checks its path */
	if (fd >= 0) {
		r->dirfd = fd;
		r->path = name;
		res = engine_do(w->eng, w->e, r);
		if (own)
			close(fd);
	}
	if (res == -EXDEV) {
		r->dirfd = w->workfd;
		r->path = path;
		r->res = 0;
		res = engine_do(w->eng, w->e, r);
	}
	return res;
}

/* w:open(path, mode [, opts]) */
int lfile_open(lua_State *L)
{
	struct lworker *w = lw_get(L);
	size_t len;
	const char *path = luaL_checklstring(L, 2, &len);
	int flags = mode_flags(L, luaL_optstring(L, 3, "r"));
	struct engine_req r = { .op = ENGINE_OPEN, .mode = 0644 };
	struct lfile *f;
	int64_t res;

	flags |= open_opts(L, 4);
	/* the object first, so an error cannot leak the fd (liolib) */
	f = lua_newuserdatauv(L, sizeof(*f), 0);
	f->fd = -1;
	if (len >= sizeof(f->name))
		len = sizeof(f->name) - 1;
	memcpy(f->name, path, len);
	f->name[len] = '\0';
	lua_rawgetp(L, LUA_REGISTRYINDEX, &open_mt);
	lua_setmetatable(L, -2);
	r.flags = flags;
	res = open_beneath(w, L, &r, path, len);
	lw_record(w, "open", r.t_done - r.t_submit, 0);
	if (res < 0) {
		set_closed(L, -1, f);
		return lw_fail(L, path, (int)-res);
	}
	f->fd = (int)res;
	return 1;
}

static int f_close(lua_State *L)
{
	struct lfile *f = check_file(L);
	struct lworker *w = lw_get(L);
	struct engine_req r = { .op = ENGINE_CLOSE, .fd = f->fd };
	int64_t res = engine_do(w->eng, w->e, &r);

	lw_record(w, "close", r.t_done - r.t_submit, 0);
	set_closed(L, 1, f);
	if (res < 0)
		return lw_fail(L, f->name, (int)-res);
	lua_pushboolean(L, 1);
	return 1;
}

/* __gc and __close: both metatables' (a closed file is a no-op). */
static int f_gc(lua_State *L)
{
	struct lfile *f = lua_touserdata(L, 1);

	if (f && f->fd >= 0) {
		close(f->fd);
		set_closed(L, 1, f);
	}
	return 0;
}

static unsigned char *read_buf(lua_State *L, struct lworker *w, size_t len)
{
	if (len > w->buf_len) {
		size_t n = (len + 4095) & ~(size_t)4095;
		void *p;

		if (posix_memalign(&p, 4096, n))
			luaL_error(L, "not enough memory for a %zu-byte read",
				   len);
		free(w->buf);
		w->buf = p;
		w->buf_len = n;
	}
	return w->buf;
}

/* Where a write of len at off takes its bytes from: page-aligned, and
 * different for different offsets. */
static void *src_at(struct lworker *w, uint64_t off, uint64_t len)
{
	/* start pages from which len bytes still fit in the buffer */
	uint64_t pages = len < w->src_len ? (w->src_len - len) / 4096 + 1 : 1;
	uint64_t key = (off / 4096) ^ ((uint64_t)w->id << 40);
	uint64_t page = (key * 0x9e3779b97f4a7c15ull >> 20) % pages;

	/* a write request only reads its buffer: the cast is safe */
	return (void *)(uintptr_t)(w->src + page * 4096);
}

static int f_read(lua_State *L)
{
	struct lfile *f = check_file(L);
	struct lworker *w = lw_get(L);
	uint64_t off = lw_size(L, 2), len = lw_size(L, 3);
	int want = lua_toboolean(L, 4);
	struct engine_req r = { .op = ENGINE_READ, .fd = f->fd, .off = off,
				.len = len };
	int64_t res;

	r.buf = read_buf(L, w, len);
	res = engine_do(w->eng, w->e, &r);
	lw_record(w, "read", r.t_done - r.t_submit, res > 0 ? res : 0);
	if (res < 0)
		return lw_fail(L, f->name, (int)-res);
	lua_pushinteger(L, res);
	if (!want)
		return 1;
	lua_pushlstring(L, (const char *)r.buf, (size_t)res);
	return 2;
}

static int f_write(lua_State *L)
{
	struct lfile *f = check_file(L);
	struct lworker *w = lw_get(L);
	uint64_t off = lw_size(L, 2), len, total = 0, t0 = 0, t1 = 0;
	const char *data = NULL;
	size_t dlen;

	if (lua_type(L, 3) == LUA_TSTRING) {
		data = lua_tolstring(L, 3, &dlen);
		len = dlen;
	} else {
		len = lw_size(L, 3);
	}
	/* one op however large: split to what the source buffer holds */
	while (total < len || (len == 0 && !t0)) {
		uint64_t n = len - total;
		struct engine_req r = { .op = ENGINE_WRITE, .fd = f->fd,
					.off = off + total };
		int64_t res;

		if (!data && n > w->src_len)
			n = w->src_len;
		r.len = n;
		r.buf = data ? (void *)(data + total) : src_at(w, r.off, n);
		res = engine_do(w->eng, w->e, &r);
		if (!t0)
			t0 = r.t_submit;
		t1 = r.t_done;
		if (res < 0) {
			lw_record(w, "write", t1 - t0, total);
			return lw_fail(L, f->name, (int)-res);
		}
		total += (uint64_t)res;
		if (len == 0 || res == 0)
			break;
	}
	lw_record(w, "write", t1 - t0, total);
	lua_pushinteger(L, (lua_Integer)total);
	return 1;
}

static int simple(lua_State *L, enum engine_op op, const char *name,
		  uint64_t off, uint64_t len, int flags)
{
	struct lfile *f = check_file(L);
	struct lworker *w = lw_get(L);
	struct engine_req r = { .op = op, .fd = f->fd, .off = off, .len = len,
				.flags = flags };
	int64_t res = engine_do(w->eng, w->e, &r);

	lw_record(w, name, r.t_done - r.t_submit, 0);
	if (res < 0)
		return lw_fail(L, f->name, (int)-res);
	lua_pushboolean(L, 1);
	return 1;
}

static int f_fsync(lua_State *L)
{
	return simple(L, ENGINE_FSYNC, "fsync", 0, 0, 0);
}

static int f_fdatasync(lua_State *L)
{
	return simple(L, ENGINE_FDATASYNC, "fdatasync", 0, 0, 0);
}

static int f_truncate(lua_State *L)
{
	return simple(L, ENGINE_FTRUNCATE, "truncate", lw_size(L, 2), 0, 0);
}

static int f_allocate(lua_State *L)
{
	return simple(L, ENGINE_FALLOCATE, "allocate", lw_size(L, 2),
		      lw_size(L, 3), 0);
}

static int f_stat(lua_State *L)
{
	struct lfile *f = check_file(L);
	struct lworker *w = lw_get(L);
	struct statx st;
	struct engine_req r = { .op = ENGINE_STATX, .dirfd = f->fd,
				.path = "", .flags = AT_EMPTY_PATH,
				.stx = &st };
	int64_t res = engine_do(w->eng, w->e, &r);

	lw_record(w, "stat", r.t_done - r.t_submit, 0);
	if (res < 0)
		return lw_fail(L, f->name, (int)-res);
	lw_push_stat(L, &st);
	return 1;
}

static int f_size(lua_State *L)
{
	if (f_stat(L) != 1)
		return 3;
	lua_getfield(L, -1, "size");
	return 1;
}

static int lock(lua_State *L, short type, const char *name)
{
	struct lfile *f = check_file(L);
	struct lworker *w = lw_get(L);
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET,
			    .l_start = (off_t)lw_size(L, 2),
			    .l_len = (off_t)lw_size(L, 3) };
	double t0 = clock_now();
	int rc = fcntl(f->fd, F_SETLK, &fl) ? errno : 0;

	lw_record(w, name, (uint64_t)((clock_now() - t0) * 1e9), 0);
	if (rc)
		return lw_fail(L, f->name, rc);
	lua_pushboolean(L, 1);
	return 1;
}

static int f_lock(lua_State *L)
{
	struct lfile *f = check_file(L);
	int wr = fcntl(f->fd, F_GETFL) & O_ACCMODE;

	return lock(L, wr == O_RDONLY ? F_RDLCK : F_WRLCK, "lock");
}

static int f_unlock(lua_State *L)
{
	return lock(L, F_UNLCK, "unlock");
}

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
		v = lw_size(L, -1);
	lua_pop(L, 1);
	return v;
}

static void stream_args(lua_State *L, struct stream *s, struct lfile *f,
			struct lworker *w)
{
	const char *op, *pat;
	struct statx st;
	struct engine_req r = { .op = ENGINE_STATX, .dirfd = f->fd,
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
	if (lua_getfield(L, 2, "tag") != LUA_TNIL)
		snprintf(s->tag, sizeof(s->tag), "%s", luaL_checkstring(L, -1));
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
	} else {
		s->seconds = luaL_optnumber(L, -1, 0);
	}
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

static int stream_more(const struct stream *s, const struct lworker *w,
		       uint64_t issued, uint64_t ops, double t0)
{
	if (s->count && issued >= s->count)
		return 0;
	if (s->bytes && issued * s->block >= s->bytes)
		return 0;
	if (s->seconds > 0 && clock_now() - t0 >= s->seconds)
		return 0;
	(void)ops;
	return !lw_stopping(w);
}

static uint64_t next_offset(struct stream *s, struct lworker *w,
			    uint64_t issued)
{
	uint64_t blocks = s->span / s->block;

	if (s->random)
		return s->offset + (lw_random(w) % blocks) * s->block;
	if (s->span && s->seconds > 0 && !s->bytes && !s->count)
		return s->offset + (issued % (blocks ? blocks : 1)) * s->block;
	return s->offset + issued * s->block;
}

static int f_stream(lua_State *L)
{
	struct lfile *f = check_file(L);
	struct lworker *w = lw_get(L);
	struct engine_req req[MAX_DEPTH], *done[MAX_DEPTH], *free_[MAX_DEPTH];
	struct op_stat *st;
	struct stream s = { 0 };
	uint64_t issued = 0, ops = 0, bytes = 0;
	unsigned char *rbuf;
	int nfree, err = 0, eof = 0;
	double t0;

	stream_args(L, &s, f, w);
	st = metrics_op(&w->m, s.tag);
	if (!st)
		return luaL_error(L, "not enough memory");
	rbuf = read_buf(L, w, (size_t)s.block * s.depth);
	for (nfree = 0; nfree < s.depth; nfree++)
		free_[nfree] = &req[nfree];
	t0 = clock_now();
	for (;;) {
		int n;

		while (nfree && !err && !eof &&
		       stream_more(&s, w, issued, ops, t0)) {
			struct engine_req *r = free_[--nfree];
			size_t slot = (size_t)(r - req);

			memset(r, 0, sizeof(*r));
			r->op = s.op;
			r->fd = f->fd;
			r->len = s.block;
			r->off = next_offset(&s, w, issued);
			r->buf = s.op == ENGINE_READ ?
				 rbuf + slot * s.block :
				 src_at(w, r->off, s.block);
			if (w->eng->queue(w->e, r)) {
				free_[nfree++] = r;
				break;
			}
			issued++;
		}
		if (!w->eng->inflight(w->e))
			break;
		if (w->eng->commit(w->e) < 0)
			break;
		n = w->eng->reap(w->e, 1, done, MAX_DEPTH);
		if (n < 0) {
			err = -n;
			break;
		}
		for (int i = 0; i < n; i++) {
			struct engine_req *r = done[i];
			uint64_t lat = r->t_done - r->t_submit;

			if (r->res < 0) {
				err = (int)-r->res;
			} else if (s.rewrite && r->op == ENGINE_READ &&
				   r->res > 0) {
				/* bonnie's rewrite: the block back where it
				 * came from, timed as one op with its read */
				uint64_t t_first = r->t_submit;

				r->op = ENGINE_WRITE;
				r->len = (uint64_t)r->res;
				r->res = 0;
				r->done = 0;
				if (engine_do(w->eng, w->e, r) < 0)
					err = (int)-r->res;
				r->t_submit = t_first;
				lat = r->t_done - t_first;
			}
			if (!err && r->res >= 0) {
				if ((uint64_t)r->res < s.block)
					eof = 1;
				if (r->res > 0 || !eof) {
					hist_add(&st->lat, lat);
					st->bytes += (uint64_t)r->res;
					bytes += (uint64_t)r->res;
					ops++;
				}
			}
			free_[nfree++] = r;
		}
	}
	if (err)
		return lw_fail(L, f->name, err);
	lua_pushinteger(L, (lua_Integer)bytes);
	lua_pushinteger(L, (lua_Integer)ops);
	return 2;
}

/* ---- per-char: a real stdio FILE whose buffer drains through the engine ---- */

struct cookie {
	struct lworker *w;
	struct lfile *f;
	uint64_t off;
	const char *tag;
	int err;
};

/* One transfer of the stdio buffer through the engine, at the cookie's
 * offset, timed under its tag. */
static ssize_t ck_io(struct cookie *ck, enum engine_op op, void *buf,
		     size_t len)
{
	struct engine_req r = { .op = op, .fd = ck->f->fd, .buf = buf,
				.len = len, .off = ck->off };
	int64_t res = engine_do(ck->w->eng, ck->w->e, &r);

	if (res < 0) {
		ck->err = (int)-res;
		return -1;
	}
	lw_record(ck->w, ck->tag, r.t_done - r.t_submit, (uint64_t)res);
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

static int per_char(lua_State *L, int writing)
{
	struct lfile *f = check_file(L);
	struct cookie ck = { lw_get(L), f, 0, writing ? "putc" : "getc", 0 };
	cookie_io_functions_t io = { 0 };
	uint64_t n = lw_size(L, 2), i;
	FILE *fp;

	ck.off = lua_isnoneornil(L, 3) ? 0 : lw_size(L, 3);
	if (writing)
		io.write = ck_write;
	else
		io.read = ck_read;
	fp = fopencookie(&ck, writing ? "w" : "r", io);
	if (!fp)
		return lw_fail(L, f->name, errno);
	setvbuf(fp, NULL, _IOFBF, BUFSIZ);
	for (i = 0; i < n; i++) {
		if (writing) {
			if (putc((int)(i & 0x7f) | 0x20, fp) == EOF)
				break;
		} else if (getc(fp) == EOF) {
			break;
		}
		/* the hook cannot reach in here: look now and then */
		if (!(i & 0xfffff) && lw_stopping(ck.w))
			break;
	}
	fclose(fp);
	if (ck.err)
		return lw_fail(L, f->name, ck.err);
	lua_pushinteger(L, (lua_Integer)i);
	return 1;
}

static int f_putc_stream(lua_State *L)
{
	return per_char(L, 1);
}

static int f_getc_stream(lua_State *L)
{
	return per_char(L, 0);
}

static const luaL_Reg file_methods[] = {
	{ "read", f_read },
	{ "write", f_write },
	{ "fsync", f_fsync },
	{ "fdatasync", f_fdatasync },
	{ "truncate", f_truncate },
	{ "allocate", f_allocate },
	{ "size", f_size },
	{ "stat", f_stat },
	{ "lock", f_lock },
	{ "unlock", f_unlock },
	{ "stream", f_stream },
	{ "putc_stream", f_putc_stream },
	{ "getc_stream", f_getc_stream },
	{ "close", f_close },
	{ NULL, NULL }
};

static void new_mt(lua_State *L, const void *key, int gc)
{
	lua_createtable(L, 0, 5);
	lua_pushliteral(L, FILE_MT);
	lua_setfield(L, -2, "__name");	/* tostring, luaL_typeerror */
	lua_pushvalue(L, -2);		/* the methods */
	lua_setfield(L, -2, "__index");
	if (gc) {
		lua_pushcfunction(L, f_gc);
		lua_setfield(L, -2, "__gc");
	}
	lua_pushcfunction(L, f_gc);
	lua_setfield(L, -2, "__close");
	lua_pushliteral(L, FILE_MT);
	lua_setfield(L, -2, "__metatable");
	lua_rawsetp(L, LUA_REGISTRYINDEX, key);
}

void lfile_register(lua_State *L)
{
	if (lua_rawgetp(L, LUA_REGISTRYINDEX, &open_mt) != LUA_TNIL) {
		lua_pop(L, 1);
		return;
	}
	lua_pop(L, 1);
	luaL_newlib(L, file_methods);
	new_mt(L, &open_mt, 1);
	new_mt(L, &closed_mt, 0);
	lua_pop(L, 1);
}
