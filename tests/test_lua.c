/* test_lua: Lua phases end to end — the API on both engines, ENOSPC, hostile
 * code, identity. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

/* A .lua path is relative to the plan: lua/ beside the plan in the
 * test's tmpdir links to tests/fixtures/lua. */
static void link_fixtures(void)
{
	char cwd[PATH_MAX], link[400];

	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	snprintf(link, sizeof(link), "%s/lua", e2e_tmpdir());
	strcat(cwd, "/fixtures/lua");
	cr_assert_eq(symlink(cwd, link), 0);
}

/* A plan in the test's tmpdir; lua/ beside it links to the fixtures. */
static int run_lua(const char *body, char *rd, size_t len)
{
	const char *dir = e2e_tmpdir();
	char text[8192];
	char *plan;

	snprintf(text, sizeof(text), "fsplan: 1\n%s", body);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, len, "%s/run", dir);
	return e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					    NULL });
}

Test(lua, api_op_by_op_on_both_engines, .fini = fini, .timeout = 120)
{
	char rd[300];
	int rc;

	e2e_require_root();
	link_fixtures();
	rc = run_lua("target: {image: 512M}\n"
		     "between: [sync, drop_caches]\n"
		     "filesystems: [{type: ext4}, {type: xfs, mkfs: -f}]\n"
		     "matrix: {engine: [uring, sync]}\n"
		     "phases:\n"
		     "  - {use: lua/api.lua, name: write,"
		     " with: {mode: write, engine: '${engine}',"
		     " input: lua/api.lua}}\n"
		     "  - {use: lua/api.lua, name: verify,"
		     " with: {mode: verify, engine: '${engine}',"
		     " input: lua/api.lua}}\n",
		     rd, sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	for (int fs = 0; fs < 2; fs++)
		for (int en = 0; en < 2; en++)
			for (int ph = 0; ph < 2; ph++) {
				char cell[128];

				snprintf(cell, sizeof(cell), "%s/%s/engine=%s#1",
					 fs ? "xfs:-f" : "ext4",
					 ph ? "verify" : "write",
					 en ? "sync" : "uring");
				cr_expect_str_eq(e2e_metric(rd, cell, "status"),
						 "ok", "%s: %s", cell,
						 e2e_reason(rd, cell));
			}
	cr_expect_str_eq(e2e_metric(rd, "ext4/write/engine=uring#1",
				    "checks"), "2");
	/* four single writes and a 64-op stream, all named write */
	cr_expect_str_eq(e2e_metric(rd, "ext4/write/engine=sync#1",
				    "write_ops"), "68");
	cr_expect_str_eq(e2e_metric(rd, "ext4/write/engine=uring#1",
				    "txn_ops"), "1");
	/* w:files: each file timed under its tag, the ops under theirs */
	for (int en = 0; en < 2; en++) {
		char cell[128];

		snprintf(cell, sizeof(cell), "ext4/write/engine=%s#1",
			 en ? "sync" : "uring");
		cr_expect_str_eq(e2e_metric(rd, cell, "mk_ops"), "3", "%s", cell);
		cr_expect_str_eq(e2e_metric(rd, cell, "rm_ops"), "3", "%s", cell);
		cr_expect_str_eq(e2e_metric(rd, cell, "unlink_ops"), "5",
				 "%s (3 by w:files, d2/up, d/h)", cell);
	}
}

Test(lua, identity_inside_a_lua_phase, .fini = fini, .timeout = 60)
{
	char rd[300];
	int rc;

	e2e_require_root();
	link_fixtures();
	rc = run_lua("target: {image: 64M}\n"
		     "filesystems: [{type: ext4}]\n"
		     "phases: [{use: lua/identity.lua, with: {workers: 3}}]\n",
		     rd, sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "ext4/identity#1", "status"), "ok",
			 "%s", e2e_reason(rd, "ext4/identity#1"));
	/* three workers counted nobody's uid each */
	cr_expect_str_eq(e2e_metric(rd, "ext4/identity#1", "uid"),
			 "196602");
}

