/* child: fork a phase run, drop its privileges, watch it with a deadline, reap it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/child.h"
#include "host/fs.h"
#include "util/clock.h"

static void report_error(const char *fmt, const char *a, const char *b)
{
	dprintf(CHILD_REPORT_FD, "E ");
	dprintf(CHILD_REPORT_FD, fmt, a, b);
	dprintf(CHILD_REPORT_FD, "\n");
}

int child_exec_body(void *arg)
{
	const char *cmd = arg;

	/* A successful exec closes the report pipe: that is the signal. */
	fcntl(CHILD_REPORT_FD, F_SETFD, FD_CLOEXEC);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	report_error("cannot run /bin/sh: %s%s", strerror(errno), "");
	return 127;
}

/* In the child: fds in place, signals back to default, then the drop. */
static void in_child(const struct child_job *job, int report_w)
{
	char err[256];
	sigset_t none;
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int rc;

	setpgid(0, 0);
	/* The caller's fds are all above 3, so no dup2 clobbers another. */
	if (null < 0 || dup2(null, 0) < 0 || dup2(job->out_fd, 1) < 0 ||
	    dup2(job->err_fd, 2) < 0 || dup2(report_w, CHILD_REPORT_FD) < 0)
		_exit(125);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (privdrop_apply(job->runas, CHILD_REPORT_FD, err, sizeof(err))) {
		report_error("privilege drop failed: %s%s", err, "");
		_exit(125);
	}
	if (chdir(job->workdir)) {
		report_error("cannot enter the work directory %s: %s",
			     job->workdir, strerror(errno));
		_exit(125);
	}
	environ = (char **)job->env;	/* we exec or exit: never freed */
	rc = job->body(job->arg);
	_exit(rc);
}

static int append(struct child_result *res, const char *buf, size_t n)
{
	char *p;

	if (res->report_len + n > (64u << 20))	/* a runaway report */
		return -1;
	p = realloc(res->report, res->report_len + n + 1);
	if (!p)
		return -1;
	memcpy(p + res->report_len, buf, n);
	res->report = p;
	res->report_len += n;
	p[res->report_len] = '\0';
	return 0;
}

static void describe(struct child_result *res, int status)
{
	const char *err = res->report ? strstr(res->report, "E ") : NULL;

	if (WIFSIGNALED(status)) {
		res->exit_code = -1;
		res->signal = WTERMSIG(status);
	} else {
		res->exit_code = WEXITSTATUS(status);
	}
	if (err && (err == res->report || err[-1] == '\n')) {
		snprintf(res->reason, sizeof(res->reason), "%.*s",
			 (int)strcspn(err + 2, "\n"), err + 2);
	} else if (res->timed_out) {
		snprintf(res->reason, sizeof(res->reason),
			 "timeout: still running after %.0f s, killed",
			 res->seconds);
	} else if (res->interrupted) {
		snprintf(res->reason, sizeof(res->reason), "interrupted");
	} else if (res->signal) {
		snprintf(res->reason, sizeof(res->reason), "killed by signal "
			 "%d (%s)", res->signal, strsignal(res->signal));
	} else if (res->exit_code) {
		snprintf(res->reason, sizeof(res->reason), "exit status %d",
			 res->exit_code);
	} else {
		res->ok = 1;
	}
}

int child_run(const struct child_job *job, volatile sig_atomic_t *stop,
	      struct child_result *res)
{
	double t0, deadline, term_at = 0, ticked;
	struct rusage ru;
	int pfd[2], pidfd, status = 0, open_pipe = 1;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	t0 = clock_now();
	deadline = t0 + job->timeout_s;
	ticked = t0;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		close(pfd[0]);
		in_child(job, pfd[1]);
	}
	close(pfd[1]);
	setpgid(pid, pid);	/* both sides: no race with an early kill */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	for (;;) {
		struct pollfd pf[2] = { { pidfd, POLLIN, 0 },
					{ open_pipe ? pfd[0] : -1, POLLIN, 0 } };
		double now = clock_now();
		int wait_ms = 100;

		if (pidfd < 0)
			break;
		if (now >= deadline && !res->timed_out) {
			res->timed_out = 1;
			kill(-pid, SIGKILL);
		}
		if (stop && *stop && !res->interrupted) {
			res->interrupted = 1;
			kill(-pid, SIGTERM);
			term_at = now;
		}
		if (term_at && now - term_at > 1.0)
			kill(-pid, SIGKILL);
		if (job->tick && now - ticked >= 1.0) {
			job->tick(job->tick_ctx);
			ticked = now;
		}
		if (!res->timed_out && (deadline - now) * 1000 < wait_ms)
			wait_ms = (int)((deadline - now) * 1000) + 1;
		if (poll(pf, 2, wait_ms) <= 0)
			continue;
		if (open_pipe && (pf[1].revents & (POLLIN | POLLHUP))) {
			char buf[4096];
			ssize_t r = read(pfd[0], buf, sizeof(buf));

			if (r <= 0 || append(res, buf, r))
				open_pipe = 0;
		}
		if (pf[0].revents & POLLIN)
			break;
	}
	/* Drain what the child wrote before it exited. */
	while (open_pipe) {
		char buf[4096];
		ssize_t r = read(pfd[0], buf, sizeof(buf));

		if (r <= 0 || append(res, buf, r))
			break;
	}
	close(pfd[0]);
	if (pidfd >= 0)
		close(pidfd);
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	res->seconds = clock_now() - t0;
	/* Whatever it left running in its group goes with it. */
	kill(-pid, SIGKILL);
	res->user_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	res->sys_s = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	describe(res, status);
	return 0;
}

void child_result_free(struct child_result *res)
{
	free(res->report);
	res->report = NULL;
	res->report_len = 0;
}
