/* test_execmod: exec modules (lua/mariadb.lua's kind): what the check
 * refuses of them and of mariadb's parameters, and a module's own script. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "e2e.h"
#include "util/sha256.h"

static void fini(void)
{
	e2e_cleanup();
}

/* ---- exec modules: what the check refuses ---------------------------- */

static int check_module(const char *dir, const char *module)
{
	char *plan;

	e2e_write(dir, "m.lua", module);
	plan = e2e_write(dir, "plan.yaml", "fsplan: 1\nname: m\n"
			 "target: {dir: /tmp}\nphases:\n  - use: m.lua\n");
	return e2e_fsplan((const char *[]){ "check", plan, NULL });
}

Test(oltp, exec_module_names_a_script_of_the_library, .fini = fini)
{
	const char *dir = e2e_tmpdir();
	int rc = check_module(dir, "return { exec = 'nosuch.sh', "
			      "parse = 'sysbench' }\n");

	cr_expect_eq(rc, 2, "exit %d", rc);
	cr_expect(strstr(e2e_err, "no script 'nosuch.sh'"), "%s", e2e_err);
	rc = check_module(dir, "return { exec = '../x.sh', parse = 'x' }\n");
	cr_expect_eq(rc, 2);
	cr_expect(strstr(e2e_err, "names a file of the library"), "%s",
		  e2e_err);
	rc = check_module(dir, "return { exec = 'mariadb.sh' }\n");
	cr_expect_eq(rc, 2);
	cr_expect(strstr(e2e_err, "names both"), "%s", e2e_err);
	rc = check_module(dir, "return { exec = 'mariadb.sh', parse = "
			  "'sysbench', worker = function() end }\n");
	cr_expect_eq(rc, 2);
	cr_expect(strstr(e2e_err, "not both"), "%s", e2e_err);
	rc = check_module(dir, "return { exec = 'mariadb.sh', parse = "
			  "'sysbench' }\n");
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
}

Test(oltp, mariadb_parameters_are_checked, .fini = fini)
{
	const char *dir = e2e_tmpdir();
	char *plan = e2e_write(dir, "plan.yaml", "fsplan: 1\nname: m\n"
			       "target: {dir: /tmp}\nphases:\n"
			       "  - use: mariadb\n"
			       "    with: {table_sise: 10}\n");
	int rc = e2e_fsplan((const char *[]){ "check", plan, NULL });

	cr_expect_eq(rc, 2, "exit %d", rc);
	cr_expect(strstr(e2e_err, "plan.yaml:6:12"), "%s", e2e_err);
	cr_expect(strstr(e2e_err, "table_size"), "%s", e2e_err);
}

/* The InnoDB settings take only the values mariadbd 10.11 accepts. */
Test(oltp, mariadb_innodb_settings_are_checked, .fini = fini)
{
	static const char *const bad[][2] = {
		{ "flush_method: O_DIRCT", "is not one of fsync, O_DSYNC" },
		{ "flush_log_at_trx_commit: 3", "is not 0, 1 or 2" },
		{ "doublewrite: maybe", "'doublewrite' is a boolean" },
		{ "events: -5", "events: -5 is not a whole number" },
		{ "events: 99999999999999999999", "events: 1e+20 is not a whole "
		  "number of transactions from 0 to 2^53" },
	};
	const char *dir = e2e_tmpdir();
	char text[300], *plan;
	int rc;

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		snprintf(text, sizeof(text), "fsplan: 1\nname: m\n"
			 "target: {dir: /tmp}\nphases:\n"
			 "  - {use: mariadb, with: {%s}}\n", bad[i][0]);
		plan = e2e_write(dir, "plan.yaml", text);
		rc = e2e_fsplan((const char *[]){ "check", plan, NULL });
		cr_expect_eq(rc, 2, "%s: exit %d", bad[i][0], rc);
		cr_expect(strstr(e2e_err, bad[i][1]), "%s: %s", bad[i][0],
			  e2e_err);
	}
	plan = e2e_write(dir, "plan.yaml", "fsplan: 1\nname: m\n"
			 "target: {dir: /tmp}\nphases:\n"
			 "  - {use: mariadb, with: {flush_method: "
			 "O_DIRECT_NO_FSYNC, flush_log_at_trx_commit: 0, "
			 "doublewrite: false, events: 200}}\n");
	rc = e2e_fsplan((const char *[]){ "check", plan, NULL });
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
}

