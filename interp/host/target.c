/* target: loop images that filesystems are made on, and their cleanup. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "host/target.h"
#include "util/file.h"

#define NOPOS		((struct pos){ 0, 0 })
#define LOOP_TRIES	8	/* GET_FREE races lost before giving up */

static void target_init(struct target_dev *t)
{
	t->path[0] = '\0';
	t->fd = -1;
	t->dio = 0;
	t->image[0] = '\0';
	t->lock_fd = -1;
	t->claim.fd = t->claim.disk_fd = -1;
}

void target_release(struct target_dev *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	/* Still mounted somewhere? Unlinking is right; autoclear frees the
	 * loop device at umount. */
	if (t->image[0])
		unlink(t->image);
	t->image[0] = '\0';
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	t->lock_fd = -1;
	devclaim_release(&t->claim);
	t->path[0] = '\0';
}

/* ---- loop images ---- */

/*
 * Attach img_fd to a free loop device with autoclear, and with direct
 * I/O when dio: the loop fd or -errno. Another process may configure the
 * device LOOP_CTL_GET_FREE named before we do (EBUSY): ask again.
 */
static int loop_attach(int img_fd, const char *image, int dio, char *path,
		       size_t len)
{
	struct loop_config cfg;
	int ctl, fd = -1, err = -EBUSY;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = img_fd;
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR |
			    (dio ? LO_FLAGS_DIRECT_IO : 0);
	/* What `losetup -a` shows when sysfs cannot name the file. */
	memcpy(cfg.info.lo_file_name, image,
	       strnlen(image, LO_NAME_SIZE - 1));
	for (int i = 0; i < LOOP_TRIES && err == -EBUSY; i++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (n < 0) {
			err = -errno;
			break;
		}
		snprintf(path, len, "/dev/loop%d", n);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			/* removed again between GET_FREE and open */
			err = errno == ENOENT ? -EBUSY : -errno;
			continue;
		}
		if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0) {
			err = 0;
			break;
		}
		err = -errno;
		close(fd);
		fd = -1;
	}
	close(ctl);
	if (err)
		path[0] = '\0';
	return err ? err : fd;
}

int target_loop_dio(const char *path)
{
	char sys[128], buf[8];
	const char *name = strrchr(path, '/');

	snprintf(sys, sizeof(sys), "/sys/block/%s/loop/dio",
		 name ? name + 1 : path);
	if (file_read_text(sys, buf, sizeof(buf)) <= 0)
		return -1;
	return buf[0] == '1' ? 1 : buf[0] == '0' ? 0 : -1;
}

/*
 * Our pid as the host sees it. Inside fsplan's PID namespace getpid() is
 * 1 for every run, so two runs sharing a workdir would pick the same
 * names; /proc is still the host's, and its "self" link says the truth.
 */
static int host_pid(void)
{
	char buf[32];
	ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);

	if (n <= 0)
		return (int)getpid();
	buf[n] = '\0';
	return atoi(buf);
}

int target_image_create(struct target_dev *t, const char *workdir,
			uint64_t bytes, int n, struct diag *d)
{
	char dir[PATH_MAX];
	struct stat st;
	int fd, err;

	target_init(t);
	if (!realpath(workdir, dir) || stat(dir, &st))
		return diag_set(d, NULL, NULL, NOPOS, "workdir %s: %s",
				workdir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return diag_set(d, NULL, NULL, NOPOS,
				"workdir %s is not a directory", workdir);
	if (bytes == 0 || bytes > (uint64_t)INT64_MAX)
		return diag_set(d, NULL, NULL, NOPOS,
				"image size %llu bytes is not usable",
				(unsigned long long)bytes);
	if ((size_t)snprintf(t->image, sizeof(t->image), "%s/fsplan-%d-%d.img",
			     dir, host_pid(), n) >= sizeof(t->image)) {
		t->image[0] = '\0';
		return diag_set(d, NULL, NULL, NOPOS,
				"workdir path %s is too long", dir);
	}
	/* One open file is both the lock and what the loop device reads. */
	fd = open(t->image, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = errno;
		diag_set(d, NULL, NULL, NOPOS, "cannot create image %s: %s",
			 t->image, strerror(err));
		t->image[0] = '\0';
		return -1;
	}
	t->lock_fd = fd;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		diag_set(d, NULL, NULL, NOPOS, "cannot lock image %s: %s",
			 t->image, strerror(errno));
		goto fail;
	}
	if (ftruncate(fd, (off_t)bytes)) {
		diag_set(d, NULL, NULL, NOPOS,
			 "cannot size image %s to %llu bytes: %s", t->image,
			 (unsigned long long)bytes, strerror(errno));
		goto fail;
	}
	/* Direct I/O keeps the host's page cache out of the measurement:
	 * buffered, the image's pages stay cached outside any memory
	 * cgroup of the phase, and a "2xRAM" file is read from RAM. A
	 * backing filesystem without O_DIRECT refuses it (EINVAL from
	 * ramfs here; older kernels fell back silently): then buffered,
	 * and t->dio says so; an error of its own, the second says. */
	err = loop_attach(fd, t->image, 1, t->path, sizeof(t->path));
	if (err < 0)
		err = loop_attach(fd, t->image, 0, t->path, sizeof(t->path));
	if (err < 0) {
		diag_set(d, NULL, NULL, NOPOS,
			 "cannot attach a loop device to %s: %s%s", t->image,
			 strerror(-err), err == -ENOENT ?
			 " (is the loop module loaded?)" : "");
		goto fail;
	}
	t->fd = err;
	t->dio = target_loop_dio(t->path) == 1;
	return 0;
fail:
	target_release(t);
	return -1;
}

