/* targetdev: the guards a real block device passes before fsplan uses it. */
#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "host/blkdev.h"
#include "host/devclaim.h"
#include "host/target.h"

static int check_backing(const char *real, const char *name,
			 const char *disk, const char *rundir,
			 const char *workdir, struct diag *d)
{
	const char *paths[] = { "/", rundir, workdir };
	const char *what[] = { "/ (the root filesystem)", "the run directory",
			       "the workdir" };
	char b[NAME_MAX + 1];

	for (int i = 0; i < 3; i++) {
		dev_t dev;

		if (!paths[i])
			continue;
		dev = blkdev_backing(paths[i]);
		if (!dev || blkdev_name(dev, b, sizeof(b)))
			continue;
		if (blkdev_overlaps(name, disk, b, 0))
			return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: it "
					 "backs %s%s%s", real, what[i],
					 i ? " " : "", i ? paths[i] : "");
	}
	return 0;
}

/*
 * Partitions of the disk that are mounted, held (dm, md) or claimed
 * exclusively. Each is opened read-only with O_EXCL and closed again:
 * once we hold the disk O_EXCL such opens would always fail.
 */
static int check_parts(const char *real, const char *name, struct diag *d)
{
	char path[PATH_MAX], node[PATH_MAX], buf[64], why[PATH_MAX + 32];
	unsigned int ma, mi;
	struct dirent *de;
	int rc = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/block/%s", name);
	dir = opendir(path);
	if (!dir)
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: cannot "
				 "read %s: %s", real, path, strerror(errno));
	while (!rc && (de = readdir(dir))) {
		const char *p = de->d_name;

		if (p[0] == '.' ||
		    blkdev_attr(buf, sizeof(buf), "%s/%s/partition", path, p))
			continue;
		if (blkdev_attr(buf, sizeof(buf), "%s/%s/dev", path, p) ||
		    sscanf(buf, "%u:%u", &ma, &mi) != 2 ||
		    blkdev_node(p, makedev(ma, mi), node, sizeof(node))) {
			rc = diag_fail(d, DIAG_REFUSED, 0, "refusing %s: "
				       "cannot check its partition %s", real,
				       p);
			break;
		}
		blkdev_part_busy(p, makedev(ma, mi), node, why, sizeof(why));
		if (why[0])
			rc = diag_fail(d, DIAG_REFUSED, 0, "refusing %s: its "
				       "partition %s %s", real, node, why);
	}
	closedir(dir);
	return rc;
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
			    struct diag *d)
{
	char what[160] = "", uuid[64] = "";
	const char *v;
	blkid_probe pr;
	int rc;

	pr = blkid_new_probe();
	if (!pr || blkid_probe_set_device(pr, fd, 0, 0)) {
		blkid_free_probe(pr);
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: cannot "
				 "probe it for existing data", real);
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
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: probing it "
				 "for existing data failed", real);
	/* a resumed run's own: the filesystem it made last (or anything,
	 * when its last mkfs was cut off before it could say) */
	if (own && rc != 1 && (!*own || !strcmp(uuid, own)))
		t->ours = 1;
	if (rc != 1 && !wipe && own && !t->ours)
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: it carries "
				 "%s (UUID %s), not the filesystem this run "
				 "made there: something else wrote to it "
				 "since the run stopped; a new run with "
				 "wipe: true may overwrite it", real, what,
				 *uuid ? uuid : "none");
	if (rc != 1 && !wipe && !t->ours)
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: it carries "
				 "%s; set wipe: true for it in the plan to "
				 "allow", real, what);
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
		 const char *own, json_t **identity, struct diag *d)
{
	char where[PATH_MAX], held[NAME_MAX + 1];
	int fd, rc, ro = 0;

	rc = blkdev_mounted_at(dev, where, sizeof(where));
	if (rc < 0)
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: cannot "
				 "tell whether it is mounted: %s", real,
				 strerror(-rc));
	if (rc)
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: it is "
				 "mounted at %s", real, where);
	blkdev_first(name, "holders", held, sizeof(held));
	if (held[0])
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: it is held "
				 "by %s (device mapper, RAID or similar)", real,
				 held);
	if (check_parts(real, name, d))
		return -1;
	fd = open(real, O_RDWR | O_EXCL | O_CLOEXEC);
	if (fd < 0 && errno == EBUSY)
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: it is in "
				 "use (mounted, active swap, or held open "
				 "exclusively)", real);
	if (fd < 0)
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: cannot "
				 "open it: %s", real, strerror(errno));
	if (ioctl(fd, BLKROGET, &ro) || ro) {
		close(fd);
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: it is "
				 "read-only", real);
	}
	if (check_signatures(fd, real, wipe, own, t, d)) {
		close(fd);
		return -1;
	}
	*identity = blkdev_identity(device, real, disk, fd);
	if (*identity && strcmp(name, disk))
		json_object_set_new(*identity, "siblings",
				    blkdev_siblings(disk, name));
	if (!*identity) {
		close(fd);
		return diag_fail(d, DIAG_SYSTEM, 0, "%s: out of memory for "
				 "its identity", real);
	}
	memcpy(t->path, real, strlen(real) + 1);	/* length checked */
	t->fd = fd;
	return 0;
}

