/* test_rundir: the campaign's run directory cases kept — one writer per run
 * directory, a resume runs the code the run started with, one current row per
 * key, no symbolic link followed. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../e2e.h"
#include "results/csv.h"
#include "util/sha256.h"

static void fini(void)
{
	e2e_cleanup();
}

/* Wait until the file at path holds text past its first from bytes; 0,
 * or -1 after secs. */
static int wait_text(const char *path, size_t from, const char *text,
		     double secs)
{
	for (double t = 0; t < secs; t += 0.02) {
		const char *s = e2e_read(path);

		if (strlen(s) >= from && strstr(s + from, text))
			return 0;
		usleep(20000);
	}
	return -1;
}

static char *rd_file(const char *rd, const char *name)
{
	static char path[4][512];
	static int slot;
	char *p = path[slot++ % 4];

	snprintf(p, 512, "%s/%s", rd, name);
	return p;
}

/* ---- results.csv under the documented rule ------------------------------
 * For a key (cell, phase, rep, metric) the last row in file order is
 * current; earlier rows of the key are superseded. */

struct row {
	char key[512];
	char value[64];
	int line;
};

struct rows {
	struct row cur[1024];	/* the current row of each key */
	int n_cur;
	int n_raw;		/* every row */
	int n_status;		/* every status row */
};

static int take_row(void *ctx, const char *const *f, int line)
{
	struct rows *r = ctx;
	char key[512];
	int i;

	snprintf(key, sizeof(key), "%s|%s|%s|%s", f[CSV_CELL], f[CSV_PHASE],
		 f[CSV_REP], f[CSV_METRIC]);
	r->n_raw++;
	r->n_status += !strcmp(f[CSV_METRIC], "status");
	for (i = 0; i < r->n_cur; i++)
		if (!strcmp(r->cur[i].key, key))
			break;
	cr_assert_lt(i, 1024, "too many keys for the test");
	if (i == r->n_cur)
		r->n_cur++;
	snprintf(r->cur[i].key, sizeof(r->cur[i].key), "%s", key);
	snprintf(r->cur[i].value, sizeof(r->cur[i].value), "%s", f[CSV_VALUE]);
	r->cur[i].line = line;
	return 0;
}

static void load_rows(const char *rd, struct rows *r)
{
	struct diag d;

	memset(r, 0, sizeof(*r));
	cr_assert_eq(csv_read_rows(rd_file(rd, "results.csv"), take_row, r,
				   NULL, &d), 0, "%s", d.msg);
}

/* The current row of a config's own figure (phase ""), or NULL. */
static const struct row *conf_row(const struct rows *r, const char *cell,
				  const char *metric)
{
	char key[512];

	snprintf(key, sizeof(key), "%s||0|%s", cell, metric);
	for (int i = 0; i < r->n_cur; i++)
		if (!strcmp(r->cur[i].key, key))
			return &r->cur[i];
	return NULL;
}

/* How many lines the file has: rows written later start past it. */
static int lines_in(const char *path)
{
	const char *s = e2e_read(path);
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- the run in the background ------------------------------------------ */

/* The pid of a child of pid, or 0. */
static pid_t child_of(pid_t pid)
{
	char path[64], buf[256];
	FILE *f;
	long c = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
		 (int)pid);
	f = fopen(path, "re");
	if (f && fgets(buf, sizeof(buf), f))
		c = strtol(buf, NULL, 10);
	if (f)
		fclose(f);
	return (pid_t)c;
}

/*
 * Hold the run's filesystem busy from outside its namespace: an open
 * directory on its mount point, reached through the namespace init's
 * root (fsplan -> its namespace's parent -> the init). The run's umount
 * then waits (EBUSY, retried for 5 s), and a SIGKILL in that wait is a
 * kill just before the config's umount_s. The fd, or the test fails.
 */
static int pin_mount(pid_t fsplan)
{
	char path[128];
	pid_t init = child_of(child_of(fsplan));
	int fd;

	cr_assert_gt(init, 0, "no namespace init under fsplan %d", fsplan);
	snprintf(path, sizeof(path), "/proc/%d/root/run/fsplan/mnt",
		 (int)init);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "cannot open %s", path);
	return fd;
}

/* fsplan started with args; once log.txt says `ran`, its mount is held
 * busy; once it says `done`, fsplan is killed in its umount's wait. */
