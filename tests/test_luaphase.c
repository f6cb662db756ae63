/* test_luaphase: a Lua phase run end to end — typed values, workers, setup,
 * report() and what it may send. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

/* A plan whose one phase is module (its source) on a directory target
 * (<tmpdir>/scratch), with extra YAML for the phase; its path, and the
 * run directory in rd. */
static char *module_plan(const char *module, const char *with, char *rd,
			 size_t len)
{
	const char *dir = e2e_tmpdir();
	char text[2048], scratch[400];

	snprintf(scratch, sizeof(scratch), "%s/scratch", dir);
	cr_assert_eq(mkdir(scratch, 0700), 0);
	e2e_write(dir, "m.lua", module);
	snprintf(text, sizeof(text), "fsplan: 1\ntarget: {dir: %s}\n"
		 "phases:\n  - {use: m.lua, name: m%s}\n", scratch, with);
	snprintf(rd, len, "%s/run", dir);
	return e2e_write(dir, "plan.yaml", text);
}

/* Run module_plan's plan; fsplan's exit status. */
static int run_module(const char *module, const char *with, char *rd,
		      size_t len)
{
	return e2e_fsplan((const char *[]){ "run",
		module_plan(module, with, rd, len), "-o", rd, "-q", NULL });
}

static const char module[] =
	"return {\n"
	"  params = { workers = 2, size = '8k', label = 'x' },\n"
	"  thresholds = { 1000 },\n"
	"  setup = function(ctx, w)\n"
	"    assert(w:mkdir('d'))\n"
	"    local f = assert(w:open('d/setup', 'w'))\n"
	"    f:write(0, 4096)\n"
	"    f:close()\n"
	"  end,\n"
	"  worker = function(w, ctx)\n"
	"    local f = assert(w:open('d/f' .. w.id, 'w'))\n"
	"    f:write(0, ctx.params.size)\n"
	"    f:close()\n"
	"    w:count('seen', w.workers)\n"
	"  end,\n"
	"  report = function(r, ctx)\n"
	"    return {\n"
	"      seen_by_report = r.seen,\n"
	"      seen = { value = r.seen, unit = 'sightings' },\n"
	"      size_in_bytes = { value = 1, unit = 'a,b' },\n"
	"      writes_seen = r.write_ops,\n"
	"      size_seen = ctx.params.size,\n"
	"      label_is_y = ctx.params.label == 'y' and 1 or 0,\n"
	"      a_report_metric_named_with_forty_chars_x = 40,\n"
	"      [string.rep('n', 64)] = 64,\n"
	"    }\n"
	"  end,\n"
	"}\n";

Test(luaphase, values_workers_setup_and_report_of_a_real_run, .fini = fini,
     .timeout = 60)
{
	char rd[400];
	int rc;

	e2e_require_root();
	rc = run_module(module, ", with: {size: 16k, label: y}", rd,
			sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "status"), "ok", "%s",
			 e2e_reason(rd, "dir/m#1"));
	/* the plan's values, typed by the defaults: a size in bytes */
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "size_seen"), "16384");
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "label_is_y"), "1");
	/* two workers (params.workers), each counted 2; setup's write is
	 * not the workload's */
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "seen"), "4");
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "seen_by_report"), "4");
	/* a report value is a number or {value =, unit =}, as a parser's;
	 * under a counter's name it is that row, now with its unit */
	cr_expect_str_eq(e2e_unit(rd, "dir/m#1", "seen"), "sightings");
	cr_expect_eq(e2e_count(rd, "seen"), 1);
	cr_expect_str_eq(e2e_unit(rd, "dir/m#1", "size_in_bytes"), "",
			 "a unit that would break the row is left out");
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "write_ops"), "2");
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "writes_seen"), "2");
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "write_bytes"), "32768");
	/* thresholds: a share over 1000 ms per op */
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "write_over_1000ms_pct"),
			 "0");
}

/* The line of results.csv where metric name first shows, or -1. */
static int row_of(const char *csv, const char *name)
{
	char key[128];
	const char *at;
	int line = 0;

	snprintf(key, sizeof(key), ",%s,", name);
	at = strstr(csv, key);
	if (!at)
		return -1;
	for (const char *c = csv; c < at; c++)
		line += *c == '\n';
	return line;
}

