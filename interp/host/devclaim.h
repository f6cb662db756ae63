/* devclaim: a run's claim on its target.device, honoured by every fsplan. */
#ifndef FSPLAN_DEVCLAIM_H
#define FSPLAN_DEVCLAIM_H

#include <sys/types.h>

#include "util/diag.h"

/* fsplan's runtime directory: on the host, the claims on devices; in a
 * run's namespace, a tmpfs of its own with the mount points. */
#define FSPLAN_RUNTIME_DIR "/run/fsplan"

/* FSPLAN_RUNTIME_DIR made when missing (0755, kept like /run/lock) and
 * checked to be a directory that only root can write: 0, or -1 with d. */
int devclaim_runtime_dir(struct diag *d);

/* The lock files a claim holds; -1 for none. */
struct devclaim {
	int fd;		/* the device's own: exclusive */
	int disk_fd;	/* a partition's disk's: shared */
};

/*
 * Claim the block device dev for the run in rundir, as pid: an
 * exclusive flock on FSPLAN_RUNTIME_DIR/dev-MAJ:MIN.lock, which is keyed
 * by the device's number (every path to it meets the same lock) and then
 * names the run directory and pid. A partition (disk, its disk's number,
 * differs from dev) also takes a shared flock on its disk's file: a run
 * on the whole disk and a run on one of its partitions exclude each
 * other; runs on sibling partitions do not. A claim whose holder's pid
 * is gone is waited for a few seconds (a killed run's namespace is still
 * going). 0; 1 when another run holds it (who in d, a refusal: "fsplan
 * run R (pid N)"); -1 when it cannot be claimed (d says so). The fds are
 * O_CLOEXEC: forked children share the claim, mkfs and mount do not; it
 * goes with the last process that has them, SIGKILL included.
 */
int devclaim_take(struct devclaim *c, dev_t dev, dev_t disk,
		  const char *rundir, pid_t pid, struct diag *d);
void devclaim_release(struct devclaim *c);

#endif