Test(lua, enospc_fails_the_run_and_the_next_cell_runs, .fini = fini,
     .timeout = 60)
{
	char rd[300];
	const char *why;
	int rc;

	e2e_require_root();
	link_fixtures();
	rc = run_lua("target: {image: 16M}\n"
		     "filesystems: [{type: ext4}, {type: tmpfs, mount: "
		     "size=32M}]\n"
		     "phases: [{use: lua/fill.lua, with: {size: 24M}}]\n",
		     rd, sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "ext4/fill#1", "status"), "failed");
	why = e2e_reason(rd, "ext4/fill#1");
	cr_expect(why && strstr(why, "No space left on device"), "%s", why);
	cr_expect_str_eq(e2e_metric(rd, "tmpfs::size=32M/fill#1", "status"),
			 "ok", "%s", e2e_reason(rd, "tmpfs::size=32M/fill#1"));
}

Test(lua, hostile_phases_fail_clearly_and_the_run_goes_on, .fini = fini,
     .timeout = 120)
{
	static const struct { const char *attack, *hook, *want; } cases[] = {
		{ "execute", "worker", "undefined global 'os'" },
		{ "io", "worker", "undefined global 'io'" },
		{ "absolute", "worker", "relative to the work directory" },
		{ "dotdot", "worker", "would leave the work directory" },
		{ "symlink", "worker", "p: " },
		{ "symlink_sub", "worker", "q/p: " },
		{ "bytecode", "worker", "binary chunk" },
		{ "spin", "worker", "phase stopped: deadline passed" },
		{ "swallow", "worker", "phase stopped: deadline passed" },
		{ "memory", "worker", "not enough memory" },
		{ "global", "worker", "undefined global 'undefined_thing'" },
		{ "bigread", "worker", "not enough memory" },
		{ "bigstream", "worker", "not enough memory" },
		{ "nul", "worker", "NUL byte" },
		{ "ignored", "worker", "1 I/O error, first: EBADF in write" },
		{ "none", "setup", "boom in setup" },
		{ "none", "worker", "boom in worker" },
		{ "none", "teardown", "boom in teardown" },
		{ "none", "report", "boom in report" },
	};
	char rd[300], body[4096];
	size_t n;
	int rc;

	e2e_require_root();
	link_fixtures();
	n = (size_t)snprintf(body, sizeof(body),
			     "target: {image: 64M}\n"
			     "between: none\n"
			     "filesystems: [{type: ext4}]\n"
			     "phases:\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		n += (size_t)snprintf(body + n, sizeof(body) - n,
			"  - {use: lua/hostile.lua, name: h%zu, timeout: 3s, "
			"memory: 32M, with: {attack: %s, hook: %s}}\n", i,
			cases[i].attack, cases[i].hook);
	snprintf(body + n, sizeof(body) - n,
		 "  - {use: lua/identity.lua, name: after}\n");
	rc = run_lua(body, rd, sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d: %s", rc, e2e_err);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char cell[64];
		const char *why;

		snprintf(cell, sizeof(cell), "ext4/h%zu#1", i);
		cr_expect_str_eq(e2e_metric(rd, cell, "status"), "failed",
				 "%s (%s) was not stopped", cell,
				 cases[i].attack);
		why = e2e_reason(rd, cell);
		if (!cases[i].want[0])
			cr_expect(why && (strstr(why, "deadline") ||
					  strstr(why, "timeout")),
				  "%s: %s", cases[i].attack, why);
		else
			cr_expect(why && strstr(why, cases[i].want),
				  "%s: '%s' lacks '%s'", cases[i].attack, why,
				  cases[i].want);
		if (cases[i].want[0] && strstr(cases[i].want, "boom"))
			cr_expect(strstr(why, "hostile.lua:"),
				  "no file:line in '%s'", why);
	}
	cr_expect_str_eq(e2e_metric(rd, "ext4/after#1", "status"), "ok");
}
