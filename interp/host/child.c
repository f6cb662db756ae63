/* child: a phase run in a child of proc_run that drops its privileges first. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/child.h"
#include "host/memcg.h"
#include "host/proc.h"

/* A failure before or instead of the body: one record to the parent
 * (metrics_diag_send), kind DIAG_SYSTEM, err its errno or 0. */
static void report_error(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report_error(int err, const char *fmt, ...)
{
	struct diag d = { 0 };
	struct strbuf b = { 0 };
	va_list ap;

	va_start(ap, fmt);
	strbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	diag_fail(&d, DIAG_SYSTEM, 0, "%s", b.oom ? "out of memory" : b.p);
	d.err = err;
	/* what does not fit the message is in the detail, whole */
	if (!b.oom && b.len >= sizeof(d.msg))
		diag_detail(&d, b.p);
	(void)metrics_diag_send(CHILD_REPORT_FD, &d);
	diag_release(&d);
	free(b.p);
}

int child_exec_body(void *arg)
{
	const char *cmd = arg;
	struct diag d = { 0 };
	int err;

	/* A successful exec closes the report pipe: that is the signal. */
	fcntl(CHILD_REPORT_FD, F_SETFD, FD_CLOEXEC);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	err = errno;
	if (err == E2BIG && proc_arg_too_long(strlen(cmd), &d))
		report_error(err, "%s", d.msg);
	else
		report_error(err, "cannot run /bin/sh: %s", strerror(err));
	return 127;
}

/* In the child, set up by proc_run: the drop, the work directory, the body. */
/*
 * Up to want, as far as root may: past the hard limit only with
 * CAP_SYS_RESOURCE (which some containers withhold: then the soft
 * limit goes up to the hard one). Never lowered.
 */
static void raise_memlock(unsigned long long want)
{
	struct rlimit rl, up;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= want)
		return;
	up.rlim_cur = want;
	up.rlim_max = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ?
		      want : rl.rlim_max;
	if (setrlimit(RLIMIT_MEMLOCK, &up)) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_MEMLOCK, &rl);
	}
}

static int dropped(void *arg)
{
	const struct child_job *job = arg;
	struct diag d = { 0 };
	char no[32] = "";
	int rc;

	/* a failure shows later, as the ring that does not fit */
	if (job->memlock_bytes)
		raise_memlock(job->memlock_bytes);
	/* as root: a dropped process may not move itself */
	if (job->cgroup && (rc = memcg_join(job->cgroup))) {
		report_error(-rc, "cannot join the memory cgroup %s: %s",
			     job->cgroup, strerror(-rc));
		return 125;
	}
	if (privdrop_apply(job->runas, CHILD_REPORT_FD, &d)) {
		if (d.err)
			snprintf(no, sizeof(no), " (errno %d)", d.err);
		report_error(d.err, "privilege drop failed: %s%s", d.msg, no);
		return 125;
	}
	if (chdir(job->workdir)) {
		rc = errno;
		report_error(rc, "cannot enter the work directory %s: %s",
			     job->workdir, strerror(rc));
		return 125;
	}
	environ = (char **)job->env;	/* we exec or exit: never freed */
	return job->body(job->arg);
}

const char *child_reason(const struct child_result *res)
{
	if (res->reason.oom)
		return "out of memory";
	return res->reason.p ? res->reason.p : "";
}

void child_set_reason(struct child_result *res, const char *fmt, ...)
{
	va_list ap;

	res->ok = 0;
	free(res->reason.p);
	memset(&res->reason, 0, sizeof(res->reason));
	va_start(ap, fmt);
	strbuf_vprintf(&res->reason, fmt, ap);
	va_end(ap);
}

