/* blkdev: what sysfs, mountinfo and blkid say of a block device; reads only. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "host/blkdev.h"

#define SLAVE_DEPTH	8	/* dm on md on ...: deeper is refused */

/* A one-line attribute, blanks trimmed; 0 or -errno. */
int blkdev_attr(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	size_t s = 0;
	ssize_t n;
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && strchr(" \t\r\n", buf[n - 1]))
		n--;
	buf[n] = '\0';
	while (buf[s] == ' ' || buf[s] == '\t')
		s++;
	memmove(buf, buf + s, n - s + 1);
	return 0;
}

int blkdev_name(dev_t dev, char *name, size_t len)
{
	char link[64], real[PATH_MAX];

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	if (!realpath(link, real))
		return -errno;
	snprintf(name, len, "%s", strrchr(real, '/') + 1);
	return 0;
}

int blkdev_disk(const char *name, char *disk, size_t len)
{
	char dir[PATH_MAX], part[PATH_MAX + 16];

	snprintf(part, sizeof(part), "/sys/class/block/%s", name);
	if (!realpath(part, dir))
		return -errno;
	snprintf(part, sizeof(part), "%s/partition", dir);
	if (access(part, F_OK)) {
		snprintf(disk, len, "%s", name);
		return 0;
	}
	*strrchr(dir, '/') = '\0';
	snprintf(disk, len, "%s", strrchr(dir, '/') + 1);
	return 0;
}

void blkdev_first(const char *name, const char *sub, char *out, size_t len)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/block/%s/%s", name, sub);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.') {
			snprintf(out, len, "%s", de->d_name);
			break;
		}
	closedir(dir);
}

int blkdev_mounted_at(dev_t dev, char *where, size_t len)
{
	unsigned int ma, mi;
	char *line = NULL, *sep;
	char mp[PATH_MAX], src[PATH_MAX];
	size_t cap = 0;
	struct stat st;
	int found = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (!found && getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%*d %*d %u:%u %*s %4095s", &ma, &mi, mp) != 3)
			continue;
		sep = strstr(line, " - ");
		if (makedev(ma, mi) == dev)
			found = 1;
		else if (sep && sscanf(sep + 3, "%*s %4095s", src) == 1 &&
			 !strncmp(src, "/dev/", 5) && !stat(src, &st) &&
			 S_ISBLK(st.st_mode) && st.st_rdev == dev)
			found = 1;
	}
	free(line);
	fclose(f);
	if (found)
		snprintf(where, len, "%s", mp);
	return found;
}

dev_t blkdev_backing(const char *path)
{
	char p[PATH_MAX], *line = NULL, src[PATH_MAX];
	unsigned int ma, mi;
	size_t cap = 0;
	struct stat st;
	dev_t dev = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s", path);
	while (stat(p, &st)) {
		char *slash = strrchr(p, '/');

		if (errno != ENOENT)
			return 0;
		if (!slash)
			strcpy(p, ".");
		else if (slash == p)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (major(st.st_dev))
		return st.st_dev;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	while (!dev && getline(&line, &cap, f) > 0) {
		char *sep = strstr(line, " - ");
		struct stat s;

		if (sscanf(line, "%*d %*d %u:%u", &ma, &mi) == 2 &&
		    makedev(ma, mi) == st.st_dev && sep &&
		    sscanf(sep + 3, "%*s %4095s", src) == 1 &&
		    !strncmp(src, "/dev/", 5) && !stat(src, &s) &&
		    S_ISBLK(s.st_mode))
			dev = s.st_rdev;
	}
	free(line);
	fclose(f);
	return dev;
}

int blkdev_overlaps(const char *name, const char *disk, const char *b,
		    int depth)
{
	char bdisk[NAME_MAX + 1], path[PATH_MAX];
	struct dirent *de;
	int hit = 0;
	DIR *dir;

	if (depth > SLAVE_DEPTH || blkdev_disk(b, bdisk, sizeof(bdisk)))
		return 1;
	if (!strcmp(name, b) || !strcmp(disk, b) || !strcmp(name, bdisk))
		return 1;
	snprintf(path, sizeof(path), "/sys/class/block/%s/slaves", b);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!hit && (de = readdir(dir)))
		if (de->d_name[0] != '.')
			hit = blkdev_overlaps(name, disk, de->d_name,
					      depth + 1);
	closedir(dir);
	return hit;
}

