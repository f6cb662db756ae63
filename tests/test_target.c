/* test_target: loop images, stale cleanup and the device guards, as root. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/blkpg.h>
#include <limits.h>
#include <linux/loop.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/target.h"

#define MIB (UINT64_C(1) << 20)

/*
 * What a test made, undone by teardown whatever the test did. Each test
 * runs in its own process, in a private mount namespace (setup), so even
 * a crash cannot leave a mount behind, and every loop device is autoclear.
 */
static char dir[PATH_MAX];		/* the test's temp dir, or "" */
static char mnt[PATH_MAX + 8];		/* mounted here, or "" */
static struct target_dev tds[2];
static int ro_fd = -1;			/* holds the losetup -r device */
static char ro_dev[64];			/* ... and its name until autoclear */
static pid_t holder = -1;		/* child holding a flock */
static int private_ns;

static void setup(void)
{
	for (int i = 0; i < 2; i++) {
		tds[i].fd = tds[i].lock_fd = -1;
		tds[i].claim.fd = tds[i].claim.disk_fd = -1;
		tds[i].path[0] = tds[i].image[0] = '\0';
	}
	if (geteuid() != 0)
		return;
	if (!unshare(CLONE_NEWNS) &&
	    !mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		private_ns = 1;
	snprintf(dir, sizeof(dir), "%s/fsplan-test-target.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		dir[0] = '\0';
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void teardown(void)
{
	if (mnt[0] && umount2(mnt, 0))
		umount2(mnt, MNT_DETACH);
	mnt[0] = '\0';
	if (holder > 0) {
		kill(holder, SIGKILL);
		waitpid(holder, NULL, 0);
		holder = -1;
	}
	for (int i = 0; i < 2; i++)
		target_release(&tds[i]);
	if (ro_fd >= 0)
		close(ro_fd);
	/* attached by losetup but autoclear never set: detach by hand */
	if (ro_dev[0]) {
		int fd = open(ro_dev, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			ioctl(fd, LOOP_CLR_FD, 0);
			close(fd);
		}
	}
	/* FTW_MOUNT: never reach into a mount that refused to go away */
	if (dir[0])
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

TestSuite(target, .init = setup, .fini = teardown, .timeout = 60);

static void need_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root: loop devices, mounts, mkfs");
	cr_assert(dir[0], "cannot make a temp dir: %s", strerror(errno));
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void need_tool(const char *tool)
{
	if (sh("command -v %s >/dev/null 2>&1", tool))
		cr_skip_test("%s is not installed", tool);
}

static void image(int i)
{
	struct diag d = { 0 };

	cr_assert_eq(target_image_create(&tds[i], dir, 64 * MIB, i, &d), 0,
		     "target_image_create: %s", d.msg);
}

/* FNV-1a of the first MiB: "the device was not touched". */
static uint64_t sum_mib(const char *dev)
{
	static unsigned char buf[1 << 20];
	uint64_t h = 1469598103934665603ULL;
	ssize_t n;
	int fd;

	fd = open(dev, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "open %s: %s", dev, strerror(errno));
	n = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	cr_assert_eq(n, (ssize_t)sizeof(buf), "read %s", dev);
	for (size_t i = 0; i < sizeof(buf); i++)
		h = (h ^ buf[i]) * 1099511628211ULL;
	return h;
}

/* Try the device and expect a refusal whose message holds `want`. */
static void expect_refusal(const char *dev, const char *destroy, int wipe,
			   const char *workdir, const char *want)
{
	struct target_dev t;
	struct diag d = { 0 };
	json_t *id = (json_t *)1;
	int rc;

	rc = target_device_open(&t, dev, destroy, wipe, NULL, dir, workdir,
				&id, &d);
	if (rc == 0) {
		json_decref(id);
		target_release(&t);
		cr_assert_fail("%s accepted; expected '%s'", dev, want);
	}
	cr_assert_eq(d.kind, DIAG_REFUSED, "not a refusal: %s", d.msg);
	cr_assert_null(id);
	cr_assert_eq(t.fd, -1);
	cr_assert(strstr(d.msg, want), "message '%s' lacks '%s'", d.msg, want);
}

static int wait_path(const char *path, int exist, int ms)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < ms / 10; i++) {
		if ((access(path, F_OK) == 0) == exist)
			return 1;
		nanosleep(&ts, NULL);
	}
	return (access(path, F_OK) == 0) == exist;
}

/* Does `losetup -a` list dev with backing file img? */
static int losetup_shows(const char *dev, const char *img)
{
	char line[8192], head[80];
	int found = 0;
	FILE *p;

	p = popen("losetup -a", "r");
	cr_assert_not_null(p);
	snprintf(head, sizeof(head), "%s:", dev);
	while (fgets(line, sizeof(line), p))
		if (!strncmp(line, head, strlen(head)) && strstr(line, img))
			found = 1;
	pclose(p);
	return found;
}

static void sys_loop(const char *dev, const char *attr, char *out, size_t len)
{
	snprintf(out, len, "/sys/block/%s/loop/%s", strrchr(dev, '/') + 1,
		 attr);
}

/* The first byte of the loop device's sysfs attribute attr. */
static char loop_flag(const char *dev, const char *attr)
{
	char path[128], c = 0;
	int fd;

	sys_loop(dev, attr, path, sizeof(path));
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(read(fd, &c, 1), 1);
	close(fd);
	return c;
}

static void mount_ro(const char *dev)
{
	if (!private_ns)
		cr_skip_test("no private mount namespace: will not mount");
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	cr_assert_eq(mkdir(mnt, 0700), 0);
	/* read-only: nothing the kernel writes can change the checksum */
	if (mount(dev, mnt, "ext4", MS_RDONLY, NULL)) {
		int err = errno;

		rmdir(mnt);
		mnt[0] = '\0';
		cr_assert_fail("mount %s: %s", dev, strerror(err));
	}
}

static void mkfs_ext4(const char *dev)
{
	need_tool("mkfs.ext4");
	cr_assert_eq(sh("mkfs.ext4 -q -F %s >/dev/null 2>&1", dev), 0,
		     "mkfs.ext4 %s failed", dev);
}

/* ---- loop images ---- */

Test(target, image_create)
{
	char img[4096], bf[128], name[64];
	struct stat st;

	need_root();
	image(0);
	cr_assert(!strncmp(tds[0].path, "/dev/loop", 9), "%s", tds[0].path);
	cr_assert_geq(tds[0].fd, 0);
	snprintf(name, sizeof(name), "/fsplan-%d-0.img", (int)getpid());
	cr_assert(strstr(tds[0].image, name), "%s", tds[0].image);
	cr_assert(losetup_shows(tds[0].path, tds[0].image),
		  "losetup -a does not show %s on %s", tds[0].image,
		  tds[0].path);
	cr_assert_eq(loop_flag(tds[0].path, "autoclear"), '1',
		     "autoclear is not set");
	/* direct I/O: the host's page cache keeps none of the image */
	cr_assert_eq(loop_flag(tds[0].path, "dio"), '1',
		     "the loop device is not direct I/O");
	cr_expect_eq(tds[0].dio, 1);
	cr_expect_eq(target_loop_dio(tds[0].path), 1);
	cr_expect_eq(target_loop_dio("/dev/null"), -1);
	cr_assert_eq(stat(tds[0].image, &st), 0);
	cr_assert_eq(st.st_size, (off_t)(64 * MIB));
	cr_assert_lt(st.st_blocks * 512, (blkcnt_t)MIB, "image is not sparse");

	snprintf(img, sizeof(img), "%s", tds[0].image);
	sys_loop(tds[0].path, "backing_file", bf, sizeof(bf));
	cr_assert_eq(access(bf, F_OK), 0);
	target_release(&tds[0]);
	cr_assert_eq(tds[0].fd, -1);
	cr_assert_eq(tds[0].lock_fd, -1);
	cr_assert(wait_path(bf, 0, 2000), "loop device still bound after 2 s");
	cr_assert(access(img, F_OK) && errno == ENOENT, "image %s left", img);
	target_release(&tds[0]);	/* idempotent */
}

/* A workdir on a filesystem without O_DIRECT (ramfs): the kernel
 * refuses a direct-I/O loop device (EINVAL), and the image is attached
 * buffered, which t->dio says. */
Test(target, image_on_a_filesystem_without_direct_io)
{
	struct diag d = { 0 };

	need_root();
	if (!private_ns)
		cr_skip_test("no private mount namespace: will not mount");
	snprintf(mnt, sizeof(mnt), "%s/ram", dir);
	cr_assert_eq(mkdir(mnt, 0700), 0);
	if (mount("none", mnt, "ramfs", 0, "mode=0700")) {
		int err = errno;

		mnt[0] = '\0';
		cr_skip_test("cannot mount a ramfs: %s", strerror(err));
	}
	cr_assert_eq(target_image_create(&tds[0], mnt, 64 * MIB, 0, &d), 0,
		     "target_image_create: %s", d.msg);
	cr_expect_eq(tds[0].dio, 0);
	cr_expect_eq(loop_flag(tds[0].path, "dio"), '0');
	cr_expect_eq(target_loop_dio(tds[0].path), 0);
	target_release(&tds[0]);
}

Test(target, image_create_bad_workdir)
{
	struct target_dev t;
	struct diag d = { 0 };

	cr_assert_eq(target_image_create(&t, "/nonexistent/fsplan-x", MIB, 0,
					 &d), -1);
	cr_assert(strstr(d.msg, "/nonexistent/fsplan-x"), "%s", d.msg);
	cr_assert_eq(t.fd, -1);
	cr_assert_eq(t.lock_fd, -1);
	cr_assert_str_empty(t.image);
}

Test(target, two_images)
{
	need_root();
	image(0);
	image(1);
	cr_assert_str_neq(tds[0].path, tds[1].path);
	cr_assert_str_neq(tds[0].image, tds[1].image);
	cr_assert(losetup_shows(tds[0].path, tds[0].image));
	cr_assert(losetup_shows(tds[1].path, tds[1].image));
}

static void touch(const char *name)
{
	char p[PATH_MAX + 64];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0, "%s: %s", p, strerror(errno));
	cr_assert_eq(write(fd, "x", 1), 1);
	close(fd);
}

static int present(const char *name)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

Test(target, stale_cleanup)
{
	char p[PATH_MAX + 64], c;
	int pfd[2];

	need_root();
	touch("fsplan-999999-0.img");
	touch("fsplan-999999-1.img");
	touch("other.img");
	touch("fsplan-notes.txt");
	snprintf(p, sizeof(p), "%s/fsplan-999999-1.img", dir);
	cr_assert_eq(pipe(pfd), 0);
	holder = fork();
	cr_assert_geq(holder, 0);
	if (holder == 0) {
		int fd = open(p, O_RDONLY);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd < 0 || flock(fd, LOCK_EX))
			_exit(1);
		if (write(pfd[1], "l", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	cr_assert_eq(read(pfd[0], &c, 1), 1, "lock holder died");
	close(pfd[0]);
	image(0);		/* a live image of this process */

	cr_assert_eq(target_clean_stale(dir), 1);
	cr_assert_not(present("fsplan-999999-0.img"));
	cr_assert(present("fsplan-999999-1.img"), "a locked image was removed");
	cr_assert(present("other.img"));
	cr_assert(present("fsplan-notes.txt"));
	cr_assert_eq(access(tds[0].image, F_OK), 0, "a live image was removed");

	/* the owner is gone: its lock with it, the next run removes it */
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	holder = -1;
	cr_assert_eq(target_clean_stale(dir), 1);
	cr_assert_not(present("fsplan-999999-1.img"));
	cr_assert_eq(target_clean_stale("/nonexistent/fsplan-x"), 0);
}

/* ---- device refusals ---- */

Test(target, refuse_without_destroy)
{
	uint64_t sum;

	need_root();
	image(0);
	sum = sum_mib(tds[0].path);
	expect_refusal(tds[0].path, NULL, 1, dir,
		       "needs --destroy DEVICE naming the same device");
	cr_assert_eq(sum_mib(tds[0].path), sum);
}

Test(target, refuse_other_device)
{
	char file[PATH_MAX + 16];
	uint64_t sum;

	need_root();
	image(0);
	image(1);
	sum = sum_mib(tds[0].path);
	expect_refusal(tds[0].path, tds[1].path, 1, dir,
		       "not the same device");
	cr_assert_eq(sum_mib(tds[0].path), sum);
	/* a plain file is no block device, even named twice */
	snprintf(file, sizeof(file), "%s/file", dir);
	touch("file");
	expect_refusal(file, file, 1, dir, "not a block device");
}

Test(target, refuse_mounted)
{
	uint64_t sum;

	need_root();
	image(0);
	mkfs_ext4(tds[0].path);
	mount_ro(tds[0].path);
	sum = sum_mib(tds[0].path);
	expect_refusal(tds[0].path, tds[0].path, 1, dir, "mounted at");
	expect_refusal(tds[0].path, tds[0].path, 1, dir, mnt);
	/* the backing check names the workdir before anything else */
	expect_refusal(tds[0].path, tds[0].path, 1, mnt, "backs the workdir");
	cr_assert_eq(sum_mib(tds[0].path), sum);
}

Test(target, refuse_signature_unless_wipe)
{
	struct target_dev t;
	struct diag d = { 0 };
	json_t *id = NULL;
	uint64_t sum;

	need_root();
	image(0);
	mkfs_ext4(tds[0].path);
	sum = sum_mib(tds[0].path);
	expect_refusal(tds[0].path, tds[0].path, 0, dir,
		       "carries an existing ext4 filesystem; set wipe: true "
		       "for it in the plan to allow");
	cr_assert_eq(sum_mib(tds[0].path), sum);
	cr_assert_eq(target_device_open(&t, tds[0].path, tds[0].path, 1, NULL,
					dir, dir, &id, &d), 0,
		     "wipe: true still refused: %s", d.msg);
	cr_assert_not_null(id);
	json_decref(id);
	target_release(&t);
	cr_assert_eq(sum_mib(tds[0].path), sum);
}

static void write_mbr2(int fd, uint32_t start, uint32_t count,
		       uint32_t start2, uint32_t count2);

static void write_mbr(int fd, uint32_t start, uint32_t count)
{
	write_mbr2(fd, start, count, 0, 0);
}

/* An MBR with one or two Linux partitions (count2 0: one). */
static void write_mbr2(int fd, uint32_t start, uint32_t count,
		       uint32_t start2, uint32_t count2)
{
	unsigned char mbr[512] = { 0 }, *e = mbr + 446;

	if (count2) {
		unsigned char *e2 = mbr + 446 + 16;

		e2[4] = 0x83;
		for (int i = 0; i < 4; i++) {
			e2[8 + i] = (unsigned char)(start2 >> (8 * i));
			e2[12 + i] = (unsigned char)(count2 >> (8 * i));
		}
	}

	e[4] = 0x83;		/* Linux; CHS fields unused by Linux */
	for (int i = 0; i < 4; i++) {
		e[8 + i] = (unsigned char)(start >> (8 * i));
		e[12 + i] = (unsigned char)(count >> (8 * i));
	}
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	cr_assert_eq(pwrite(fd, mbr, sizeof(mbr), 0), (ssize_t)sizeof(mbr));
	cr_assert_eq(fsync(fd), 0);
}

/* Like losetup -P: partitions show, and go when the device detaches. */
static void loop_add_flags(int fd, uint32_t flags)
{
	struct loop_info64 info;

	cr_assert_eq(ioctl(fd, LOOP_GET_STATUS64, &info), 0, "%s",
		     strerror(errno));
	info.lo_flags |= flags;
	cr_assert_eq(ioctl(fd, LOOP_SET_STATUS64, &info), 0, "%s",
		     strerror(errno));
}

/*
 * What partx -a does: tell the kernel about a partition itself, for
 * kernels built without the msdos parser (this VM's is one).
 */
static void add_partition_n(int fd, int pno, long long start, long long len)
{
	struct blkpg_partition part = {
		.start = start, .length = len, .pno = pno,
	};
	struct blkpg_ioctl_arg arg = {
		.op = BLKPG_ADD_PARTITION, .datalen = sizeof(part),
		.data = &part,
	};

	cr_assert_eq(ioctl(fd, BLKPG, &arg), 0, "BLKPG_ADD_PARTITION: %s",
		     strerror(errno));
}

static void add_partition(int fd, long long start, long long len)
{
	add_partition_n(fd, 1, start, len);
}

/*
 * DESIGN.md section 6, decided: a partition whose sibling is mounted is
 * allowed (held exclusively, as a scratch partition on the system disk
 * is), and the manifest's identity says what the sibling was doing; the
 * whole disk with a partition in use stays refused
 * (refuse_mounted_partition).
 */
Test(target, partition_with_a_mounted_sibling_is_allowed)
{
	char p1[sizeof(tds[0].path) + 4], p2[sizeof(tds[0].path) + 4];
	struct target_dev t;
	struct diag d = { 0 };
	json_t *id = NULL, *sib;
	uint64_t half = 32 * MIB / 512;

	need_root();
	image(0);
	write_mbr2(tds[0].fd, 2048, (uint32_t)(half - 2048), (uint32_t)half,
		   (uint32_t)half);
	loop_add_flags(tds[0].fd, LO_FLAGS_PARTSCAN);
	snprintf(p1, sizeof(p1), "%sp1", tds[0].path);
	snprintf(p2, sizeof(p2), "%sp2", tds[0].path);
	if (!wait_path(p2, 1, 300)) {
		if (!wait_path(p1, 1, 10))
			add_partition_n(tds[0].fd, 1, 2048 * 512LL,
					(long long)(half - 2048) * 512);
		add_partition_n(tds[0].fd, 2, (long long)half * 512,
				(long long)half * 512);
	}
	cr_assert(wait_path(p2, 1, 2000), "%s did not appear", p2);
	mkfs_ext4(p1);
	mount_ro(p1);
	cr_assert_eq(target_device_open(&t, p2, p2, 0, NULL, dir, dir, &id,
					&d), 0,
		     "a partition beside a mounted one was refused: %s",
		     d.msg);
	sib = json_array_get(json_object_get(id, "siblings"), 0);
	cr_assert_not_null(sib, "the identity has no siblings");
	cr_expect_str_eq(json_string_value(json_object_get(sib, "name")),
			 strrchr(p1, '/') + 1);
	cr_expect(strstr(json_string_value(json_object_get(sib, "state")),
			 "mounted at"), "%s",
		  json_string_value(json_object_get(sib, "state")));
	json_decref(id);
	target_release(&t);
	/* and the disk itself, with p1 mounted, is refused */
	expect_refusal(tds[0].path, tds[0].path, 1, dir, "is mounted at");
}

Test(target, refuse_mounted_partition)
{
	char part[sizeof(tds[0].path) + 4];
	uint64_t sum;

	need_root();
	image(0);
	write_mbr(tds[0].fd, 2048, (uint32_t)(64 * MIB / 512) - 2048);
	loop_add_flags(tds[0].fd, LO_FLAGS_PARTSCAN);
	snprintf(part, sizeof(part), "%sp1", tds[0].path);
	if (!wait_path(part, 1, 300))
		add_partition(tds[0].fd, 2048 * 512LL, 64 * MIB - 2048 * 512LL);
	cr_assert(wait_path(part, 1, 2000), "%s did not appear", part);
	mkfs_ext4(part);
	mount_ro(part);
	sum = sum_mib(tds[0].path);
	/* wipe: true does not override a partition in use */
	expect_refusal(tds[0].path, tds[0].path, 1, dir, "partition");
	expect_refusal(tds[0].path, tds[0].path, 1, dir, "is mounted at");
	cr_assert_eq(sum_mib(tds[0].path), sum);
}

Test(target, refuse_read_only)
{
	char img[PATH_MAX + 16], cmd[PATH_MAX + 64], line[64], ro[128];
	uint64_t sum;
	FILE *p;
	int fd;

	need_root();
	need_tool("losetup");
	snprintf(img, sizeof(img), "%s/ro.img", dir);
	fd = open(img, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 16 * MIB), 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "losetup -r -f --show '%s'", img);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	cr_assert(!strncmp(line, "/dev/loop", 9), "losetup -r gave '%s'", line);
	snprintf(ro_dev, sizeof(ro_dev), "%s", line);
	/* hold it and make it autoclear: gone when this process is */
	ro_fd = open(ro_dev, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(ro_fd, 0);
	loop_add_flags(ro_fd, LO_FLAGS_AUTOCLEAR);
	ro_dev[0] = '\0';
	snprintf(ro, sizeof(ro), "/sys/block/%s/ro", line + 5);
	fd = open(ro, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(read(fd, ro, 1), 1);
	close(fd);
	cr_assert_eq(ro[0], '1', "losetup -r did not make %s read-only", line);
	sum = sum_mib(line);
	expect_refusal(line, line, 1, dir, "read-only");
	cr_assert_eq(sum_mib(line), sum);
}

Test(target, refuse_root_device)
{
	char link[64], real[PATH_MAX], node[PATH_MAX + 8], ev[4096];
	struct stat st, ns;
	int ifd;

	need_root();
	cr_assert_eq(stat("/", &st), 0);
	if (!major(st.st_dev))
		cr_skip_test("/ is not on a block device here");
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev),
		 minor(st.st_dev));
	if (!realpath(link, real))
		cr_skip_test("/ is on %s, not in sysfs", link);
	snprintf(node, sizeof(node), "/dev/%s", strrchr(real, '/') + 1);
	if (stat(node, &ns) || !S_ISBLK(ns.st_mode) || ns.st_rdev != st.st_dev)
		cr_skip_test("no device node %s for /", node);
	/* no write-open of the node may happen at all */
	ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	cr_assert_geq(ifd, 0);
	cr_assert_geq(inotify_add_watch(ifd, node, IN_CLOSE_WRITE | IN_MODIFY),
		      0);
	/* Had the O_EXCL open come first, the refusal would say "in use". */
	expect_refusal(node, node, 1, dir, "backs /");
	cr_assert_eq(read(ifd, ev, sizeof(ev)), -1,
		     "%s was opened for writing", node);
	close(ifd);
}

/* ---- identity ---- */

Test(target, identity_of_accepted_device)
{
	struct target_dev t;
	struct diag d = { 0 };
	char alias[PATH_MAX + 16];
	json_t *id = NULL, *sz;

	need_root();
	image(0);
	snprintf(alias, sizeof(alias), "%s/alias", dir);
	cr_assert_eq(symlink(tds[0].path, alias), 0);
	cr_assert_eq(target_device_open(&t, alias, tds[0].path, 0, NULL, dir,
					dir, &id, &d), 0,
		     "an empty loop device was refused: %s", d.msg);
	cr_assert_geq(t.fd, 0);
	cr_assert_str_eq(t.path, tds[0].path);
	cr_assert_str_empty(t.image);
	cr_assert_not_null(id);
	cr_assert_str_eq(json_string_value(json_object_get(id, "path")), alias);
	cr_assert_str_eq(json_string_value(json_object_get(id, "realpath")),
			 tds[0].path);
	sz = json_object_get(id, "size_bytes");
	cr_assert(json_is_integer(sz));
	cr_assert_eq((uint64_t)json_integer_value(sz), 64 * MIB);
	cr_assert(json_is_array(json_object_get(id, "by_id")));
	cr_assert_not_null(json_object_get(id, "model"));
	cr_assert_not_null(json_object_get(id, "serial"));
	cr_assert(json_is_boolean(json_object_get(id, "rotational")));
	cr_assert(json_is_string(json_object_get(id, "scheduler")));
	json_decref(id);
	/* while we hold it O_EXCL, nobody else gets it */
	expect_refusal(tds[0].path, tds[0].path, 0, dir, "in use");
	target_release(&t);
	cr_assert_eq(t.fd, -1);
	cr_assert_eq(access(tds[0].path, F_OK), 0);
}