int target_device_open(struct target_dev *t, const char *device,
		       const char *destroy, int wipe, const char *own,
		       const char *rundir, const char *workdir,
		       json_t **identity, struct diag *d)
{
	char real[PATH_MAX], dreal[PATH_MAX], why[PATH_MAX + 64];
	char a[2 * PATH_MAX + 4], b[2 * PATH_MAX + 4];
	char name[NAME_MAX + 1], disk[NAME_MAX + 1];
	struct diag claim = { 0 };
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
	/* Until every check below has passed, only stat, sysfs and
	 * mountinfo are read; nothing is opened for writing. */
	if (!destroy)
		return diag_fail(d, DIAG_REFUSED, 0, "target.device %s needs "
				 "--destroy DEVICE naming the same device",
				 device);
	if (!realpath(device, real))
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: %s", device,
				 strerror(errno));
	if (!realpath(destroy, dreal))
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: --destroy "
				 "%s: %s", device, destroy, strerror(errno));
	if (strcmp(real, dreal))
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: --destroy "
				 "names %s, not the same device",
				 resolved(a, sizeof(a), device, real),
				 resolved(b, sizeof(b), destroy, dreal));
	if (strlen(real) >= sizeof(t->path))
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: path too "
				 "long", real);
	if (stat(real, &st) || !S_ISBLK(st.st_mode))
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: not a "
				 "block device", real);
	if (blkdev_name(st.st_rdev, name, sizeof(name)) ||
	    blkdev_disk(name, disk, sizeof(disk)) ||
	    blkdev_attr(b, sizeof(b), "/sys/class/block/%s/dev", disk) ||
	    sscanf(b, "%u:%u", &ma, &mi) != 2)
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: not found "
				 "in /sys/dev/block", real);
	/* what no other run changes, before the claim (the root disk is
	 * not even claimed), then the claim: a device another run holds is
	 * that run's, whatever else it is now */
	if (check_backing(real, name, disk, rundir, workdir, d))
		return -1;
	if (blkdev_attr(why, sizeof(why), "/sys/class/block/%s/ro", name))
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: cannot "
				 "tell whether it is read-only", real);
	if (strcmp(why, "0"))
		return diag_fail(d, DIAG_REFUSED, 0, "refusing %s: it is "
				 "read-only", real);
	rc = devclaim_take(&t->claim, st.st_rdev, makedev(ma, mi),
			   rundir ? rundir : "", getpid(), &claim);
	if (rc)
		diag_fail(d, DIAG_REFUSED, 0, "refusing %s: %s%s",
			  resolved(a, sizeof(a), device, real),
			  rc > 0 ? "it is in use by " : "", claim.msg);
	diag_release(&claim);
	if (rc)
		return -1;
	if (guard(t, device, real, st.st_rdev, name, disk, wipe, own,
		  identity, d)) {
		devclaim_release(&t->claim);
		return -1;
	}
	return 0;
}
