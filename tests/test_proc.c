/* test_proc: the one process runner — exit status, output capture, the log and
 * last line, deadline, stop, leftovers. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/proc.h"
#include "procwatch.h"

/* An fd on /dev/null above 3, as child_run's callers keep theirs. */
static int null_fd(void)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int fd = fcntl(null, F_DUPFD_CLOEXEC, 10);

	cr_assert_geq(fd, 10);
	close(null);
	return fd;
}

static const char *sh_argv[4] = { "sh", "-c", NULL, NULL };

/* A job that runs sh -c script with its output on the pipe. */
static struct proc_job sh_job(const char *script, double timeout_s)
{
	sh_argv[2] = script;
	return (struct proc_job){
		.argv = sh_argv, .out_fd = PROC_PIPE, .err_fd = PROC_PIPE,
		.pipe_at = -1, .timeout_s = timeout_s, .log_fd = -1,
		.keep = 1 << 20,
	};
}

Test(proc, captures_stdout_and_stderr_and_the_exit_status)
{
	struct proc_job job = sh_job("echo out; echo err >&2; "
				     "read x || echo eof; exit 3", 30);
	struct proc_result res;

	cr_assert_eq(proc_run(&job, &res), 0);
	cr_expect_str_eq(res.out, "out\nerr\neof\n", "stdin is /dev/null");
	cr_expect_eq(proc_status(&res), 3);
	cr_expect_not(res.timed_out);
	cr_expect_eq(res.exec_errno, 0);
	proc_result_free(&res);
}

Test(proc, copies_to_the_log_and_keeps_the_last_line)
{
	struct proc_job job = sh_job("echo first; echo 'the last one'; "
				     "echo; echo '  '", 30);
	struct proc_result res;
	char last[64], logged[256] = "";
	FILE *log = tmpfile();

	cr_assert_not_null(log);
	job.log_fd = fileno(log);
	job.last = last;
	job.last_len = sizeof(last);
	job.keep = 0;
	cr_assert_eq(proc_run(&job, &res), 0);
	cr_expect_null(res.out, "keep 0 keeps nothing");
	cr_expect_str_eq(last, "the last one");
	cr_assert_geq(pread(fileno(log), logged, sizeof(logged) - 1, 0), 0);
	cr_expect_str_eq(logged, "first\nthe last one\n\n  \n");
	fclose(log);
}

/* A tool that prints its usage after the error (mkfs.xfs on a small
 * image): the reason is the error, not the usage's last line. */
Test(proc, the_last_line_is_the_one_before_a_usage_text)
{
	struct proc_job job = sh_job("echo 'Filesystem must be larger than "
				     "300MB.'; echo 'Usage: mkfs.xfs'; "
				     "echo '/* blocksize */ [-b size=num]'; "
				     "echo '<value> is xxx (512 byte blocks).'; "
				     "exit 1", 30);
	struct proc_result res;
	char last[128];

	job.last = last;
	job.last_len = sizeof(last);
	cr_assert_eq(proc_run(&job, &res), 0);
	cr_expect_str_eq(last, "Filesystem must be larger than 300MB.");
	proc_result_free(&res);
}

Test(proc, a_missing_program_says_so_in_the_output)
{
	const char *const argv[] = { "fsplan-no-such-tool", "-x", NULL };
	struct proc_job job = sh_job("", 30);
	struct proc_result res;
	char last[128];

	job.argv = argv;
	job.last = last;
	job.last_len = sizeof(last);
	cr_assert_eq(proc_run(&job, &res), 0);
	cr_expect_eq(res.exec_errno, ENOENT);
	cr_expect_eq(proc_status(&res), 127);
	cr_expect_str_eq(last, "cannot run fsplan-no-such-tool: No such file "
			 "or directory");
	cr_expect_str_eq(res.out, "cannot run fsplan-no-such-tool: No such "
			 "file or directory\n");
	proc_result_free(&res);
}

Test(proc, past_the_deadline_the_whole_group_is_killed)
{
	/* sh's child sleep holds the pipe open: the whole group must die */
	struct proc_job job = sh_job("sleep 100 & echo $!; wait; echo late",
				     0.5);
	struct proc_result res;
	double t0 = watch_seconds(), dt;
	long pid;

	cr_assert_eq(proc_run(&job, &res), 0);
	dt = watch_seconds() - t0;
	cr_assert_not_null(res.out);
	pid = atol(res.out);
	cr_assert_gt(pid, 1, "'%s'", res.out);
	cr_expect(res.timed_out);
	cr_expect(WIFSIGNALED(res.status) && WTERMSIG(res.status) == SIGKILL);
	cr_expect_eq(proc_status(&res), 128 + SIGKILL);
	cr_expect_geq(dt, 0.45, "killed after %.2f s, before the deadline",
		      dt);
	cr_expect_lt(dt, 10.0, "took %.1f s", dt);
	cr_expect(watch_gone(pid), "sleep (pid %ld) outlived the deadline", pid);
	cr_expect_null(strstr(res.out, "late"));
	proc_result_free(&res);
}

Test(proc, output_past_keep_is_drained_or_stops_the_reading)
{
	struct proc_job job = sh_job("head -c 300000 /dev/zero | tr '\\0' x; "
				     "echo end", 2);
	struct proc_result res;

	job.keep = 1000;
	job.drain = 1;
	cr_assert_eq(proc_run(&job, &res), 0);
	cr_expect_eq(res.out_len, 1000);
	cr_expect(res.out_cut);
	cr_expect_eq(strspn(res.out, "x"), 1000);
	cr_expect_eq(proc_status(&res), 0, "drained: it ran to its end");
	cr_expect_not(res.timed_out);
	proc_result_free(&res);
	/* not drained: the writer blocks on a full pipe until the deadline */
	job.drain = 0;
	cr_assert_eq(proc_run(&job, &res), 0);
	cr_expect(res.out_cut);
	cr_expect_leq(res.out_len, 1000);
	cr_expect(res.timed_out, "a runaway writer times out");
	proc_result_free(&res);
}

