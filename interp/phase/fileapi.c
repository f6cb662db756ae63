/* fileapi: the files w:open returns: their f:... methods, each op measured. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "phase/fileapi.h"
#include "phase/commit.h"
#include "phase/loops.h"
#include "phase/stream.h"
#include "phase/worker.h"
#include "phase/workerlua.h"
#include "phase/workpath.h"
#include "util/clock.h"

/* The registry names of the metatables of open and of closed files; both
 * call the type "file" (__name: error messages and tostring). */
#define FILE_MT		"fsplan.file"
#define CLOSED_MT	"fsplan.file.closed"

struct file {
	int fd;
	char name[200];
};

/*
 * The file at index idx, open or closed: a file by its metatable (as
 * liolib's luaL_checkudata), so a method handed another userdata (a
 * shared table, whose first bytes are a pointer) raises rather than
 * take its bytes for an fd. The two metatables are every file
 * function's upvalues 1 and 2 (fileapi_register): no registry lookup
 * per op.
 */
static struct file *to_file(lua_State *L, int idx)
{
	struct file *f = lua_touserdata(L, idx);

	if (f && lua_getmetatable(L, idx)) {
		int ok = lua_rawequal(L, -1, lua_upvalueindex(1)) ||
			 lua_rawequal(L, -1, lua_upvalueindex(2));

		lua_pop(L, 1);
		if (ok)
			return f;
	}
	luaL_typeerror(L, idx, "file");
	return NULL;
}

/* The open file at index idx. */
static struct file *file_at(lua_State *L, int idx)
{
	struct file *f = to_file(L, idx);

	if (f->fd < 0)
		luaL_error(L, "'%s' is closed", f->name);
	return f;
}

/* The file at index 1: the method's own. */
static struct file *check_file(lua_State *L)
{
	return file_at(L, 1);
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
static void set_closed(lua_State *L, int idx, struct file *f)
{
	idx = lua_absindex(L, idx);
	f->fd = -1;
	luaL_getmetatable(L, CLOSED_MT);
	lua_setmetatable(L, idx);
}

/* open's options table, one pass over what it holds: an unknown key is
 * an error (a misspelt "excl" must not silently open without it).
 * create = false takes O_CREAT from the mode ("rw" of a file that must
 * exist, as dbench's NTCreateX opens one): *clear says so. */
static int open_opts(lua_State *L, int idx, int *clear)
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
		else if (opt[i].flags == O_CREAT)
			*clear |= O_CREAT;
		lua_pop(L, 1);
	}
	return flags;
}

/* w:open(path, mode [, opts]): through the engine, beneath the work
 * directory, from the kept parent directory when it can (workpath_open). */
int fileapi_open(lua_State *L)
{
	struct worker *w = worker_get(L);
	size_t len;
	const char *path = workerlua_path_arg(L, 2);
	int flags = mode_flags(L, luaL_optstring(L, 3, "r"));
	struct engine_req r = { .op = ENGINE_OPEN, .mode = 0644 };
	struct file *f;
	int64_t res;
	int clear = 0;

	len = strlen(path);
	flags |= open_opts(L, 4, &clear);
	if (!(flags & O_EXCL))
		flags &= ~clear;
	workerlua_check_path(L, path);
	/* the object first, so an error cannot leak the fd (liolib) */
	f = lua_newuserdatauv(L, sizeof(*f), 0);
	f->fd = -1;
	/* messages name the file: a long path by its ends and length */
	if (len < sizeof(f->name))
		memcpy(f->name, path, len + 1);
	else
		snprintf(f->name, sizeof(f->name), "%.96s...%s (%zu bytes)",
			 path, path + len - 64, len);
	luaL_setmetatable(L, FILE_MT);
	r.flags = flags;
	res = workpath_open(w, &r, path);
	worker_record_req(w, "open", &r, 0);
	if (res < 0) {
		set_closed(L, -1, f);
		return workerlua_fail_resolve(L, "open", path, (int)-res);
	}
	f->fd = (int)res;
	return 1;
}

static int f_close(lua_State *L)
{
	struct file *f = check_file(L);
	struct worker *w = worker_get(L);
	struct engine_req r = { .op = ENGINE_CLOSE, .fd = f->fd };
	int64_t res = engine_do(w->eng, w->e, &r);

	worker_record_req(w, "close", &r, 0);
	set_closed(L, 1, f);
	if (res < 0)
		return workerlua_fail_op(L, "close", 0, f->name, (int)-res);
	lua_pushboolean(L, 1);
	return 1;
}

