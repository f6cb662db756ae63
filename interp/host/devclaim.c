/* devclaim: a run's claim on its target.device, which every fsplan honours, from the guard to the run's last process. */
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

int devclaim_runtime_dir(char *why, size_t len)
{
	struct stat st;

	if ((mkdir(FSPLAN_RUNTIME_DIR, 0755) && errno != EEXIST) ||
	    lstat(FSPLAN_RUNTIME_DIR, &st)) {
		snprintf(why, len, "cannot make %s: %s", FSPLAN_RUNTIME_DIR,
			 strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) {
		snprintf(why, len, "%s is not a directory that only root can "
			 "write", FSPLAN_RUNTIME_DIR);
		return -1;
	}
	return 0;
}

/* Who holds a claim, from its lock file: "fsplan run R (pid N)". */
static void claimant(int fd, char *who, size_t len)
{
	char run[PATH_MAX];
	pid_t pid = lockfile_holder(fd, run, sizeof(run));

	if (pid <= 0 || !*run)
		snprintf(who, len, "another fsplan run (it has not said which "
			 "yet)");
	else
		snprintf(who, len, "fsplan run %s (pid %d)", run, (int)pid);
}

/* The lock file of dev, open: its fd, or -1 with why. */
static int lock_file(dev_t dev, char *why, size_t len)
{
	char path[128];
	struct stat st;
	int fd;

	if (devclaim_runtime_dir(why, len))
		return -1;
	snprintf(path, sizeof(path), "%s/dev-%u:%u.lock", FSPLAN_RUNTIME_DIR,
		 major(dev), minor(dev));
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    st.st_uid == 0)
		return fd;
	snprintf(why, len, "%s: %s", path, fd < 0 ? strerror(errno) :
		 "not a file of root's");
	if (fd >= 0)
		close(fd);
	return -1;
}

/*
 * The lock of dev taken (op: LOCK_EX or LOCK_SH), its fd; -1 and why
 * with rc 1 when another run holds it, -1 with rc -1 when it cannot be
 * taken.
 */
static int lock(dev_t dev, int op, char *why, size_t len, int *rc)
{
	int fd = lock_file(dev, why, len), taken;
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
		snprintf(why, len, "cannot lock its claim: %s",
			 strerror(-taken));
	} else {
		*rc = 1;
		claimant(fd, why, len);
	}
	close(fd);
	return -1;
}

/* The claimant's words in a lock file: 0, or -1 with why. */
static int say(int fd, const char *rundir, pid_t pid, char *why, size_t len)
{
	int rc = lockfile_say(fd, pid, rundir);

	if (rc)
		snprintf(why, len, "cannot write its claim: %s",
			 strerror(-rc));
	return rc ? -1 : 0;
}

int devclaim_take(struct devclaim *c, dev_t dev, dev_t disk,
		  const char *rundir, pid_t pid, char *why, size_t len)
{
	int rc = 0;

	c->fd = c->disk_fd = -1;
	if (disk != dev && (c->disk_fd = lock(disk, LOCK_SH, why, len,
					      &rc)) < 0)
		return rc;
	c->fd = lock(dev, LOCK_EX, why, len, &rc);
	/* a partition's run says so on its disk's file too: whoever
	 * claims the disk learns who holds it (the latest of them) */
	if (c->fd < 0 || say(c->fd, rundir, pid, why, len) ||
	    (c->disk_fd >= 0 && say(c->disk_fd, rundir, pid, why, len))) {
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
