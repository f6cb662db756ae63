/* test_dbench: the dbench phase and its parser — the real dbench's report
 * parsed, a hand-written loadfile's every op checked on the filesystem,
 * client.txt replayed on ext4 and xfs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "e2e.h"
#include "luacount.h"
#include "phase/libsrc.h"
#include "phase/lparse.h"
#include "phase/sandbox.h"
#include "luacall.h"

/* ---- the parser: lua/parse/dbench.lua on the real dbench 4.0's output -- */

static lua_State *L;

static void parse_sample(const char *text, size_t len, int want_ok,
			 char *err, size_t errlen)
{
	struct timespec ts;
	struct sandbox_limits lim;
	char path[4096];
	struct diag d = { 0 };

	clock_gettime(CLOCK_MONOTONIC, &ts);
	lim = (struct sandbox_limits){ 64u << 20, ts.tv_sec + 30.0, NULL,
				       libsrc_dir(), NULL };
	L = sandbox_new(&lim);
	cr_assert(L);
	snprintf(path, sizeof(path), "%s/parse/dbench.lua", libsrc_dir());
	cr_assert(!lparse_load(L, path, NULL, &d), "%s", d.msg);
	lua_pushlstring(L, text, len);
	lua_pushliteral(L, "");
	if (want_ok) {
		cr_assert(!call_text(L, 2, 1, err, errlen), "%s", err);
		cr_assert(lua_istable(L, -1));
	} else {
		cr_assert(call_text(L, 2, 1, err, errlen),
			  "parse succeeded");
	}
}

static void parse_fini(void)
{
	if (L)
		sandbox_close(L);
	L = NULL;
}

static void expect(const char *name, double want, const char *unit)
{
	lua_getfield(L, -1, name);
	if (!lua_istable(L, -1)) {
		cr_expect_fail("metric %s is missing", name);
		lua_pop(L, 1);
		return;
	}
	lua_getfield(L, -1, "value");
	lua_getfield(L, -2, "unit");
	cr_expect(lua_type(L, -2) == LUA_TNUMBER &&
		  fabs(lua_tonumber(L, -2) - want) <= 1e-9 * fabs(want),
		  "%s = %s, expected %.17g", name, lua_tostring(L, -2), want);
	cr_expect_str_eq(lua_tostring(L, -1), unit, "%s: unit", name);
	lua_pop(L, 3);
}

Test(dbench, parser_on_the_sample, .fini = parse_fini)
{
	/* dbench_ext4_t10_4.txt: its table, every row */
	static const struct { const char *op; double n, avg, max; } rows[] = {
		{ "ntcreatex", 155346, 0.018, 7.969 },
		{ "close", 114051, 0.003, 4.014 },
		{ "rename", 6577, 0.038, 4.977 },
		{ "unlink", 31442, 0.028, 10.557 },
		{ "qpathinfo", 140957, 0.009, 12.192 },
		{ "qfileinfo", 24551, 0.002, 2.407 },
		{ "qfsinfo", 25833, 0.003, 3.490 },
		{ "sfileinfo", 12632, 0.022, 3.881 },
		{ "find", 54437, 0.029, 4.174 },
		{ "writex", 76715, 0.014, 6.614 },
		{ "readx", 243681, 0.005, 11.291 },
		{ "lockx", 506, 0.005, 0.100 },
		{ "unlockx", 506, 0.003, 0.089 },
		{ "flush", 10869, 2.582, 93.888 },
	};
	char err[4096], name[64];
	size_t len;
	char *text = e2e_slurp("fixtures/parse/dbench_ext4_t10_4.txt", &len);

	parse_sample(text, len, 1, err, sizeof(err));
	free(text);
	/* Throughput 482.745 MB/sec  4 clients  4 procs  max_latency=93.999 ms */
	expect("throughput_mbs", 482.745, "MB/s");
	expect("clients", 4, "");
	expect("procs", 4, "");
	expect("max_latency_ms", 93.999, "ms");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		snprintf(name, sizeof(name), "%s_ops", rows[i].op);
		expect(name, rows[i].n, "ops");
		snprintf(name, sizeof(name), "%s_lat_avg_ms", rows[i].op);
		expect(name, rows[i].avg, "ms");
		snprintf(name, sizeof(name), "%s_lat_max_ms", rows[i].op);
		expect(name, rows[i].max, "ms");
	}
	/* nothing else: not the progress lines, no op dbench did not run */
	cr_expect_eq(lua_count_keys(L), 4 + 14 * 3, "%d metrics", lua_count_keys(L));
}