/* __gc and __close: both metatables' (a closed file is a no-op). */
static int f_gc(lua_State *L)
{
	struct file *f = to_file(L, 1);

	if (f->fd >= 0) {
		close(f->fd);
		set_closed(L, 1, f);
	}
	return 0;
}

static int f_read(lua_State *L)
{
	struct file *f = check_file(L);
	struct worker *w = worker_get(L);
	uint64_t off = workerlua_size(L, 2), len = workerlua_size(L, 3);
	int want = lua_gettop(L) >= 4 && lua_toboolean(L, 4);
	struct engine_req r = { .op = ENGINE_READ, .fd = f->fd, .off = off,
				.len = len };
	int64_t res;

	r.buf = worker_buf(L, w, len, "read");
	res = engine_do(w->eng, w->e, &r);
	worker_record_const(w, "read", &r, res > 0 ? res : 0);
	if (res < 0)
		return workerlua_fail_op(L, "read", 1, f->name, (int)-res);
	lua_pushinteger(L, res);
	if (!want)
		return 1;
	lua_pushlstring(L, (const char *)r.buf, (size_t)res);
	return 2;
}

static int f_write(lua_State *L)
{
	struct file *f = check_file(L);
	struct worker *w = worker_get(L);
	uint64_t off = workerlua_size(L, 2), len, total = 0;
	struct engine_req span = { .op = ENGINE_WRITE };	/* the whole op */
	const char *data = NULL;
	size_t dlen;

	if (lua_type(L, 3) == LUA_TSTRING) {
		data = lua_tolstring(L, 3, &dlen);
		len = dlen;
	} else {
		len = workerlua_size(L, 3);
	}
	/* one op however large: split to what the source buffer holds */
	while (total < len || (len == 0 && !span.t_submit)) {
		uint64_t n = len - total;
		struct engine_req r = { .op = ENGINE_WRITE, .fd = f->fd,
					.off = off + total };
		int64_t res;

		if (!data && n > w->src_len)
			n = w->src_len;
		r.len = n;
		r.buf = data ? (void *)(data + total) :
			worker_src_at(w, w->src, w->src_len, r.off, n);
		res = engine_do(w->eng, w->e, &r);
		if (!span.t_submit)
			span.t_submit = r.t_submit;
		span.t_done = r.t_done;
		span.ring = r.ring;
		if (res < 0) {
			worker_record_const(w, "write", &span, total);
			return workerlua_fail_op(L, "write", 1, f->name,
						 (int)-res);
		}
		total += (uint64_t)res;
		w->m.written += (uint64_t)res;
		if (len == 0 || res == 0)
			break;
	}
	worker_record_const(w, "write", &span, total);
	lua_pushinteger(L, (lua_Integer)total);
	return 1;
}

/* f's own self is checked by the caller, before its other arguments:
 * a misused method names its self first. */
static int simple(lua_State *L, struct file *f, enum engine_op op,
		  const char *name, uint64_t off, uint64_t len, int flags)
{
	struct worker *w = worker_get(L);
	struct engine_req r = { .op = op, .fd = f->fd, .off = off, .len = len,
				.flags = flags };
	int64_t res = engine_do(w->eng, w->e, &r);

	worker_record_req(w, name, &r, 0);
	if (res < 0)
		return workerlua_fail_op(L, name, 1, f->name, (int)-res);
	lua_pushboolean(L, 1);
	return 1;
}

static int f_fsync(lua_State *L)
{
	return simple(L, check_file(L), ENGINE_FSYNC, "fsync", 0, 0, 0);
}

static int f_fdatasync(lua_State *L)
{
	return simple(L, check_file(L), ENGINE_FDATASYNC, "fdatasync", 0, 0,
		      0);
}

/* f:group_sync([name]), f:group_commit(len, opts): phase/commit.h. */
static int f_group_sync(lua_State *L)
{
	struct file *f = check_file(L);

	return commit_sync(L, f->fd, f->name);
}

static int f_group_commit(lua_State *L)
{
	struct file *f = check_file(L);

	return commit_log(L, f->fd, f->name);
}

static int f_truncate(lua_State *L)
{
	struct file *f = check_file(L);

	return simple(L, f, ENGINE_FTRUNCATE, "truncate", workerlua_size(L, 2),
		      0, 0);
}

