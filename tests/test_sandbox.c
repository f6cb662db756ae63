/* test_sandbox: phase code cannot escape its Lua state, hog or blow it up. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <criterion/redirect.h>
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "phase/sandbox.h"
#include "util/clock.h"
#include "luacall.h"

/*
 * Not in the corpus, on purpose: a pathological pattern such as
 * string.find(string.rep("a", 40), string.rep("a*", 40) .. "b") runs in
 * one C call, which the count hook cannot interrupt. The parent's
 * wall-clock kill and RLIMIT_CPU are what stop it.
 */
#define HOSTILE_DIR	"fixtures/hostile"
#define MIN_HOSTILE	30
#define MIB		((size_t)1 << 20)

static char libdir[256];
static volatile sig_atomic_t stop_flag;
static struct sandbox_limits lim;

static void put_file(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", libdir, name);
	f = fopen(path, "we");
	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

/* The phase library the tests require() from. */
static const struct {
	const char *name, *text;
} lib_files[] = {
	{ "mod.lua", "loads = loads + 1\n"
		     "return { name = ..., answer = 42 }\n" },
	{ "parse/fio.lua", "return { name = ... }\n" },
	{ "silent.lua", "local x = 1\n" },
	{ "broken.lua", "local x =\n= 2\n" },
	{ "fails.lua", "error('module failed')\n" },
	{ "loopa.lua", "return require('loopb')\n" },
	{ "loopb.lua", "return require('loopa')\n" },
	{ "runtime.lua", "local x = 1\nerror('boom')\n" },
};

#define N_LIB_FILES	(sizeof(lib_files) / sizeof(lib_files[0]))

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	char sub[PATH_MAX];
	int n;

	n = snprintf(libdir, sizeof(libdir), "%s/fsplan-sandbox-XXXXXX",
		     tmp && *tmp ? tmp : "/tmp");
	cr_assert(n > 0 && (size_t)n < sizeof(libdir), "TMPDIR too long");
	cr_assert(mkdtemp(libdir), "mkdtemp failed");
	snprintf(sub, sizeof(sub), "%s/parse", libdir);
	cr_assert(!mkdir(sub, 0755));
	for (size_t i = 0; i < N_LIB_FILES; i++)
		put_file(lib_files[i].name, lib_files[i].text);
	stop_flag = 0;
	lim = (struct sandbox_limits){ 32 * MIB, clock_now() + 2, &stop_flag,
				       libdir, NULL };
}

static void teardown(void)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < N_LIB_FILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", libdir,
			 lib_files[i].name);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/chunk.luac", libdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/parse", libdir);
	rmdir(path);
	rmdir(libdir);
}

TestSuite(sandbox, .init = setup, .fini = teardown, .timeout = 30);

static lua_State *new_state(void)
{
	lua_State *L = sandbox_new(&lim);

	cr_assert(L, "sandbox_new failed");
	return L;
}

/* Run code as chunk "=test" with nres results; 0 or -1 with err. */
static int run(lua_State *L, const char *code, int nres, char *err,
	       size_t len)
{
	if (luaL_loadbufferx(L, code, strlen(code), "=test", "t")) {
		snprintf(err, len, "%s", lua_tostring(L, -1));
		lua_pop(L, 1);
		return -1;
	}
	return call_text(L, 0, nres, err, len);
}

/* Run code that must succeed with one result. */
static void run_ok(lua_State *L, const char *code)
{
	char err[2048];

	cr_assert(!run(L, code, 1, err, sizeof(err)), "%s failed: %s", code,
		  err);
}

/* Run code that must fail with want in the message. */
static void run_fails(lua_State *L, const char *code, const char *want)
{
	char err[2048] = "";
	int top = lua_gettop(L);

	cr_assert(run(L, code, 1, err, sizeof(err)), "%s succeeded", code);
	cr_expect(strstr(err, want), "%s: message \"%s\" lacks \"%s\"", code,
		  err, want);
	cr_expect_eq(lua_gettop(L), top, "stack %d after the error, was %d",
		     lua_gettop(L), top);
}