Test(luaphase, report_values_come_out_in_the_order_of_their_names,
     .fini = fini, .timeout = 60)
{
	/* report()'s own names, sorted; a table's order is its hash's */
	static const char *const names[] = {
		"a_report_metric_named_with_forty_chars_x", "label_is_y",
		"seen_by_report", "size_in_bytes", "size_seen", "writes_seen",
	};
	char rd[400], path[450];
	char *csv;
	int rc, last = -1;

	e2e_require_root();
	rc = run_module(module, "", rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	snprintf(path, sizeof(path), "%s/results.csv", rd);
	csv = e2e_slurp(path, NULL);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int at = row_of(csv, names[i]);

		cr_assert_gt(at, last, "%s (line %d) comes before the name "
			     "above it (line %d)", names[i], at, last);
		last = at;
	}
	free(csv);
}

Test(luaphase, report_values_follow_the_one_metric_name_rule, .fini = fini,
     .timeout = 60)
{
	char rd[400];
	int rc;

	e2e_require_root();
	rc = run_module(module, "", rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	/* up to 63 characters, as results.csv takes from parsers */
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1",
				    "a_report_metric_named_with_forty_chars_x"),
			 "40");
	/* longer: left out, the rest kept (a value that is not finite
	 * fails the run: test_luaapi) */
	cr_expect_eq(e2e_count(rd, "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
				   "nnnnnnnnnnnnnnnnnnnn"), 0);
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "size_seen"), "8192");
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "label_is_y"), "0");
}

/* ctx.input: root reads what the plan names before the drop; a module's
 * own default is read as runas, who cannot read a 0600 root file. */
Test(luaphase, a_modules_input_default_is_read_as_runas, .fini = fini,
     .timeout = 60)
{
	char rd[400];
	int rc;

	e2e_require_root();
	chmod(e2e_write(e2e_tmpdir(), "mine.txt", "the default's\n"), 0600);
	chmod(e2e_write(e2e_tmpdir(), "given.txt", "the plan's\n"), 0600);
	rc = run_module("return { params = { mine = 'mine.txt', given = '' },\n"
			"  worker = function(w, ctx)\n"
			"    local t, msg, errno = ctx.input('mine')\n"
			"    w:count('mine_errno', t == nil and errno or 0)\n"
			"    t = assert(ctx.input('given'))\n"
			"    w:count('given_read', t == \"the plan's\\n\" and 1 "
			"or 0)\n"
			"  end }\n", ", with: {given: given.txt}", rd,
			sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "status"), "ok", "%s",
			 e2e_reason(rd, "dir/m#1"));
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "mine_errno"), "13");
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "given_read"), "1");
}

Test(luaphase, a_module_metatable_runs_no_code_outside_protection, .fini = fini,
     .timeout = 60)
{
	char rd[400];
	int rc;

	e2e_require_root();
	/* an __index that raises for every missing field (setup, report,
	 * thresholds, ...): it once aborted the checking child */
	rc = run_module("return setmetatable({ worker = function(w) "
			"w:count('ran', 1) end }, { __index = function(t, k) "
			"error('no ' .. k) end })\n", "", rd, sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "status"), "ok", "%s",
			 e2e_reason(rd, "dir/m#1"));
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "ran"), "1");
}

Test(luaphase, a_failing_setup_or_worker_fails_the_run_saying_which,
     .fini = fini, .timeout = 60)
{
	char rd[400];
	const char *why;
	int rc;

	e2e_require_root();
	rc = run_module("return { params = { workers = 3 },\n"
			"  worker = function(w)\n"
			"    if w.id == 2 then error('two is out') end\n"
			"  end }\n", "", rd, sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "status"), "failed");
	why = e2e_reason(rd, "dir/m#1");
	cr_expect(why && strstr(why, "worker 2") && strstr(why, "two is out"),
		  "%s", why);
}

/* Whether worker id's mark is in the config's subdirectory of dir. */
static int marked(const char *dir, int id, char *path, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, len, "%s/%.255s/up%d", dir, e->d_name, id);
		found = !access(path, F_OK);
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * A worker's Lua state runs without the polling hook, a third of a tight
 * loop's time; the phase child's watchdog signals each worker's thread
 * once a stop is due. A run stopped by SIGTERM then stops a loop that
 * never calls w:done() where it is, by the sandbox's own error, and not
 * by the parent's kill a second later.
 */
static void stop_a_spinner(const char *loop, const char *want)
{
	char scratch[300], text[1024], rd[300], path[600], mark[600];
	const char *err;
	int status, up;
	pid_t pid;

	snprintf(scratch, sizeof(scratch), "%s/scratch", e2e_tmpdir());
	snprintf(text, sizeof(text), "return { worker = function(w)\n"
		 "  assert(w:open('up1', 'w')):close()\n"
		 "  %s\n"
		 "end }\n", loop);
	/* the timeout: should the test fail, the spinner ends anyway */
	pid = e2e_fsplan_bg((const char *[]){ "run",
		module_plan(text, ", timeout: 40s", rd, sizeof(rd)), "-o", rd,
		"-q", NULL });
	for (int i = 0; i < 400 && !marked(scratch, 1, mark, sizeof(mark));
	     i++)
		usleep(50000);
	up = marked(scratch, 1, mark, sizeof(mark));
	if (up)
		usleep(200000);
	/* on every path: no run left spinning */
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	cr_assert(up, "the worker never started");
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM);
	snprintf(path, sizeof(path), "%s/exec/000001-dir_m_1.err", rd);
	err = e2e_read(path);
	cr_expect(strstr(err, want), "not stopped in its loop: '%s'", err);
}