static void kill_before_umount(const char *rd, const char *const *args,
			       const char *ran, const char *done)
{
	const char *log = rd_file(rd, "log.txt");
	size_t from = strlen(e2e_read(log));
	int status, pin;
	pid_t pid = e2e_fsplan_bg(args);

	cr_assert_eq(wait_text(log, from, ran, 30), 0, "never ran: %s",
		     e2e_read(log));
	pin = pin_mount(pid);
	cr_assert_eq(wait_text(log, from, done, 30), 0, "never ended: %s",
		     e2e_read(log));
	usleep(300000);		/* in the umount's wait (5 s) */
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(pin);
	cr_assert(WIFSIGNALED(status), "fsplan ended before the kill");
}

/* ---- one writer per run directory ---------------------------------------- */

/* Each phase run sleeps ${t} seconds (default 0.3). */
static char *nap_plan(const char *dir, const char *extra)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "fsplan: 1\n"
		 "params: {t: 0.3}\n"
		 "target: {image: 64M}\n"
		 "between: none\n"
		 "filesystems: [{type: ext4}, {type: ext2}]\n"
		 "%s"
		 "phases:\n"
		 "  - {name: nap, exec: 'sleep ${t}'}\n", extra);
	return e2e_write(dir, "plan.yaml", text);
}

/* The campaign: a --resume of a run still going ran every remaining cell
 * twice. Now it is refused, naming the run that writes there, and so is
 * a fresh run -o onto that directory. */
Test(rundir, a_resume_of_a_running_run_is_refused_naming_its_pid,
     .fini = fini, .timeout = 120)
{
	const char *dir;
	char rd[256], want[64], *plan;
	int rc, status;
	pid_t pid;

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = nap_plan(dir, "");
	snprintf(rd, sizeof(rd), "%s/run", dir);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
		"-D", "t=20", NULL });
	cr_assert_eq(wait_text(rd_file(rd, "log.txt"), 0, "nap#1: run:",
			       30), 0,
		     "the phase never started: %s",
		     e2e_read(rd_file(rd, "log.txt")));
	snprintf(want, sizeof(want), "is in use by fsplan run (pid %d)",
		 (int)pid);
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
		NULL });
	cr_expect_eq(rc, 2, "resume: exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, want), "%s", e2e_err);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q", NULL });
	cr_expect_eq(rc, 2, "run -o: exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, want), "%s", e2e_err);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 143);
	/* the refused ones ran nothing */
	cr_expect_eq(e2e_count(rd, "status"), 0, "%s",
		     e2e_read(rd_file(rd, "results.csv")));
	/* free once the run is gone: only the directory is in the way */
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q", NULL });
	cr_expect_eq(rc, 2);
	cr_expect(strstr(e2e_err, "use --resume"), "%s", e2e_err);
	cr_expect_eq(e2e_mounted_under(dir), 0);
	cr_expect_eq(e2e_loops_under(dir), 0);
}

/* The campaign: two resumes at once of a killed run both ran every
 * remaining cell (1,200 rows where a clean run has 621). Now one goes
 * on, the other is refused, and results.csv is a clean run's. */
Test(rundir, two_resumes_at_once_one_proceeds, .fini = fini, .timeout = 180)
{
	const char *dir;
	char rd[256], clean[256], *plan;
	struct rows got, want;
	int status, rc[2], n_refused = 0, n_ok = 0;
	pid_t pid, res[2];

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = nap_plan(dir, "repeat: 3\n");
	snprintf(clean, sizeof(clean), "%s/clean", dir);
	cr_assert_eq(e2e_fsplan((const char *[]){ "run", plan, "-o", clean,
		"-q", "--workdir", dir, NULL }), 0, "%s", e2e_err);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
		"--workdir", dir, NULL });
	cr_assert_eq(wait_text(rd_file(rd, "log.txt"), 0, "nap#2: run:",
			       30), 0,
		     "%s", e2e_read(rd_file(rd, "log.txt")));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	for (int i = 0; i < 2; i++)
		res[i] = e2e_fsplan_bg((const char *[]){ "run", plan,
			"--resume", rd, "-q", "--workdir", dir, NULL });
	for (int i = 0; i < 2; i++) {
		waitpid(res[i], &status, 0);
		rc[i] = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		n_refused += rc[i] == 2;
		n_ok += rc[i] == 0;
	}
	cr_expect(n_refused == 1 && n_ok == 1, "exits %d and %d", rc[0],
		  rc[1]);
	load_rows(clean, &want);
	load_rows(rd, &got);
	cr_assert_eq(want.n_cur, want.n_raw, "a clean run has each key once");
	/* one status row per cell (2 configs x 3 repetitions), and the
	 * rule leaves a clean run's rows */
	cr_expect_eq(got.n_status, 6, "%d status rows", got.n_status);
	cr_expect_eq(got.n_cur, want.n_raw, "%d current rows, %d in a clean "
		     "run:\n%s", got.n_cur, want.n_raw,
		     e2e_read(rd_file(rd, "results.csv")));
	for (int i = 0; i < want.n_cur; i++) {
		int k = 0;

		while (k < got.n_cur && strcmp(got.cur[k].key,
					       want.cur[i].key))
			k++;
		cr_expect_lt(k, got.n_cur, "no %s", want.cur[i].key);
	}
	cr_expect_eq(e2e_mounted_under(dir), 0);
	cr_expect_eq(e2e_loops_under(dir), 0);
}