/* ---- the hostile corpus ------------------------------------------------ */

struct hostile {
	char name[NAME_MAX + 1];
};

static int is_lua(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return n > 4 && !strcmp(de->d_name + n - 4, ".lua");
}

static void free_hostile(struct criterion_test_params *crp)
{
	cr_free(crp->params);
}

ParameterizedTestParameters(sandbox, hostile)
{
	struct dirent **list;
	struct hostile *h = NULL;
	int n = scandir(HOSTILE_DIR, &list, is_lua, alphasort);

	if (n > 0)
		h = cr_malloc(n * sizeof(*h));
	for (int i = 0; i < n; i++) {
		if (h)
			snprintf(h[i].name, sizeof(h[i].name), "%s",
				 list[i]->d_name);
		free(list[i]);
	}
	if (n >= 0)
		free(list);
	return cr_make_param_array(struct hostile, h, h ? n : 0,
				   free_hostile);
}

/* The `-- expect: SUBSTRING` first line, or "" if it has none. */
static void read_expect(const char *path, char *want, size_t len)
{
	char line[512] = "";
	FILE *f = fopen(path, "re");

	want[0] = '\0';
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && !strncmp(line, "-- expect: ", 11)) {
		line[strcspn(line, "\r\n")] = '\0';
		snprintf(want, len, "%s", line + 11);
	}
	fclose(f);
}

ParameterizedTest(struct hostile *h, sandbox, hostile)
{
	/* Nested coroutine.wrap errors repeat their place: ~9 KB. */
	char path[PATH_MAX], want[512], err[16384] = "";
	size_t peak;
	double t0, took;
	lua_State *L;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", HOSTILE_DIR, h->name);
	read_expect(path, want, sizeof(want));
	cr_assert(want[0], "%s: no '-- expect: ' first line", h->name);

	L = new_state();
	t0 = clock_now();
	rc = dofile_text(L, path, err, sizeof(err));
	took = clock_now() - t0;
	sandbox_mem(L, &peak);
	cr_expect_eq(rc, -1, "%s: ran to the end", h->name);
	cr_expect(strstr(err, want), "%s: message \"%s\" lacks \"%s\"",
		  h->name, err, want);
	cr_expect(took < 5, "%s: took %.1f s", h->name, took);
	cr_expect(peak <= lim.mem_bytes, "%s: peak %zu over the %zu cap",
		  h->name, peak, lim.mem_bytes);
	cr_expect_eq(lua_gettop(L), 0, "%s: %d values left on the stack",
		     h->name, lua_gettop(L));
	sandbox_close(L);

	/* Nothing leaked into the process: a new state works. */
	lim.deadline = clock_now() + 2;
	L = new_state();
	run_ok(L, "return 6 * 7");
	cr_expect_eq(lua_tointeger(L, -1), 42);
	sandbox_close(L);
}

Test(sandbox, hostile_corpus_is_there)
{
	struct dirent **list;
	char path[PATH_MAX], want[512];
	int n = scandir(HOSTILE_DIR, &list, is_lua, alphasort);

	cr_assert(n >= 0, "cannot read %s (tests run from tests/)",
		  HOSTILE_DIR);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", HOSTILE_DIR,
			 list[i]->d_name);
		read_expect(path, want, sizeof(want));
		cr_expect(want[0], "%s: no '-- expect: ' first line",
			  list[i]->d_name);
		free(list[i]);
	}
	free(list);
	cr_expect(n >= MIN_HOSTILE, "only %d files in %s, expected %d",
		  n, HOSTILE_DIR, MIN_HOSTILE);
}

/* ---- what a phase gets ------------------------------------------------- */

