/* test_workerapi: the w:... methods in a sandbox on a real directory — and
 * nothing they hold leaks when they raise. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "e2e.h"
#include "engine.h"
#include "phase/sandbox.h"
#include "phase/workerapi.h"
#include "phase/worker.h"
#include "luacall.h"

static struct sandbox_limits lim = { 64u << 20, 0, NULL, "/nonexistent", NULL };
static struct worker w;
static lua_State *L;
static char dir[64];

static void finish(void)
{
	if (L)
		sandbox_close(L);
	L = NULL;
	worker_free(&w);
	if (w.workfd > 0)
		close(w.workfd);
	memset(&w, 0, sizeof(w));
	e2e_cleanup();
}

/* How many fds this process has open. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	cr_assert_not_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* A worker on the sync engine in a fresh directory, and a sandbox with
 * its `w`. */
static void start(void)
{
	struct diag d = { 0 };
	int fd;

	snprintf(dir, sizeof(dir), "%s", e2e_tmpdir());
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	w.id = 1;
	w.workers = 1;
	cr_assert_eq(worker_init(&w, &engine_sync, fd, NULL, 0, 1, 1, &d), 0,
		     "%s", d.msg);
	L = sandbox_new(&lim);
	cr_assert_not_null(L);
}

/* Run code as a function of w; 0, or -1 with its error in err. */
static int run(const char *code, char *err, size_t len)
{
	cr_assert_eq(luaL_loadstring(L, code), LUA_OK, "%s",
		     lua_tostring(L, -1));
	lua_newtable(L);
	workerapi_push(L, &w, -1);
	lua_remove(L, -2);
	return call_text(L, 1, 1, err, len);
}

static void make_files(int n, size_t name_len)
{
	char path[400];

	for (int i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/%0*d", dir, (int)name_len, i);
		fd = open(path, O_WRONLY | O_CREAT, 0644);
		cr_assert_geq(fd, 0);
		close(fd);
	}
}