/* ---- a resume runs the code the run started with ------------------------ */

/* What a refused resume must leave as it was. */
struct untouched {
	char *manifest, *results, *log;
};

static void keep(const char *rd, struct untouched *u)
{
	u->manifest = e2e_slurp(rd_file(rd, "manifest.json"), NULL);
	u->results = e2e_slurp(rd_file(rd, "results.csv"), NULL);
	u->log = e2e_slurp(rd_file(rd, "log.txt"), NULL);
}

static void expect_untouched(const char *rd, struct untouched *u)
{
	char *m = e2e_slurp(rd_file(rd, "manifest.json"), NULL);
	char *r = e2e_slurp(rd_file(rd, "results.csv"), NULL);
	char *l = e2e_slurp(rd_file(rd, "log.txt"), NULL);

	cr_expect_str_eq(m, u->manifest, "the manifest was rewritten");
	cr_expect_str_eq(r, u->results);
	cr_expect_str_eq(l, u->log);
	free(m);
	free(r);
	free(l);
	free(u->manifest);
	free(u->results);
	free(u->log);
}

/* Change a file, and expect a resume of rd refused naming it (as kind)
 * with the sha256 the run started with and the one it has now. */
static void expect_refused(const char *plan, const char *rd,
			   const char *kind, const char *path)
{
	char was[65], now[65], want[1024];
	struct untouched u;
	FILE *f;
	int rc;

	keep(rd, &u);
	cr_assert_eq(sha256_file(path, was), 0);
	f = fopen(path, "a");
	cr_assert_not_null(f);
	fputs("-- edited after the run started\n", f);
	fclose(f);
	cr_assert_eq(sha256_file(path, now), 0);
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
		NULL });
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	snprintf(want, sizeof(want), "%s %s changed since the run started: "
		 "sha256 %s in the manifest, %s now", kind, path, was, now);
	cr_expect(strstr(e2e_err, want), "wanted: %s\ngot: %s", want, e2e_err);
	expect_untouched(rd, &u);
}

/* The campaign: an edited Lua module was taken on resume, and the
 * manifest kept only the new sha256. So is the file ctx.input reads. */
Test(rundir, an_edited_module_or_input_is_refused_on_resume, .fini = fini,
     .timeout = 120)
{
	static const char text[] = "return { params = { data = 'x' },\n"
		"  worker = function(w, ctx) assert(ctx.input('data')) end }\n";
	const char *dir;
	char rd[256], mod[300], data[300];
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	snprintf(mod, sizeof(mod), "%s", e2e_write(dir, "count.lua", text));
	snprintf(data, sizeof(data), "%s", e2e_write(dir, "data.txt", "1\n"));
	rc = e2e_run_plan(dir, "code", "target: {image: 64M}\n"
			  "filesystems: [{type: ext4}]\n"
			  "phases: [{use: count.lua, with: {data: data.txt}}]\n",
			  rd, sizeof(rd));
	cr_assert_eq(rc, 0, "%s", e2e_err);
	expect_refused(rd_file(dir, "plan.yaml"), rd, "module", mod);
	e2e_write(dir, "count.lua", text);
	rc = e2e_fsplan((const char *[]){ "run", rd_file(dir, "plan.yaml"),
		"--resume", rd, "-q", NULL });
	cr_assert_eq(rc, 0, "%s", e2e_err);
	expect_refused(rd_file(dir, "plan.yaml"), rd, "input", data);
}