Test(sandbox, globals_are_exactly_the_allowed_ones)
{
	lua_State *L = new_state();

	run_ok(L, "local names = {}\n"
		  "for k in next, _G do names[#names + 1] = k end\n"
		  "table.sort(names)\n"
		  "return table.concat(names, ' ')");
	cr_expect_str_eq(lua_tostring(L, -1),
			 "_G _VERSION assert collectgarbage coroutine error "
			 "getmetatable ipairs load math next pairs pcall "
			 "print rawequal rawget rawlen rawset require "
			 "select setmetatable string table tonumber "
			 "tostring type utf8 xpcall");
	lua_pop(L, 1);
	run_ok(L, "return rawget(string, 'dump') == nil and "
		  "getmetatable('').__index == string");
	cr_expect(lua_toboolean(L, -1), "string.dump is still there");
	sandbox_close(L);
}

Test(sandbox, phase_module_returns_a_table)
{
	char err[1024];
	lua_State *L = new_state();

	sandbox_strict(L, 0);
	cr_assert(!dofile_text(L, "fixtures/noop.lua", err, sizeof(err)),
		  "%s", err);
	sandbox_strict(L, 1);
	cr_assert_eq(lua_gettop(L), 1);
	cr_assert(lua_istable(L, 1));
	lua_getfield(L, 1, "describe");
	cr_expect_str_eq(lua_tostring(L, -1), "does nothing");
	sandbox_close(L);
}

Test(sandbox, require_loads_once_and_caches)
{
	lua_State *L = new_state();

	sandbox_strict(L, 0);
	run_ok(L, "loads = 0");
	sandbox_strict(L, 1);
	lua_pop(L, 1);
	run_ok(L, "local a, b = require('mod'), require('mod')\n"
		  "return a == b and a.answer == 42 and a.name == 'mod' "
		  "and loads == 1");
	cr_expect(lua_toboolean(L, -1), "mod loaded twice or wrong");
	lua_pop(L, 1);
	run_ok(L, "return require('parse.fio').name");
	cr_expect_str_eq(lua_tostring(L, -1), "parse.fio");
	lua_pop(L, 1);
	run_ok(L, "return require('silent')");
	cr_expect(lua_isboolean(L, -1) && lua_toboolean(L, -1),
		  "a module returning nothing should give true");
	sandbox_close(L);
}

Test(sandbox, require_errors)
{
	lua_State *L = new_state();
	char want[PATH_MAX];

	run_fails(L, "return require('nosuch')",
		  "require: no such module 'nosuch' (looked for ");
	snprintf(want, sizeof(want), "%s/parse/nosuch.lua: require loads "
		 "the phase library's modules only", libdir);
	run_fails(L, "return require('parse.nosuch')", want);
	run_fails(L, "return require('parse.')", "is not a phase-library");
	run_fails(L, "return require('parse.a.b')", "is not a phase-library");
	run_fails(L, "return require('')", "is not a phase-library");
	run_fails(L, "return require('mod.lua')", "is not a phase-library");
	run_fails(L, "return require()", "bad argument #1 to 'require'");
	snprintf(want, sizeof(want), "%s/broken.lua:2:", libdir);
	run_fails(L, "return require('broken')", want);
	run_fails(L, "return require('fails')", "module failed");
	run_fails(L, "return require('fails')",
		  "loop or previous error loading module 'fails'");
	run_fails(L, "return require('loopa')",
		  "loop or previous error loading module 'loopa'");
	sandbox_close(L);
}

Test(sandbox, strict_globals)
{
	lua_State *L = new_state();

	/* Strict from the start. */
	run_fails(L, "x = 1", "test:1: assignment to undefined global 'x'");
	run_fails(L, "return y", "test:1: undefined global 'y'");
	run_fails(L, "_G[1] = true", "assignment to undefined global");

	sandbox_strict(L, 0);
	run_ok(L, "x = 1 return x");
	cr_expect_eq(lua_tointeger(L, -1), 1);
	lua_pop(L, 1);
	/* Reading an undefined global is an error either way. */
	run_fails(L, "return y", "undefined global 'y'");

	sandbox_strict(L, 1);
	run_ok(L, "x = x + 1 return x");
	cr_expect_eq(lua_tointeger(L, -1), 2);
	lua_pop(L, 1);
	run_fails(L, "z = 1", "assignment to undefined global 'z'");
	/* The deliberate ways to test for and define a global. */
	run_ok(L, "rawset(_G, 'z', 3) return rawget(_G, 'w') == nil and z");
	cr_expect_eq(lua_tointeger(L, -1), 3);
	sandbox_close(L);
}

