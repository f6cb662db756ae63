/* proc: fork a child, exec it or run its body, capture its output, enforce a deadline, reap it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/proc.h"
#include "util/clock.h"
#include "util/exitcode.h"

/* The state of one run: the pipe's end, the log, what was kept. */
struct watch {
	const struct proc_job *job;
	struct proc_result *res;
	int log_fd;		/* -1 once a write to it failed */
	int reading;		/* the pipe is open and read */
	int usage;		/* a usage text began: last is its why */
};

/* dup2, or clear close-on-exec when fd is already where it belongs. */
static int move_fd(int fd, int to)
{
	return fd == to ? fcntl(to, F_SETFD, 0) : dup2(fd, to);
}

/*
 * In the child. Between fork and exec only async-signal-safe calls:
 * everything it needs (paths, environment) is built before the fork.
 */
static void in_child(const struct proc_job *job, int nul, int pr, int pw,
		     int errw, char alt[][256], int n_alt)
{
	int out = job->out_fd == PROC_PIPE ? pw : job->out_fd;
	int err = job->err_fd == PROC_PIPE ? pw : job->err_fd;
	int fail = job->body ? 125 : 127;
	sigset_t none;

	setpgid(0, 0);
	close(pr);
	/* The caller's fds are all above 3, so no dup2 clobbers another. */
	if (move_fd(nul, 0) < 0 || move_fd(out, 1) < 0 || move_fd(err, 2) < 0 ||
	    (job->pipe_at >= 0 && move_fd(pw, job->pipe_at) < 0))
		_exit(fail);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (job->body)
		_exit(job->body(job->arg));
	execvpe(job->argv[0], (char *const *)job->argv,
		job->env ? job->env : environ);
	for (int i = 0; i < n_alt && errno == ENOENT; i++)
		execve(alt[i], (char *const *)job->argv,
		       job->env ? job->env : environ);
	fail = errno;
	if (write(errw, &fail, sizeof(fail)) < 0)
		_exit(127);
	_exit(127);
}

static void keep_last_line(char *last, size_t len, const char *buf, size_t n)
{
	const char *end = buf + n, *start;

	while (end > buf && (end[-1] == '\n' || end[-1] == '\r' ||
			     end[-1] == ' '))
		end--;
	if (end == buf)
		return;
	start = end;
	while (start > buf && start[-1] != '\n')
		start--;
	snprintf(last, len, "%.*s", (int)(end - start), start);
}

/* Keep n more bytes of output; -1 when it is more than keep allows. */
static int keep(struct watch *w, const char *buf, size_t n)
{
	struct proc_result *res = w->res;
	size_t room = w->job->keep - res->out_len;
	char *p;

	if (n > room) {
		res->out_cut = 1;
		if (!w->job->drain)
			return -1;
		n = room;
		if (!n)
			return 0;
	}
	/* a chunk at a time, as it comes: realloc amortizes the growth */
	p = realloc(res->out, res->out_len + n + 1);
	if (!p) {
		res->out_cut = 1;
		return w->job->drain ? 0 : -1;
	}
	res->out = p;
	memcpy(res->out + res->out_len, buf, n);
	res->out_len += n;
	res->out[res->out_len] = '\0';
	return 0;
}

/* Where a line starting "Usage:" begins in buf, or n: a tool that
 * prints its usage after an error (mkfs.xfs: "Filesystem must be larger
 * than 300MB.", then 40 lines of options) said why on the line before. */
static size_t usage_at(const char *buf, size_t n)
{
	for (size_t i = 0; i + 6 <= n; i++)
		if ((i == 0 || buf[i - 1] == '\n') &&
		    !strncasecmp(buf + i, "usage:", 6))
			return i;
	return n;
}

/* Output of the child: to the log, the last line, the result. */
static void take(struct watch *w, const char *buf, size_t n)
{
	const struct proc_job *job = w->job;

	if (w->log_fd >= 0 && write(w->log_fd, buf, n) < 0)
		w->log_fd = -1;
	if (job->last && job->last_len && !w->usage) {
		size_t u = usage_at(buf, n);

		keep_last_line(job->last, job->last_len, buf, u);
		w->usage = u < n && *job->last;
	}
	if (job->keep && keep(w, buf, n))
		w->reading = 0;
	if (job->seen && w->res->out)
		job->seen(job->seen_ctx, w->res->out, w->res->out_len);
}

static void read_some(struct watch *w, int fd)
{
	char buf[4096];
	ssize_t r = read(fd, buf, sizeof(buf));

	if (r < 0 && errno == EINTR)
		return;
	if (r <= 0)
		w->reading = 0;
	else
		take(w, buf, (size_t)r);
}