static int f_allocate(lua_State *L)
{
	struct file *f = check_file(L);
	uint64_t off = workerlua_size(L, 2);

	return simple(L, f, ENGINE_FALLOCATE, "allocate", off,
		      workerlua_size(L, 3), 0);
}

static int f_stat(lua_State *L)
{
	struct file *f = check_file(L);
	struct worker *w = worker_get(L);
	struct statx st;
	struct engine_req r = { .op = ENGINE_STATX, .dirfd = f->fd,
				.path = "", .flags = AT_EMPTY_PATH,
				.stx = &st };
	int64_t res = engine_do(w->eng, w->e, &r);

	worker_record_req(w, "stat", &r, 0);
	if (res < 0)
		return workerlua_fail_op(L, "stat", 0, f->name, (int)-res);
	workerlua_push_stat(L, &st);
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
	struct file *f = check_file(L);
	struct worker *w = worker_get(L);
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET,
			    .l_start = (off_t)workerlua_size(L, 2),
			    .l_len = (off_t)workerlua_size(L, 3) };
	double t0 = clock_now();
	int rc = fcntl(f->fd, F_SETLK, &fl) ? errno : 0;

	worker_record(w, name, (uint64_t)((clock_now() - t0) * 1e9), 0);
	if (rc)
		return workerlua_fail_op(L, name, 0, f->name, rc);
	lua_pushboolean(L, 1);
	return 1;
}

static int f_lock(lua_State *L)
{
	struct file *f = check_file(L);
	int wr = fcntl(f->fd, F_GETFL) & O_ACCMODE;

	return lock(L, wr == O_RDONLY ? F_RDLCK : F_WRLCK, "lock");
}

static int f_unlock(lua_State *L)
{
	return lock(L, F_UNLCK, "unlock");
}

/*
 * Copy through the engine: a read of up to COPY_BLOCK into the worker's
 * buffer, then its write, until len or the end of in. What cp does when
 * the kernel cannot copy (files on two filesystems). Bytes, or -errno
 * with *at_out set when it was the write that failed.
 */
#define COPY_BLOCK	((uint64_t)128 << 10)	/* cp's buffer */

static int64_t copy_by_buffer(lua_State *L, struct worker *w, int in,
			      int out, uint64_t off, uint64_t len, int *at_out)
{
	unsigned char *buf = worker_buf(L, w, COPY_BLOCK, "copy");
	uint64_t done = 0;

	while (done < len) {
		struct engine_req r = { .op = ENGINE_READ, .fd = in,
					.off = off + done, .buf = buf,
					.len = len - done < COPY_BLOCK ?
					       len - done : COPY_BLOCK };
		int64_t got = engine_do(w->eng, w->e, &r), put;

		if (got <= 0)
			return got < 0 ? got : (int64_t)done;
		r = (struct engine_req){ .op = ENGINE_WRITE, .fd = out,
					 .off = off + done, .buf = buf,
					 .len = (uint64_t)got };
		put = engine_do(w->eng, w->e, &r);
		if (put < 0) {
			*at_out = 1;
			return put;
		}
		done += (uint64_t)put;
	}
	return (int64_t)done;
}

/*
 * Copy in the kernel (copy_file_range) from off, until len or the end of
 * in, adding to *done: 0, -errno, or 1 when the kernel will not copy
 * between these two files (another filesystem: copy by buffer then).
 */
static int copy_in_kernel(int in, int out, uint64_t off, uint64_t len,
			  uint64_t *done)
{
	while (*done < len) {
		loff_t a = (loff_t)(off + *done), b = a;
		ssize_t n = copy_file_range(in, &a, out, &b, len - *done, 0);

		if (n == 0)
			return 0;
		if (n > 0) {
			*done += (uint64_t)n;
			continue;
		}
		if (*done == 0 && (errno == EXDEV || errno == EOPNOTSUPP ||
				   errno == ENOSYS || errno == EINVAL))
			return 1;
		return -errno;
	}
	return 0;
}

/*
 * f:copy(out [, off [, len [, by]]]) -> bytes: len bytes of f (default:
 * to its end) from off (default 0) to the same offset of out, as cp
 * copies a file: by "kernel" (the default) copy_file_range, where the
 * two files' filesystem allows it (no copy through the process; xfs and
 * btrfs share the blocks, as cp --reflink=auto), else a read and a
 * write of 128 KiB at a time; by "buffer" always the read and write (cp
 * --reflink=never). One op, "copy", with its bytes.
 */