Test(sandbox, load_takes_text_only)
{
	lua_State *L = new_state();

	run_ok(L, "return load('return 1 + 2')()");
	cr_expect_eq(lua_tointeger(L, -1), 3);
	lua_pop(L, 1);
	run_ok(L, "return load('return string.rep(\"a\", 3)')()");
	cr_expect_str_eq(lua_tostring(L, -1), "aaa");
	lua_pop(L, 1);
	run_ok(L, "return load('return a', '=c', 't', { a = 5 })()");
	cr_expect_eq(lua_tointeger(L, -1), 5);
	lua_pop(L, 1);
	/* Mode "b" is overridden, so text still loads. */
	run_ok(L, "return load('return 7', '=c', 'b')()");
	cr_expect_eq(lua_tointeger(L, -1), 7);
	lua_pop(L, 1);
	run_ok(L, "local f, e = load('return +', '=c') return e");
	cr_expect(strstr(lua_tostring(L, -1), "c:1:"), "%s",
		  lua_tostring(L, -1));
	lua_pop(L, 1);
	run_ok(L, "return select(2, load('\\27Lua'))");
	cr_expect_str_eq(lua_tostring(L, -1),
			 "attempt to load a binary chunk (mode is 't')");
	sandbox_close(L);
}

static int write_chunk(lua_State *L, const void *p, size_t sz, void *ud)
{
	(void)L;
	return fwrite(p, 1, sz, ud) != sz;
}

Test(sandbox, dofile_refuses_real_bytecode)
{
	char path[PATH_MAX], err[1024] = "";
	lua_State *plain = luaL_newstate();
	lua_State *L;
	FILE *f;

	snprintf(path, sizeof(path), "%s/chunk.luac", libdir);
	f = fopen(path, "we");
	cr_assert(plain && f);
	cr_assert(!luaL_loadstring(plain, "return 1"));
	cr_assert(!lua_dump(plain, write_chunk, f, 0));
	fclose(f);
	lua_close(plain);

	L = new_state();
	cr_assert_eq(dofile_text(L, path, err, sizeof(err)), -1);
	cr_expect(strstr(err, "attempt to load a binary chunk (mode is 't')"),
		  "%s", err);
	cr_expect(strstr(err, path), "%s does not name the file", err);
	cr_expect_eq(lua_gettop(L), 0);
	sandbox_close(L);
}

Test(sandbox, dofile_errors_have_place_and_traceback)
{
	char path[PATH_MAX], want[PATH_MAX + 16], err[2048] = "";
	lua_State *L = new_state();

	snprintf(path, sizeof(path), "%s/runtime.lua", libdir);
	snprintf(want, sizeof(want), "%s:2: boom", path);
	cr_assert_eq(dofile_text(L, path, err, sizeof(err)), -1);
	cr_expect(!strncmp(err, want, strlen(want)), "%s", err);
	cr_expect(strstr(err, "stack traceback:"), "%s", err);

	snprintf(path, sizeof(path), "%s/broken.lua", libdir);
	snprintf(want, sizeof(want), "%s:2:", path);
	cr_assert_eq(dofile_text(L, path, err, sizeof(err)), -1);
	cr_expect(!strncmp(err, want, strlen(want)), "%s", err);

	cr_assert_eq(dofile_text(L, "/nonexistent/x.lua", err,
				    sizeof(err)), -1);
	cr_expect(strstr(err, "cannot open /nonexistent/x.lua"), "%s", err);
	cr_expect_eq(lua_gettop(L), 0);
	sandbox_close(L);
}

