/* commit: f:group_sync and f:group_commit, a database's group commit. */
#ifndef FSPLAN_COMMIT_H
#define FSPLAN_COMMIT_H

#include <lua.h>

/*
 * f:group_sync([name]) on fd (named what in messages): wait until what
 * was written before is durable, one fdatasync serving every worker
 * waiting on the file (phase/groupsync.h); only the leaders' syncs are
 * ops, called name (default "group_sync"). Returns 2 (true, led) or 3
 * (nil, msg, errno).
 */
int commit_sync(lua_State *L, int fd, const char *what);

/*
 * f:group_commit(len, {size =, block =, write =, sync =}) on fd: append
 * a record of len bytes to the circular log of size bytes the phase
 * run's workers share in the file, and wait until it is written and
 * durable. A leader writes the whole group's records at once, in whole
 * blocks (default 512), and syncs; its writes and syncs are the ops
 * called write (default "group_write") and sync ("group_sync").
 * Returns 2 (true, the bytes this call wrote as leader, 0 when another's
 * turn covered it) or 3 (nil, msg, errno); misuse raises.
 */
int commit_log(lua_State *L, int fd, const char *what);

#endif
