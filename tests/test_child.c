/* test_child: child_run — the report, the exit, the timeout and the stop, with
 * the whole process group gone after. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "host/child.h"
#include "host/privdrop.h"

static char workdir[64], outpath[128], errpath[128];
static struct runas who;
static struct child_job job;
static struct child_result res;
static volatile sig_atomic_t stop;
static const char *const env[] = { "PATH=/usr/bin:/bin",
				   "FSPLAN_CHILD_TEST=yes", NULL };

/* A file for the child's stdout or stderr, above fd 3 as child_run wants. */
static int high_fd(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int high;

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
	cr_assert_geq(high, 10);
	close(fd);
	return high;
}

static void setup(void)
{
	struct diag d = { 0 };

	if (geteuid() != 0)
		cr_skip_test("child_run drops privileges: needs root (euid %d)",
			     (int)geteuid());
	cr_assert_eq(privdrop_resolve("nobody", &who, &d), 0, "%s", d.msg);
	/* the phase's work directory, owned by its user, as run makes it */
	snprintf(workdir, sizeof(workdir), "/tmp/fsplan-child-XXXXXX");
	cr_assert_not_null(mkdtemp(workdir));
	cr_assert_eq(chown(workdir, who.uid, who.gid), 0);
	snprintf(outpath, sizeof(outpath), "%s.out", workdir);
	snprintf(errpath, sizeof(errpath), "%s.err", workdir);
	memset(&job, 0, sizeof(job));
	job.runas = &who;
	job.workdir = workdir;
	job.out_fd = high_fd(outpath);
	job.err_fd = high_fd(errpath);
	job.timeout_s = 20;
	job.env = env;
	stop = 0;
	memset(&res, 0, sizeof(res));
	/* orphans of the child come to this process, so it can see them
	 * die */
	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
}

static void teardown(void)
{
	char cmd[512];

	child_result_free(&res);
	if (!workdir[0])
		return;
	close(job.out_fd);
	close(job.err_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' '%s'", workdir, outpath,
		 errpath);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", workdir);
	workdir[0] = '\0';
}

TestSuite(child, .init = setup, .fini = teardown, .timeout = 60);

static void run(int (*body)(void *), void *arg)
{
	job.body = body;
	job.arg = arg;
	cr_assert_eq(child_run(&job, &stop, &res), 0, "child_run could not "
		     "start: %s", strerror(errno));
}

/* The number after tag ("G 1234") in the report, or -1. */
static long reported(const char *tag)
{
	const char *p = res.report;
	size_t n = strlen(tag);

	for (; p && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
		if (!strncmp(p, tag, n) && p[n] == ' ')
			return strtol(p + n + 1, NULL, 10);
	return -1;
}

/* Reap pid (an orphan of the child, now ours) within 5 s: its status. */
static int reap(pid_t pid)
{
	int st;

	for (int i = 0; i < 500; i++) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		cr_assert_eq(r, 0, "waitpid %d: %s", (int)pid, strerror(errno));
		usleep(10000);
	}
	kill(pid, SIGKILL);
	cr_assert_fail("process %d still running 5 s after child_run", pid);
	return 0;
}

static void expect_group_gone(pid_t pgid)
{
	errno = 0;
	cr_expect_eq(kill(-pgid, 0), -1, "process group %d still has "
		     "members", (int)pgid);
	cr_expect_eq(errno, ESRCH);
}

/* ---- bodies (they run in the child, as nobody) --------------------------- */

static int body_reports(void *arg)
{
	char cwd[PATH_MAX], buf[1];
	const char *v = getenv("FSPLAN_CHILD_TEST");

	(void)arg;
	dprintf(CHILD_REPORT_FD, "P rate_mbs 12.5 MiB/s\n");
	dprintf(CHILD_REPORT_FD, "U %d %d\n", (int)getuid(), (int)getgid());
	dprintf(CHILD_REPORT_FD, "C %s\n", getcwd(cwd, sizeof(cwd)));
	dprintf(CHILD_REPORT_FD, "V %s\n", v ? v : "unset");
	dprintf(CHILD_REPORT_FD, "HOME %s\n", getenv("HOME") ? "set" : "unset");
	/* stdin is /dev/null: end of file at once */
	dprintf(CHILD_REPORT_FD, "IN %zd\n", read(0, buf, 1));
	dprintf(CHILD_REPORT_FD, "FD %d\n", fcntl(200, F_GETFD) == -1);
	printf("to stdout\n");
	fflush(stdout);
	fprintf(stderr, "to stderr\n");
	return 0;
}

static int body_exits_3(void *arg)
{
	(void)arg;
	dprintf(CHILD_REPORT_FD, "P seconds 1 s\n");
	return 3;
}

/* A grandchild in the same group, then wait for the end. */
static int body_hangs(void *arg)
{
	pid_t g = fork();

	(void)arg;
	if (g == 0) {
		sleep(60);
		_exit(0);
	}
	dprintf(CHILD_REPORT_FD, "G %d\nPG %d\n", (int)g, (int)getpgrp());
	sleep(60);
	return 0;
}