/* The failure record: a raise is the phase's, its message one line and
 * its whole text, traceback and all, in detail; what did not load is the
 * input's or the system's. A message too long for msg keeps both its
 * ends. */
Test(sandbox, errors_fill_a_diag_by_kind)
{
	char path[PATH_MAX];
	struct diag d = { 0 };
	lua_State *L = new_state();

	snprintf(path, sizeof(path), "%s/runtime.lua", libdir);
	cr_assert_eq(sandbox_dofile(L, path, &d), -1);
	cr_expect_eq(d.kind, DIAG_PHASE);
	cr_expect(strstr(d.msg, ":2: boom") && !strchr(d.msg, '\n'), "%s",
		  d.msg);
	cr_expect(d.detail.p && !strncmp(d.detail.p, d.msg, strlen(d.msg)) &&
		  strstr(d.detail.p, "\nstack traceback:\n"), "%s",
		  d.detail.p);
	diag_release(&d);

	snprintf(path, sizeof(path), "%s/broken.lua", libdir);
	cr_assert_eq(sandbox_dofile(L, path, &d), -1);
	cr_expect_eq(d.kind, DIAG_INPUT, "a syntax error is the module's");
	diag_release(&d);
	cr_assert_eq(sandbox_dofile(L, "/nonexistent/x.lua", &d), -1);
	cr_expect_eq(d.kind, DIAG_SYSTEM);
	diag_release(&d);

	cr_assert(!luaL_loadstring(L, "error(string.rep('a', 3000) .. 'END')"));
	cr_assert_eq(sandbox_call(L, 0, 0, &d), -1);
	cr_expect(strstr(d.msg, "bytes left out"), "%s", d.msg);
	cr_expect(strstr(d.msg, "aEND"), "the end is kept: %s", d.msg);
	diag_release(&d);
	cr_expect_eq(lua_gettop(L), 0);
	sandbox_close(L);
}

Test(sandbox, call_passes_arguments_and_results)
{
	char err[1024];
	lua_State *L = new_state();

	cr_assert(!luaL_loadstring(L, "local a, b = ... return a + b, a * b"));
	lua_pushinteger(L, 3);
	lua_pushinteger(L, 4);
	cr_assert(!call_text(L, 2, 2, err, sizeof(err)), "%s", err);
	cr_assert_eq(lua_gettop(L), 2);
	cr_expect_eq(lua_tointeger(L, 1), 7);
	cr_expect_eq(lua_tointeger(L, 2), 12);

	/* On error the function and arguments are gone, the rest stays. */
	cr_assert(!luaL_loadstring(L, "local a = ... error(a)"));
	lua_pushliteral(L, "went wrong");
	cr_assert_eq(call_text(L, 1, 0, err, sizeof(err)), -1);
	cr_expect(strstr(err, ": went wrong\nstack traceback:"), "%s", err);
	cr_expect_eq(lua_gettop(L), 2);
	sandbox_close(L);
}

/* The suite's init runs as well as this one. */
Test(sandbox, print_goes_to_stderr_prefixed, .init = cr_redirect_stderr)
{
	lua_State *L = new_state();

	run_ok(L, "print('hello', 1, nil, true) return 0");
	run_ok(L, "print() return 0");
	sandbox_close(L);
	fflush(stderr);
	cr_expect_stderr_eq_str("lua: hello\t1\tnil\ttrue\nlua: \n");
}

Test(sandbox, collectgarbage_is_limited)
{
	lua_State *L = new_state();

	run_ok(L, "return collectgarbage('count') > 0 and "
		  "collectgarbage() == 0 and "
		  "type(collectgarbage('step')) == 'boolean'");
	cr_expect(lua_toboolean(L, -1));
	lua_pop(L, 1);
	run_fails(L, "collectgarbage('stop')", "invalid option 'stop'");
	run_fails(L, "collectgarbage('incremental')",
		  "invalid option 'incremental'");
	sandbox_close(L);
}

