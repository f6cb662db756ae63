/* fs: make, mount, sync and unmount a filesystem as root, without a shell. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "host/fs.h"
#include "host/proc.h"
#include "util/words.h"


int fs_kernel_has(const char *type, int *nodev)
{
	char line[256];
	FILE *f = fopen("/proc/filesystems", "re");
	int hit = 0;

	if (!f)
		return 0;
	while (!hit && fgets(line, sizeof(line), f)) {
		char *name = strchr(line, '\t');

		line[strcspn(line, "\n")] = '\0';
		hit = name && !strcmp(name + 1, type);
		if (hit && nodev)
			*nodev = !strncmp(line, "nodev", 5);
	}
	fclose(f);
	return hit;
}

static int in_path(const char *prog)
{
	static const char *const dirs[] = { "/usr/local/sbin", "/usr/sbin",
					    "/sbin", "/usr/local/bin",
					    "/usr/bin", "/bin" };
	char path[256];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], prog);
		if (!access(path, X_OK))
			return 1;
	}
	return 0;
}

int fs_available(const char *type, int nodev, struct diag *d)
{
	char tool[128];

	if (!fs_kernel_has(type, NULL)) {
		const char *argv[] = { "modprobe", "-q", type, NULL };
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		/* modprobe may be missing; then the kernel answer stands */
		fs_run(argv, null, 30, NULL, NULL, 0);
		if (null >= 0)
			close(null);
		if (!fs_kernel_has(type, NULL))
			return diag_fail(d, DIAG_INPUT, 0, "this kernel has no "
					 "%s filesystem (not in "
					 "/proc/filesystems, modprobe found no "
					 "module)", type);
	}
	snprintf(tool, sizeof(tool), "mkfs.%s", type);
	if (!nodev && !in_path(tool))
		return diag_fail(d, DIAG_INPUT, 0, "%s is not installed", tool);
	return 0;
}

int fs_run(const char *const argv[], int log_fd, double timeout_s,
	   volatile sig_atomic_t *stop, char *last, size_t lastlen)
{
	const struct proc_job job = {
		.argv = argv, .out_fd = PROC_PIPE, .err_fd = PROC_PIPE,
		.pipe_at = -1, .timeout_s = timeout_s, .stop = stop,
		.log_fd = log_fd, .last = last, .last_len = lastlen,
	};
	struct proc_result res;

	if (proc_run(&job, &res))
		return -1;
	return proc_status(&res);
}

/* devword_text's rule, and a path that is a block device. */
static int device_rule(void *ctx, const char *cand, const char *key,
		       struct diag *d)
{
	char real[PATH_MAX];
	struct stat st;

	if (devword_text(ctx, cand, key, d))
		return 1;
	if (!cand[0] || stat(cand, &st) || !S_ISBLK(st.st_mode))
		return 0;
	diag_fail(d, DIAG_REFUSED, 0, "is the block device %s",
		  realpath(cand, real) ? real : cand);
	return 1;
}

int fs_device_word(const char *opts, int mount, struct devword *w)
{
	return devword_find(opts, mount, device_rule, NULL, w);
}

/* The last look before mkfs or mount runs: 0, or -1 with d. */
static int no_device(const char *opts, int mount, struct diag *d)
{
	struct devword w;
	int rc = fs_device_word(opts, mount, &w);

	if (rc < 0)
		diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	else if (rc)
		diag_fail(d, DIAG_REFUSED, 0, DEVWORD_REFUSED,
			  mount ? "mount" : "mkfs", w.word, "", w.why.msg);
	devword_free(&w);
	return rc ? -1 : 0;
}

/* argv of mkfs.<type> [flag] [force] <words> <dev>, in tool's buffer. */
static void mkfs_argv(const char *argv[256], char tool[128], const char *type,
		      const char *flag, int force, char **words,
		      const char *dev)
{
	int n = 0;

	snprintf(tool, 128, "mkfs.%s", type);
	argv[n++] = tool;
	if (flag)
		argv[n++] = flag;
	if (force && (!strcmp(type, "xfs") || !strcmp(type, "btrfs")))
		argv[n++] = "-f";
	else if (force && !strncmp(type, "ext", 3))
		argv[n++] = "-F";
	for (int i = 0; words[i] && n < 250; i++)
		argv[n++] = words[i];
	argv[n++] = dev;
	argv[n] = NULL;
}