static int body_ignores_term(void *arg)
{
	(void)arg;
	signal(SIGTERM, SIG_IGN);
	dprintf(CHILD_REPORT_FD, "PG %d\n", (int)getpgrp());
	sleep(60);
	return 0;
}

static int body_fails(void *arg)
{
	struct diag d = { 0 };

	(void)arg;
	dprintf(CHILD_REPORT_FD, "P a 1 x\n");
	diag_fail(&d, DIAG_PHASE, EIO, "disk on fire");
	diag_detail(&d, "disk on fire: Input/output error\nit smoked");
	metrics_diag_send(CHILD_REPORT_FD, &d);
	diag_release(&d);
	dprintf(CHILD_REPORT_FD, "P b 2 y\n");
	return 0;
}

/* The old text line: no record, so a malformed one. */
static int body_says_e(void *arg)
{
	(void)arg;
	dprintf(CHILD_REPORT_FD, "E disk on fire\n");
	return 0;
}

static int body_mentions_e(void *arg)
{
	(void)arg;
	dprintf(CHILD_REPORT_FD, "P note 1 E\nP x 2 E y\n");
	return 0;
}

static int body_signals(void *arg)
{
	(void)arg;
	kill(getpid(), SIGUSR1);
	pause();
	return 0;
}

static int body_never_runs(void *arg)
{
	(void)arg;
	dprintf(CHILD_REPORT_FD, "P ran 1 x\n");
	return 0;
}

static void set_stop(void *ctx)
{
	*(volatile sig_atomic_t *)ctx = 1;
}

/* ---- tests ---------------------------------------------------------------- */

Test(child, a_body_that_reports)
{
	char cwd[PATH_MAX + 4];

	/* an fd of the parent's without close-on-exec: the drop closes it */
	cr_assert_eq(dup2(job.out_fd, 200), 200);
	run(body_reports, NULL);
	close(200);
	cr_expect(res.ok, "not ok: %s", child_reason(&res));
	cr_expect_eq(res.exit_code, 0);
	cr_expect_eq(res.signal, 0);
	cr_expect_not(res.timed_out);
	cr_expect_not(res.interrupted);
	cr_expect_str_eq(child_reason(&res), "");
	cr_assert_not_null(res.report);
	cr_expect_eq(strlen(res.report), res.report_len);
	cr_expect(!strncmp(res.report, "P rate_mbs 12.5 MiB/s\n", 22), "%s",
		  res.report);
	/* as nobody, in its work directory, with the job's environment */
	cr_expect_eq(reported("U"), (long)who.uid, "%s", res.report);
	snprintf(cwd, sizeof(cwd), "\nC %s\n", workdir);
	cr_expect(strstr(res.report, cwd), "%s", res.report);
	cr_expect(strstr(res.report, "\nV yes\n"), "%s", res.report);
	cr_expect(strstr(res.report, "\nHOME unset\n"), "only the job's "
		  "environment:\n%s", res.report);
	cr_expect_eq(reported("IN"), 0, "stdin at end of file");
	cr_expect_eq(reported("FD"), 1, "none of the parent's other fds");
	cr_expect_str_eq(e2e_read(outpath), "to stdout\n");
	cr_expect_str_eq(e2e_read(errpath), "to stderr\n");
	cr_expect_lt(res.seconds, 10);
	cr_expect_gt(res.seconds, 0);
}

Test(child, an_exit_code)
{
	run(body_exits_3, NULL);
	cr_expect_not(res.ok);
	cr_expect_eq(res.exit_code, 3);
	cr_expect_eq(res.signal, 0);
	cr_expect_str_eq(child_reason(&res), "exit status 3");
	cr_expect_str_eq(res.report, "P seconds 1 s\n", "the report still "
			 "comes back");
}

Test(child, killed_at_its_timeout_with_its_group)
{
	pid_t g, pg;
	int st;

	job.timeout_s = 0.5;
	run(body_hangs, NULL);
	cr_expect_not(res.ok);
	cr_expect(res.timed_out);
	cr_expect_not(res.interrupted);
	cr_expect_eq(res.exit_code, -1);
	cr_expect_eq(res.signal, SIGKILL);
	cr_expect(strstr(child_reason(&res), "timeout: still running after"), "%s",
		  child_reason(&res));
	cr_expect_geq(res.seconds, 0.5);
	cr_expect_lt(res.seconds, 5, "killed at once, not at the end of its "
		     "sleep: %.2f s", res.seconds);
	g = (pid_t)reported("G");
	pg = (pid_t)reported("PG");
	cr_assert_gt(g, 0, "%s", res.report);
	cr_assert_gt(pg, 1);
	/* the child leads its own group, and the grandchild went with it */
	st = reap(g);
	cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
		  "grandchild status %#x", st);
	expect_group_gone(pg);
}