Test(sandbox, setmetatable_refuses_only_gc)
{
	lua_State *L = new_state();

	run_ok(L, "local t = setmetatable({}, { __index = { a = 1 } })\n"
		  "return t.a");
	cr_expect_eq(lua_tointeger(L, -1), 1);
	lua_pop(L, 1);
	run_fails(L, "setmetatable({}, { __gc = print })",
		  "__gc metamethods are not allowed");
	run_fails(L, "setmetatable({})", "bad argument #2 to 'setmetatable'");
	/* A __gc put in afterwards does not mark the object (manual 2.5.3). */
	run_ok(L, "local mt = {} setmetatable({}, mt)\n"
		  "mt.__gc = function() while true do end end\n"
		  "collectgarbage() return 1");
	sandbox_close(L);
}

Test(sandbox, xpcall_behaves_as_stock)
{
	lua_State *L = new_state();

	run_ok(L, "local ok, m = xpcall(error, function(e) return 'h:' .. e "
		  "end, 'x') return tostring(ok) .. ' ' .. m");
	cr_expect_str_eq(lua_tostring(L, -1), "false h:x");
	lua_pop(L, 1);
	run_ok(L, "return select('#', xpcall(function(a, b) return a, b, 3 "
		  "end, print, 1, 2))");
	cr_expect_eq(lua_tointeger(L, -1), 4);
	lua_pop(L, 1);
	/* The protected function may still yield. */
	run_ok(L, "local co = coroutine.wrap(function()\n"
		  "  return xpcall(function() return coroutine.yield(1) + 1 "
		  "end, print)\n"
		  "end)\n"
		  "local first = co()\n"
		  "local ok, v = co(41)\n"
		  "return first == 1 and ok and v == 42");
	cr_expect(lua_toboolean(L, -1), "yield across xpcall failed");
	lua_pop(L, 1);
	run_fails(L, "xpcall(print)", "bad argument #2 to 'xpcall'");
	sandbox_close(L);
}

/* ---- limits ------------------------------------------------------------ */

Test(sandbox, memory_is_counted)
{
	size_t cur0, peak0, cur, peak;
	lua_State *L = new_state();

	cur0 = sandbox_mem(L, &peak0);
	cr_expect(cur0 > 0 && peak0 >= cur0, "%zu now, %zu peak", cur0,
		  peak0);
	sandbox_strict(L, 0);
	run_ok(L, "big = string.rep('x', 8 << 20) return #big");
	cur = sandbox_mem(L, &peak);
	cr_expect(cur >= cur0 + 8 * MIB, "%zu now after 8 MiB, %zu before",
		  cur, cur0);
	cr_expect(peak >= cur);
	lua_pop(L, 1);
	run_ok(L, "big = nil collectgarbage() return 0");
	cur = sandbox_mem(L, NULL);
	sandbox_mem(L, &peak0);
	cr_expect(cur < peak - 7 * MIB, "%zu now, %zu peak", cur, peak);
	cr_expect_eq(peak0, peak, "the peak moved down");
	sandbox_close(L);
}

Test(sandbox, memory_cap_then_recovery)
{
	size_t peak;
	lua_State *L;

	lim.mem_bytes = 4 * MIB;
	L = new_state();
	run_fails(L, "return #string.rep('x', 8 << 20)", "not enough memory");
	sandbox_mem(L, &peak);
	cr_expect(peak <= 4 * MIB, "peak %zu over the cap", peak);
	/* The state is still usable once the bomb is gone. */
	run_ok(L, "return #string.rep('x', 1 << 20)");
	cr_expect_eq(lua_tointeger(L, -1), 1 << 20);
	sandbox_close(L);
}

/* States made with one count share the cap: a phase's budget, which
 * its workers' states take from, not a cap for each. */