Test(luaphase, a_stop_reaches_a_worker_that_never_calls_the_api, .fini = fini,
     .timeout = 60)
{
	e2e_require_root();
	stop_a_spinner("local n = 0 while true do n = n + 1 end",
		       "m.lua:3: phase stopped: stop requested");
}

Test(luaphase, a_stop_reaches_a_workers_coroutine, .fini = fini, .timeout = 60)
{
	e2e_require_root();
	stop_a_spinner("coroutine.wrap(function()\n"
		       "    while true do end end)()",
		       "m.lua:4: phase stopped: stop requested");
}

/*
 * The sandbox stops a Lua phase a little before the parent's kill at its
 * timeout: a loop that never asks is stopped at its line, and one whose
 * w:done() said stop at the timeout fails too. A timeout is never a
 * result, and the reason says it was the timeout.
 */
Test(luaphase, a_timeout_stops_the_phase_at_its_line_and_fails_it,
     .fini = fini, .timeout = 60)
{
	char rd[400];
	const char *why;
	int rc;

	e2e_require_root();
	rc = run_module("return { worker = function(w)\n"
			"  local n = 0\n"
			"  while true do n = n + 1 end\n"
			"end }\n", ", timeout: 1s", rd, sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d: %s", rc, e2e_err);
	why = e2e_reason(rd, "dir/m#1");
	cr_expect(why && !strncmp(why, "timeout: worker 1: ", 19) &&
		  strstr(why, "m.lua:3: phase stopped: deadline passed"),
		  "%s", why);
}

Test(luaphase, a_timeout_ends_a_w_done_loop_as_a_failure, .fini = fini,
     .timeout = 60)
{
	char rd[400];
	const char *why;
	int rc;

	e2e_require_root();
	rc = run_module("return { worker = function(w)\n"
			"  while not w:done() do w:count('turns', 1) end\n"
			"end }\n", ", timeout: 1s", rd, sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "status"), "failed");
	why = e2e_reason(rd, "dir/m#1");
	cr_expect(why && strstr(why, "timeout: still running at the phase's "
				"timeout of 1 s"), "%s", why);
	cr_expect_null(e2e_metric(rd, "dir/m#1", "turns"),
		       "a timed-out phase's figures were recorded");
}

/* Nothing of a phase's reason is cut silently: a setup that raises an
 * error of 64 KiB fails its phase run, and the whole message is in the
 * run's log, in manifest.json's reason and in results.csv's status row
 * (which the report's list of failed runs reads). */
Test(luaphase, a_64_kib_error_is_kept_whole, .fini = fini, .timeout = 120)
{
	size_t big = 64u << 10;
	char rd[400], path[512], *msg = malloc(big + 1);
	char *text;
	int rc;

	e2e_require_root();
	cr_assert_not_null(msg);
	/* error(s, 0): no place of its own; what the module raises whole */
	memset(msg, 'x', big);
	memcpy(msg, "begin", 5);
	memcpy(msg + big - 3, "end", 3);
	msg[big] = '\0';
	rc = run_module("return { params = { workers = 1 },\n"
			"  setup = function(ctx, w)\n"
			"    error('begin' .. string.rep('x', 65536 - 8) .. "
			"'end', 0)\n"
			"  end,\n"
			"  worker = function(w) end }\n", "", rd, sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "dir/m#1", "status"), "failed");
	snprintf(path, sizeof(path), "%s/log.txt", rd);
	text = e2e_slurp(path, NULL);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "dir/m#1: failed: setup: begin") &&
		  strstr(text, msg), "log.txt lacks the whole message");
	free(text);
	snprintf(path, sizeof(path), "%s/manifest.json", rd);
	text = e2e_slurp(path, NULL);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "\"setup: begin") && strstr(text, msg),
		  "manifest.json lacks the whole message");
	free(text);
	snprintf(path, sizeof(path), "%s/results.csv", rd);
	text = e2e_slurp(path, NULL);
	cr_assert_not_null(text);
	cr_expect(strstr(text, msg), "results.csv lacks the whole message");
	free(text);
	free(msg);
}