/* What a run runs is what its start read and recorded: a module edited
 * while the run goes on changes nothing of it (nor of its resume). */
Test(rundir, a_module_edited_during_the_run_is_not_run, .fini = fini,
     .timeout = 120)
{
	const char *dir;
	char rd[256], *plan;
	int status;
	pid_t pid;

	e2e_require_root();
	dir = e2e_tmpdir();
	e2e_write(dir, "count.lua", "return { params = { n = 1 },\n"
		  "  worker = function(w, ctx) end }\n");
	plan = e2e_write(dir, "plan.yaml", "fsplan: 1\n"
			 "target: {image: 64M}\n"
			 "filesystems: [{type: ext4}]\n"
			 "phases:\n"
			 "  - {name: nap, exec: 'sleep 2'}\n"
			 "  - use: count.lua\n");
	snprintf(rd, sizeof(rd), "%s/run", dir);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
		NULL });
	cr_assert_eq(wait_text(rd_file(rd, "log.txt"), 0, "nap#1: run:",
			       30), 0);
	e2e_write(dir, "count.lua", "return { params = { n = 1 },\n"
		  "  worker = function(w, ctx) error('edited') end }\n");
	waitpid(pid, &status, 0);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s",
		  e2e_failed(rd));
	cr_expect_str_eq(e2e_metric(rd, "ext4/count#1", "status"), "ok");
}

/* An exec module's script and a parser are the library's: edited, they
 * are refused too. The library is a copy of the tree's, for the test. */
Test(rundir, an_edited_exec_script_or_parser_is_refused_on_resume,
     .fini = fini, .timeout = 120)
{
	const char *dir;
	char rd[256], lib[300], cmd[1024], script[400], parser[400];
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	cr_assert_not_null(getenv("FSPLAN_LIB"), "run through make");
	snprintf(lib, sizeof(lib), "%s/lib", dir);
	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s'", getenv("FSPLAN_LIB"),
		 lib);
	cr_assert_eq(system(cmd), 0);
	setenv("FSPLAN_LIB", lib, 1);
	snprintf(script, sizeof(script), "%s/exec/tiny.sh", lib);
	e2e_write(lib, "exec/tiny.sh", "#!/bin/sh\necho 'Throughput 1.5 "
		  "MB/sec  1 clients  1 procs  max_latency=2.0 ms'\n");
	snprintf(parser, sizeof(parser), "%s/parse/dbench.lua", lib);
	e2e_write(dir, "tiny.lua", "return { exec = 'tiny.sh', "
		  "parse = 'dbench' }\n");
	rc = e2e_run_plan(dir, "code", "target: {image: 64M}\n"
			  "filesystems: [{type: ext4}]\n"
			  "phases:\n"
			  "  - use: tiny.lua\n"
			  "  - name: echo\n"
			  "    exec: \"echo 'Throughput 2 MB/sec  1 clients  "
			  "1 procs  max_latency=2.0 ms'\"\n"
			  "    parse: dbench\n", rd, sizeof(rd));
	cr_assert_eq(rc, 0, "%s", e2e_err);
	cr_assert_str_eq(e2e_metric(rd, "ext4/tiny#1", "throughput_mbs"),
			 "1.5");
	expect_refused(rd_file(dir, "plan.yaml"), rd, "exec script", script);
	/* back as it was: the resume is taken, then the parser changes */
	e2e_write(lib, "exec/tiny.sh", "#!/bin/sh\necho 'Throughput 1.5 "
		  "MB/sec  1 clients  1 procs  max_latency=2.0 ms'\n");
	rc = e2e_fsplan((const char *[]){ "run", rd_file(dir, "plan.yaml"),
		"--resume", rd, "-q", NULL });
	cr_assert_eq(rc, 0, "%s", e2e_err);
	expect_refused(rd_file(dir, "plan.yaml"), rd, "parser", parser);
}