Test(sandbox, states_with_one_count_share_the_cap)
{
	size_t used = 0;
	lua_State *a, *b;

	lim.mem_bytes = 16 * MIB;
	lim.used = &used;
	a = new_state();
	b = new_state();
	sandbox_strict(a, 0);	/* big: a global that holds it */
	run_ok(a, "big = string.rep('a', 6 << 20) return #big");
	/* a string.rep holds twice its size a moment: alone, b has room */
	run_fails(b, "return #string.rep('b', 6 << 20)", "not enough memory");
	cr_expect_leq(used, 16 * MIB);
	/* what a gives back, b may take */
	run_ok(a, "big = nil collectgarbage() return 0");
	run_ok(b, "return #string.rep('b', 6 << 20)");
	sandbox_close(a);
	sandbox_close(b);
	cr_expect_eq(used, 0, "%zu bytes still counted", used);
}

/* With room for Lua's own stack limit, deep recursion hits that. */
Test(sandbox, recursion_is_a_stack_overflow)
{
	lua_State *L;

	lim.mem_bytes = 256 * MIB;
	L = new_state();
	run_fails(L, "local function f() return 1 + f() end return f()",
		  "stack overflow");
	run_ok(L, "return 1");
	sandbox_close(L);
}

Test(sandbox, tiny_cap_gives_no_state)
{
	lim.mem_bytes = 1024;
	cr_expect_null(sandbox_new(&lim));
}

Test(sandbox, stop_flag_set_before)
{
	char err[1024];
	double t0;
	lua_State *L = new_state();

	lim.deadline = 0;
	stop_flag = 1;
	t0 = clock_now();
	cr_assert_eq(run(L, "while true do end", 0, err, sizeof(err)), -1);
	cr_expect(strstr(err, "test:1: phase stopped: stop requested"), "%s",
		  err);
	cr_expect(clock_now() - t0 < 1, "took %.2f s", clock_now() - t0);
	/* Lifting the stop lets the state run again. */
	stop_flag = 0;
	run_ok(L, "return 5");
	cr_expect_eq(lua_tointeger(L, -1), 5);
	sandbox_close(L);
}

static void *stop_later(void *arg)
{
	(void)arg;
	usleep(200 * 1000);
	stop_flag = 1;
	return NULL;
}

Test(sandbox, stop_flag_from_another_thread)
{
	char err[1024];
	pthread_t t;
	double t0, took;
	lua_State *L = new_state();

	lim.deadline = 0;
	t0 = clock_now();
	cr_assert(!pthread_create(&t, NULL, stop_later, NULL));
	cr_assert_eq(run(L, "while true do pcall(function()\n"
			    "  while true do end end) end", 0, err,
			 sizeof(err)), -1);
	took = clock_now() - t0;
	pthread_join(t, NULL);
	cr_expect(strstr(err, "phase stopped: stop requested"), "%s", err);
	cr_expect(took >= 0.15 && took < 2, "took %.2f s", took);
	sandbox_close(L);
}

Test(sandbox, deadline_stops_with_place_and_traceback)
{
	char err[2048];
	double t0, took;
	lua_State *L = new_state();

	lim.deadline = clock_now() + 0.3;
	t0 = clock_now();
	cr_assert_eq(run(L, "local n = 0\nwhile true do n = n + 1 end", 0,
			 err, sizeof(err)), -1);
	took = clock_now() - t0;
	cr_expect(!strncmp(err, "test:2: phase stopped: deadline passed", 38),
		  "%s", err);
	cr_expect(strstr(err, "stack traceback:"), "%s", err);
	cr_expect(took >= 0.25 && took < 1.5, "took %.2f s", took);
	/* Still stopped: the deadline has not moved. */
	run_fails(L, "return 1", "phase stopped: deadline passed");
	sandbox_close(L);
}

/* Legitimate work is not stopped: the hook counts, it does not cap. */
Test(sandbox, long_work_runs_without_a_deadline)
{
	lua_State *L = new_state();

	lim.deadline = 0;
	run_ok(L, "local n = 0 for i = 1, 3e6 do n = n + i end return n");
	cr_expect_eq(lua_tointeger(L, -1), (lua_Integer)3e6 * (3e6 + 1) / 2);
	sandbox_close(L);
}