Test(dbench, parser_without_the_throughput_line, .fini = parse_fini)
{
	static const char out[] =
		"dbench version 4.00 - Copyright Andrew Tridgell 1999-2004\n"
		"   4     24899   603.08 MB/sec  warmup   1 sec  latency 13.5 ms\n";
	char err[4096];

	parse_sample(out, sizeof(out) - 1, 0, err, sizeof(err));
	cr_expect(strstr(err, "no 'Throughput X MB/sec"), "%s", err);
}

/* ---- the phase, end to end ------------------------------------------- */

static void fini(void)
{
	e2e_cleanup();
}

static int run_plan(const char *dir, const char *body, char *rd, size_t len)
{
	char text[8192];
	char *plan;

	snprintf(text, sizeof(text), "fsplan: 1\nname: db\n%s", body);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, len, "%s/run", dir);
	return e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					    NULL });
}

/* Every op once, each with an effect the checker phase below can see. */
static const char loadfile[] =
	"# every NetBench op the fileio backend knows\n"
	"Deltree \"\\clients\\client1\" NT_STATUS_OK\n"
	"Mkdir \"\\clients\" NT_STATUS_OK\n"
	"NTCreateX \"\\clients\\client1\" 0x1 0x2 1 NT_STATUS_OK\n"
	"Close 1 NT_STATUS_OK\n"
	"Mkdir \"\\clients\\client1\\dir\" NT_STATUS_OK\n"
	"Mkdir \"\\clients\\client1\\gone\" NT_STATUS_OK\n"
	"Rmdir \"\\clients\\client1\\gone\" NT_STATUS_OK\n"
	"NTCreateX \"\\clients\\client1\\dir\\a.txt\" 0x40 0x2 2 NT_STATUS_OK\n"
	"WriteX 2 0 65536 65536 NT_STATUS_OK\n"
	"WriteX 2 65536 1000 1000 NT_STATUS_OK\n"
	"QUERY_FILE_INFORMATION 2 1004 NT_STATUS_OK\n"
	"SET_FILE_INFORMATION 2 1004 NT_STATUS_OK\n"
	"LockX 2 0 100 NT_STATUS_OK\n"
	"UnlockX 2 0 100 NT_STATUS_OK\n"
	"Flush 2 NT_STATUS_OK\n"
	"ReadX 2 0 4096 4096 NT_STATUS_OK\n"
	"Close 2 NT_STATUS_OK\n"
	"NTCreateX \"\\clients\\client1\\dir\\b.txt\" 0x40 0x5 3 NT_STATUS_OK\n"
	"WriteX 3 0 100 100 NT_STATUS_OK\n"
	"Close 3 NT_STATUS_OK\n"
	"Rename \"\\clients\\client1\\dir\\b.txt\" "
	"\"\\clients\\client1\\dir\\c.txt\" NT_STATUS_OK\n"
	"NTCreateX \"\\clients\\client1\\dir\\d.txt\" 0x40 0x2 4 NT_STATUS_OK\n"
	"Close 4 NT_STATUS_OK\n"
	"Unlink \"\\clients\\client1\\dir\\d.txt\" 0x0\n"
	"Unlink \"\\clients\\client1\\dir\\d.txt\" "
	"NT_STATUS_OBJECT_NAME_NOT_FOUND\n"
	"NTCreateX \"\\clients\\client1\\dir\\missing\" 0x40 0x1 5 "
	"NT_STATUS_OBJECT_NAME_NOT_FOUND\n"
	"NTCreateX \"\\clients\\client1\\dir\\c.txt\" 0x40 0x1 8 "
	"NT_STATUS_OBJECT_NAME_NOT_FOUND\n"
	"QUERY_PATH_INFORMATION \"\\clients\\client1\\DIR\\A.TXT\" 1004 "
	"NT_STATUS_OK\n"
	"FIND_FIRST \"\\clients\\client1\\dir\\*\" 260 1366 0 NT_STATUS_OK\n"
	"QUERY_FS_INFORMATION 1 NT_STATUS_OK\n"
	"Mkdir \"\\clients\\client1\\tree\" NT_STATUS_OK\n"
	"Mkdir \"\\clients\\client1\\tree\\sub\" NT_STATUS_OK\n"
	"NTCreateX \"\\clients\\client1\\tree\\sub\\x\" 0x40 0x2 6 "
	"NT_STATUS_OK\n"
	"WriteX 6 0 10 10 NT_STATUS_OK\n"
	"Close 6 NT_STATUS_OK\n"
	"NTCreateX \"\\clients\\client1\\tree\\y\" 0x40 0x2 7 NT_STATUS_OK\n"
	"Close 7 NT_STATUS_OK\n"
	"Deltree \"\\clients\\client1\\tree\" NT_STATUS_OK\n"
	"Sleep 1000 NT_STATUS_OK\n"
	"BadOp 1 NOT_A_STATUS\n";