/* A run of one config and one phase that does nothing, into rd. */
static void quick_run(const char *dir, char *rd, size_t len)
{
	int rc = e2e_run_plan(dir, "quick", "target: {image: 64M}\n"
			      "filesystems: [{type: ext4}]\n"
			      "phases: [{name: t, exec: 'true'}]\n", rd, len);

	cr_assert_eq(rc, 0, "%s", e2e_err);
}

/* An edited plan was refused already; now the refusal says both. */
Test(rundir, an_edited_plan_is_refused_with_both_sha256s, .fini = fini,
     .timeout = 120)
{
	const char *dir;
	char rd[256];
	struct untouched u;
	char was[65], now[65], want[512];
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	quick_run(dir, rd, sizeof(rd));
	keep(rd, &u);
	cr_assert_eq(sha256_file(rd_file(dir, "plan.yaml"), was), 0);
	e2e_write(dir, "plan.yaml", "fsplan: 1\nname: quick\n"
		  "target: {image: 64M}\n"
		  "filesystems: [{type: ext4}]\n"
		  "phases: [{name: t, exec: 'false'}]\n");
	cr_assert_eq(sha256_file(rd_file(dir, "plan.yaml"), now), 0);
	rc = e2e_fsplan((const char *[]){ "run", rd_file(dir, "plan.yaml"),
		"--resume", rd, "-q", NULL });
	cr_expect_eq(rc, 2, "%s", e2e_err);
	snprintf(want, sizeof(want), "changed since the run started: sha256 "
		 "%s in the manifest, %s now", was, now);
	cr_expect(strstr(e2e_err, want), "%s", e2e_err);
	expect_untouched(rd, &u);
}

/* ---- one current value per key ------------------------------------------ */

/* The campaign: a SIGKILL just before the last umount_s lost it for
 * good. The resume records it: NA, and says so in log.txt. */
Test(rundir, a_kill_before_the_last_umount_is_recorded_on_resume,
     .fini = fini, .timeout = 120)
{
	const char *dir;
	char rd[256], *plan;
	const struct row *u, *m;
	struct rows r;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = e2e_write(dir, "plan.yaml", "fsplan: 1\n"
			 "target: {image: 64M}\n"
			 "filesystems: [{type: ext4}]\n"
			 "phases: [{name: nap, exec: 'sleep 1'}]\n");
	snprintf(rd, sizeof(rd), "%s/run", dir);
	kill_before_umount(rd, (const char *[]){ "run", plan, "-o", rd, "-q",
		"--workdir", dir, NULL }, "nap#1: run:", "nap#1: ok");
	load_rows(rd, &r);
	cr_assert_not_null(conf_row(&r, "ext4", "mount_s"));
	cr_assert_null(conf_row(&r, "ext4", "umount_s"), "not killed in time");
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd,
		"--workdir", dir, NULL });
	cr_expect_eq(rc, 0, "%s", e2e_err);
	load_rows(rd, &r);
	u = conf_row(&r, "ext4", "umount_s");
	m = conf_row(&r, "ext4", "mkfs_s");
	cr_assert_not_null(u, "the lost umount_s is silently absent:\n%s",
			   e2e_read(rd_file(rd, "results.csv")));
	cr_expect_str_eq(u->value, "NA");
	cr_expect(m && strcmp(m->value, "NA"), "the figures it has stay");
	cr_expect(strstr(e2e_read(rd_file(rd, "log.txt")), "ext4: the run "
			 "stopped (killed) before it recorded umount_s"), "%s",
		  e2e_read(rd_file(rd, "log.txt")));
	cr_expect(strstr(e2e_err, "1 row a killed run left short now NA"),
		  "%s", e2e_err);
	cr_expect_eq(e2e_mounted_under(dir), 0);
	cr_expect_eq(e2e_loops_under(dir), 0);
}

/* The phase's marker, outside the test's private directory: runas
 * writes it. */
static char marker[128];

static void fini_marker(void)
{
	if (marker[0])
		unlink(marker);
	e2e_cleanup();
}

/* A resume that made a config anew and was killed before its umount_s:
 * the rule must not pair its new mkfs_s with the first run's umount_s.
 * Each current figure is the remake's, or NA. */
