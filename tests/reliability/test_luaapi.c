/* test_luaapi: the Lua phase API against a hostile module — every userdata
 * method checks its own type, report() cannot forge fsplan's rows, and what a
 * module reports is written as it is. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "../e2e.h"
#include "engine.h"
#include "results/csv.h"
#include "results/metrics.h"
#include "phase/lparse.h"
#include "phase/optable.h"
#include "phase/sandbox.h"
#include "phase/workerapi.h"
#include "phase/worker.h"
#include "../luacall.h"

static struct sandbox_limits lim = { 64u << 20, 0, NULL, "/nonexistent",
				     NULL };
static struct worker w;
static struct optable_slot slot;
static lua_State *L;

static void fini(void)
{
	if (L)
		sandbox_close(L);
	L = NULL;
	worker_free(&w);
	if (w.workfd > 0)
		close(w.workfd);
	memset(&w, 0, sizeof(w));
	memset(&slot, 0, sizeof(slot));
	e2e_cleanup();
}

/* A worker on the sync engine in a fresh directory, and a sandbox. */
static void start(void)
{
	struct diag d = { 0 };
	int fd = open(e2e_tmpdir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	w.id = w.workers = 1;
	cr_assert_eq(worker_init(&w, &engine_sync, fd, NULL, 0, 1, 1, &d), 0,
		     "%s", d.msg);
	L = sandbox_new(&lim);
	cr_assert_not_null(L);
}

/* ---- every method of every userdata type, with every other type ------ */

/*
 * The state's stack while the test runs: the values a phase can hold
 * (VALUES: an array of { v = value, name = what an error calls it }),
 * the methods found in their metatables (METHODS: { name, fn }), and w.
 */
enum { W = 1, VALUES, METHODS, SHARE, SHARED };

static void call_into(int fn_idx, int nargs, int nres)
{
	char err[2048];

	lua_pushvalue(L, fn_idx);
	lua_insert(L, -1 - nargs);
	cr_assert_eq(call_text(L, nargs, nres, err, sizeof(err)), 0,
		     "%s", err);
}

/* A file w:open made, left on the stack. */
static void push_file(const char *name)
{
	lua_getfield(L, W, "open");
	lua_pushvalue(L, W);
	lua_pushstring(L, name);
	lua_pushliteral(L, "w");
	call_into(lua_gettop(L) - 3, 3, 1);
	lua_remove(L, -2);
	cr_assert_eq(lua_type(L, -1), LUA_TUSERDATA, "w:open gave no file");
}

/* What an argument error calls the value on top: its __name, or its
 * type's name (luaL_typeerror's rule). */
static const char *what_of(int idx)
{
	const char *name = luaL_typename(L, idx);
	int t = luaL_getmetafield(L, idx, "__name");

	if (t == LUA_TSTRING)
		name = lua_tostring(L, -1);	/* the metatable holds it */
	if (t != LUA_TNIL)
		lua_pop(L, 1);
	return name;
}

static void add_value(const char *label)
{
	int v = lua_gettop(L);

	lua_createtable(L, 0, 3);
	lua_pushvalue(L, v);
	lua_setfield(L, -2, "v");
	lua_pushstring(L, what_of(v));
	lua_setfield(L, -2, "name");
	lua_pushstring(L, label);
	lua_setfield(L, -2, "label");
	lua_rawseti(L, VALUES, (lua_Integer)lua_rawlen(L, VALUES) + 1);
	lua_pop(L, 1);
}

/* Every userdata a phase can hold, and every other kind of value. */
static void make_values(void)
{
	int fn, co;

	cr_assert(luaL_dostring(L, "return function() end, "
				"coroutine.create(function() end)") == LUA_OK);
	fn = lua_gettop(L) - 1;
	co = lua_gettop(L);
	push_file("open");
	add_value("open file");
	push_file("closed");
	lua_getfield(L, -1, "close");
	lua_pushvalue(L, -2);
	call_into(lua_gettop(L) - 1, 1, 0);
	lua_pop(L, 1);
	add_value("closed file");
	call_into(SHARE, 0, 1);
	add_value("setup's shared table");
	slot.frozen = 1;	/* the workers' side: a reader of it */
	call_into(SHARED, 0, 1);
	add_value("a worker's shared table");
	lua_pushnil(L);
	add_value("nil");
	lua_pushinteger(L, 7);
	add_value("integer");
	lua_pushnumber(L, 0.5);
	add_value("number");
	lua_pushliteral(L, "a");
	add_value("string");
	lua_pushboolean(L, 1);
	add_value("boolean");
	lua_newtable(L);
	add_value("table");
	lua_pushvalue(L, fn);
	add_value("function");
	lua_pushvalue(L, co);
	add_value("coroutine");
}

/* Whether function fn is among the values of the table at t. */
static int holds(int t, int fn)
{
	int found = 0;

	lua_pushnil(L);
	while (!found && lua_next(L, t)) {
		found = lua_rawequal(L, -1, fn);
		lua_pop(L, 1);
	}
	if (found)
		lua_pop(L, 1);
	return found;
}

/* Whether value v (an index) has fn as a method or a metamethod: then
 * it is fn's own type, and a call with it is not misuse. */
static int owns(int v, int fn)
{
	int mt, r = 0;

	if (!lua_getmetatable(L, v))
		return 0;
	mt = lua_gettop(L);
	if (holds(mt, fn))
		r = 1;
	else if (lua_getfield(L, mt, "__index") == LUA_TTABLE)
		r = holds(lua_gettop(L), fn);
	lua_settop(L, mt - 1);
	return r;
}

static void add_method(const char *name, int fn)
{
	int n = (int)lua_rawlen(L, METHODS);

	for (int i = 1; i <= n; i++) {	/* open and closed share theirs */
		int same;

		lua_rawgeti(L, METHODS, i);
		lua_getfield(L, -1, "fn");
		same = lua_rawequal(L, -1, fn);
		lua_pop(L, 2);
		if (same)
			return;
	}
	lua_createtable(L, 0, 2);
	lua_pushstring(L, name);
	lua_setfield(L, -2, "name");
	lua_pushvalue(L, fn);
	lua_setfield(L, -2, "fn");
	lua_rawseti(L, METHODS, n + 1);
}

/* The C functions of the metatable at mt, and of its __index table. */
static void methods_of(int mt)
{
	lua_pushnil(L);
	while (lua_next(L, mt)) {
		if (lua_type(L, -2) == LUA_TSTRING &&
		    lua_iscfunction(L, -1))
			add_method(lua_tostring(L, -2), lua_gettop(L));
		else if (lua_type(L, -2) == LUA_TSTRING &&
			 !strcmp(lua_tostring(L, -2), "__index") &&
			 lua_istable(L, -1))
			methods_of(lua_gettop(L));
		lua_pop(L, 1);
	}
}

/* The methods, read from the metatables of the userdata values: a
 * method added later is covered without a word here. */
static int find_methods(void)
{
	int n = (int)lua_rawlen(L, VALUES);

	for (int i = 1; i <= n; i++) {
		lua_rawgeti(L, VALUES, i);
		lua_getfield(L, -1, "v");
		if (lua_type(L, -1) == LUA_TUSERDATA &&
		    lua_getmetatable(L, -1)) {
			methods_of(lua_gettop(L));
			lua_pop(L, 1);
		}
		lua_pop(L, 2);
	}
	return (int)lua_rawlen(L, METHODS);
}

/*
 * M.<name>(...) with the values at the top nargs, from Lua, so that the
 * error names the method as a phase's call does; protected. 0, or -1
 * with the message in err.
 */
static int call_named(const char *name, int fn, int nargs, char *err,
		      size_t len)
{
	char code[200];
	int rc;

	snprintf(code, sizeof(code), "local M = ... return M.%s(select(2, "
		 "...))", name);
	cr_assert_eq(luaL_loadstring(L, code), LUA_OK);
	lua_insert(L, -1 - nargs);
	lua_createtable(L, 0, 1);
	lua_pushvalue(L, fn);
	lua_setfield(L, -2, name);
	lua_insert(L, -1 - nargs);
	rc = lua_pcall(L, nargs + 1, 0, 0);
	if (rc == LUA_OK)
		return 0;
	snprintf(err, len, "%s", lua_type(L, -1) == LUA_TSTRING ?
		 lua_tostring(L, -1) : "(an error that is not a string)");
	lua_pop(L, 1);
	return -1;
}

/* A fresh value of fn's own type: a file just opened, else the first
 * value that owns fn. */
static int push_own(int fn)
{
	int n = (int)lua_rawlen(L, VALUES);

	for (int i = 1; i <= n; i++) {
		lua_rawgeti(L, VALUES, i);
		lua_getfield(L, -1, "v");
		lua_remove(L, -2);
		if (owns(lua_gettop(L), fn)) {
			if (luaL_getmetafield(L, -1, "__name") == LUA_TSTRING &&
			    !strcmp(lua_tostring(L, -1), "file")) {
				lua_pop(L, 2);
				push_file("fresh");
			} else {
				lua_pop(L, 1);
			}
			return 1;
		}
		lua_pop(L, 1);
	}
	return 0;
}

Test(luaapi, every_method_of_every_userdata_checks_its_own_type,
     .fini = fini, .timeout = 60)
{
	char err[2048];
	int n_methods, n_values, refused = 0, args = 0;

	start();
	lua_newtable(L);
	workerapi_push(L, &w, -1);
	lua_remove(L, -2);		/* W */
	lua_newtable(L);		/* VALUES */
	lua_newtable(L);		/* METHODS */
	optable_push_ctx(L, &slot);	/* SHARE, SHARED */
	make_values();
	lua_settop(L, SHARED);
	n_values = (int)lua_rawlen(L, VALUES);
	n_methods = find_methods();
	/* the file's 16, row, add, __len, __gc, __close at least */
	cr_assert_geq(n_methods, 21, "only %d methods found", n_methods);

	for (int m = 1; m <= n_methods; m++) {
		const char *name;
		int fn;

		lua_rawgeti(L, METHODS, m);
		lua_getfield(L, -1, "name");
		lua_getfield(L, -2, "fn");
		name = lua_tostring(L, -2);
		fn = lua_gettop(L);
		for (int i = 1; i <= n_values; i++) {
			char want[300];
			const char *label, *what;
			int v, top = lua_gettop(L);

			lua_rawgeti(L, VALUES, i);
			lua_getfield(L, -1, "v");
			v = lua_gettop(L);
			lua_getfield(L, -2, "name");
			what = lua_tostring(L, -1);
			lua_getfield(L, -3, "label");
			label = lua_tostring(L, -1);
			if (!owns(v, fn)) {
				/* the value as self */
				lua_pushvalue(L, v);
				cr_expect_neq(call_named(name, fn, 1, err,
							 sizeof(err)), 0,
					      "%s(%s) did not raise", name,
					      label);
				snprintf(want, sizeof(want), "bad argument #1 "
					 "to '%s' (", name);
				cr_expect(strstr(err, want), "%s(%s): %s",
					  name, label, err);
				snprintf(want, sizeof(want), " expected, got "
					 "%s)", what);
				cr_expect(strstr(err, want), "%s(%s): %s",
					  name, label, err);
				refused++;
			}
			/* as each argument after its own self: a raise or
			 * not, but never a crash (ASan) or a stray error */
			for (int at = 2; at <= 4 && name[0] != '_' &&
			     lua_type(L, v) == LUA_TUSERDATA; at++) {
				cr_assert(push_own(fn), "%s has no owner", name);
				for (int k = 2; k < at; k++)
					lua_pushinteger(L, 0);
				lua_pushvalue(L, v);
				if (call_named(name, fn, at, err, sizeof(err)))
					cr_expect(strncmp(err, "(an error", 9),
						  "%s(_, %s): %s", name, label,
						  err);
				args++;
			}
			lua_settop(L, top);
		}
		lua_settop(L, SHARED);
		lua_gc(L, LUA_GCCOLLECT);	/* the fresh files close */
	}
	cr_log_info("%d methods, %d values: %d misuses refused, %d calls "
		    "with a userdata argument", n_methods, n_values, refused,
		    args);
	cr_expect_gt(refused, n_methods * 8, "%d refusals", refused);
}

/* The copy's destination is a file too: the argument error names it. */
Test(luaapi, copy_into_a_shared_table_is_refused, .fini = fini)
{
	char err[2048] = "";

	start();
	cr_assert_eq(luaL_loadstring(L, "local w, share = ...\n"
				     "local f = assert(w:open('a', 'w'))\n"
				     "f:copy(share())"), LUA_OK);
	lua_newtable(L);
	workerapi_push(L, &w, -1);
	lua_remove(L, -2);
	optable_push_ctx(L, &slot);
	lua_pop(L, 1);
	cr_expect_neq(call_text(L, 2, 0, err, sizeof(err)), 0);
	cr_expect(strstr(err, "bad argument #1 to 'copy' (file expected, got "
			 "shared table)"), "%s", err);
}

/* ---- what a module reports, run for real ------------------------------ */

/* A module that does what its case says: the misuses of the
 * file methods, counters and report() values fsplan must refuse, or a
 * plain run whose report is legit. */
static const char hostile[] =
	"return {\n"
	"  params = { case = 'plain' },\n"
	"  setup = function(ctx, w)\n"
	"    local t = ctx.share()\n"
	"    if ctx.params.case == 'close_share' then\n"
	"      local f = assert(w:open('x', 'w'))\n"
	"      f.close(t)\n"
	"    end\n"
	"  end,\n"
	"  worker = function(w, ctx)\n"
	"    local c = ctx.params.case\n"
	"    if c == 'size_shared' then\n"
	"      local f = assert(w:open('y', 'w'))\n"
	"      f.size(ctx.shared())\n"
	"    elseif c == 'count_nan' then w:count('x', 0/0)\n"
	"    elseif c == 'count_status' then w:count('status', 1)\n"
	"    elseif c == 'count_big' then w:count('big', 1e308) w:count('big', 1e308)\n"
	"    elseif c == 'count_sum' then w:count('big', 1e308)\n"
	"    elseif c == 'op_dev' then w:time('dev_read', function() end)\n"
	"    elseif c == 'op_peak' then\n"
	"      local f = assert(w:open('z', 'w'))\n"
	"      f:stream{op = 'write', block = 4096, bytes = 4096, tag = 'memory_peak'}\n"
	"    end\n"
	"    w:time('w1', function() end)\n"
	"  end,\n"
	"  report = function(r, ctx)\n"
	"    local c = ctx.params.case\n"
	"    if c == 'report_status' then return { status = 1 } end\n"
	"    if c == 'report_cpu' then return { cpu_user_s = 0 } end\n"
	"    if c == 'report_path' then return { w1_path = 0 } end\n"
	"    if c == 'report_nan' then return { x = 0/0 } end\n"
	"    if c == 'report_inf' then return { x = { value = -math.huge } } end\n"
	"    if c == 'unit' then return { x = { value = 1, unit = '@SUM(A1)' } } end\n"
	"    if c == 'unit_utf8' then return { x = { value = 1, unit = '\\u{b5}s' } } end\n"
	"    return { ops_per_s = 12345, big = 2^40, tenth = 0.1 }\n"
	"  end,\n"
	"}\n";

static const struct { const char *c, *why; } misuse[] = {
	{ "close_share", "bad argument #1 to 'close' (file expected, got "
	  "shared table)" },
	{ "size_shared", "bad argument #1 to 'size' (file expected, got "
	  "read-only shared table)" },
	{ "count_nan", "count: value of 'x' is nan: a result must be a "
	  "finite number" },
	{ "count_status", "count: 'status' is a row fsplan writes itself" },
	{ "count_big", "count: 'big' would pass the largest finite number" },
	{ "count_sum", "the workers' metrics summed overflow: a counter past "
	  "the largest finite number" },
	{ "op_dev", "op 'dev_read': its row 'dev_read_ops' is one fsplan "
	  "writes itself" },
	{ "op_peak", "op 'memory_peak': its row 'memory_peak_bytes' is one "
	  "fsplan writes itself" },
	{ "report_status", "report: 'status' is a row fsplan writes itself" },
	{ "report_cpu", "report: 'cpu_user_s' is a row fsplan writes itself" },
	{ "report_path", "report: 'w1_path' is a row fsplan writes itself" },
	{ "report_nan", "report: value of 'x' is nan: a result must be a "
	  "finite number" },
	{ "report_inf", "report: value of 'x' is -inf: a result must be a "
	  "finite number" },
	{ "unit", "report: unit of 'x' ('@SUM(A1)') could start a "
	  "spreadsheet formula" },
};

struct rows {
	const char *cell;
	int n, unreserved;
	char first[64];
};

/* Every row of the plain run fsplan wrote is a reserved name, but the
 * module's own: its op w1's rows and what its report() returned. */
static int each_row(void *ctx, const char *const *f, int line)
{
	struct rows *r = ctx;
	const char *m = f[CSV_METRIC];

	(void)line;
	if (strcmp(f[CSV_CELL], r->cell))
		return 0;
	r->n++;
	if (!strncmp(m, "w1_", 3) && strcmp(m, "w1_path"))
		return 0;
	if (!strcmp(m, "ops_per_s") || !strcmp(m, "big") ||
	    !strcmp(m, "tenth"))
		return 0;
	if (!metrics_reserved(m) && !r->unreserved++)
		snprintf(r->first, sizeof(r->first), "%s", m);
	return 0;
}

Test(luaapi, a_module_cannot_forge_misuse_or_nan_its_way_into_the_rows,
     .fini = fini, .timeout = 120)
{
	const char *dir = e2e_tmpdir(), *why;
	char rd[300], body[4096], csvpath[400];
	struct rows rows = { "tmpfs::size=16M/plain#1", 0, 0, "" };
	struct diag d = { 0 };
	size_t n;
	int rc;

	e2e_require_root();
	e2e_write(dir, "luaapi.lua", hostile);
	n = (size_t)snprintf(body, sizeof(body),
			     "filesystems: [{type: tmpfs, mount: size=16M}]\n"
			     "between: none\n"
			     "phases:\n"
			     "  - {use: luaapi.lua, name: plain}\n"
			     "  - {use: luaapi.lua, name: utf8, "
			     "with: {case: unit_utf8}}\n");
	for (size_t i = 0; i < sizeof(misuse) / sizeof(misuse[0]); i++)
		n += (size_t)snprintf(body + n, sizeof(body) - n,
			"  - {use: luaapi.lua, name: %s, with: {case: %s, "
			"workers: 2}}\n", misuse[i].c, misuse[i].c);
	rc = e2e_run_plan(dir, "luaapi", body, rd, sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d (1: some phase runs failed): %s", rc,
		     e2e_err);
	for (size_t i = 0; i < sizeof(misuse) / sizeof(misuse[0]); i++) {
		char cell[64];

		snprintf(cell, sizeof(cell), "tmpfs::size=16M/%s#1",
			 misuse[i].c);
		cr_expect_str_eq(e2e_metric(rd, cell, "status"), "failed",
				 "%s", cell);
		why = e2e_reason(rd, cell);
		cr_expect(why && strstr(why, misuse[i].why), "%s: '%s' lacks "
			  "'%s'", misuse[i].c, why, misuse[i].why);
	}
	/* no refused value became a row: x is the utf8 run's alone */
	cr_expect_eq(e2e_count(rd, "x"), 1);
	/* the legit run: its rows as reported, integers as integers */
	cr_expect_str_eq(e2e_metric(rd, rows.cell, "status"), "ok", "%s",
			 e2e_reason(rd, rows.cell));
	cr_expect_str_eq(e2e_metric(rd, rows.cell, "ops_per_s"), "12345");
	cr_expect_str_eq(e2e_metric(rd, rows.cell, "big"), "1099511627776");
	cr_expect_str_eq(e2e_metric(rd, rows.cell, "tenth"), "0.1");
	cr_expect_str_eq(e2e_metric(rd, rows.cell, "w1_ops"), "1");
	cr_expect_eq(e2e_count(rd, "status"), 2 + (int)(sizeof(misuse) /
							  sizeof(misuse[0])));
	/* a unit the wire cannot carry is none, not a malformed report */
	cr_expect_str_eq(e2e_metric(rd, "tmpfs::size=16M/utf8#1", "status"),
			 "ok", "%s", e2e_reason(rd, "tmpfs::size=16M/utf8#1"));
	/* the reserved list holds every row fsplan writes of its own */
	snprintf(csvpath, sizeof(csvpath), "%s/results.csv", rd);
	cr_assert_eq(csv_read_rows(csvpath, each_row, &rows, NULL, &d), 0,
		     "%s", d.msg);
	cr_expect_gt(rows.n, 15, "%d rows", rows.n);
	cr_expect_eq(rows.unreserved, 0, "%d rows fsplan writes are not in "
		     "metrics_reserved's list, first '%s'", rows.unreserved,
		     rows.first);
}

/* The one list: each name the issue gives, and every shape fsplan
 * writes it in (a volume's suffix); a module's own names pass. */
Test(luaapi, the_reserved_names_and_only_those)
{
	static const char *const refused[] = {
		"status", "exit_status", "signal", "seconds", "cpu_user_s",
		"cpu_sys_s", "cpu_pct", "dev_read_bytes", "dev_busy_ms_vol",
		"write_amp", "write_amp_vol", "fs_used_bytes",
		"fs_used_bytes_vol", "ram_mib", "ram_limit", "rss_peak_kib",
		"memory_peak_bytes", "load_1m", "others_cpu_s",
		"others_user_cpu_s", "others_cores", "steal_s", "steal_cores",
		"reps_run", "stop_reason", "loop_io", "read_path", "x_path",
		"mkfs_s", "mount_s_vol", "umount_s",
	};
	static const char *const passed[] = {
		"ops_per_s", "status_mismatch", "seconds_total", "read_mbs",
		"path", "cpu", "read_path_len", "replay_cpu_s", "my_status",
		"cpu_eff", "ram_given", "ram_bytes",
	};
	struct diag d = { 0 };

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		cr_expect_not_null(metrics_reserved(refused[i]), "%s",
				   refused[i]);
		cr_expect_eq(metrics_refuse(refused[i], 1, "", &d), -1);
		cr_expect(strstr(d.msg, "is a row fsplan writes itself"), "%s",
			  d.msg);
	}
	for (size_t i = 0; i < sizeof(passed) / sizeof(passed[0]); i++)
		cr_expect_eq(metrics_refuse(passed[i], 1, "ops/s", &d), 0,
			     "%s: %s", passed[i], d.msg);
	/* a name is a formula to a spreadsheet only with - first */
	cr_expect(!metrics_metric_name_ok("-A1", 3));
	cr_expect(metrics_metric_name_ok("a-b.c_1", 7));
	for (const char *u = "=+-@\t\r"; *u; u++) {
		char unit[4] = { *u, '1', '\0' };

		cr_expect_eq(metrics_refuse("x", 1, unit, &d), -1, "%s",
			     unit);
	}
}