/* A phase that looks at what the replay left in the shared work
 * directory, as counters. */
static const char checker[] =
	"local function size(w, p)\n"
	"  local st = w:stat(p)\n"
	"  return st and st.size or -1\n"
	"end\n"
	"return { worker = function(w)\n"
	"  for c = 0, 1 do\n"
	"    local d = 'clients/client' .. c .. '/'\n"
	"    local n = 'c' .. c .. '_'\n"
	"    w:count(n .. 'a_size', size(w, d .. 'dir/a.txt'))\n"
	"    w:count(n .. 'c_size', size(w, d .. 'dir/c.txt'))\n"
	"    for _, f in ipairs{ 'dir/b.txt', 'dir/d.txt', 'dir/missing',\n"
	"                        'gone', 'tree/sub/x', 'tree/y' } do\n"
	"      w:count(n .. f:gsub('[/.]', '_') .. '_there',\n"
	"              w:stat(d .. f) and 1 or 0)\n"
	"    end\n"
	"    local st = w:stat(d .. 'tree/sub')\n"
	"    w:count(n .. 'tree_sub_dir', st and st.isdir and 1 or 0)\n"
	"    st = w:stat(d .. 'dir/a.txt')\n"
	"    w:count(n .. 'a_mtime_back', st and st.mtime < st.ctime - 11\n"
	"            and 1 or 0)\n"
	"  end\n"
	"  w:count('client2_there', w:stat('clients/client2') and 1 or 0)\n"
	"end }\n";

