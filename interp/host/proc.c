/* proc: fork, exec or run a body, capture output, a deadline, reap. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/proc.h"
#include "util/clock.h"
#include "util/exitcode.h"

/* A file the parent fills from a pipe of its own (proc_job.out_cap). */
struct capped {
	int file;		/* the caller's fd */
	int pipe;		/* our read end; -1 none, or at its end */
	unsigned long long total;	/* bytes that came */
	int failed;		/* a write to the file failed: drained */
	char *ring;		/* past the cap: the last half, ... */
	size_t at;		/* ... its oldest byte's place */
	int no_ring;		/* no memory for it: the tail is lost */
};

/* The state of one run: the pipe's end, the log, what was kept. */
struct watch {
	const struct proc_job *job;
	struct proc_result *res;
	int log_fd;		/* -1 once a write to it failed */
	int reading;		/* the pipe is open and read */
	int usage;		/* a usage text began: last is its why */
	struct capped cap[2];	/* stdout's and stderr's */
};

static void cap_write(struct capped *c, const char *buf, size_t n)
{
	while (n && !c->failed) {
		ssize_t w = write(c->file, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			c->failed = 1;	/* drained on: the child goes on */
			break;
		}
		buf += w;
		n -= (size_t)w;
	}
}

/* n more bytes of the stream: to the file up to cap, then the ring. */
static void cap_take(struct capped *c, size_t cap, const char *buf, size_t n)
{
	size_t half = cap / 2;

	if (!c->ring && !c->no_ring) {
		size_t m = c->total + n <= cap ? n : cap - (size_t)c->total;

		cap_write(c, buf, m);
		c->total += m;
		buf += m;
		n -= m;
		if (!n)
			return;
		/* the ring starts as the file's second half */
		c->ring = malloc(half);
		if (!c->ring || pread(c->file, c->ring, half, (off_t)half) !=
				(ssize_t)half) {
			free(c->ring);
			c->ring = NULL;
			c->no_ring = 1;
		}
		c->at = 0;
	}
	c->total += n;
	if (!c->ring)
		return;
	if (n >= half) {
		memcpy(c->ring, buf + n - half, half);
		c->at = 0;
		return;
	}
	while (n) {
		size_t m = half - c->at < n ? half - c->at : n;

		memcpy(c->ring + c->at, buf, m);
		c->at = (c->at + m) % half;
		buf += m;
		n -= m;
	}
}

/* The tail after the note: the ring's last keep bytes, in order. */
static size_t write_tail(const struct capped *c, size_t half, size_t keep,
			 off_t at)
{
	size_t from = (c->at + (half - keep)) % half;
	size_t first = half - from < keep ? half - from : keep;

	if (pwrite(c->file, c->ring + from, first, at) != (ssize_t)first ||
	    pwrite(c->file, c->ring, keep - first, at + (off_t)first) !=
	    (ssize_t)(keep - first))
		return 0;
	return keep;
}

/* The stream has ended: the note and the tail after the head, if it
 * passed the cap. The bytes left out. */
static unsigned long long cap_end(struct capped *c, size_t cap)
{
	size_t half = cap / 2, keep;
	unsigned long long left = 0;
	char note[80];
	int k;

	if (c->pipe >= 0)
		close(c->pipe);
	c->pipe = -1;
	if (c->total > cap && !c->failed) {
		/* the note takes its place in the tail, the file stays in
		 * cap: the count is at most total - half, as many digits */
		k = snprintf(note, sizeof(note), "\n[fsplan: %llu bytes left "
			     "out here]\n", c->total - half);
		keep = c->ring ? half - (size_t)k : 0;
		left = c->total - half - keep;
		k = snprintf(note, sizeof(note), "\n[fsplan: %llu bytes left "
			     "out here]\n", left);
		if (pwrite(c->file, note, (size_t)k, (off_t)half) != k)
			keep = 0;
		else if (keep)
			keep = write_tail(c, half, keep, (off_t)half + k);
		(void)!ftruncate(c->file, (off_t)(half + (size_t)k + keep));
		lseek(c->file, 0, SEEK_END);
	}
	free(c->ring);
	c->ring = NULL;
	return left;
}