Test(rundir, a_remade_config_has_only_its_own_figures_current,
     .fini = fini_marker, .timeout = 180)
{
	const char *dir;
	char rd[256], text[1024], *plan;
	const char *names[] = { "mkfs_s", "mount_s", "umount_s" };
	const struct row *f;
	struct rows r;
	int status, rc, remade_from;
	pid_t pid;

	e2e_require_root();
	dir = e2e_tmpdir();
	/* the phase sleeps long once (the first run), then a second */
	snprintf(marker, sizeof(marker), "/tmp/fsplan-rundir-%d",
		 (int)getpid());
	unlink(marker);
	snprintf(text, sizeof(text), "fsplan: 1\n"
		 "target: {image: 64M}\n"
		 "filesystems: [{type: ext4}]\n"
		 "phases:\n"
		 "  - {name: a, exec: 'true'}\n"
		 "  - {name: b, exec: 'if [ -e %s ]; then sleep 1; else "
		 "touch %s; sleep 30; fi'}\n", marker, marker);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
		"--workdir", dir, NULL });
	cr_assert_eq(wait_text(rd_file(rd, "log.txt"), 0, "b#1: run:", 30),
		     0);
	kill(pid, SIGTERM);	/* a stop: its config's figures all there */
	waitpid(pid, &status, 0);
	load_rows(rd, &r);
	cr_assert_not_null(conf_row(&r, "ext4", "umount_s"));
	remade_from = lines_in(rd_file(rd, "results.csv"));
	kill_before_umount(rd, (const char *[]){ "run", plan, "--resume", rd,
		"-q", "--workdir", dir, NULL }, "b#1: run:", "b#1: ok");
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
		"--workdir", dir, NULL });
	cr_expect_eq(rc, 0, "%s", e2e_err);
	load_rows(rd, &r);
	for (int i = 0; i < 3; i++) {
		f = conf_row(&r, "ext4", names[i]);
		cr_assert_not_null(f, "no %s", names[i]);
		cr_expect_gt(f->line, remade_from, "%s: the first run's row "
			     "(line %d) is current:\n%s", names[i], f->line,
			     e2e_read(rd_file(rd, "results.csv")));
	}
	cr_expect_str_eq(conf_row(&r, "ext4", "umount_s")->value, "NA");
	cr_expect_str_neq(conf_row(&r, "ext4", "mkfs_s")->value, "NA");
	cr_expect_eq(r.n_status, 2);
	cr_expect_eq(e2e_mounted_under(dir), 0);
	cr_expect_eq(e2e_loops_under(dir), 0);
}

/* A phase run killed while its rows were written: the rows it has, and
 * no status row. The resume runs it again; a metric of the cut run that
 * the new one does not write must not stand as current. */
Test(rundir, a_phase_run_cut_short_leaves_no_current_row, .fini = fini,
     .timeout = 120)
{
	const char *dir;
	char rd[256], *text, *status, *row;
	const struct row *g;
	struct rows r;
	size_t len;
	FILE *f;
	int rc, cut;

	e2e_require_root();
	dir = e2e_tmpdir();
	quick_run(dir, rd, sizeof(rd));
	/* results.csv as the kill left it: up to t#1's status row, which
	 * is not there, and a row of the cut run the next one lacks */
	text = e2e_slurp(rd_file(rd, "results.csv"), &len);
	status = strstr(text, "ext4/t#1,ext4,ext4,,,t,,1,status,ok,\n");
	cr_assert_not_null(status, "%s", text);
	while (status > text && status[-1] != '\n')
		status--;
	row = strdup(status);
	cr_assert_not_null(row);
	memcpy(strstr(row, "status,ok,"), "ghost,1,\n", 10);
	*status = '\0';
	f = fopen(rd_file(rd, "results.csv"), "w");
	cr_assert_not_null(f);
	fprintf(f, "%s%s", text, row);
	fclose(f);
	free(text);
	free(row);
	cut = lines_in(rd_file(rd, "results.csv"));
	rc = e2e_fsplan((const char *[]){ "run", rd_file(dir, "plan.yaml"),
		"--resume", rd, "-q", NULL });
	cr_expect_eq(rc, 0, "%s", e2e_err);
	load_rows(rd, &r);
	cr_expect_eq(r.n_status, 1);
	/* the config was made anew, the phase run run again: every
	 * current row is the resume's */
	for (int i = 0; i < r.n_cur; i++)
		cr_expect_gt(r.cur[i].line, cut, "%s: the cut run's row is "
			     "current", r.cur[i].key);
	g = NULL;
	for (int i = 0; i < r.n_cur; i++)
		if (!strcmp(r.cur[i].key, "ext4/t#1|t|1|ghost"))
			g = &r.cur[i];
	cr_assert_not_null(g);
	cr_expect_str_eq(g->value, "NA");
}

