/* blkdev: what sysfs, mountinfo and blkid say of a block device; reads only. */
#ifndef FSPLAN_BLKDEV_H
#define FSPLAN_BLKDEV_H

#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

/* A one-line attribute (fmt names its file), blanks trimmed; 0 or
 * -errno. */
int blkdev_attr(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The sysfs name (sda1) of a block device number; 0 or -errno. */
int blkdev_name(dev_t dev, char *name, size_t len);
/* The whole disk (sda) a sysfs block name belongs to: itself if not a
 * partition, else the directory above the partition's. */
int blkdev_disk(const char *name, char *disk, size_t len);
/* The first entry of /sys/class/block/name/dir, or "" if it is empty. */
void blkdev_first(const char *name, const char *sub, char *out, size_t len);
/*
 * Is dev mounted (by number, or by a /dev source naming it, which is how
 * btrfs shows up)? 1 with the mount point, 0 no, -errno unknown.
 */
int blkdev_mounted_at(dev_t dev, char *where, size_t len);
/*
 * The block device a path's filesystem lives on, or 0 (tmpfs, overlay).
 * A path not made yet is judged by its nearest existing parent; btrfs
 * reports an anonymous st_dev, so the mount's source names the device.
 */
dev_t blkdev_backing(const char *path);
/*
 * Does the target (sysfs name, its disk) overlap the device b, or what b
 * is built on (slaves: dm, md, loop)? Same device, a partition of it or
 * its disk all count; a sibling partition does not.
 */
int blkdev_overlaps(const char *name, const char *disk, const char *b,
		    int depth);
/* The node of a sysfs name, checked to be that device. */
int blkdev_node(const char *name, dev_t dev, char *path, size_t len);
/* Why a partition (sysfs name p, number dev) is busy, into state ("is
 * mounted at /"); "" if it is not. */
void blkdev_part_busy(const char *p, dev_t dev, const char *node,
		      char *state, size_t len);
/*
 * A partition's siblings on its disk and their state ("mounted at /",
 * "held by dm-0", "in use (...)", or "free"), for the manifest: a
 * partition whose siblings are in use is allowed (DESIGN.md section 6),
 * and whoever judges the run should see what shared the disk.
 */
json_t *blkdev_siblings(const char *disk, const char *self);
/* What names the device (path, realpath, by-id names) and what it is
 * (size, model, serial, rotational, scheduler), for the manifest. */
json_t *blkdev_identity(const char *device, const char *real,
			const char *disk, int fd);

#endif