/* What a capped stream's pipe has now; at its end, the file finished. */
static void cap_read(struct watch *w, int i)
{
	struct capped *c = &w->cap[i];
	char buf[65536];
	ssize_t r = read(c->pipe, buf, sizeof(buf));

	if (r < 0 && errno == EINTR)
		return;
	if (r <= 0)
		w->res->left_out[i] = cap_end(c, w->job->out_cap);
	else
		cap_take(c, w->job->out_cap, buf, (size_t)r);
}

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
		     int errw, const int capw[2], char alt[][256], int n_alt)
{
	int out = job->out_fd == PROC_PIPE ? pw : capw[0] >= 0 ? capw[0]
						: job->out_fd;
	int err = job->err_fd == PROC_PIPE ? pw : capw[1] >= 0 ? capw[1]
						: job->err_fd;
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
static void take(struct watch *w, const char *buf, size_t n, int pr)
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
		job->seen(job->seen_ctx, w->res->out, w->res->out_len,
			  job->duplex ? pr : -1);
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
		take(w, buf, (size_t)r, fd);
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

/* The tick, when its time has come: the slots are tick_s apart from
 * the base (the fork, or *tick_from once set), a late one skips those
 * it missed. The poll's wait, cut to the next slot. */
static int tick(const struct proc_job *job, double *ticked, double t0,
		double now, int wait_ms)
{
	double period = job->tick_s > 0 ? job->tick_s : 1.0;
	double base = job->tick_from && *job->tick_from > 0 ?
		      *job->tick_from : t0;
	double next;

	if (*ticked < base)
		*ticked = base;	/* the timed start: the slots anew */
	if (now >= *ticked + period) {
		*ticked = base + floor((now - base) / period) * period;
		job->tick(job->tick_ctx);
	}
	next = (*ticked + period - now) * 1000;
	return next < wait_ms ? (int)next + 1 : wait_ms;
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
	double done_at = 0;
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), done = 0;

	for (;;) {
		struct pollfd pf[4] = { { pidfd, POLLIN, 0 },
					{ w->reading ? pr : -1, POLLIN, 0 },
					{ w->cap[0].pipe, POLLIN, 0 },
					{ w->cap[1].pipe, POLLIN, 0 } };
		int open = w->reading || w->cap[0].pipe >= 0 ||
			   w->cap[1].pipe >= 0;
		double now = clock_now();
		int wait_ms = pidfd >= 0 ? 100 : 20;

		if (!done && (done = exited(pid)) && job->kill_leftovers)
			kill(-pid, SIGKILL);
		if (done && !done_at)
			done_at = now;
		if (done)
			pf[0].fd = -1;
		if (now >= deadline && !res->timed_out) {
			res->timed_out = !done;
			kill(-pid, SIGKILL);
			if (done)	/* a leftover holds the pipe */
				break;
		}
		/* after a kill, a process outside the group may hold it;
		 * one that left the group (setsid) holding only stdout or
		 * stderr, which were files before out_cap, gets a second */
		if (done && (!open || res->timed_out ||
			     (!w->reading && now - done_at > 1.0)))
			break;
		if (!done && job->stop && *job->stop && !res->interrupted) {
			res->interrupted = 1;
			kill(-pid, SIGTERM);
			term_at = now;
		}
		if (!done && term_at && now - term_at > 1.0)
			kill(-pid, SIGKILL);
		if (job->tick)
			wait_ms = tick(job, &ticked, t0, now, wait_ms);
		if (!res->timed_out && (deadline - now) * 1000 < wait_ms)
			wait_ms = (int)((deadline - now) * 1000) + 1;
		if (poll(pf, 4, wait_ms) <= 0)
			continue;
		if (pf[1].revents & (POLLIN | POLLHUP | POLLERR))
			read_some(w, pr);
		for (int i = 0; i < 2; i++)
			if (pf[2 + i].revents & (POLLIN | POLLHUP | POLLERR))
				cap_read(w, i);
	}
	/* what a leftover still held: the file ends where it is */
	for (int i = 0; i < 2; i++)
		if (w->cap[i].pipe >= 0)
			res->left_out[i] = cap_end(&w->cap[i], job->out_cap);
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
	take(w, msg, n < (int)sizeof(msg) ? (size_t)n : sizeof(msg) - 1, -1);
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

/* The child reaped: its status, times, and (kill_leftovers) its group. */
static void reap(const struct proc_job *job, struct proc_result *res,
		 pid_t pid, double t0)
{
	struct rusage ru;

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
}

int proc_run(const struct proc_job *job, struct proc_result *res)
{
	struct watch w = { job, res, job->log_fd, 1, 0,
			   { { .pipe = -1 }, { .pipe = -1 } } };
	int p[2] = { -1, -1 }, ep[2] = { -1, -1 }, nul, err = 0, n_alt = 0;
	int capw[2] = { -1, -1 };
	char alt[2][256];
	double t0;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (job->last && job->last_len)
		job->last[0] = '\0';
	if (job->argv)
		n_alt = alternatives(job->argv[0], alt);
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (nul < 0 || (job->duplex ? socketpair(AF_UNIX, SOCK_STREAM |
						 SOCK_CLOEXEC, 0, p)
				   : pipe2(p, O_CLOEXEC)) ||
	    (!job->body && pipe2(ep, O_CLOEXEC)))
		goto fail;
	for (int i = 0; i < 2 && job->out_cap; i++) {
		int fd = i ? job->err_fd : job->out_fd, cp[2];

		if (fd < 0)
			continue;
		if (pipe2(cp, O_CLOEXEC))
			goto fail;
		w.cap[i].file = fd;
		w.cap[i].pipe = cp[0];
		capw[i] = cp[1];
	}
	t0 = clock_now();
	pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0)
		in_child(job, nul, p[0], p[1], ep[1], capw, alt, n_alt);
	setpgid(pid, pid);	/* both sides: no race with an early kill */
	if (job->pid_out)
		*job->pid_out = pid;
	close(nul);
	close(p[1]);
	for (int i = 0; i < 2; i++)
		if (capw[i] >= 0)
			close(capw[i]);
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
	reap(job, res, pid, t0);
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (p[i] >= 0)
			close(p[i]);
		if (ep[i] >= 0)
			close(ep[i]);
		if (capw[i] >= 0) {
			close(capw[i]);
			close(w.cap[i].pipe);
		}
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

int proc_arg_too_long(size_t len, struct diag *d)
{
	/* Linux: MAX_ARG_STRLEN is 32 pages for any one argument, and
	 * ARG_MAX bounds them all with the environment */
	size_t one = 32 * (size_t)sysconf(_SC_PAGESIZE);
	long all = sysconf(_SC_ARG_MAX);

	if (len < one && (all < 0 || len < (size_t)all / 2))
		return 0;
	diag_fail(d, DIAG_LIMIT, 0, "the command line is %zu bytes, more than "
		  "the kernel takes (E2BIG: one argument is at most %zu "
		  "bytes, MAX_ARG_STRLEN; all of them and the environment "
		  "%ld, ARG_MAX)", len, one - 1, all);
	return 1;
}

char **proc_env_c_locale(void)
{
	static char c_all[] = "LC_ALL=C";
	size_t n = 0, j = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = malloc((n + 2) * sizeof(*env));
	if (!env)
		return NULL;
	env[j++] = c_all;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LC_ALL=", 7))
			env[j++] = environ[i];
	env[j] = NULL;
	return env;
}
