/* privdrop: turn a forked root child into an unprivileged one, provably. */
#ifndef FSPLAN_PRIVDROP_H
#define FSPLAN_PRIVDROP_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util/diag.h"

/* The user phases run as, resolved once in the parent. */
struct runas {
	uid_t uid;
	gid_t gid;		/* the user's primary group */
	char name[64];
};

/*
 * Resolve a plan's runas (a user name, or a numeric uid that needs no
 * passwd entry; its gid is then the same number). uid 0, or a name that
 * maps to uid 0, is refused. Returns 0 or -1 with d filled (no position).
 */
int privdrop_resolve(const char *runas, struct runas *out, struct diag *d);

/* Whether runas, as the drop leaves it (no supplementary groups, no
 * capabilities), has the access `want` (R_OK, W_OK, X_OK, or'd) to st by
 * its mode bits, and whether it can search every directory on the way
 * to path (path itself included when it is a directory). */
int privdrop_may(const struct runas *who, const struct stat *st, int want);
int privdrop_can_reach(const struct runas *who, const char *path);

/*
 * In a forked child that is still single-threaded, drop every privilege
 * in the order of DESIGN.md section 3 and reliability.md: close every fd
 * above keep_fd (close_range) → drop the whole capability bounding set,
 * clear ambient caps → setgroups(0, NULL) → setresgid → PR_SET_KEEPCAPS 0
 * → setresuid → clear all capability sets → PR_SET_NO_NEW_PRIVS →
 * PR_SET_PDEATHSIG(SIGKILL); then verify: CapInh/CapPrm/CapEff/CapBnd/
 * CapAmb all zero and NoNewPrivs 1 in /proc/self/status, uid/gid/groups
 * as asked, setuid(0), setgid(0) and setgroups([0]) fail.
 * Returns 0, or -1 with the step that failed in d (its errno in d->err):
 * the caller must then _exit without running anything.
 */
int privdrop_apply(const struct runas *r, int keep_fd, struct diag *d);

#endif