int fs_mkfs_dry(const char *type, const char *opts, uint64_t bytes,
		struct diag *d)
{
	int ext = !strcmp(type, "ext2") || !strcmp(type, "ext3") ||
		  !strcmp(type, "ext4");
	/* the tools' own no-op modes: the layout, checked, not written */
	const char *flag = !strcmp(type, "xfs") ? "-N" : ext ? "-n" : NULL;
	char tool[128], last[256] = "", path[] = "/tmp/fsplan-dry-XXXXXX";
	char **words;
	const char *argv[256];
	int fd, rc;

	if (!flag || !(words = words_split(opts, NULL, NULL)))
		return -1;
	fd = mkstemp(path);
	if (fd < 0) {
		free(words);
		return -1;
	}
	/* sparse: no space taken, whatever the size */
	rc = ftruncate(fd, (off_t)bytes);
	close(fd);
	/* forced for ext: mke2fs asks before it formats a regular file */
	mkfs_argv(argv, tool, type, flag, ext, words, path);
	if (!rc)
		rc = fs_run(argv, -1, 60, NULL, last, sizeof(last));
	unlink(path);
	free(words);
	if (rc <= 0 || rc > 128 || rc == 127 || rc == 126)
		return rc ? -1 : 0;	/* ran fine, or could not be run */
	diag_fail(d, DIAG_INPUT, 0, "%s", last[0] ? last :
		  "no reason printed");
	return 1;
}

int fs_mkfs(const char *type, const char *opts, const char *dev, int force,
	    volatile sig_atomic_t *stop, int log_fd, struct diag *d)
{
	char tool[128], last[256];
	char **words;
	const char *argv[256];
	int rc;

	if (no_device(opts, 0, d))
		return -1;
	words = words_split(opts, NULL, NULL);
	if (!words)
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	mkfs_argv(argv, tool, type, NULL, force, words, dev);
	if (log_fd >= 0) {
		dprintf(log_fd, "#");
		for (int i = 0; argv[i]; i++)
			dprintf(log_fd, " %s", argv[i]);
		dprintf(log_fd, "\n");
	}
	rc = fs_run(argv, log_fd, 600, stop, last, sizeof(last));
	free(words);
	if (rc == 0)
		return 0;
	return diag_fail(d, DIAG_SYSTEM, 0, "%s failed (%s %d)%s%s", tool,
			 rc > 128 ? "signal" : "exit status",
			 rc > 128 ? rc - 128 : rc, last[0] ? ": " : "", last);
}

/* The VFS flags mount(8) takes out of -o before handing the rest on. */
static const struct {
	const char *name;
	unsigned long set, clear;
} vfs_flags[] = {
	{ "defaults", 0, 0 },
	{ "rw", 0, MS_RDONLY }, { "ro", MS_RDONLY, 0 },
	{ "suid", 0, MS_NOSUID }, { "nosuid", MS_NOSUID, 0 },
	{ "dev", 0, MS_NODEV }, { "nodev", MS_NODEV, 0 },
	{ "exec", 0, MS_NOEXEC }, { "noexec", MS_NOEXEC, 0 },
	{ "async", 0, MS_SYNCHRONOUS }, { "sync", MS_SYNCHRONOUS, 0 },
	{ "dirsync", MS_DIRSYNC, 0 },
	{ "mand", MS_MANDLOCK, 0 }, { "nomand", 0, MS_MANDLOCK },
	{ "atime", 0, MS_NOATIME }, { "noatime", MS_NOATIME, 0 },
	{ "diratime", 0, MS_NODIRATIME }, { "nodiratime", MS_NODIRATIME, 0 },
	{ "relatime", MS_RELATIME, 0 }, { "norelatime", 0, MS_RELATIME },
	{ "strictatime", MS_STRICTATIME, 0 },
	{ "nostrictatime", 0, MS_STRICTATIME },
	{ "lazytime", MS_LAZYTIME, 0 }, { "nolazytime", 0, MS_LAZYTIME },
	{ "silent", MS_SILENT, 0 }, { "loud", 0, MS_SILENT },
};

