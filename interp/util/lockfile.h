/* lockfile: an flock on a file that says who holds it — how a run claims its
 * device and its run directory. */
#ifndef FSPLAN_UTIL_LOCKFILE_H
#define FSPLAN_UTIL_LOCKFILE_H

#include <sys/types.h>

enum lockfile_taken {
	LOCKFILE_TAKEN,		/* it is ours */
	LOCKFILE_HELD,		/* another process holds it */
	LOCKFILE_LEFT,		/* held, though its holder's pid is gone */
};

/*
 * Take fd's flock (op: LOCK_EX or LOCK_SH) without blocking: a
 * lockfile_taken, its holder's pid in *holder (0 when the file does not
 * say yet), or -errno. A killed run's lock goes with the last process
 * of its namespace, a moment after its own pid: a holder whose pid is
 * gone is waited for, wait_s seconds at most (then LOCKFILE_LEFT).
 */
int lockfile_take(int fd, int op, int wait_s, pid_t *holder);

/* Say who holds it: "pid\ntext\n" in place of what was there. 0, or
 * -errno. */
int lockfile_say(int fd, pid_t pid, const char *text);

/* The holder's pid and its text (its second line, "" when none, into
 * text unless NULL), or 0 when the file does not say yet (the holder
 * writes it just after it takes the lock: waited for, a little). */
pid_t lockfile_holder(int fd, char *text, size_t len);

#endif
