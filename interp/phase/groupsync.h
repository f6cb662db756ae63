/* groupsync: group commit: one fdatasync serves every worker waiting on it. */
#ifndef FSPLAN_GSYNC_H
#define FSPLAN_GSYNC_H

/*
 * Wait until everything written to fd's file before this call is
 * durable, sharing the work with the other threads of this process that
 * call it for the same file (by device and inode), as a database's
 * group commit does: while one caller's sync is in flight, the others
 * queue; the next leader's sync covers all of them. sync(ctx) is the
 * leader's sync. 1 if this caller ran it, 0 if another's covered it,
 * or -errno (fstat's, or the leader's sync's).
 */
int groupsync_wait(int fd, int (*sync)(void *ctx), void *ctx);

#endif
