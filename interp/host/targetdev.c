/* targetdev: the guards a real block device passes before fsplan uses it. */
#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "host/devclaim.h"
#include "host/target.h"

#define NOPOS		((struct pos){ 0, 0 })
#define SLAVE_DEPTH	8	/* dm on md on ...: deeper is refused */

/* ---- sysfs and mountinfo ---- */

/* A one-line attribute, blanks trimmed; 0 or -errno. */
static int read_attr(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int read_attr(char *buf, size_t len, const char *fmt, ...)
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

/* The sysfs name (sda1) of a block device number; 0 or -errno. */
static int blk_name(dev_t dev, char *name, size_t len)
{
	char link[64], real[PATH_MAX];

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	if (!realpath(link, real))
		return -errno;
	snprintf(name, len, "%s", strrchr(real, '/') + 1);
	return 0;
}

/* The whole disk (sda) a sysfs block name belongs to: itself if not a
 * partition, else the directory above the partition's. */
static int blk_disk(const char *name, char *disk, size_t len)
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

/* The first entry of /sys/class/block/name/dir, or "" if it is empty. */
static void first_entry(const char *name, const char *sub, char *out,
			size_t len)
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

/*
 * Is dev mounted (by number, or by a /dev source naming it, which is how
 * btrfs shows up)? 1 with the mount point, 0 no, -errno unknown.
 */
static int mounted_at(dev_t dev, char *where, size_t len)
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

/* ---- device guards ---- */

static int refuse(int *refused, struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(int *refused, struct diag *d, const char *fmt, ...)
{
	char msg[sizeof(d->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	*refused = 1;
	return diag_set(d, NULL, NULL, NOPOS, "%s", msg);
}

/*
 * The block device a path's filesystem lives on, or 0 (tmpfs, overlay).
 * A path not made yet is judged by its nearest existing parent; btrfs
 * reports an anonymous st_dev, so the mount's source names the device.
 */
static dev_t backing_dev(const char *path)
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

/*
 * Does the target (sysfs name, its disk) overlap the device b, or what b
 * is built on (slaves: dm, md, loop)? Same device, a partition of it or
 * its disk all count; a sibling partition does not.
 */
static int overlaps(const char *name, const char *disk, const char *b,
		    int depth)
{
	char bdisk[NAME_MAX + 1], path[PATH_MAX];
	struct dirent *de;
	int hit = 0;
	DIR *dir;

	if (depth > SLAVE_DEPTH || blk_disk(b, bdisk, sizeof(bdisk)))
		return 1;
	if (!strcmp(name, b) || !strcmp(disk, b) || !strcmp(name, bdisk))
		return 1;
	snprintf(path, sizeof(path), "/sys/class/block/%s/slaves", b);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!hit && (de = readdir(dir)))
		if (de->d_name[0] != '.')
			hit = overlaps(name, disk, de->d_name, depth + 1);
	closedir(dir);
	return hit;
}

static int check_backing(const char *real, const char *name,
			 const char *disk, const char *rundir,
			 const char *workdir, int *refused, struct diag *d)
{
	const char *paths[] = { "/", rundir, workdir };
	const char *what[] = { "/ (the root filesystem)", "the run directory",
			       "the workdir" };
	char b[NAME_MAX + 1];

	for (int i = 0; i < 3; i++) {
		dev_t dev;

		if (!paths[i])
			continue;
		dev = backing_dev(paths[i]);
		if (!dev || blk_name(dev, b, sizeof(b)))
			continue;
		if (overlaps(name, disk, b, 0))
			return refuse(refused, d,
				      "refusing %s: it backs %s%s%s", real,
				      what[i], i ? " " : "", i ? paths[i] : "");
	}
	return 0;
}

/* The node of a sysfs name, checked to be that device. */
static int node_of(const char *name, dev_t dev, char *path, size_t len)
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

/* Why a partition (sysfs name p, number dev) is busy; "" if it is not. */
static void part_busy(const char *p, dev_t dev, const char *node, char *why,
		      size_t len)
{
	char where[PATH_MAX], held[NAME_MAX + 1];
	int m, fd;

	why[0] = '\0';
	m = mounted_at(dev, where, sizeof(where));
	if (m) {
		snprintf(why, len, "is mounted at %s", m > 0 ? where :
			 "(unknown: cannot read /proc/self/mountinfo)");
		return;
	}
	first_entry(p, "holders", held, sizeof(held));
	if (held[0]) {
		snprintf(why, len, "is held by %s", held);
		return;
	}
	fd = open(node, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		snprintf(why, len, "is in use (%s)", strerror(errno));
	else
		close(fd);
}

/*
 * Partitions of the disk that are mounted, held (dm, md) or claimed
 * exclusively. Each is opened read-only with O_EXCL and closed again:
 * once we hold the disk O_EXCL such opens would always fail.
 */
static int check_parts(const char *real, const char *name, int *refused,
		       struct diag *d)
{
	char path[PATH_MAX], node[PATH_MAX], buf[64], why[PATH_MAX + 32];
	unsigned int ma, mi;
	struct dirent *de;
	int rc = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/block/%s", name);
	dir = opendir(path);
	if (!dir)
		return refuse(refused, d, "refusing %s: cannot read %s: %s",
			      real, path, strerror(errno));
	while (!rc && (de = readdir(dir))) {
		const char *p = de->d_name;

		if (p[0] == '.' ||
		    read_attr(buf, sizeof(buf), "%s/%s/partition", path, p))
			continue;
		if (read_attr(buf, sizeof(buf), "%s/%s/dev", path, p) ||
		    sscanf(buf, "%u:%u", &ma, &mi) != 2 ||
		    node_of(p, makedev(ma, mi), node, sizeof(node))) {
			rc = refuse(refused, d, "refusing %s: cannot check "
				    "its partition %s", real, p);
			break;
		}
		part_busy(p, makedev(ma, mi), node, why, sizeof(why));
		if (why[0])
			rc = refuse(refused, d, "refusing %s: its partition "
				    "%s %s", real, node, why);
	}
	closedir(dir);
	return rc;
}

/*
 * A partition's siblings on its disk and their state ("mounted at /",
 * "held by dm-0", "in use (...)", or "free"), for the manifest: a
 * partition whose siblings are in use is allowed (DESIGN.md section 6),
 * and whoever judges the run should see what shared the disk.
 */
static json_t *siblings_of(const char *disk, const char *self)
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
		    read_attr(buf, sizeof(buf), "%s/%s/partition", path, p) ||
		    read_attr(buf, sizeof(buf), "%s/%s/dev", path, p) ||
		    sscanf(buf, "%u:%u", &ma, &mi) != 2)
			continue;
		o = json_object();
		json_object_set_new(o, "name", json_string(p));
		if (node_of(p, makedev(ma, mi), node, sizeof(node)))
			snprintf(why, sizeof(why), "unknown (no device node)");
		else
			part_busy(p, makedev(ma, mi), node, why, sizeof(why));
		json_object_set_new(o, "state", json_string(why[0] ? why
								   : "free"));
		json_array_append_new(a, o);
	}
	closedir(dir);
	return a;
}

/* What a found signature is, in words. */
static void describe(blkid_probe pr, char *what, size_t len)
{
	const char *type = NULL, *usage = "", *pttype = NULL;

	blkid_probe_lookup_value(pr, "TYPE", &type, NULL);
	blkid_probe_lookup_value(pr, "USAGE", &usage, NULL);
	blkid_probe_lookup_value(pr, "PTTYPE", &pttype, NULL);
	if (type && !strcmp(usage, "filesystem"))
		snprintf(what, len, "an existing %s filesystem", type);
	else if (type && !strcmp(usage, "raid"))
		snprintf(what, len, "an existing %s RAID/LVM member", type);
	else if (type && !strcmp(usage, "crypto"))
		snprintf(what, len, "an existing %s encrypted volume", type);
	else if (type)
		snprintf(what, len, "an existing %s signature", type);
	else if (pttype)
		snprintf(what, len, "an existing %s partition table", pttype);
	else
		snprintf(what, len, "an existing signature");
}

/*
 * Refuse what the device already carries unless wipe. libblkid's values
 * live in the probe, so the words are made before it is freed.
 */
static int check_signatures(int fd, const char *real, int wipe,
			    const char *own, struct target_dev *t,
			    int *refused, struct diag *d)
{
	char what[160] = "", uuid[64] = "";
	const char *v;
	blkid_probe pr;
	int rc;

	pr = blkid_new_probe();
	if (!pr || blkid_probe_set_device(pr, fd, 0, 0)) {
		blkid_free_probe(pr);
		return refuse(refused, d, "refusing %s: cannot probe it for "
			      "existing data", real);
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_USAGE |
					  BLKID_SUBLKS_UUID);
	blkid_probe_enable_partitions(pr, 1);
	rc = blkid_do_safeprobe(pr);	/* 0 found, 1 none, -2 ambivalent */
	if (rc == 0) {
		describe(pr, what, sizeof(what));
		if (!blkid_probe_lookup_value(pr, "UUID", &v, NULL))
			snprintf(uuid, sizeof(uuid), "%s", v);
	} else if (rc == -2)
		snprintf(what, sizeof(what), "more than one signature "
			 "(libblkid cannot tell which)");
	blkid_free_probe(pr);
	if (rc < 0 && rc != -2)
		return refuse(refused, d, "refusing %s: probing it for "
			      "existing data failed", real);
	/* a resumed run's own: the filesystem it made last (or anything,
	 * when its last mkfs was cut off before it could say) */
	if (own && rc != 1 && (!*own || !strcmp(uuid, own)))
		t->ours = 1;
	if (rc != 1 && !wipe && own && !t->ours)
		return refuse(refused, d, "refusing %s: it carries %s (UUID "
			      "%s), not the filesystem this run made there: "
			      "something else wrote to it since the run "
			      "stopped; a new run with wipe: true may "
			      "overwrite it", real, what,
			      *uuid ? uuid : "none");
	if (rc != 1 && !wipe && !t->ours)
		return refuse(refused, d, "refusing %s: it carries %s; set "
			      "wipe: true for it in the plan to allow", real,
			      what);
	return 0;
}

int target_device_uuid(const char *dev, char *uuid, size_t len)
{
	const char *v;
	blkid_probe pr;
	int fd, rc = -1;

	uuid[0] = '\0';
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	pr = blkid_new_probe();
	if (pr && !blkid_probe_set_device(pr, fd, 0, 0)) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_UUID);
		if (blkid_do_safeprobe(pr) == 0 &&
		    !blkid_probe_lookup_value(pr, "UUID", &v, NULL)) {
			snprintf(uuid, len, "%s", v);
			rc = 0;
		}
	}
	blkid_free_probe(pr);
	close(fd);
	return rc;
}