Test(dbench, every_op_on_the_filesystem, .fini = fini, .timeout = 120)
{
	const char *dir = e2e_tmpdir();
	const char *cell = "ext4/replay#1", *chk = "ext4/look#1";
	char rd[300];
	int rc;

	e2e_require_root();
	e2e_write(dir, "ops.txt", loadfile);
	e2e_write(dir, "look.lua", checker);
	rc = run_plan(dir, "target: {image: 128M}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - {use: dbench, name: replay, with: {workers: 2,"
		      " loadfile: ops.txt, run_once: true,"
		      " skip_cleanup: true}}\n"
		      "  - {use: look.lua, name: look}\n", rd, sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_assert_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s",
			 e2e_reason(rd, cell));
	/* each op once a client, two clients: dbench's table */
	cr_expect_eq(e2e_num(rd, cell, "ntcreatex_ops"), 2 * 8);
	cr_expect_eq(e2e_num(rd, cell, "writex_ops"), 2 * 4);
	cr_expect_eq(e2e_num(rd, cell, "readx_ops"), 2 * 1);
	cr_expect_eq(e2e_num(rd, cell, "close_ops"), 2 * 6);
	cr_expect_eq(e2e_num(rd, cell, "unlink_ops"), 2 * 2);
	cr_expect_eq(e2e_num(rd, cell, "rename_ops"), 2 * 1);
	cr_expect_eq(e2e_num(rd, cell, "deltree_ops"), 2 * 2);
	cr_expect_eq(e2e_num(rd, cell, "mkdir_ops"), 2 * 5);
	cr_expect_eq(e2e_num(rd, cell, "rmdir_ops"), 2 * 1);
	cr_expect_eq(e2e_num(rd, cell, "qpathinfo_ops"), 2 * 1);
	cr_expect_eq(e2e_num(rd, cell, "qfileinfo_ops"), 2 * 1);
	cr_expect_eq(e2e_num(rd, cell, "qfsinfo_ops"), 2 * 1);
	cr_expect_eq(e2e_num(rd, cell, "sfileinfo_ops"), 2 * 1);
	cr_expect_eq(e2e_num(rd, cell, "find_ops"), 2 * 1);
	cr_expect_eq(e2e_num(rd, cell, "lockx_ops"), 2 * 1);
	cr_expect_eq(e2e_num(rd, cell, "unlockx_ops"), 2 * 1);
	cr_expect_eq(e2e_num(rd, cell, "flush_ops"), 2 * 1);
	cr_expect_eq(e2e_num(rd, cell, "sleep_ops"), 2 * 1);
	cr_expect_geq(e2e_num(rd, cell, "sleep_lat_avg_ms"), 1.0);
	cr_expect_eq(e2e_num(rd, cell, "loadfile_ops"), 39, "the bad line "
		     "and the comment are skipped");
	/* the worker API's own calls inside an op are not rows of their own */
	cr_expect_null(e2e_metric(rd, cell, "open_ops"));
	cr_expect_null(e2e_metric(rd, cell, "stat_ops"));
	/* ReadX and WriteX bytes: 65536 + 1000 + 100 + 10 + 4096 a client */
	cr_expect_eq(e2e_num(rd, cell, "rw_bytes"), 2 * 70742.0);
	cr_expect_gt(e2e_num(rd, cell, "throughput_mbs"), 0);
	/* the units the real dbench's rows get from parse: dbench */
	cr_expect_str_eq(e2e_unit(rd, cell, "throughput_mbs"), "MB/s");
	cr_expect_str_eq(e2e_unit(rd, cell, "max_latency_ms"), "ms");
	/* NTCreateX of c.txt must fail and opens: noted, as dbench does */
	cr_expect_eq(e2e_num(rd, cell, "status_mismatch"), 2);

	cr_assert_str_eq(e2e_metric(rd, chk, "status"), "ok", "%s",
			 e2e_reason(rd, chk));
	for (int c = 0; c < 2; c++) {
		char m[128];
		static const char *const gone[] = {
			"dir_b_txt", "dir_d_txt", "dir_missing", "gone",
			"tree_sub_x", "tree_y" };

#define M(s) (snprintf(m, sizeof(m), "c%d_%s", c, s), m)
		cr_expect_eq(e2e_num(rd, chk, M("a_size")), 66536, "client%d", c);
		cr_expect_eq(e2e_num(rd, chk, M("c_size")), 100, "client%d", c);
		cr_expect_eq(e2e_num(rd, chk, M("a_mtime_back")), 1,
			     "client%d: SET_FILE_INFORMATION's utime", c);
		cr_expect_eq(e2e_num(rd, chk, M("tree_sub_dir")), 1,
			     "client%d: Deltree leaves directories", c);
		for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++) {
			char what[48];

			snprintf(what, sizeof(what), "%s_there", gone[i]);
			cr_expect_eq(e2e_num(rd, chk, M(what)), 0, "client%d: %s",
				     c, gone[i]);
		}
#undef M
	}
	cr_expect_eq(e2e_num(rd, chk, "client2_there"), 0);
}

/* An Unlink, Rmdir or Rename that does not do what its status says
 * ends the run, as dbench's "child failed". */