static int f_copy(lua_State *L)
{
	static const char *const by[] = { "kernel", "buffer", NULL };
	struct file *in = check_file(L), *out = file_at(L, 2);
	struct worker *w = worker_get(L);
	uint64_t off = luaL_opt(L, workerlua_size, 3, 0);
	uint64_t len = luaL_opt(L, workerlua_size, 4, INT64_MAX);
	int buffer = luaL_checkoption(L, 5, "kernel", by);
	uint64_t t0 = clock_ns(), done = 0;
	int64_t res = 1;
	int at_out = 0;

	/* as cp tells the kernel: a sequential read (twice the readahead) */
	posix_fadvise(in->fd, (off_t)off, len == INT64_MAX ? 0 : (off_t)len,
		      POSIX_FADV_SEQUENTIAL);
	if (!buffer)
		res = copy_in_kernel(in->fd, out->fd, off, len, &done);
	if (res == 1) {
		res = copy_by_buffer(L, w, in->fd, out->fd, off, len,
				     &at_out);
		done = res > 0 ? (uint64_t)res : 0;
	} else if (res < 0) {
		/* the kernel's copy says no more than its errno: these are
		 * the destination's (a full or read-only filesystem) */
		at_out = res == -ENOSPC || res == -EDQUOT || res == -EFBIG ||
			 res == -EROFS;
	}
	w->m.written += done;
	worker_record_span(w, "copy", t0, clock_ns(), done);
	if (res < 0)
		return workerlua_fail_op(L, "copy", 1,
				      at_out ? out->name : in->name, (int)-res);
	lua_pushinteger(L, (lua_Integer)done);
	return 1;
}

static int f_stream(lua_State *L)
{
	struct file *f = check_file(L);

	return stream_run(L, f->fd, f->name);
}

static int f_putc_stream(lua_State *L)
{
	struct file *f = check_file(L);

	return loops_per_char(L, f->fd, f->name, 1);
}

static int f_getc_stream(lua_State *L)
{
	struct file *f = check_file(L);

	return loops_per_char(L, f->fd, f->name, 0);
}

static const luaL_Reg file_methods[] = {
	{ "read", f_read },
	{ "write", f_write },
	{ "fsync", f_fsync },
	{ "fdatasync", f_fdatasync },
	{ "group_sync", f_group_sync },
	{ "group_commit", f_group_commit },
	{ "truncate", f_truncate },
	{ "allocate", f_allocate },
	{ "size", f_size },
	{ "stat", f_stat },
	{ "lock", f_lock },
	{ "unlock", f_unlock },
	{ "copy", f_copy },
	{ "stream", f_stream },
	{ "putc_stream", f_putc_stream },
	{ "getc_stream", f_getc_stream },
	{ "close", f_close },
	{ NULL, NULL }
};

/* The metatable at index mt filled: __index the methods, the finalizer
 * on top (a closure over both metatables, as the methods are). */
static void fill_mt(lua_State *L, int mt, int methods, int gc)
{
	lua_pushliteral(L, "file");
	lua_setfield(L, mt, "__name");	/* tostring, luaL_typeerror */
	lua_pushvalue(L, methods);
	lua_setfield(L, mt, "__index");
	if (gc) {	/* a closed file has nothing to finalize (set_closed) */
		lua_pushvalue(L, -1);
		lua_setfield(L, mt, "__gc");
	}
	lua_pushvalue(L, -1);
	lua_setfield(L, mt, "__close");
	lua_pushliteral(L, FILE_MT);
	lua_setfield(L, mt, "__metatable");
}

void fileapi_register(lua_State *L)
{
	int open, closed, methods;

	if (luaL_getmetatable(L, FILE_MT) != LUA_TNIL) {
		lua_pop(L, 1);
		return;
	}
	lua_pop(L, 1);
	luaL_newmetatable(L, FILE_MT);
	open = lua_gettop(L);
	luaL_newmetatable(L, CLOSED_MT);
	closed = lua_gettop(L);
	lua_createtable(L, 0, sizeof(file_methods) / sizeof(file_methods[0]));
	methods = lua_gettop(L);
	lua_pushvalue(L, open);
	lua_pushvalue(L, closed);
	luaL_setfuncs(L, file_methods, 2);	/* pops the two */
	lua_pushvalue(L, open);
	lua_pushvalue(L, closed);
	lua_pushcclosure(L, f_gc, 2);
	fill_mt(L, open, methods, 1);
	fill_mt(L, closed, methods, 0);
	lua_settop(L, open - 1);
}
