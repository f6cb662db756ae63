/* bench/lualimit: the least a Lua 5.4 loop can do per op through io_uring — the floor under fsplan's Lua runtime. */
/*
 *   lualimit MODULE FILE SECONDS [direct]
 *
 * Runs MODULE's worker (bench/randread_ops.lua: `while not w:done() do
 * assert(f:read((w:random(blocks) - 1) * block, block)) end`) in a bare
 * lua_State with the base library, against the thinnest bindings that
 * keep the shapes fsplan gives a phase: w a table with its methods on
 * it, a file a full userdata with its methods behind __index.
 *   w:open(path, mode, {direct})  open(2), the file's fd in the userdata
 *   f:read(off, len)              one read on one ring (depth 1): get an
 *                                 SQE, submit and wait, take the CQE
 *   w:random(n)                   xorshift64*, 1..n
 *   w:done()                      a clock read against SECONDS
 * No latency, no histogram, no sandbox, no engine: what is left over the
 * limit (bench/limit.c) is what the interpreter and the C API cost.
 * Prints one line, as limit does:
 *   lualimit: ops=N seconds=S iops=I cpu_us_per_op=C
 * Exit status 1 on any error, with the reason on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <liburing.h>

#include "timing.h"

static struct io_uring ring;
static unsigned char *buf;
static size_t buf_len;
static uint64_t rng = 0x9e3779b97f4a7c15ull, ops;
static double t_end;

static int f_read(lua_State *L)
{
	int *fd = lua_touserdata(L, 1);
	lua_Integer off = luaL_checkinteger(L, 2), len = luaL_checkinteger(L, 3);
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int ret;

	if (!fd || len < 0 || (size_t)len > buf_len)
		return luaL_error(L, "read: bad file or length");
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, *fd, buf, (unsigned)len, (uint64_t)off);
	ret = io_uring_submit_and_wait(&ring, 1);
	if (ret >= 0)
		ret = io_uring_peek_cqe(&ring, &cqe);
	if (ret < 0)
		return luaL_error(L, "read: %s", strerror(-ret));
	ret = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	if (ret < 0) {
		lua_pushnil(L);
		lua_pushstring(L, strerror(-ret));
		return 2;
	}
	ops++;
	lua_pushinteger(L, ret);
	return 1;
}

static int f_close(lua_State *L)
{
	int *fd = lua_touserdata(L, 1);

	if (fd && *fd >= 0)
		close(*fd);
	if (fd)
		*fd = -1;
	lua_pushboolean(L, 1);
	return 1;
}

static int w_open(lua_State *L)
{
	const char *path = luaL_checkstring(L, 2);
	int direct = 0, *fd;

	if (lua_istable(L, 4)) {
		lua_getfield(L, 4, "direct");
		direct = lua_toboolean(L, -1);
		lua_pop(L, 1);
	}
	fd = lua_newuserdatauv(L, sizeof(*fd), 0);
	luaL_setmetatable(L, "lualimit.file");
	*fd = open(path, O_RDONLY | (direct ? O_DIRECT : 0));
	if (*fd < 0) {
		lua_pushnil(L);
		lua_pushfstring(L, "%s: %s", path, strerror(errno));
		return 2;
	}
	return 1;
}

static int w_random(lua_State *L)
{
	lua_Integer n = luaL_checkinteger(L, 2);

	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	lua_pushinteger(L, (lua_Integer)((rng * 0x2545f4914f6cdd1dull) %
					 (uint64_t)n) + 1);
	return 1;
}

static int w_done(lua_State *L)
{
	lua_pushboolean(L, now() >= t_end);
	return 1;
}

static const luaL_Reg file_methods[] = {
	{ "read", f_read }, { "close", f_close }, { NULL, NULL }
};

static const luaL_Reg worker_methods[] = {
	{ "open", w_open }, { "random", w_random }, { "done", w_done },
	{ NULL, NULL }
};

/* ctx = { params = { file, block, size, seconds, direct } } */
static void push_ctx(lua_State *L, const char *file, lua_Integer size,
		     double secs, int direct)
{
	lua_createtable(L, 0, 1);
	lua_createtable(L, 0, 5);
	lua_pushstring(L, file);
	lua_setfield(L, -2, "file");
	lua_pushinteger(L, 4096);
	lua_setfield(L, -2, "block");
	lua_pushinteger(L, size);
	lua_setfield(L, -2, "size");
	lua_pushnumber(L, secs);
	lua_setfield(L, -2, "seconds");
	lua_pushboolean(L, direct);
	lua_setfield(L, -2, "direct");
	lua_setfield(L, -2, "params");
}

int main(int argc, char **argv)
{
	lua_State *L;
	double secs, t0, t1, c0, c1;
	int direct, ret, fd;
	off_t size;

	if (argc < 4) {
		fprintf(stderr, "usage: lualimit MODULE FILE SECONDS "
			"[direct]\n");
		return 2;
	}
	secs = atof(argv[3]);
	direct = argc > 4 && !strcmp(argv[4], "direct");
	if (secs <= 0) {
		fprintf(stderr, "lualimit: seconds > 0\n");
		return 2;
	}
	fd = open(argv[2], O_RDONLY);
	size = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	if (size < 4096) {
		fprintf(stderr, "lualimit: %s: %s\n", argv[2],
			size < 0 ? strerror(errno) : "smaller than a block");
		return 1;
	}
	close(fd);
	buf_len = 1 << 20;
	if (posix_memalign((void **)&buf, 4096, buf_len)) {
		fprintf(stderr, "lualimit: out of memory\n");
		return 1;
	}
	memset(buf, 0, buf_len);
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret < 0) {
		fprintf(stderr, "lualimit: io_uring_queue_init: %s\n",
			strerror(-ret));
		return 1;
	}
	L = luaL_newstate();
	if (!L) {
		fprintf(stderr, "lualimit: no Lua state\n");
		return 1;
	}
	luaL_requiref(L, "_G", luaopen_base, 1);
	lua_pop(L, 1);
	luaL_newmetatable(L, "lualimit.file");
	luaL_newlib(L, file_methods);
	lua_setfield(L, -2, "__index");
	lua_pop(L, 1);
	if (luaL_loadfile(L, argv[1]) || lua_pcall(L, 0, 1, 0) ||
	    lua_getfield(L, -1, "worker") != LUA_TFUNCTION) {
		fprintf(stderr, "lualimit: %s: %s\n", argv[1],
			lua_isstring(L, -1) ? lua_tostring(L, -1) :
			"no worker function");
		return 1;
	}
	lua_createtable(L, 0, 3);
	luaL_setfuncs(L, worker_methods, 0);
	push_ctx(L, argv[2], (lua_Integer)size, secs, direct);
	c0 = cpu_s();
	t0 = now();
	t_end = t0 + secs;
	if (lua_pcall(L, 2, 0, 0)) {
		fprintf(stderr, "lualimit: %s\n", lua_tostring(L, -1));
		return 1;
	}
	t1 = now();
	c1 = cpu_s();
	printf("lualimit: ops=%llu seconds=%.3f iops=%.0f cpu_us_per_op=%.3f\n",
	       (unsigned long long)ops, t1 - t0, (double)ops / (t1 - t0),
	       ops ? (c1 - c0) * 1e6 / (double)ops : 0.0);
	lua_close(L);
	io_uring_queue_exit(&ring);
	return 0;
}