Test(child, stopped_when_asked)
{
	pid_t pg;

	/* the tick comes about once a second: it asks the stop */
	job.tick = set_stop;
	job.tick_ctx = (void *)&stop;
	run(body_hangs, NULL);
	cr_expect_not(res.ok);
	cr_expect(res.interrupted);
	cr_expect_not(res.timed_out);
	cr_expect_eq(res.signal, SIGTERM);
	cr_expect_str_eq(child_reason(&res), "interrupted");
	cr_expect_lt(res.seconds, 5, "%.2f s", res.seconds);
	cr_assert_gt(reported("G"), 0, "%s", res.report);
	reap((pid_t)reported("G"));
	pg = (pid_t)reported("PG");
	expect_group_gone(pg);
}

Test(child, a_stop_it_ignores_is_a_kill_a_second_later)
{
	job.tick = set_stop;
	job.tick_ctx = (void *)&stop;
	run(body_ignores_term, NULL);
	cr_expect(res.interrupted);
	cr_expect_eq(res.signal, SIGKILL);
	cr_expect_str_eq(child_reason(&res), "interrupted");
	/* a tick (1 s), then a second's grace */
	cr_expect_geq(res.seconds, 1.9, "%.2f s", res.seconds);
	cr_expect_lt(res.seconds, 6, "%.2f s", res.seconds);
	expect_group_gone((pid_t)reported("PG"));
}

Test(child, an_error_line_fails_it_with_that_reason)
{
	run(body_fails, NULL);
	cr_expect_not(res.ok);
	cr_expect_eq(res.exit_code, 0, "it exited 0, yet failed");
	cr_expect_str_eq(child_reason(&res), "disk on fire: Input/output "
			 "error");
	cr_expect_eq(res.why.kind, DIAG_PHASE);
	cr_expect_eq(res.why.err, EIO);
	cr_expect_str_eq(res.why.detail.p, "disk on fire: Input/output "
			 "error\nit smoked");
	cr_expect(strstr(res.report, "P b 2 y\n"), "the rest still comes "
		  "back:\n%s", res.report);
}

Test(child, a_line_that_is_no_record_fails_it_too)
{
	run(body_says_e, NULL);
	cr_expect_not(res.ok);
	cr_expect_str_eq(child_reason(&res), "its failure record was "
			 "malformed");
}

Test(child, an_e_inside_a_line_is_no_error)
{
	run(body_mentions_e, NULL);
	cr_expect(res.ok, "%s", child_reason(&res));
}

Test(child, killed_by_a_signal)
{
	run(body_signals, NULL);
	cr_expect_not(res.ok);
	cr_expect_eq(res.signal, SIGUSR1);
	cr_expect_eq(res.exit_code, -1);
	cr_expect(strstr(child_reason(&res), "killed by signal 10"), "%s", child_reason(&res));
}

Test(child, a_failed_drop_runs_nothing)
{
	struct runas root = { .uid = 0, .gid = 0, .name = "root" };

	job.runas = &root;
	run(body_never_runs, NULL);
	cr_expect_not(res.ok);
	cr_expect_eq(res.exit_code, 125);
	cr_expect(!strncmp(child_reason(&res), "privilege drop failed: ", 23), "%s",
		  child_reason(&res));
	cr_expect_null(res.report ? strstr(res.report, "P ran") : NULL,
		       "the body ran:\n%s", res.report);
}

Test(child, a_work_directory_it_cannot_enter)
{
	char dir[128];

	snprintf(dir, sizeof(dir), "%s/nonesuch", workdir);
	job.workdir = dir;
	run(body_never_runs, NULL);
	cr_expect_not(res.ok);
	cr_expect_eq(res.exit_code, 125);
	cr_expect(strstr(child_reason(&res), "cannot enter the work directory"),
		  "%s", child_reason(&res));
	cr_expect(strstr(child_reason(&res), dir), "%s", child_reason(&res));
	cr_expect_null(res.report ? strstr(res.report, "P ran") : NULL);
}

Test(child, exec_body_and_what_it_leaves_running)
{
	pid_t bg;
	int st;

	run(child_exec_body, (void *)"echo out; echo err >&2; "
	    "sleep 30 & echo $!; exit 4");
	cr_expect_not(res.ok);
	cr_expect_eq(res.exit_code, 4);
	cr_expect_str_eq(child_reason(&res), "exit status 4");
	cr_expect_lt(res.seconds, 5, "the background sleep kept it %.2f s",
		     res.seconds);
	cr_expect(!strncmp(e2e_read(outpath), "out\n", 4), "%s",
		  e2e_read(outpath));
	cr_expect_str_eq(e2e_read(errpath), "err\n");
	/* the sleep it left in its group is killed with it */
	bg = (pid_t)strtol(e2e_read(outpath) + 4, NULL, 10);
	cr_assert_gt(bg, 1, "%s", e2e_read(outpath));
	st = reap(bg);
	cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status %#x",
		  st);
}

Test(child, exec_body_of_a_command_that_is_not_there)
{
	run(child_exec_body, (void *)"/nonexistent/tool --flag");
	cr_expect_not(res.ok);
	cr_expect_eq(res.exit_code, 127);
	cr_expect(strstr(e2e_read(errpath), "/nonexistent/tool"), "%s",
		  e2e_read(errpath));
}