static int report_body(void *arg)
{
	(void)arg;
	if (write(3, "R 1\n", 4) != 4)
		return 99;
	printf("to the out file\n");
	fflush(stdout);
	return 7;
}

Test(proc, a_body_reports_on_its_own_fd)
{
	struct proc_job job = {
		.body = report_body, .out_fd = -1, .err_fd = -1, .pipe_at = 3,
		.timeout_s = 30, .log_fd = -1, .keep = 4096,
	};
	struct proc_result res;
	char got[64] = "";
	FILE *out = tmpfile();

	cr_assert_not_null(out);
	/* the job's own stdout, above 3 as child_run's callers keep them */
	job.out_fd = job.err_fd = fcntl(fileno(out), F_DUPFD_CLOEXEC, 10);
	cr_assert_eq(proc_run(&job, &res), 0);
	cr_expect_str_eq(res.out, "R 1\n");
	cr_expect_eq(proc_status(&res), 7);
	cr_assert_geq(pread(fileno(out), got, sizeof(got) - 1, 0), 0);
	cr_expect_str_eq(got, "to the out file\n");
	cr_expect_geq(res.seconds, 0.0);
	close(job.out_fd);
	fclose(out);
	proc_result_free(&res);
}

static volatile sig_atomic_t stop_flag;

static void ask_to_stop(void *ctx)
{
	(void)ctx;
	stop_flag = SIGTERM;
}

static int waits_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

Test(proc, a_stop_request_terminates_the_group)
{
	struct proc_job job = {
		.body = waits_forever, .out_fd = -1, .err_fd = -1,
		.pipe_at = 3, .timeout_s = 60, .stop = &stop_flag,
		.tick = ask_to_stop, .log_fd = -1,
	};
	struct proc_result res;

	job.out_fd = job.err_fd = null_fd();
	cr_assert_eq(proc_run(&job, &res), 0);
	cr_expect(res.interrupted);
	cr_expect_not(res.timed_out);
	cr_expect(WIFSIGNALED(res.status) && WTERMSIG(res.status) == SIGTERM,
		  "status %#x", res.status);
	cr_expect_lt(res.seconds, 10.0);
	close(job.out_fd);
}

static int leaves_a_sleeper(void *arg)
{
	pid_t pid = fork();

	(void)arg;
	if (pid == 0) {
		execlp("sleep", "sleep", "100", (char *)NULL);
		_exit(127);
	}
	dprintf(3, "%ld\n", (long)pid);
	return 0;
}

Test(proc, leftovers_go_with_the_child)
{
	struct proc_job job = {
		.body = leaves_a_sleeper, .out_fd = -1, .err_fd = -1,
		.pipe_at = 3, .timeout_s = 60, .log_fd = -1, .keep = 64,
		.kill_leftovers = 1,
	};
	struct proc_result res;
	long pid;

	job.out_fd = job.err_fd = null_fd();
	cr_assert_eq(proc_run(&job, &res), 0);
	cr_assert_not_null(res.out);
	pid = atol(res.out);
	cr_assert_gt(pid, 1);
	cr_expect_eq(proc_status(&res), 0);
	cr_expect_not(res.timed_out, "the sleeper held the pipe, not the child");
	cr_expect_lt(res.seconds, 10.0, "%.1f s: waited for the sleeper",
		     res.seconds);
	cr_expect(watch_gone(pid), "the sleeper (pid %ld) outlived the child", pid);
	close(job.out_fd);
	proc_result_free(&res);
}

/* The file's first bytes, at most len - 1, NUL-ended; its size. */
static off_t file_text(int fd, char *buf, size_t len)
{
	off_t size = lseek(fd, 0, SEEK_END);
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	return size;
}

Test(proc, out_cap_keeps_the_head_and_the_tail_with_the_cut_noted)
{
	/* seq 1 100000 prints 588895 bytes; stderr 10 bytes, uncut */
	struct proc_job job = sh_job("seq 1 100000; echo 'only this' >&2", 30);
	char text[8192], note[80];
	struct proc_result res;
	FILE *out = tmpfile(), *err = tmpfile();
	unsigned long long left;
	off_t size, at;

	job.out_fd = fileno(out);
	job.err_fd = fileno(err);
	job.out_cap = 4096;
	cr_assert_eq(proc_run(&job, &res), 0);
	cr_expect_eq(proc_status(&res), 0);
	/* the offset at the end: what the caller writes comes after */
	at = lseek(fileno(out), 0, SEEK_CUR);
	size = file_text(fileno(out), text, sizeof(text));
	cr_expect_eq(at, size);
	cr_expect_leq(size, 4096);
	cr_expect_eq(strlen(text), (size_t)size, "the text is whole");
	/* the head as it came, the note at its end, the tail after it */
	cr_expect(!strncmp(text, "1\n2\n3\n", 6), "%.20s", text);
	left = res.left_out[0];
	snprintf(note, sizeof(note), "\n[fsplan: %llu bytes left out here]\n",
		 left);
	cr_expect(!strncmp(text + 2048, note, strlen(note)), "%.60s",
		  text + 2048);
	cr_expect_eq(left + (unsigned long long)size - strlen(note), 588895);
	cr_expect_str_eq(text + size - 13, "99999\n100000\n");
	cr_expect_eq(res.left_out[1], 0);
	size = file_text(fileno(err), text, sizeof(text));
	cr_expect_str_eq(text, "only this\n");
	fclose(out);
	fclose(err);
	proc_result_free(&res);
}