/* ---- no symbolic link followed ------------------------------------------ */

static void expect_victim_untouched(const char *victim)
{
	struct stat st;

	cr_expect_eq(stat(victim, &st), 0);
	cr_expect_eq(st.st_size, 0, "%s was written: %s", victim,
		     e2e_read(victim));
}

/* The campaign: a results.csv planted as a symbolic link in a resumed
 * run directory was written through; so were log.txt and the manifest's
 * temporary file. A run directory given as a link was followed. */
Test(rundir, a_symbolic_link_in_the_run_directory_is_never_followed,
     .fini = fini, .timeout = 120)
{
	static const char *const planted[] = { "results.csv", "log.txt",
					       "manifest.json", "bonnie.csv" };
	const char *dir;
	char rd[256], victim[300], link[300], cmd[700];
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	quick_run(dir, rd, sizeof(rd));
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	for (size_t i = 0; i < 4; i++) {
		snprintf(cmd, sizeof(cmd), "touch '%s' && cp '%s' '%s.kept' && "
			 ": > '%s' && ln -sf '%s' '%s'", rd_file(rd, planted[i]),
			 rd_file(rd, planted[i]),
			 rd_file(rd, planted[i]), victim, victim,
			 rd_file(rd, planted[i]));
		cr_assert_eq(system(cmd), 0);
		rc = e2e_fsplan((const char *[]){ "run", rd_file(dir,
			"plan.yaml"), "--resume", rd, "-q", NULL });
		cr_expect_eq(rc, 2, "%s: exit %d", planted[i], rc);
		cr_expect(strstr(e2e_err, "symbolic link"), "%s", e2e_err);
		expect_victim_untouched(victim);
		snprintf(cmd, sizeof(cmd), "mv '%s.kept' '%s'",
			 rd_file(rd, planted[i]), rd_file(rd, planted[i]));
		cr_assert_eq(system(cmd), 0);
	}
	/* the manifest's temporary file: removed, never written through */
	snprintf(cmd, sizeof(cmd), "ln -s '%s' '%s'", victim,
		 rd_file(rd, ".manifest.json.tmp"));
	cr_assert_eq(system(cmd), 0);
	rc = e2e_fsplan((const char *[]){ "run", rd_file(dir, "plan.yaml"),
		"--resume", rd, "-q", NULL });
	cr_expect_eq(rc, 0, "%s", e2e_err);
	expect_victim_untouched(victim);
	/* the run directory itself as a link, to resume or to make */
	snprintf(link, sizeof(link), "%s/link", dir);
	cr_assert_eq(symlink(rd, link), 0);
	rc = e2e_fsplan((const char *[]){ "run", rd_file(dir, "plan.yaml"),
		"--resume", link, "-q", NULL });
	cr_expect_eq(rc, 2);
	cr_expect(strstr(e2e_err, "is a symbolic link"), "%s", e2e_err);
	snprintf(cmd, sizeof(cmd), "mkdir '%s/empty' && ln -s '%s/empty' "
		 "'%s/link2'", dir, dir, dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(link, sizeof(link), "%s/link2", dir);
	rc = e2e_fsplan((const char *[]){ "run", rd_file(dir, "plan.yaml"),
		"-o", link, "-q", NULL });
	cr_expect_eq(rc, 2);
	cr_expect(strstr(e2e_err, "is a symbolic link"), "%s", e2e_err);
	snprintf(cmd, sizeof(cmd), "%s/empty/.lock", dir);
	cr_expect_neq(access(cmd, F_OK), 0, "wrote into the link's target");
	/* exec/ as a link out of the run directory */
	snprintf(cmd, sizeof(cmd), "rm -r '%s/exec' && ln -s '%s/empty' "
		 "'%s/exec'", rd, dir, rd);
	cr_assert_eq(system(cmd), 0);
	rc = e2e_fsplan((const char *[]){ "run", rd_file(dir, "plan.yaml"),
		"--resume", rd, "-q", NULL });
	cr_expect_eq(rc, 2);
	cr_expect(strstr(e2e_err, "exec: is not a directory"), "%s", e2e_err);
}