int blkdev_node(const char *name, dev_t dev, char *path, size_t len)
{
	struct stat st;

	snprintf(path, len, "/dev/%s", name);
	for (char *p = path + 5; *p; p++)
		if (*p == '!')
			*p = '/';	/* cciss!c0d0 is /dev/cciss/c0d0 */
	if (stat(path, &st))
		return -errno;
	return S_ISBLK(st.st_mode) && st.st_rdev == dev ? 0 : -ENODEV;
}

void blkdev_part_busy(const char *p, dev_t dev, const char *node,
		      char *state, size_t len)
{
	char where[PATH_MAX], held[NAME_MAX + 1];
	int m, fd;

	state[0] = '\0';
	m = blkdev_mounted_at(dev, where, sizeof(where));
	if (m) {
		snprintf(state, len, "is mounted at %s", m > 0 ? where :
			 "(unknown: cannot read /proc/self/mountinfo)");
		return;
	}
	blkdev_first(p, "holders", held, sizeof(held));
	if (held[0]) {
		snprintf(state, len, "is held by %s", held);
		return;
	}
	fd = open(node, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		snprintf(state, len, "is in use (%s)", strerror(errno));
	else
		close(fd);
}

json_t *blkdev_siblings(const char *disk, const char *self)
{
	char path[PATH_MAX], node[PATH_MAX], buf[64], why[PATH_MAX + 32];
	json_t *a = json_array();
	unsigned int ma, mi;
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/block/%s", disk);
	dir = opendir(path);
	if (!dir)
		return a;
	while ((de = readdir(dir))) {
		const char *p = de->d_name;
		json_t *o;

		if (p[0] == '.' || !strcmp(p, self) ||
		    blkdev_attr(buf, sizeof(buf), "%s/%s/partition", path, p) ||
		    blkdev_attr(buf, sizeof(buf), "%s/%s/dev", path, p) ||
		    sscanf(buf, "%u:%u", &ma, &mi) != 2)
			continue;
		o = json_object();
		json_object_set_new(o, "name", json_string(p));
		if (blkdev_node(p, makedev(ma, mi), node, sizeof(node)))
			snprintf(why, sizeof(why), "unknown (no device node)");
		else
			blkdev_part_busy(p, makedev(ma, mi), node, why,
					 sizeof(why));
		json_object_set_new(o, "state", json_string(why[0] ? why
								   : "free"));
		json_array_append_new(a, o);
	}
	closedir(dir);
	return a;
}

static json_t *attr_json(const char *fmt, const char *name)
{
	char buf[256];

	if (blkdev_attr(buf, sizeof(buf), fmt, name) || !buf[0])
		return json_null();
	return json_string(buf);
}

/* /dev/disk/by-id names pointing at real, sorted so manifests compare. */
static json_t *by_id(const char *real)
{
	char path[PATH_MAX], r[PATH_MAX];
	struct dirent **list;
	json_t *a = json_array();
	int n;

	n = scandir("/dev/disk/by-id", &list, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/dev/disk/by-id/%s",
			 list[i]->d_name);
		if (a && list[i]->d_name[0] != '.' && realpath(path, r) &&
		    !strcmp(r, real))
			json_array_append_new(a, json_string(path));
		free(list[i]);
	}
	if (n >= 0)
		free(list);
	return a;
}

json_t *blkdev_identity(const char *device, const char *real,
			const char *disk, int fd)
{
	char buf[256], *s;
	uint64_t size = 0;
	json_t *id, *sched = json_null(), *rot = json_null(), *serial;

	ioctl(fd, BLKGETSIZE64, &size);
	/* virtio-blk has its serial on the disk, not the device */
	serial = attr_json("/sys/class/block/%s/device/serial", disk);
	if (json_is_null(serial))
		serial = attr_json("/sys/class/block/%s/serial", disk);
	if (!blkdev_attr(buf, sizeof(buf),
			 "/sys/class/block/%s/queue/rotational", disk))
		rot = json_boolean(buf[0] == '1');
	if (!blkdev_attr(buf, sizeof(buf),
			 "/sys/class/block/%s/queue/scheduler", disk)) {
		s = strchr(buf, '[');
		if (s && strchr(s, ']')) {
			*strchr(s, ']') = '\0';
			sched = json_string(s + 1);
		} else {
			sched = json_string(buf);
		}
	}
	id = json_pack("{s:s, s:s, s:o?, s:I, s:o?, s:o?, s:o?, s:o?}",
		       "path", device, "realpath", real, "by_id", by_id(real),
		       "size_bytes", (json_int_t)size,
		       "model", attr_json("/sys/class/block/%s/device/model",
					  disk),
		       "serial", serial, "rotational", rot, "scheduler", sched);
	return id;
}
