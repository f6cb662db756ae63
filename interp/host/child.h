/* child: one phase run in a forked child without privileges, watched by the
 * parent. */
#ifndef FSPLAN_CHILD_H
#define FSPLAN_CHILD_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "host/privdrop.h"
#include "results/metrics.h"
#include "util/diag.h"
#include "util/strbuf.h"

/* The child's end of the report pipe, after the drop. */
#define CHILD_REPORT_FD METRICS_REPORT_FD

struct child_job {
	const struct runas *runas;
	const char *workdir;		/* the phase's cwd, owned by runas */
	int out_fd, err_fd;		/* its stdout and stderr */
	size_t out_cap;			/* proc_job's: 0 or each file's
					 * most bytes, head and tail */
	double timeout_s;
	const char *const *env;		/* the whole environment, NULL-ended */
	const char *cgroup;		/* a memory cgroup it joins before
					 * the drop (memcg.h), or NULL */
	/* RLIMIT_MEMLOCK raised to at least this by root before the drop
	 * (io_uring counts its rings there): 0 leaves it as it is */
	unsigned long long memlock_bytes;
	/*
	 * Runs in the child after the privilege drop, single-threaded
	 * until it makes threads itself, with stdin /dev/null, stdout and
	 * stderr as asked and CHILD_REPORT_FD open for writing. Whatever
	 * it writes there reaches the parent as the report; a failure
	 * record (metrics_diag_send) fails the phase run. Returns
	 * the child's exit status (an exec body does not return).
	 */
	int (*body)(void *arg);
	void *arg;
	/* Called while the child runs, every tick_s (0: a second) from
	 * its fork or from *tick_from once that is set (proc.h): progress,
	 * and root's sampler at the phase's interval. */
	void (*tick)(void *ctx);
	void *tick_ctx;
	double tick_s;
	const double *tick_from;
	pid_t *pid;		/* the child's pid once forked, or NULL */
	/* Called the moment the body writes METRICS_SETUP_DONE (a line of
	 * its own; the first only), which is then left out of the report:
	 * what was measured before it was the body's setup. May be NULL.
	 * Then the parent answers METRICS_GO on the report fd (a socket
	 * pair), which the body waits for before its timed work. */
	void (*setup_done)(void *ctx);
	void *setup_done_ctx;
};

struct child_result {
	int ok;			/* exit status 0, no error reported */
	int exit_code;		/* -1 if killed */
	int signal;		/* the signal that ended it, or 0 */
	int timed_out;
	int interrupted;	/* stopped because *stop was set */
	double seconds;		/* fork to reaped exit, CLOCK_MONOTONIC */
	double user_s, sys_s;	/* CPU of the child and its waited-for ones */
	struct strbuf reason;	/* why it is not ok, whole, one line */
	struct diag why;	/* the failure record the body sent, if any:
				 * its kind, errno, place, message, detail */
	unsigned long long left_out[2];	/* of stdout, stderr (out_cap) */
	char *report;		/* what the body wrote to the report fd */
	size_t report_len;
};

/*
 * Fork (proc_run), drop privileges to job->runas (privdrop_apply; a
 * failure aborts the child before the body runs), chdir, run the body;
 * in the parent, collect the report, enforce the timeout (SIGKILL to the
 * child's whole process group) and a stop request (*stop set by a signal
 * handler: SIGTERM to the group, SIGKILL a second later); what is left
 * in its group when it exits is killed. Returns 0 when the child ran
 * (successfully or not: see res), -1 if it could not start.
 */
int child_run(const struct child_job *job, volatile sig_atomic_t *stop,
	      struct child_result *res);
/* The report, the reason and the record. */
void child_result_free(struct child_result *res);
/* Why res is not ok ("" when it is). */
const char *child_reason(const struct child_result *res);
/* Make res not ok, with this reason in place of any it had. */
void child_set_reason(struct child_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A body that runs a command through /bin/sh -c; arg is the command. */
int child_exec_body(void *arg);

#endif
