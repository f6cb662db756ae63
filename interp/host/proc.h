/* proc: the one process runner, under child, fs and sysinfo. */
#ifndef FSPLAN_PROC_H
#define FSPLAN_PROC_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/diag.h"

/* For out_fd or err_fd: the child's stdout or stderr is the output pipe. */
#define PROC_PIPE (-2)

/*
 * What to run and how to watch it. Every fd field must be set (-1 means
 * none): a zero would be stdin. The child always starts in a process
 * group of its own, with stdin /dev/null, every signal at its default
 * and none blocked.
 */
struct proc_job {
	/*
	 * argv is exec'd (execvpe with env, or our environment when env is
	 * NULL; a bare name that is not on PATH is tried in /usr/sbin and
	 * /sbin too, where mkfs.* live). Without argv, body(arg) runs in
	 * the child and its return is the exit status.
	 */
	const char *const *argv;
	char *const *env;
	int (*body)(void *arg);
	void *arg;
	int out_fd, err_fd;	/* the child's stdout and stderr, or PROC_PIPE */
	int pipe_at;		/* the pipe also (or only) at this fd, or -1 */
	double timeout_s;	/* past it, SIGKILL to the child's group */
	/* When *stop is set (by a signal handler): SIGTERM to the group,
	 * SIGKILL a second later. May be NULL. */
	volatile sig_atomic_t *stop;
	void (*tick)(void *ctx);	/* every tick_s, or NULL */
	void *tick_ctx;
	/* The tick's period (0: a second), counted from the fork, or from
	 * *tick_from once that is set (clock_now's time, 0: not yet): a
	 * phase's timed start, so its ticks end its intervals. */
	double tick_s;
	const double *tick_from;
	pid_t *pid_out;		/* the child's pid, set after the fork; or
				 * NULL */
	/* What comes out of the pipe, as it comes: */
	int log_fd;		/* copied there, or -1 */
	char *last;		/* the last non-blank line kept here, or NULL */
	size_t last_len;
	size_t keep;		/* at most this much kept in the result */
	/* Past keep: read on and drop the rest (1), or stop reading (0),
	 * which leaves a writer blocked until the deadline: a runaway. */
	int drain;
	/* Called as output comes, with all that is kept so far (keep > 0):
	 * a caller that must act on a line the moment it arrives. With
	 * duplex, reply_fd is the parent's end of the pipe, where it may
	 * answer the child (which waits for it); else -1. */
	void (*seen)(void *ctx, const char *out, size_t len, int reply_fd);
	void *seen_ctx;
	/* The pipe is a socket pair: the child may read there too. */
	int duplex;
	/* Nonzero: out_fd and err_fd (files, when not PROC_PIPE) are
	 * filled by the parent from pipes of their own, each to at most
	 * out_cap bytes: its first half as it comes, and past out_cap the
	 * last half, written when the child is done after a line "[fsplan:
	 * N bytes left out here]" (a runaway's output must not fill the
	 * disk). 0: the child writes them itself. */
	size_t out_cap;
	/* Kill the child's whole group as soon as the child exits. */
	int kill_leftovers;
};

struct proc_result {
	int status;		/* as waitpid gives it */
	int exec_errno;		/* argv could not be exec'd (status 127) */
	int timed_out;		/* it was still running at the deadline */
	int interrupted;	/* stopped because *stop was set */
	double seconds;		/* fork to reaped exit, CLOCK_MONOTONIC */
	double user_s, sys_s;	/* CPU of the child and its waited-for ones */
	char *out;		/* what the pipe carried (up to keep), NUL-
				 * ended; NULL if nothing */
	size_t out_len;
	int out_cut;		/* more came than was kept */
	/* out_cap: the bytes of stdout and of stderr left out at the cut */
	unsigned long long left_out[2];
};

/*
 * Run job and wait for it. An exec failure reaches the output as
 * "cannot run NAME: reason" (and exec_errno). Returns 0 when the child
 * ran, however it ended (see res; free it with proc_result_free), or -1
 * if it could not be started.
 */
int proc_run(const struct proc_job *job, struct proc_result *res);
void proc_result_free(struct proc_result *res);

/* The exit status, or 128 + the signal that ended it. */
int proc_status(const struct proc_result *res);

/* Whether a command of len bytes is more than execve takes as one
 * argument (sh -c CMD): 1 with d saying so (a limit: E2BIG, not a
 * shell's complaint), else 0. */
int proc_arg_too_long(size_t len, struct diag *d);

/*
 * This process's environment with LC_ALL=C, so that a tool's words read
 * the same whatever the operator's locale (util-linux translates, the
 * e2fsprogs and xfsprogs too). The array is malloc'd (free it; its
 * strings are environ's); NULL out of memory.
 */
char **proc_env_c_locale(void);

#endif