/* A parser's table through lparse_body, as fsplan runs one in the
 * child: what it sent on the report fd, and how it exited. */
static int run_parser(const char *returns, char *report, size_t len)
{
	const char *dir = e2e_tmpdir();
	char text[256];
	struct lparse_job job = { .out = "", .err = "" };
	size_t got = 0;
	ssize_t n;
	int fds[2], status;
	pid_t pid;

	snprintf(text, sizeof(text), "return function(out, err) return %s "
		 "end\n", returns);
	job.parser = e2e_write(dir, "p.lua", text);
	cr_assert(!pipe(fds));
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		if (dup2(fds[1], METRICS_REPORT_FD) < 0)
			_exit(99);
		_exit(lparse_body(&job));
	}
	close(fds[1]);
	while (got < len - 1 &&
	       (n = read(fds[0], report + got, len - 1 - got)) > 0)
		got += (size_t)n;
	report[got] = '\0';
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(luaapi, a_parser_cannot_send_fsplans_rows_nor_nan, .fini = fini)
{
	static const struct { const char *returns, *why; } cases[] = {
		{ "{ status = 1 }", "'status' is a row fsplan writes "
		  "itself" },
		{ "{ dev_write_bytes = 1 }", "'dev_write_bytes' is a row "
		  "fsplan writes itself" },
		{ "{ x = 0/0 }", "value of 'x' is nan: a result must be a "
		  "finite number" },
		{ "{ x = { value = 1, unit = '+A1' } }", "unit of 'x' "
		  "('+A1') could start a spreadsheet formula" },
	};
	char report[4096];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct diag d = { 0 };

		cr_expect_eq(run_parser(cases[i].returns, report,
					sizeof(report)), 1, "%s: %s",
			     cases[i].returns, report);
		cr_expect_eq(metrics_diag_decode(report, strlen(report), &d),
			     1, "%s: no failure record in '%s'",
			     cases[i].returns, report);
		cr_expect(!strncmp(d.msg, cases[i].why, strlen(cases[i].why)),
			  "%s: '%s'", cases[i].returns, d.msg);
		cr_expect_eq(d.kind, DIAG_PHASE);
		diag_release(&d);
	}
	/* a legit table: integers exact on the wire */
	cr_expect_eq(run_parser("{ ops_per_s = 12345678901234, r = 0.1 }",
				report, sizeof(report)), 0, "%s", report);
	cr_expect(strstr(report, "P ops_per_s 12345678901234\n"), "%s",
		  report);
}