/* Whether pid has exited (not reaped yet: waitid's WNOWAIT). */
static int exited(pid_t pid)
{
	siginfo_t si;

	si.si_pid = 0;
	if (waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;
	return si.si_pid == pid;
}

/*
 * Until the child has exited and the pipe is at its end: the deadline
 * (only while the child runs: a leftover that holds the pipe past it is
 * killed, not counted as the child's timeout), the stop request, the
 * ticks, the output.
 */
static void watch(struct watch *w, pid_t pid, int pr, double t0)
{
	const struct proc_job *job = w->job;
	struct proc_result *res = w->res;
	double deadline = t0 + job->timeout_s, term_at = 0, ticked = t0;
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), done = 0;

	for (;;) {
		struct pollfd pf[2] = { { pidfd, POLLIN, 0 },
					{ w->reading ? pr : -1, POLLIN, 0 } };
		double now = clock_now();
		int wait_ms = pidfd >= 0 ? 100 : 20;

		if (!done && (done = exited(pid)) && job->kill_leftovers)
			kill(-pid, SIGKILL);
		if (done)
			pf[0].fd = -1;
		if (now >= deadline && !res->timed_out) {
			res->timed_out = !done;
			kill(-pid, SIGKILL);
			if (done)	/* a leftover holds the pipe */
				break;
		}
		/* after a kill, a process outside the group may hold it */
		if (done && (!w->reading || res->timed_out))
			break;
		if (!done && job->stop && *job->stop && !res->interrupted) {
			res->interrupted = 1;
			kill(-pid, SIGTERM);
			term_at = now;
		}
		if (!done && term_at && now - term_at > 1.0)
			kill(-pid, SIGKILL);
		if (job->tick && now - ticked >= 1.0) {
			job->tick(job->tick_ctx);
			ticked = now;
		}
		if (!res->timed_out && (deadline - now) * 1000 < wait_ms)
			wait_ms = (int)((deadline - now) * 1000) + 1;
		if (poll(pf, 2, wait_ms) <= 0)
			continue;
		if (pf[1].revents & (POLLIN | POLLHUP | POLLERR))
			read_some(w, pr);
	}
	if (pidfd >= 0)
		close(pidfd);
}

/* The child could not exec: say so where its output would have gone. */
static void exec_failed(struct watch *w, int err)
{
	char msg[512];
	int n = snprintf(msg, sizeof(msg), "cannot run %s: %s\n",
			 w->job->argv[0], strerror(err));

	w->res->exec_errno = err;
	take(w, msg, n < (int)sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
}

/* The sbin fallbacks of a bare name, built before the fork. */
static int alternatives(const char *name, char alt[2][256])
{
	int n = 0;

	if (strchr(name, '/'))
		return 0;
	for (int i = 0; i < 2; i++)
		if (snprintf(alt[n], sizeof(alt[0]), "%s/%s",
			     i ? "/sbin" : "/usr/sbin", name) <
		    (int)sizeof(alt[0]))
			n++;
	return n;
}

int proc_run(const struct proc_job *job, struct proc_result *res)
{
	struct watch w = { job, res, job->log_fd, 1, 0 };
	int p[2] = { -1, -1 }, ep[2] = { -1, -1 }, nul, err = 0, n_alt = 0;
	char alt[2][256];
	struct rusage ru;
	double t0;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (job->last && job->last_len)
		job->last[0] = '\0';
	if (job->argv)
		n_alt = alternatives(job->argv[0], alt);
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (nul < 0 || pipe2(p, O_CLOEXEC) ||
	    (!job->body && pipe2(ep, O_CLOEXEC)))
		goto fail;
	t0 = clock_now();
	pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0)
		in_child(job, nul, p[0], p[1], ep[1], alt, n_alt);
	setpgid(pid, pid);	/* both sides: no race with an early kill */
	close(nul);
	close(p[1]);
	if (ep[0] >= 0) {
		close(ep[1]);
		/* the end of file is a successful exec */
		while (read(ep[0], &err, sizeof(err)) < 0 && errno == EINTR)
			;
		close(ep[0]);
		if (err)
			exec_failed(&w, err);
	}
	watch(&w, pid, p[0], t0);
	close(p[0]);
	while (wait4(pid, &res->status, 0, &ru) < 0) {
		if (errno != EINTR) {
			memset(&ru, 0, sizeof(ru));
			break;
		}
	}
	res->seconds = clock_now() - t0;
	if (job->kill_leftovers)
		kill(-pid, SIGKILL);
	res->user_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	res->sys_s = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (p[i] >= 0)
			close(p[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
	if (nul >= 0)
		close(nul);
	return -1;
}

void proc_result_free(struct proc_result *res)
{
	free(res->out);
	res->out = NULL;
	res->out_len = 0;
}

int proc_status(const struct proc_result *res)
{
	if (WIFSIGNALED(res->status))
		return EXIT_INTERRUPTED(WTERMSIG(res->status));
	return WEXITSTATUS(res->status);
}

int proc_arg_too_long(size_t len, char *why, size_t why_len)
{
	/* Linux: MAX_ARG_STRLEN is 32 pages for any one argument, and
	 * ARG_MAX bounds them all with the environment */
	size_t one = 32 * (size_t)sysconf(_SC_PAGESIZE);
	long all = sysconf(_SC_ARG_MAX);

	if (len < one && (all < 0 || len < (size_t)all / 2))
		return 0;
	snprintf(why, why_len, "the command line is %zu bytes, more than the "
		 "kernel takes (E2BIG: one argument is at most %zu bytes, "
		 "MAX_ARG_STRLEN; all of them and the environment %ld, "
		 "ARG_MAX)", len, one - 1, all);
	return 1;
}