int fs_mount(const char *type, const char *opts, const char *dev,
	     const char *dir, struct diag *d)
{
	unsigned long flags = 0;
	char *copy = strdup(opts), *data, *save = NULL;
	size_t dl = 0;

	if (no_device(opts, 1, d)) {
		free(copy);
		return -1;
	}
	data = calloc(1, strlen(opts) + 1);
	if (!copy || !data) {
		free(copy);
		free(data);
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	}
	for (char *o = strtok_r(copy, ",", &save); o;
	     o = strtok_r(NULL, ",", &save)) {
		size_t i, n = sizeof(vfs_flags) / sizeof(vfs_flags[0]);

		for (i = 0; i < n; i++)
			if (!strcmp(o, vfs_flags[i].name))
				break;
		if (i < n) {
			flags = (flags & ~vfs_flags[i].clear) |
				vfs_flags[i].set;
			continue;
		}
		dl += sprintf(data + dl, "%s%s", dl ? "," : "", o);
	}
	free(copy);
	if (mount(dev, dir, type, flags, dl ? data : NULL)) {
		int e = errno;

		diag_fail(d, DIAG_SYSTEM, 0, "mount -t %s -o %s %s: %s%s", type,
			  opts[0] ? opts : "defaults", dev, strerror(e),
			  e == EINVAL ? " (an option this filesystem does not "
					"take? see dmesg)" : "");
		if (d)
			d->err = e;	/* the hint goes after strerror */
		free(data);
		return -1;
	}
	free(data);
	return 0;
}

int fs_bind(const char *src, const char *dir, struct diag *d)
{
	if (!mount(src, dir, NULL, MS_BIND, NULL))
		return 0;
	return diag_fail(d, DIAG_SYSTEM, errno, "cannot bind %s on %s", src,
			 dir);
}

int fs_umount(const char *dir, struct diag *d)
{
	for (int i = 0; i < 50; i++) {
		if (!umount2(dir, 0))
			return 0;
		if (errno != EBUSY)
			break;
		usleep(100000);
	}
	return diag_fail(d, DIAG_SYSTEM, errno, "umount %s", dir);
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] && s[3]) {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

int fs_applied_options(const char *dir, char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int rc = -1;

	if (!f)
		return -1;
	/* the last match wins: a later mount covers an earlier one */
	while (getline(&line, &cap, f) > 0) {
		char *field[16], *save = NULL, *sep;
		int n = 0;

		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		for (char *t = strtok_r(line, " ", &save); t && n < 16;
		     t = strtok_r(NULL, " ", &save))
			field[n++] = t;
		if (n < 6)
			continue;
		unescape(field[4]);
		if (strcmp(field[4], dir))
			continue;
		/* after " - ": fstype source superoptions */
		{
			char *rest = sep + 3, *s2 = NULL;
			char *fstype = strtok_r(rest, " ", &s2);
			char *src = strtok_r(NULL, " ", &s2);
			char *super = strtok_r(NULL, " \n", &s2);

			(void)fstype;
			(void)src;
			snprintf(buf, len, "%s %s", field[5],
				 super ? super : "");
			rc = 0;
		}
	}
	free(line);
	fclose(f);
	return rc;
}

int fs_syncfs(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd < 0)
		return -errno;
	rc = syncfs(fd) ? -errno : 0;
	close(fd);
	return rc;
}

int fs_drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -errno;
	rc = write(fd, "3", 1) == 1 ? 0 : -errno;
	close(fd);
	return rc;
}

int fs_probe_engine(const char *dir, struct fs_probe *p, struct diag *d)
{
	char path[4200];
	unsigned got;
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	memset(p, 0, sizeof(*p));
	if (fd < 0) {	/* no O_TMPFILE here: a name, gone at once */
		snprintf(path, sizeof(path), "%s/.fsplan-probe-%d", dir,
			 (int)getpid());
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0)
			unlink(path);
	}
	if (fd < 0)
		return diag_fail(d, DIAG_SYSTEM, errno, "%s: cannot make a "
				 "probe file", dir);
	got = engine_probe_fd(fd);
	p->read_ring = !!(got & ENGINE_PROBE_READ);
	p->write_ring = !!(got & ENGINE_PROBE_WRITE);
	if (!fcntl(fd, F_SETFL, O_DIRECT) && (fcntl(fd, F_GETFL) & O_DIRECT)) {
		got = engine_probe_fd(fd);
		p->direct = 1;
		p->direct_read_ring = !!(got & ENGINE_PROBE_READ);
		p->direct_write_ring = !!(got & ENGINE_PROBE_WRITE);
	}
	close(fd);
	return 0;
}
