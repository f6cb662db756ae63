/* groupsync: group commit: one fdatasync serves every worker waiting on it. */
#ifndef FSPLAN_GSYNC_H
#define FSPLAN_GSYNC_H

#include <stdint.h>

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

/*
 * The same for a log the callers share, as InnoDB's redo log: this
 * caller appends len bytes at the log's head (a position counted in
 * bytes from the first append to fd's file) and waits until they are
 * written and durable. A leader writes and syncs all that was appended
 * since the last leader's turn: lead(ctx, from, upto), the positions
 * [from, upto). 1 if this caller led, 0 if another's turn covered it,
 * or -errno (fstat's, lead's, or -EMFILE past 16 files).
 */
int groupsync_commit(int fd, uint64_t len, int (*lead)(void *ctx,
		     uint64_t from, uint64_t upto), void *ctx);

#endif