/*
 * A watched state (a worker's) runs without the polling hook, and only
 * sandbox_arm, from a signal handler of its thread, brings a stop to
 * its main thread; its coroutines keep polling on their own.
 */
struct spinner {
	lua_State *L;
	const char *code;
	char err[1024];
	int rc, hooked;
	volatile int done;
};

static void arm_on_signal(int sig)
{
	(void)sig;
	sandbox_arm();
}

static void *spin(void *arg)
{
	struct spinner *s = arg;

	sandbox_watch(s->L);
	s->hooked = lua_gethook(s->L) != NULL;
	s->rc = run(s->L, s->code, 0, s->err, sizeof(s->err));
	sandbox_unwatch(s->L);
	s->done = 1;
	return NULL;
}

static void spin_until_stopped(struct spinner *s, int signal_it)
{
	struct sigaction sa = { .sa_handler = arm_on_signal };
	pthread_t t;

	lim.deadline = 0;
	stop_flag = 0;
	s->L = new_state();
	cr_assert(!sigaction(SIGUSR1, &sa, NULL));
	cr_assert(!pthread_create(&t, NULL, spin, s));
	usleep(100 * 1000);
	stop_flag = 1;
	if (signal_it) {
		/* the flag alone does not stop the main thread */
		usleep(300 * 1000);
		cr_expect(!s->done, "stopped without its signal: %s", s->err);
		pthread_kill(t, SIGUSR1);
	}
	for (int i = 0; i < 100 && !s->done; i++)
		usleep(20 * 1000);
	cr_assert(s->done, "a stopped state still runs");
	pthread_join(t, NULL);
	cr_expect(!s->hooked, "the polling hook stayed on");
	cr_expect_eq(s->rc, -1);
	cr_expect(strstr(s->err, "phase stopped: stop requested"), "%s",
		  s->err);
	/* unwatched: the hook is back, and the stop still holds */
	run_fails(s->L, "local n = 0 while true do n = n + 1 end",
		  "stop requested");
	stop_flag = 0;
	sandbox_close(s->L);
	signal(SIGUSR1, SIG_DFL);
}

Test(sandbox, a_watched_state_stops_when_armed_and_not_before)
{
	struct spinner s = { .code = "while true do pcall(function()\n"
				     "  while true do end end) end" };

	spin_until_stopped(&s, 1);
	cr_expect(!strncmp(s.err, "test:", 5), "no place: %s", s.err);
}

Test(sandbox, a_watched_states_coroutines_stop_by_themselves)
{
	struct spinner wrap = { .code = "coroutine.wrap(function()\n"
					"  while true do end end)()" };
	struct spinner create = { .code = "local co = coroutine.create("
					  "function() while true do end "
					  "end)\ncoroutine.resume(co)\n"
					  "while true do end" };

	spin_until_stopped(&wrap, 0);
	cr_expect(strstr(wrap.err, "test:2:"), "%s", wrap.err);
	/* the coroutine's stop arms its main thread too */
	spin_until_stopped(&create, 0);
}

struct worker {
	lua_State *L;
	lua_Integer result;
	char err[512];
	int rc;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	w->rc = run(w->L, "local n = 0 for i = 1, 2e5 do n = n + i end "
		    "return n", 1, w->err, sizeof(w->err));
	if (!w->rc)
		w->result = lua_tointeger(w->L, -1);
	return NULL;
}

/* One state per worker thread, as the phase runner uses them. */
Test(sandbox, states_in_threads_are_independent)
{
	struct worker w[4];
	pthread_t t[4];

	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ .L = new_state() };
		cr_assert(!pthread_create(&t[i], NULL, work, &w[i]));
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		cr_expect_eq(w[i].rc, 0, "worker %d: %s", i, w[i].err);
		cr_expect_eq(w[i].result, (lua_Integer)2e5 * (2e5 + 1) / 2);
		sandbox_close(w[i].L);
	}
}