/* ---- identity ---- */

static json_t *attr_json(const char *fmt, const char *name)
{
	char buf[256];

	if (read_attr(buf, sizeof(buf), fmt, name) || !buf[0])
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

static json_t *identity_of(const char *device, const char *real,
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
	if (!read_attr(buf, sizeof(buf), "/sys/class/block/%s/queue/rotational",
		       disk))
		rot = json_boolean(buf[0] == '1');
	if (!read_attr(buf, sizeof(buf), "/sys/class/block/%s/queue/scheduler",
		       disk)) {
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

/* "path", or "path (real)" where a symlink hid the device. */
static const char *resolved(char *buf, size_t len, const char *path,
			    const char *real)
{
	snprintf(buf, len, strcmp(path, real) ? "%s (%s)" : "%s", path, real);
	return buf;
}

/* The guards of target_device_open past the claim: what another run
 * could be doing to the device shows here as its own refusal. */
static int guard(struct target_dev *t, const char *device, const char *real,
		 dev_t dev, const char *name, const char *disk, int wipe,
		 const char *own, json_t **identity, int *refused,
		 struct diag *d)
{
	char where[PATH_MAX], held[NAME_MAX + 1];
	int fd, rc, ro = 0;

	rc = mounted_at(dev, where, sizeof(where));
	if (rc < 0)
		return refuse(refused, d, "refusing %s: cannot tell whether it "
			      "is mounted: %s", real, strerror(-rc));
	if (rc)
		return refuse(refused, d, "refusing %s: it is mounted at %s",
			      real, where);
	first_entry(name, "holders", held, sizeof(held));
	if (held[0])
		return refuse(refused, d, "refusing %s: it is held by %s "
			      "(device mapper, RAID or similar)", real, held);
	if (check_parts(real, name, refused, d))
		return -1;
	fd = open(real, O_RDWR | O_EXCL | O_CLOEXEC);
	if (fd < 0 && errno == EBUSY)
		return refuse(refused, d, "refusing %s: it is in use (mounted, "
			      "active swap, or held open exclusively)", real);
	if (fd < 0)
		return refuse(refused, d, "refusing %s: cannot open it: %s",
			      real, strerror(errno));
	if (ioctl(fd, BLKROGET, &ro) || ro) {
		close(fd);
		return refuse(refused, d, "refusing %s: it is read-only", real);
	}
	if (check_signatures(fd, real, wipe, own, t, refused, d)) {
		close(fd);
		return -1;
	}
	*identity = identity_of(device, real, disk, fd);
	if (*identity && strcmp(name, disk))
		json_object_set_new(*identity, "siblings",
				    siblings_of(disk, name));
	if (!*identity) {
		close(fd);
		return diag_set(d, NULL, NULL, NOPOS,
				"%s: out of memory for its identity", real);
	}
	memcpy(t->path, real, strlen(real) + 1);	/* length checked */
	t->fd = fd;
	return 0;
}

int target_device_open(struct target_dev *t, const char *device,
		       const char *destroy, int wipe, const char *own,
		       const char *rundir, const char *workdir,
		       json_t **identity, int *refused, struct diag *d)
{
	char real[PATH_MAX], dreal[PATH_MAX], why[PATH_MAX + 64];
	char a[2 * PATH_MAX + 4], b[2 * PATH_MAX + 4];
	char name[NAME_MAX + 1], disk[NAME_MAX + 1];
	unsigned int ma, mi;
	struct stat st;
	int rc;

	t->path[0] = '\0';
	t->fd = -1;
	t->ours = 0;
	t->image[0] = '\0';
	t->lock_fd = -1;
	t->claim.fd = t->claim.disk_fd = -1;
	*identity = NULL;
	*refused = 0;
	/* Until every check below has passed, only stat, sysfs and
	 * mountinfo are read; nothing is opened for writing. */
	if (!destroy)
		return refuse(refused, d, "target.device %s needs --destroy "
			      "DEVICE naming the same device", device);
	if (!realpath(device, real))
		return refuse(refused, d, "refusing %s: %s", device,
			      strerror(errno));
	if (!realpath(destroy, dreal))
		return refuse(refused, d, "refusing %s: --destroy %s: %s",
			      device, destroy, strerror(errno));
	if (strcmp(real, dreal))
		return refuse(refused, d, "refusing %s: --destroy names %s, "
			      "not the same device",
			      resolved(a, sizeof(a), device, real),
			      resolved(b, sizeof(b), destroy, dreal));
	if (strlen(real) >= sizeof(t->path))
		return refuse(refused, d, "refusing %s: path too long", real);
	if (stat(real, &st) || !S_ISBLK(st.st_mode))
		return refuse(refused, d, "refusing %s: not a block device",
			      real);
	if (blk_name(st.st_rdev, name, sizeof(name)) ||
	    blk_disk(name, disk, sizeof(disk)) ||
	    read_attr(b, sizeof(b), "/sys/class/block/%s/dev", disk) ||
	    sscanf(b, "%u:%u", &ma, &mi) != 2)
		return refuse(refused, d, "refusing %s: not found in "
			      "/sys/dev/block", real);
	/* what no other run changes, before the claim (the root disk is
	 * not even claimed), then the claim: a device another run holds is
	 * that run's, whatever else it is now */
	if (check_backing(real, name, disk, rundir, workdir, refused, d))
		return -1;
	if (read_attr(why, sizeof(why), "/sys/class/block/%s/ro", name))
		return refuse(refused, d, "refusing %s: cannot tell whether it "
			      "is read-only", real);
	if (strcmp(why, "0"))
		return refuse(refused, d, "refusing %s: it is read-only", real);
	rc = devclaim_take(&t->claim, st.st_rdev, makedev(ma, mi),
			   rundir ? rundir : "", getpid(), why, sizeof(why));
	if (rc)
		return refuse(refused, d, "refusing %s: %s%s",
			      resolved(a, sizeof(a), device, real),
			      rc > 0 ? "it is in use by " : "", why);
	if (guard(t, device, real, st.st_rdev, name, disk, wipe, own,
		  identity, refused, d)) {
		devclaim_release(&t->claim);
		return -1;
	}
	return 0;
}