/* An exec module beside the plan brings its script in exec/ beside it:
 * found before the library's, run, and its sha256 in the manifest. */
Test(oltp, exec_module_beside_the_plan_brings_its_script, .fini = fini)
{
	const char *dir = e2e_tmpdir();
	const char *cell = "dir/mine#1";
	char rd[300], path[600], want[65], body[600];
	const char *man;
	int rc;

	snprintf(path, sizeof(path), "%s/exec", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	e2e_write(dir, "mine.lua", "return { params = { events = 7 }, "
		  "exec = 'mariadb.sh', parse = 'sysbench', "
		  "key = { 'events' } }\n");
	/* a name the library has too: the module's own runs, not the
	 * library's (which would start a MariaDB) */
	e2e_write(path, "mariadb.sh", "echo 'General statistics:'\n"
		  "echo \"    total time: 1.5s\"\n"
		  "echo \"    total number of events: $FSPLAN_P_events\"\n");
	strcat(path, "/mariadb.sh");
	snprintf(body, sizeof(body), "target: {dir: %s}\n"
		 "phases:\n  - {use: ./mine.lua, name: mine, "
		 "with: {events: 12}}\n", dir);
	rc = e2e_run_plan(dir, "own", body, rd, sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_assert_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s",
			 e2e_reason(rd, cell));
	cr_expect_eq(e2e_num(rd, cell, "events"), 12);
	cr_expect_eq(e2e_num(rd, cell, "total_time_s"), 1.5);
	cr_assert_eq(sha256_file(path, want), 0, "%s", path);
	snprintf(body, sizeof(body), "%s/manifest.json", rd);
	man = e2e_read(body);
	cr_assert(man);
	snprintf(body, sizeof(body), "\"exec_script_sha256\": \"%s\"", want);
	cr_expect(strstr(man, body), "no %s in %s", body, man);
	cr_expect(strstr(man, path), "the code list misses %s", path);
}

/* A script of a name the library lacks, beside a module in a directory
 * only root reaches (mkdtemp's 0700): the checking child, which holds no
 * privileges, cannot look; root finds it, and the phase runs its text. */
Test(oltp, exec_module_in_a_private_directory_runs_its_script, .fini = fini)
{
	const char *dir = e2e_tmpdir();
	const char *cell = "dir/mine#1";
	char rd[300], path[600], body[600];
	int rc;

	snprintf(path, sizeof(path), "%s/exec", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	e2e_write(dir, "mine.lua", "return { exec = 'only-mine.sh', "
		  "parse = 'sysbench' }\n");
	e2e_write(path, "only-mine.sh", "echo 'General statistics:'\n"
		  "echo \"    total time: 2.5s\"\n"
		  "echo \"    total number of events: $(id -u)\"\n");
	snprintf(body, sizeof(body), "target: {dir: %s}\n"
		 "phases:\n  - {use: ./mine.lua, name: mine}\n", dir);
	rc = e2e_run_plan(dir, "private", body, rd, sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_assert_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s",
			 e2e_reason(rd, cell));
	cr_expect_eq(e2e_num(rd, cell, "total_time_s"), 2.5);
	/* not root's: the script ran as the plan's runas */
	cr_expect_gt(e2e_num(rd, cell, "events"), 0);

	/* and one that is not there is still refused, by root */
	rc = check_module(dir, "return { exec = 'not-there.sh', "
			  "parse = 'sysbench' }\n");
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "no script 'not-there.sh'"), "%s", e2e_err);
}