static void describe(struct child_result *res, int status)
{
	int rec = metrics_diag_decode(res->report, res->report_len,
				      &res->why);

	if (WIFSIGNALED(status)) {
		res->exit_code = -1;
		res->signal = WTERMSIG(status);
	} else {
		res->exit_code = WEXITSTATUS(status);
	}
	if (rec > 0)
		metrics_diag_reason(&res->why, &res->reason);
	else if (rec < 0)
		child_set_reason(res, "its failure record was malformed");
	else if (res->timed_out)
		child_set_reason(res, "timeout: still running after %.0f s, "
				 "killed", res->seconds);
	else if (res->interrupted)
		child_set_reason(res, "interrupted");
	else if (res->signal)
		child_set_reason(res, "killed by signal %d (%s)", res->signal,
				 strsignal(res->signal));
	else if (res->exit_code)
		child_set_reason(res, "exit status %d", res->exit_code);
	else
		res->ok = 1;
}

/* The report's lines as they come, until the setup's mark. */
struct mark {
	const struct child_job *job;
	size_t scanned;		/* a line's start: what is before it is read */
	long at;		/* where the mark's line is, or -1 */
};

static void seen(void *ctx, const char *out, size_t len, int reply_fd)
{
	static const char go = METRICS_GO;
	struct mark *mk = ctx;
	size_t n = sizeof(METRICS_SETUP_DONE) - 1;
	const char *nl;

	while (mk->at < 0 &&
	       (nl = memchr(out + mk->scanned, '\n', len - mk->scanned))) {
		size_t line = (size_t)(nl - out) + 1 - mk->scanned;

		if (line == n && !memcmp(out + mk->scanned, METRICS_SETUP_DONE,
					 n)) {
			mk->at = (long)mk->scanned;
			if (mk->job->setup_done)
				mk->job->setup_done(mk->job->setup_done_ctx);
			/* the counters are read: the child may start; a
			 * child gone already does not need it */
			while (send(reply_fd, &go, 1, MSG_NOSIGNAL) < 0 &&
			       errno == EINTR)
				;
		}
		mk->scanned += line;
	}
}

/* The mark's line out of the report: the rest is the body's. */
static void unmark(struct child_result *res, const struct mark *mk)
{
	size_t n = sizeof(METRICS_SETUP_DONE) - 1;

	if (mk->at < 0)
		return;
	memmove(res->report + mk->at, res->report + mk->at + n,
		res->report_len - (size_t)mk->at - n + 1);
	res->report_len -= n;
}

int child_run(const struct child_job *job, volatile sig_atomic_t *stop,
	      struct child_result *res)
{
	struct mark mk = { job, 0, -1 };
	const struct proc_job pj = {
		.body = dropped, .arg = (void *)job,
		.out_fd = job->out_fd, .err_fd = job->err_fd,
		.out_cap = job->out_cap,
		.pipe_at = CHILD_REPORT_FD,
		.timeout_s = job->timeout_s, .stop = stop,
		.tick = job->tick, .tick_ctx = job->tick_ctx,
		.tick_s = job->tick_s, .tick_from = job->tick_from,
		.pid_out = job->pid,
		.log_fd = -1,
		/* past 64 MiB a report is a runaway: it times out */
		.keep = 64u << 20, .drain = 0,
		/* whatever it left running in its group goes with it */
		.kill_leftovers = 1,
		/* a body that marks its setup's end waits for the go */
		.seen = seen, .seen_ctx = &mk, .duplex = 1,
	};
	struct proc_result pr;

	memset(res, 0, sizeof(*res));
	if (proc_run(&pj, &pr))
		return -1;
	res->report = pr.out;
	res->report_len = pr.out_len;
	res->left_out[0] = pr.left_out[0];
	res->left_out[1] = pr.left_out[1];
	unmark(res, &mk);
	res->timed_out = pr.timed_out;
	res->interrupted = pr.interrupted;
	res->seconds = pr.seconds;
	res->user_s = pr.user_s;
	res->sys_s = pr.sys_s;
	describe(res, pr.status);
	return 0;
}

void child_result_free(struct child_result *res)
{
	free(res->report);
	res->report = NULL;
	res->report_len = 0;
	free(res->reason.p);
	memset(&res->reason, 0, sizeof(res->reason));
	diag_release(&res->why);
}