Test(dbench, an_op_expected_to_fail_must_fail, .fini = fini, .timeout = 60)
{
	const char *dir = e2e_tmpdir();
	const char *why;
	char rd[300];
	int rc;

	e2e_require_root();
	e2e_write(dir, "ops.txt",
		  "Mkdir \"\\clients\\client1\" NT_STATUS_OK\n"
		  "NTCreateX \"\\clients\\client1\\f\" 0x40 0x2 1 NT_STATUS_OK\n"
		  "Close 1 NT_STATUS_OK\n"
		  "Unlink \"\\clients\\client1\\f\" "
		  "NT_STATUS_OBJECT_NAME_NOT_FOUND\n");
	e2e_write(dir, "ren.txt",
		  "Rename \"\\clients\\client1\\no\" \"\\clients\\client1\\x\" "
		  "NT_STATUS_OK\n");
	rc = run_plan(dir, "target: {image: 128M}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - {use: dbench, name: unlink, with: {loadfile: ops.txt,"
		      " seconds: 2}}\n"
		      "  - {use: dbench, name: rename, with: {loadfile: ren.txt,"
		      " run_once: true}}\n", rd, sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "ext4/unlink#1", "status"), "failed");
	why = e2e_reason(rd, "ext4/unlink#1");
	cr_expect(why && strstr(why, "line 4") &&
		  strstr(why, "unlink clients/client0/f succeeded (expected "
			 "failure)"), "%s", why);
	cr_expect_str_eq(e2e_metric(rd, "ext4/rename#1", "status"), "failed");
	why = e2e_reason(rd, "ext4/rename#1");
	cr_expect(why && strstr(why, "failed (expected success)"), "%s", why);
}

/* client.txt, 2 clients, a few seconds: dbench's rows on ext4 and xfs */
Test(dbench, client_txt_on_ext4_and_xfs, .fini = fini, .timeout = 180)
{
	static const char *const ops[] = { "ntcreatex", "close", "rename",
		"unlink", "qpathinfo", "qfileinfo", "qfsinfo", "sfileinfo",
		"find", "writex", "readx", "flush" };
	static const char *const cells[] = { "ext4/dbench#1", "xfs/dbench#1" };
	const char *dir = e2e_tmpdir();
	char rd[300], m[64];
	int rc;

	e2e_require_root();
	if (access("/usr/share/dbench/client.txt", R_OK))
		cr_skip_test("no /usr/share/dbench/client.txt (Debian's "
			     "dbench package)");
	if (access("/sbin/mkfs.xfs", X_OK) && access("/usr/sbin/mkfs.xfs",
						     X_OK))
		cr_skip_test("no mkfs.xfs");
	rc = run_plan(dir, "target: {image: 512M}\n"
		      "filesystems: [{type: ext4}, {type: xfs}]\n"
		      "phases:\n"
		      "  - {use: dbench, with: {workers: 2, seconds: 5}}\n",
		      rd, sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	for (int i = 0; i < 2; i++) {
		const char *cell = cells[i];
		double secs;

		cr_assert_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s",
				 e2e_reason(rd, cell));
		cr_expect_eq(e2e_num(rd, cell, "clients"), 2);
		cr_expect_eq(e2e_num(rd, cell, "loadfile_ops"), 458344 - 0,
			     "%s", cell);
		/* it stops at the first clock check past 5 s: at most the
		 * slowest op (an fsync on a loaded disk can take a second)
		 * and the few lines between checks later */
		secs = e2e_num(rd, cell, "measured_s");
		cr_expect(secs > 4.9 && secs < 5.25 + e2e_num(rd, cell,
			  "max_latency_ms") / 1000, "%s: measured %g s, the "
			  "slowest op %g ms", cell, secs,
			  e2e_num(rd, cell, "max_latency_ms"));
		/* warm-up (1 s) + 5 s, and the cleanup */
		cr_expect_gt(e2e_num(rd, cell, "seconds"), 5.9, "%s", cell);
		cr_expect(fabs(e2e_num(rd, cell, "throughput_mbs") -
			       e2e_num(rd, cell, "rw_bytes") / 1e6 / secs) <
			  1e-6 * e2e_num(rd, cell, "throughput_mbs"), "%s", cell);
		for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
			snprintf(m, sizeof(m), "%s_ops", ops[k]);
			cr_expect_gt(e2e_num(rd, cell, m), 0, "%s: %s", cell, m);
			snprintf(m, sizeof(m), "%s_lat_max_ms", ops[k]);
			cr_expect_leq(e2e_num(rd, cell, m),
				      e2e_num(rd, cell, "max_latency_ms"), "%s", m);
		}
		cr_expect_eq(e2e_num(rd, cell, "status_mismatch"), 0, "%s", cell);
	}
}
