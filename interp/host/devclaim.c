/* devclaim: a run's claim on its target.device, honoured by every fsplan. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "host/devclaim.h"
#include "util/lockfile.h"

/* How long a claim whose holder is gone is waited for. */
#define CLAIM_WAIT_S	10

int devclaim_runtime_dir(struct diag *d)
{
	struct stat st;

	if ((mkdir(FSPLAN_RUNTIME_DIR, 0755) && errno != EEXIST) ||
	    lstat(FSPLAN_RUNTIME_DIR, &st))
		return diag_fail(d, DIAG_SYSTEM, errno, "cannot make %s",
				 FSPLAN_RUNTIME_DIR);
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022))
		return diag_fail(d, DIAG_REFUSED, 0, "%s is not a directory "
				 "that only root can write",
				 FSPLAN_RUNTIME_DIR);
	return 0;
}

/* Who holds a claim, from its lock file, as the refusal in d: "fsplan
 * run R (pid N)". */
static void claimant(int fd, struct diag *d)
{
	char run[PATH_MAX];
	pid_t pid = lockfile_holder(fd, run, sizeof(run));

	if (pid <= 0 || !*run)
		diag_fail(d, DIAG_REFUSED, 0, "another fsplan run (it has not "
			  "said which yet)");
	else
		diag_fail(d, DIAG_REFUSED, 0, "fsplan run %s (pid %d)", run,
			  (int)pid);
}

/* The lock file of dev, open: its fd, or -1 with d. */
static int lock_file(dev_t dev, struct diag *d)
{
	char path[128];
	struct stat st;
	int fd;

	if (devclaim_runtime_dir(d))
		return -1;
	snprintf(path, sizeof(path), "%s/dev-%u:%u.lock", FSPLAN_RUNTIME_DIR,
		 major(dev), minor(dev));
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    st.st_uid == 0)
		return fd;
	if (fd < 0)
		return diag_fail(d, DIAG_SYSTEM, errno, "%s", path);
	close(fd);
	return diag_fail(d, DIAG_REFUSED, 0, "%s: not a file of root's", path);
}

/*
 * The lock of dev taken (op: LOCK_EX or LOCK_SH), its fd; -1 and d with
 * rc 1 when another run holds it, -1 with rc -1 when it cannot be taken.
 */
static int lock(dev_t dev, int op, struct diag *d, int *rc)
{
	int fd = lock_file(dev, d), taken;
	pid_t pid;

	*rc = -1;
	if (fd < 0)
		return -1;
	taken = lockfile_take(fd, op, CLAIM_WAIT_S, &pid);
	if (taken == LOCKFILE_TAKEN) {
		*rc = 0;
		return fd;
	}
	if (taken < 0) {
		diag_fail(d, DIAG_SYSTEM, -taken, "cannot lock its claim");
	} else {
		*rc = 1;
		claimant(fd, d);
	}
	close(fd);
	return -1;
}

/* The claimant's words in a lock file: 0, or -1 with d. */
static int say(int fd, const char *rundir, pid_t pid, struct diag *d)
{
	int rc = lockfile_say(fd, pid, rundir);

	if (rc)
		return diag_fail(d, DIAG_SYSTEM, -rc, "cannot write its claim");
	return 0;
}

int devclaim_take(struct devclaim *c, dev_t dev, dev_t disk,
		  const char *rundir, pid_t pid, struct diag *d)
{
	int rc = 0;

	c->fd = c->disk_fd = -1;
	if (disk != dev && (c->disk_fd = lock(disk, LOCK_SH, d, &rc)) < 0)
		return rc;
	c->fd = lock(dev, LOCK_EX, d, &rc);
	/* a partition's run says so on its disk's file too: whoever
	 * claims the disk learns who holds it (the latest of them) */
	if (c->fd < 0 || say(c->fd, rundir, pid, d) ||
	    (c->disk_fd >= 0 && say(c->disk_fd, rundir, pid, d))) {
		devclaim_release(c);
		return rc ? rc : -1;
	}
	return 0;
}

void devclaim_release(struct devclaim *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->disk_fd >= 0)
		close(c->disk_fd);
	c->fd = c->disk_fd = -1;
}