Test(workerapi, readdir_lists_the_names_and_refuses_dotdot, .fini = finish)
{
	char err[1024] = "";

	start();
	make_files(3, 4);
	cr_assert_eq(run("local w = ...\n"
			 "local t = w:readdir()\n"
			 "table.sort(t)\n"
			 "return table.concat(t, ',')", err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_str_eq(lua_tostring(L, -1), "0000,0001,0002");
	lua_pop(L, 1);
	cr_expect_neq(run("local w = ... return w:readdir('..')", err,
			  sizeof(err)), 0);
	cr_expect(strstr(err, "'..' would leave the work directory"), "%s",
		  err);
	cr_expect_eq(metrics_find_op(&w.m, "readdir")->lat.count, 1);
}

Test(workerapi, readdir_out_of_memory_leaks_no_directory, .fini = finish)
{
	char err[1024] = "";
	int before;

	start();
	make_files(2000, 200);
	before = open_fds();
	/* room for the state, not for 2000 names of 200 bytes */
	lim.mem_bytes = sandbox_mem(L, NULL) + (64u << 10);
	cr_expect_neq(run("local w = ... return w:readdir()", err,
			  sizeof(err)), 0);
	lim.mem_bytes = 64u << 20;
	cr_expect(strstr(err, "not enough memory"), "%s", err);
	lua_gc(L, LUA_GCCOLLECT);
	cr_expect_eq(open_fds(), before, "the DIR of the raising readdir is "
		     "still open");
}

Test(workerapi, a_bad_second_path_leaks_no_fd_of_the_first, .fini = finish)
{
	char err[1024] = "", sub[128];
	int before;

	start();
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	before = open_fds();
	cr_expect_neq(run("local w = ... return w:rename('sub/a', '../b')",
			  err, sizeof(err)), 0);
	cr_expect(strstr(err, "'../b'"), "%s", err);
	lua_gc(L, LUA_GCCOLLECT);
	cr_expect_eq(open_fds(), before);
}

Test(workerapi, path_ops_and_stat_through_the_engine, .fini = finish)
{
	char err[1024] = "";

	start();
	cr_assert_eq(run("local w = ...\n"
			 "assert(w:mkdir('a'))\n"
			 "local f = assert(w:open('a/f', 'w'))\n"
			 "f:write(0, 'hello')\n"
			 "f:close()\n"
			 "assert(w:rename('a/f', 'a/g'))\n"
			 "assert(w:symlink('g', 'a/l'))\n"
			 "local st = assert(w:stat('a/l'))\n"
			 "assert(w:unlink('a/l'))\n"
			 "local ok, msg, errno = w:stat('a/f')\n"
			 "assert(ok == nil and errno == 2, msg)\n"
			 "return st.size", err, sizeof(err)), 0, "%s", err);
	/* w:stat follows a symlink that stays beneath */
	cr_expect_eq(lua_tointeger(L, -1), 5);
	cr_expect_eq(metrics_find_op(&w.m, "rename")->lat.count, 1);
	cr_expect_eq(metrics_find_op(&w.m, "stat")->lat.count, 2);
}

/* w:files times each file under its tag and each system call under its
 * name: once, not twice, where the two are one name. */
Test(workerapi, files_counts_a_file_once_when_the_tag_is_its_op, .fini = finish)
{
	char err[1024] = "";

	start();
	cr_assert_eq(run("local w = ...\n"
			 "local names = {}\n"
			 "for i = 1, 10 do names[i] = 'f' .. i end\n"
			 "assert(w:files('create', names) == 10)\n"
			 "assert(w:files('stat', names) == 10)\n"
			 "assert(w:files('unlink', names) == 10)\n"
			 "for i = 1, 10 do names[i] = 'g' .. i end\n"
			 "assert(w:files('create', names, { tag = 'close' }))\n"
			 "assert(w:files('stat', names, { tag = 'st' }))\n",
			 err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(metrics_find_op(&w.m, "create")->lat.count, 10);
	cr_expect_eq(metrics_find_op(&w.m, "stat")->lat.count, 20);
	cr_expect_eq(metrics_find_op(&w.m, "st")->lat.count, 10);
	cr_expect_eq(metrics_find_op(&w.m, "unlink")->lat.count, 10);
	cr_expect_eq(metrics_find_op(&w.m, "open")->lat.count, 20);
	cr_expect_eq(metrics_find_op(&w.m, "close")->lat.count, 20);
}

Test(workerapi, identity_is_who_runs_it, .fini = finish)
{
	char err[1024] = "", want[32];

	start();
	cr_assert_eq(run("local w = ... local id = w:identity()\n"
			 "return id.Uid .. ' ' .. id.NoNewPrivs", err,
			 sizeof(err)), 0, "%s", err);
	snprintf(want, sizeof(want), "%d ", (int)getuid());
	cr_expect(!strncmp(lua_tostring(L, -1), want, strlen(want)),
		  "%s, not uid %s", lua_tostring(L, -1), want);
}

Test(workerapi, scandir_counts_and_finds_a_name_ignoring_case, .fini = finish)
{
	char err[1024] = "", sub[128];
	int before;

	start();
	make_files(300, 12);	/* several getdents64 buffers' worth */
	snprintf(sub, sizeof(sub), "%s/MixedCase", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	before = open_fds();
	cr_assert_eq(run("local w = ...\n"
			 "local n, hit = w:scandir('.', 'mixedcase')\n"
			 "local m, miss = w:scandir('.', 'nothere')\n"
			 "local k, none = w:scandir('.')\n"
			 "assert(m == n and k == n and miss == nil and "
			 "none == nil)\n"
			 "assert(select('#', w:scandir('gone')) == 3)\n"
			 "return n .. ' ' .. hit", err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_str_eq(lua_tostring(L, -1), "301 MixedCase");
	cr_expect_eq(open_fds(), before, "a scan left its directory open");
	cr_expect_eq(metrics_find_op(&w.m, "readdir")->lat.count, 3);
	cr_expect_neq(run("local w = ... return w:scandir('../x')", err,
			  sizeof(err)), 0);
	cr_expect(strstr(err, "'..' would leave the work directory"), "%s",
		  err);
}

Test(workerapi, copy_copies_the_bytes_at_the_offset, .fini = finish)
{
	char err[1024] = "";

	start();
	cr_assert_eq(run("local w = ...\n"
			 "local a = assert(w:open('a', 'w'))\n"
			 "assert(a:write(0, '0123456789'))\n"
			 "a:close()\n"
			 "a = assert(w:open('a', 'r'))\n"
			 "local b = assert(w:open('b', 'w'))\n"
			 "assert(a:copy(b) == 10)\n"
			 "local c = assert(w:open('c', 'w'))\n"
			 "assert(a:copy(c, 4, 3) == 3)\n"
			 "assert(a:copy(c, 20) == 0)\n"
			 "local d = assert(w:open('d', 'w'))\n"
			 "assert(a:copy(d, 2, nil, 'buffer') == 8)\n"
			 "d:close()\n"
			 "local ok, msg = pcall(a.copy, a, c, 0, 1, 'reflink')\n"
			 "assert(not ok and msg:find('invalid option'), msg)\n"
			 "local ok, msg = pcall(a.copy, a, 'c')\n"
			 "assert(not ok and msg:find('file expected, got string'), msg)\n"
			 "for _, f in ipairs({ a, b, c }) do f:close() end\n"
			 "b = assert(w:open('b', 'r'))\n"
			 "c = assert(w:open('c', 'r'))\n"
			 "local _, x = b:read(0, 100, true)\n"
			 "local _, y = c:read(0, 100, true)\n"
			 "return x .. '|' .. y:gsub('%z', '.')", err,
			 sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(lua_tostring(L, -1), "0123456789|....456");
	cr_expect_eq(metrics_find_op(&w.m, "copy")->lat.count, 4);
	cr_expect_eq(metrics_find_op(&w.m, "copy")->bytes, 21);
}

/* w:cpu: the total, then user and system apart (ffsb's %User, %System). */
Test(workerapi, cpu_gives_user_and_system_apart, .fini = finish)
{
	char err[1024] = "";

	start();
	cr_assert_eq(run("local w = ...\n"
			 "local x = 0\n"
			 "for i = 1, 3e6 do x = x + i % 7 end\n"
			 "local t, u, s = assert(w:cpu())\n"
			 "assert(math.abs(t - (u + s)) < 1e-9,\n"
			 "       t .. ' ' .. u .. ' ' .. s)\n"
			 "return u", err, sizeof(err)), 0, "%s", err);
	cr_expect_gt(lua_tonumber(L, -1), 0, "a busy loop used no user time");
}

/* A stream inside w:op is the op's: no row of its own (ffsb's create is
 * its writes), while outside one each request is a row's. */
Test(workerapi, a_stream_inside_an_op_is_the_ops, .fini = finish)
{
	char err[1024] = "";

	start();
	cr_assert_eq(run("local w = ...\n"
			 "local f = assert(w:open('s', 'w'))\n"
			 "f:write(0, string.rep('x', 16384))\n"
			 "f:close()\n"
			 "f = assert(w:open('s', 'r'))\n"
			 "local b, n = w:op('create', function()\n"
			 "  return f:stream{ op = 'read', block = 4096,\n"
			 "                   count = 4 }\n"
			 "end)\n"
			 "assert(b == 16384 and n == 4, tostring(b) .. ' ' .. "
			 "tostring(n))\n"
			 "assert(f:stream{ op = 'read', block = 4096,\n"
			 "                 count = 2, tag = 'plain' })\n"
			 "f:close()", err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(metrics_find_op(&w.m, "create")->lat.count, 1);
	cr_expect_null(metrics_find_op(&w.m, "read"));
	cr_expect_eq(metrics_find_op(&w.m, "plain")->lat.count, 2);
	cr_expect_eq(metrics_find_op(&w.m, "plain")->bytes, 8192);
}

/* The contents of dir/name into buf (up to len); the bytes read. */
static size_t slurp(const char *name, unsigned char *buf, size_t len)
{
	char path[400];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "%s", path);
	n = read(fd, buf, len);
	close(fd);
	cr_assert_geq(n, 0);
	return (size_t)n;
}

/* An untimed lone stream on the sync engine makes its calls in a loop of
 * its own: the same bytes at the same offsets as the engine's way, a read
 * stops at the end of the file, and an error names the file */
Test(workerapi, an_untimed_stream_moves_what_a_timed_one_does,
     .fini = finish)
{
	static unsigned char a[8192], b[8192];
	char err[1024] = "";

	start();
	cr_assert_eq(run("local w = ...\n"
			 "for _, t in ipairs{ { 'a', false }, { 'b', true } } do\n"
			 "  local f = assert(w:open(t[1], 'w'))\n"
			 "  assert(f:stream{ op = 'write', block = 1, offset = 7,\n"
			 "                   bytes = 4096, timed = t[2] })\n"
			 "  f:close()\n"
			 "end\n"
			 "local f = assert(w:open('a', 'r'))\n"
			 "local bytes, n = assert(f:stream{ op = 'read', block = 1,\n"
			 "                 count = 9000, timed = false })\n"
			 "assert(bytes == 4103 and n == 4103, bytes .. ' ' .. n)\n"
			 "f:close()", err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(slurp("a", a, sizeof(a)), 4103);
	cr_expect_eq(slurp("b", b, sizeof(b)), 4103);
	cr_expect_eq(memcmp(a, b, 4103), 0);
	cr_expect_eq(w.m.written, 2 * 4096);
	cr_expect_neq(run("local w = ...\n"
			  "local f = assert(w:open('a', 'r'))\n"
			  "assert(f:stream{ op = 'write', block = 1, bytes = 10,\n"
			  "                 tag = 'putc', timed = false })",
			  err, sizeof(err)), 0);
	cr_expect(strstr(err, "a: Bad file descriptor"), "%s", err);
}

/* threads = true: every request made and timed once, its bytes written
 * where a stream writes them; a rewrite or a threads that is not a
 * boolean raises */
Test(workerapi, a_threaded_stream_makes_and_times_each_request_once,
     .fini = finish)
{
	static unsigned char a[65536], b[65536];
	const struct op_stat *st;
	char err[1024] = "";

	start();
	cr_assert_eq(run("local w = ...\n"
			 "local f = assert(w:open('s', 'w'))\n"
			 "assert(f:stream{ op = 'write', block = 4096, bytes = '1M' })\n"
			 "f:close()\n"
			 "f = assert(w:open('s', 'r'))\n"
			 "local b, n = assert(f:stream{ op = 'read', pattern = 'random',\n"
			 "    block = 4096, count = 1000, depth = 5, threads = true,\n"
			 "    tag = 'seeks' })\n"
			 "assert(b == 4096000 and n == 1000, b .. ' ' .. n)\n"
			 "f:close()\n"
			 "for _, t in ipairs{ { 'x', false }, { 'y', true } } do\n"
			 "  f = assert(w:open(t[1], 'w'))\n"
			 "  b, n = assert(f:stream{ op = 'write', block = 4096,\n"
			 "      bytes = '64k', depth = 4, threads = t[2] })\n"
			 "  assert(b == 65536 and n == 16, b .. ' ' .. n)\n"
			 "  f:close()\n"
			 "end", err, sizeof(err)), 0, "%s", err);
	st = metrics_find_op(&w.m, "seeks");
	cr_assert_not_null(st);
	cr_expect_eq(st->lat.count, 1000);
	cr_expect_eq(st->bytes, 4096000);
	cr_expect_eq(st->sys, 1000);
	cr_expect_eq(w.m.written, (1u << 20) + 2 * 65536);
	cr_expect_eq(slurp("x", a, sizeof(a)), 65536);
	cr_expect_eq(slurp("y", b, sizeof(b)), 65536);
	cr_expect_eq(memcmp(a, b, sizeof(a)), 0);
	cr_expect_neq(run("local w = ...\n"
			  "w:open('s', 'rw'):stream{ op = 'rewrite', depth = 2,\n"
			  "  threads = true }", err, sizeof(err)), 0);
	cr_expect(strstr(err, "not a rewrite"), "%s", err);
	cr_expect_neq(run("local w = ...\n"
			  "w:open('s', 'r'):stream{ count = 2, threads = 1 }",
			  err, sizeof(err)), 0);
	cr_expect(strstr(err, "threads is true or false"), "%s", err);
	/* every thread's write fails: the stream fails, naming the file */
	err[0] = '\0';
	cr_expect_neq(run("local w = ...\n"
			  "assert(w:open('s', 'r'):stream{ op = 'write',\n"
			  "  pattern = 'random', block = 4096, count = 100,\n"
			  "  span = '64k', depth = 5, threads = true })",
			  err, sizeof(err)), 0);
	cr_expect(strstr(err, "s: Bad file descriptor"), "%s", err);
}

/* How many threads this process has. */
static int tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	struct dirent *e;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The writer end of threaded_reads_block_together's FIFO: once the
 * readers are all blocked (most: the threads seen at once), a byte each. */
static void *fifo_writer(void *arg)
{
	int *most = arg, base = tasks(), fd;
	char path[400];

	snprintf(path, sizeof(path), "%s/fifo", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (int i = 0; i < 500 && *most < base + 3; i++) {
		int n = tasks();

		if (n > *most)
			*most = n;
		usleep(10000);
	}
	*most -= base;
	if (write(fd, "abcd", 4) != 4)
		*most = -1;
	close(fd);
	return NULL;
}

/* threads = true at depth 4: four calls blocked at once, in the worker's
 * thread and three more, which are gone when the stream returns */
Test(workerapi, threaded_reads_block_together, .fini = finish)
{
	char err[1024] = "", path[400];
	pthread_t t;
	int most = 0, before;

	start();
	snprintf(path, sizeof(path), "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	before = tasks();
	cr_assert_eq(pthread_create(&t, NULL, fifo_writer, &most), 0);
	cr_expect_eq(run("local w = ...\n"
			 "local f = assert(w:open('fifo', 'r'))\n"
			 "local b, n = assert(f:stream{ op = 'read', block = 1,\n"
			 "    count = 4, depth = 4, threads = true })\n"
			 "assert(b == 4 and n == 4, b .. ' ' .. n)\n"
			 "f:close()", err, sizeof(err)), 0, "%s", err);
	pthread_join(t, NULL);
	cr_expect_eq(most, 3, "%d threads more while the reads blocked", most);
	cr_expect_eq(tasks(), before);
}

/* timed = false: the bytes move, one op a byte, and the stream records
 * no op of its own (its caller times the loop); it needs bytes or count */
Test(workerapi, an_untimed_stream_moves_its_bytes_and_records_no_op,
     .fini = finish)
{
	char err[1024] = "";

	start();
	cr_assert_eq(run("local w = ...\n"
			 "local f = assert(w:open('u', 'rw'))\n"
			 "local b, n = w:time('chunk', function()\n"
			 "  return assert(f:stream{ op = 'write', block = 1,\n"
			 "                 bytes = 8192, timed = false })\n"
			 "end)\n"
			 "assert(b == 8192 and n == 8192, b .. ' ' .. n)\n"
			 "b, n = assert(f:stream{ op = 'read', block = 1,\n"
			 "              count = 100, timed = false })\n"
			 "assert(b == 100 and n == 100, b .. ' ' .. n)\n"
			 "f:close()", err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(metrics_find_op(&w.m, "chunk")->lat.count, 1);
	cr_expect_null(metrics_find_op(&w.m, "write"));
	cr_expect_null(metrics_find_op(&w.m, "read"));
	cr_expect_eq(w.m.written, 8192);
	err[0] = '\0';
	cr_expect_neq(run("local w = ...\n"
			  "return w:open('u', 'rw'):stream{ op = 'read', "
			  "seconds = 1, timed = false }", err, sizeof(err)), 0);
	cr_expect(strstr(err, "timed = false needs bytes or count"), "%s",
		  err);
	err[0] = '\0';
	cr_expect_neq(run("local w = ...\n"
			  "return w:open('u', 'rw'):stream{ op = 'read', "
			  "count = 1, timed = 'no' }", err, sizeof(err)), 0);
	cr_expect(strstr(err, "timed is true or false"), "%s", err);
}

/* A write stream's blocks may be larger than the shared source (2 MiB):
 * they take a source of their own, seeded, and write only its bytes. */
Test(workerapi, a_write_stream_of_big_blocks_writes_seeded_bytes, .fini = finish)
{
	char err[1024] = "";

	start();
	cr_assert_eq(run("local w = ...\n"
			 "local f = assert(w:open('big', 'rw'))\n"
			 "local b, n = assert(f:stream{ op = 'write', "
			 "block = '8M', count = 2, depth = 2 })\n"
			 "assert(b == 16 << 20 and n == 2, b .. ' ' .. n)\n"
			 "local _, s = assert(f:read(12 << 20, 4096, true))\n"
			 "f:close()\n"
			 "return s", err, sizeof(err)), 0, "%s", err);
	/* seeded bytes: not a run of eight zeros in 4 KiB */
	cr_expect_null(memmem(lua_tostring(L, -1), 4096, "\0\0\0\0\0\0\0\0",
			      8), "zeros in the written block");
}

/* memory: covers the C buffers behind the file API, not only Lua's: a
 * huge read, a stream's block x depth, a stdio buffer. */
Test(workerapi, the_memory_cap_covers_read_stream_and_stdio_buffers,
     .fini = finish)
{
	static const char *const big[] = {
		"local w = ... return w:open('f', 'rw'):read(0, '1G')",
		"local w = ... return w:open('f', 'rw'):stream{op = 'read', "
		"block = '64M', depth = 4, bytes = '256M'}",
		"local w = ... return w:open('f', 'rw'):write(0, "
		"string.rep('x', 64 << 20))",
		"local w = ... return w:open('f', 'rw'):stream{op = 'write', "
		"block = '64M', count = 1}",
	};
	char err[1024] = "";
	size_t peak;

	start();
	lim.mem_bytes = 32u << 20;
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		err[0] = '\0';
		cr_expect_neq(run(big[i], err, sizeof(err)), 0, "%s", big[i]);
		cr_expect(strstr(err, "not enough memory"), "%s: %s", big[i],
			  err);
	}
	/* a buffer says what it is for: a write's is its source */
	cr_expect(strstr(err, "-byte write source buffer (the phase's memory: "
			 "cap)"), "%s", err);
	/* what fits still works, and is counted */
	cr_expect_eq(run("local w = ... local f = w:open('f', 'rw')\n"
			 "assert(f:write(0, string.rep('x', 4 << 20)))\n"
			 "return f:read(0, 4 << 20)", err,
			 sizeof(err)), 0, "%s", err);
	cr_expect_eq(lua_tointeger(L, -1), 4 << 20);
	lua_pop(L, 1);
	cr_expect_geq(sandbox_mem(L, &peak), 4u << 20,
		      "the read buffer is not charged to the state");
	cr_expect_leq(peak, 32u << 20);
	/* the stdio buffer of a per-char stream (BUFSIZ, 8 KiB), with room
	 * for the chunk but not for it */
	lua_gc(L, LUA_GCCOLLECT);
	lim.mem_bytes = sandbox_mem(L, NULL) + 6000;
	cr_expect_neq(run("local w = ... return w:open('f', 'rw')"
			  ":getc_stream(10)", err, sizeof(err)), 0);
	cr_expect(strstr(err, "not enough memory"), "%s", err);
	lim.mem_bytes = 64u << 20;
}

/* The campaign's unclear messages: each says what went wrong, where. */
Test(workerapi, errors_say_what_went_wrong, .fini = finish)
{
	static const struct { const char *code, *want; } cases[] = {
		{ "w:open('out/x', 'w')",
		  "out/x: a symlink on this path leads outside the work "
		  "directory" },
		{ "w:stat('out/x')", "leads outside the work directory" },
		{ "w:open('a\\0/../../x', 'w')", "NUL byte" },
		{ "w:unlink('a\\0b')", "NUL byte" },
		{ "w:open('f', 'w'):stream{op = 'write', block = -1, "
		  "bytes = 1}", "stream: block must not be negative" },
		{ "w:open('f', 'w'):stream{op = 'write', block = 'big', "
		  "bytes = 1}", "stream: block is a size such as 4096 or "
		  "\"4k\", not 'big'" },
		{ "w:open('f', 'w'):stream{op = 'write', depth = {}, "
		  "bytes = 1}", "stream: depth is a size" },
		{ "w:open('f', 'w'):stream{op = 'write', seconds = -1}",
		  "stream: seconds must not be negative" },
		{ "w:utime('f', 1e30)", "a time in seconds" },
		{ "w:open(string.rep('a', 5000), 'r')",
		  "...aaaaaaaaaaaaaaaaaaaaaaaa (5000 bytes): File name too "
		  "long" },
	};
	char err[1024], code[512], out[300];

	start();
	snprintf(out, sizeof(out), "%s/out", dir);
	cr_assert_eq(symlink("/tmp", out), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *msg;

		err[0] = '\0';
		snprintf(code, sizeof(code), "local w = ...\n"
			 "local ok, a, b = pcall(function() return %s end)\n"
			 "if not ok then return a end\n"
			 "return b", cases[i].code);
		cr_assert_eq(run(code, err, sizeof(err)), 0, "%s: %s",
			     cases[i].code, err);
		msg = lua_tostring(L, -1);
		cr_expect(msg && strstr(msg, cases[i].want), "%s: '%s' lacks "
			  "'%s'", cases[i].code, msg, cases[i].want);
		cr_expect(!msg || strlen(msg) < 200, "%s: %zu bytes",
			  cases[i].code, strlen(msg));
		lua_pop(L, 1);
	}
}

/* Intervals as wide as the integers (found by fuzz_workerapi: hi - lo
 * overflowed, and the full range divided by zero). */
Test(workerapi, random_takes_the_widest_intervals, .fini = finish)
{
	char err[1024] = "";

	start();
	cr_assert_eq(run("local w = ...\n"
			 "local a = w:random(-1, math.maxinteger)\n"
			 "local b = w:random(math.mininteger, math.maxinteger)\n"
			 "assert(a >= -1)\n"
			 "return w:random(3, 3) + (b and 0)", err, sizeof(err)),
		     0, "%s", err);
	cr_expect_eq(lua_tointeger(L, -1), 3);
}

/* A 0-byte read before any other: the engine gets a buffer, not NULL
 * (UBSan: NULL + 0 in the engine's arithmetic; found by fuzz_workerapi). */
Test(workerapi, a_zero_byte_read_has_a_buffer, .fini = finish)
{
	char err[1024] = "";

	start();
	cr_assert_eq(run("local w = ... local f = assert(w:open('z', 'w'))\n"
			 "f:close() f = assert(w:open('z', 'r'))\n"
			 "return f:read(0, 0)", err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_eq(lua_tointeger(L, -1), 0);
	cr_expect_not_null(w.buf);
}

/* w:op: fn's results come back, the ops inside are the op's, a nested
 * w:op is part of the outer one, and a raise inside (caught) leaves
 * the API recording again. */
Test(workerapi, op_times_fn_as_one_op_and_recovers_from_a_raise,
     .fini = finish)
{
	char err[1024] = "";

	start();
	cr_assert_eq(run("local w = ...\n"
			 "local a, b = w:op('outer', function(x)\n"
			 "  assert(w:mkdir('d'))\n"
			 "  w:op('inner', function() assert(w:rmdir('d')) end)\n"
			 "  return x + 1, 'two'\n"
			 "end, 41)\n"
			 "assert(a == 42 and b == 'two', tostring(a))\n"
			 "local ok = pcall(w.op, w, 'outer', function()\n"
			 "  error('inside')\n"
			 "end)\n"
			 "assert(not ok)\n"
			 "assert(w:mkdir('e'))\n"
			 "assert(select('#', w:op(false, function() end)) == 0)",
			 err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(metrics_find_op(&w.m, "outer")->lat.count, 2);
	cr_expect_eq(metrics_find_op(&w.m, "mkdir")->lat.count, 1,
		     "the mkdir inside is the op's, the one after its own");
	cr_expect_null(metrics_find_op(&w.m, "rmdir"));
	cr_expect(!metrics_find_op(&w.m, "inner") ||
		  !metrics_find_op(&w.m, "inner")->lat.count,
		  "a nested op is part of the outer one");
}

/* w:lookup: true for a name that exists (a symlink not followed), the
 * directory's own spelling for one that differs in case, nil for none
 * (and for a missing directory), without a message. */
Test(workerapi, lookup_resolves_names_as_an_smb_server, .fini = finish)
{
	char err[1024] = "", sub[128];

	start();
	snprintf(sub, sizeof(sub), "%s/Dir", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	cr_assert_eq(run("local w = ...\n"
			 "local f = assert(w:open('Dir/File.TXT', 'w'))\n"
			 "f:close()\n"
			 "assert(w:symlink('nowhere', 'Dir/link'))\n"
			 "assert(w:lookup('Dir/File.TXT') == true)\n"
			 "assert(w:lookup('Dir/link') == true)\n"
			 "assert(w:lookup('Dir') == true)\n"
			 "local a = w:lookup('Dir/file.txt')\n"
			 "assert(select('#', w:lookup('Dir/none')) == 1)\n"
			 "assert(w:lookup('Dir/none') == nil)\n"
			 "assert(w:lookup('Gone/x') == nil)\n"
			 "return a", err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(lua_tostring(L, -1), "File.TXT");
	cr_expect_neq(run("local w = ... return w:lookup('../x')", err,
			  sizeof(err)), 0);
	cr_expect(strstr(err, "'..' would leave the work directory"), "%s",
		  err);
}

/* A file's name in messages is its path; a long one keeps both ends and
 * says how long it is, never cut short where it ends. */
Test(workerapi, a_long_paths_file_is_named_by_its_ends, .fini = finish)
{
	char err[1024] = "";

	start();
	cr_assert_eq(run("local w = ...\n"
			 "local d = string.rep('d', 150)\n"
			 "assert(w:mkdir(d))\n"
			 "local f = assert(w:open(d .. '/' .. "
			 "string.rep('f', 150) .. '.end', 'w'))\n"
			 "f:close()\n"
			 "local ok, msg = pcall(f.read, f, 1)\n"
			 "return msg", err, sizeof(err)), 0, "%s", err);
	cr_expect(strstr(lua_tostring(L, -1), "ddd...") &&
		  strstr(lua_tostring(L, -1), "ff.end (305 bytes)' is closed"),
		  "%s", lua_tostring(L, -1));
	lua_pop(L, 1);
}

/* f:group_commit alone: each record its own turn, written from the start
 * of the block the last one ended in to the end of its own, in two
 * writes where the circular log wraps; the log never grows past its
 * size; what each call says it wrote is what the op counted. */
Test(workerapi, group_commit_alone_writes_each_record_in_whole_blocks,
     .fini = finish)
{
	const uint64_t len = 700, block = 512, size = 8192, n = 200;
	uint64_t bytes = 0, writes = 0;
	const struct op_stat *st;
	unsigned char *src;
	char err[1024] = "";

	start();
	/* the bytes a leader writes: a worker's source, as a phase run's */
	src = worker_source(1, &w.src_len);
	cr_assert_not_null(src);
	w.src = src;
	cr_assert_eq(run("local w = ...\n"
			 "local f = assert(w:open('log', 'rw'))\n"
			 "local o = { size = 8192, write = 'lw', sync = 'ls' }\n"
			 "local mine = 0\n"
			 "for _ = 1, 200 do\n"
			 "  local ok, b = f:group_commit(700, o)\n"
			 "  assert(ok == true and b > 0, tostring(b))\n"
			 "  mine = mine + b\n"
			 "  assert(f:size() <= 8192, f:size())\n"
			 "end\n"
			 "w:count('mine', mine)\n"
			 "f:close()", err, sizeof(err)), 0, "%s", err);
	for (uint64_t i = 1; i <= n; i++) {
		uint64_t lo = (i - 1) * len / block * block;
		uint64_t hi = (i * len + block - 1) / block * block;

		bytes += hi - lo;
		writes += 1 + (lo % size + (hi - lo) > size);
	}
	st = metrics_find_op(&w.m, "lw");
	cr_assert_not_null(st);
	cr_expect_eq(st->bytes, bytes);
	cr_expect_eq(st->lat.count, writes);
	cr_expect_gt(writes, n, "the log wrapped");
	st = metrics_find_op(&w.m, "ls");
	cr_assert_not_null(st);
	cr_expect_eq(st->lat.count, n);
	cr_expect_eq(w.m.written, bytes);
	free(src);
}

/* What f:group_commit refuses, each with its message. */
Test(workerapi, group_commit_misuse_raises, .fini = finish)
{
	static const char *const bad[][2] = {
		{ "f:group_commit(10)", "bad argument #2" },
		{ "f:group_commit(10, {})", "size (the log's bytes) is missing" },
		{ "f:group_commit(10, { size = 1000 })",
		  "size 1000 is not a whole number of blocks of 512" },
		{ "f:group_commit(10, { size = 4096, block = 3000 })",
		  "blocks of 3000, a power of 2" },
		{ "f:group_commit(0, { size = 4096 })",
		  "a record of 0 bytes: 1 to the log's size, 4096" },
		{ "f:group_commit(5000, { size = 4096 })",
		  "a record of 5000 bytes" },
		{ "f:group_commit(10, { size = 4096, blok = 512 })",
		  "unknown option 'blok' (size, block, write, sync)" },
		{ "f:group_commit(10, { size = 4096, write = 3 })",
		  "write is a number, not an op's name" },
		{ "f:group_commit(10, { size = 4096, sync = 'a b' })",
		  "sync 'a b' is not a name" },
		{ "f:group_commit(-1, { size = 4096 })", "negative size" },
		{ "f:group_commit(0/0, { size = 4096 })", "NaN, not a size" },
		{ "f:group_commit(1e300, { size = 4096 })",
		  "a size past 2^63" },
		{ "f:group_commit(10, { size = 0/0 })",
		  "f:group_commit: size is NaN, not a size" },
		{ "f:group_commit(10, { size = 4096, block = 0 })",
		  "blocks of 0, a power of 2" },
		{ "f:group_commit(10, { size = 4096, write = 'x', sync = 'x' })",
		  "write and sync are both 'x'" },
	};
	char code[512], err[1024];

	start();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(code, sizeof(code), "local w = ...\n"
			 "local f = assert(w:open('log', 'rw'))\n%s", bad[i][0]);
		err[0] = '\0';
		cr_expect_neq(run(code, err, sizeof(err)), 0, "%s", bad[i][0]);
		cr_expect(strstr(err, bad[i][1]), "%s: %s", bad[i][0], err);
	}
}