int target_dir_free(const char *dir, uint64_t *avail, uint64_t *size)
{
	struct statvfs sv;

	if (statvfs(dir, &sv))
		return -errno;
	*avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	*size = (uint64_t)sv.f_blocks * sv.f_frsize;
	return 0;
}

uint64_t target_image_growth(const struct target_dev *t)
{
	struct stat st;
	uint64_t held;

	if (!t->image[0] || t->lock_fd < 0 || fstat(t->lock_fd, &st))
		return 0;
	held = (uint64_t)st.st_blocks * 512;
	return (uint64_t)st.st_size > held ? (uint64_t)st.st_size - held : 0;
}

/*
 * Whether pid is a live run's namespace init: an fsplan, not a zombie,
 * whose parent is an fsplan. After a SIGKILL of the run, its init is
 * first orphaned while the kernel kills the namespace, then a zombie:
 * dying, not live.
 */
static int live_run(int pid)
{
	char path[64], buf[512];
	const char *p;
	int ppid;
	char state;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (file_read_text(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');	/* the name may hold anything */
	if (!p || !strstr(buf, "(fsplan)") ||
	    sscanf(p + 1, " %c %d", &state, &ppid) != 2 ||
	    state == 'Z' || state == 'X')
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", ppid);
	return file_read_text(path, buf, sizeof(buf)) > 0 &&
	       !strcmp(buf, "fsplan\n");
}

/*
 * The lock of an image whose run is dead frees within moments: after a
 * SIGKILL the kernel still tears down the dead run's namespace (its
 * processes, its mounts, then the autoclear loop device that holds the
 * file). Wait for that, up to STALE_WAIT_S; an image of a live run is
 * left at once.
 */
#define STALE_WAIT_S	10

static int lock_stale(int fd, const char *name)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int pid = 0;

	if (sscanf(name, "fsplan-%d-", &pid) != 1)
		pid = 0;
	for (int i = 0; i < STALE_WAIT_S * 50; i++) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return 0;
		if (errno != EWOULDBLOCK || (pid > 0 && live_run(pid)))
			return -1;
		nanosleep(&ts, NULL);
	}
	return -1;
}

/*
 * Only files nobody holds a flock on are removed. The loop device shares
 * the open file of its creator, so an image still attached (mounted in a
 * namespace that outlived us) stays locked and is kept.
 */
int target_clean_stale(const char *workdir)
{
	struct dirent *de;
	struct stat st, now;
	int count = 0;
	DIR *dir;

	dir = opendir(workdir);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dir))) {
		int fd;

		if (fnmatch("fsplan-[0-9]*-[0-9]*.img", de->d_name, 0))
			continue;
		fd = openat(dirfd(dir), de->d_name, O_RDONLY | O_NOFOLLOW |
			    O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* The name must still be the file we locked when we unlink. */
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
		    !lock_stale(fd, de->d_name) &&
		    !fstatat(dirfd(dir), de->d_name, &now,
			     AT_SYMLINK_NOFOLLOW) &&
		    now.st_dev == st.st_dev && now.st_ino == st.st_ino &&
		    !unlinkat(dirfd(dir), de->d_name, 0))
			count++;
		close(fd);
	}
	closedir(dir);
	return count;
}
