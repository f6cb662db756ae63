/* target: where filesystems are made — loop images, guarded devices, dirs. */
#ifndef FSPLAN_TARGET_H
#define FSPLAN_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "host/devclaim.h"
#include "util/diag.h"

/* Exit status for refusals (DESIGN.md section 1). */
#define TARGET_REFUSED 3

struct target_dev {
	char path[256];		/* the block device to mkfs: /dev/loopN or the device */
	int fd;			/* held open (loop: keeps AUTOCLEAR from firing early) */
	char image[4096];	/* the image file, or "" */
	int lock_fd;		/* flock on the image while it is ours */
	struct devclaim claim;	/* a device's, for the whole run */
	int dio;		/* loop: it reads its file with O_DIRECT */
	/* device: what it carries is the run's own (a resumed run's, found
	 * by the guard, or made by this run's first mkfs) */
	int ours;
};

/*
 * Loop images. target_image_create makes a sparse file of `bytes` in
 * workdir named fsplan-<pid>-<n>.img, holds an exclusive flock on it, and
 * attaches it with LOOP_CTL_GET_FREE + LOOP_CONFIGURE, LO_FLAGS_AUTOCLEAR
 * (retrying on EBUSY) and LO_FLAGS_DIRECT_IO (without it where the
 * image's filesystem refuses O_DIRECT; t->dio says what applied). The
 * loop fd stays open in t->fd until target_release, which closes it and
 * deletes the image (and lets go of a target.device and its claim).
 */
int target_image_create(struct target_dev *t, const char *workdir,
			uint64_t bytes, int n, struct diag *d);
void target_release(struct target_dev *t);

/* What dir's filesystem has free (for anyone, root's reserve left out)
 * in *avail, and its size in *size: 0, or -errno. */
int target_dir_free(const char *dir, uint64_t *avail, uint64_t *size);
/* How much t's sparse image may still grow: its size less what its
 * filesystem holds of it (0 without an image). */
uint64_t target_image_growth(const struct target_dev *t);

/* Whether the loop device at path (/dev/loopN) reads and writes its file
 * with direct I/O now, as its sysfs says: 1, 0, or -1 (not a loop
 * device, or unknown). */
int target_loop_dio(const char *path);

/*
 * Remove images that earlier runs left in workdir (after a SIGKILL):
 * fsplan-*.img files that nobody holds a flock on. Returns how many.
 */
int target_clean_stale(const char *workdir);

/*
 * A real block device, guarded as DESIGN.md section 6 says. Refuse
 * (return -1, d filled, its kind DIAG_REFUSED) unless `destroy` (the --destroy
 * argument) names the same device as the plan; when an O_EXCL open
 * fails (mounted, swap, held); when /sys/class/block/X/holders is not
 * empty or a partition of it is in use; when it backs /, rundir or
 * workdir; when it is read-only; when libblkid finds a filesystem,
 * partition table or RAID/LVM/LUKS signature and wipe is 0 — unless it
 * is own, a resumed run's own filesystem: its UUID ("" when the run
 * stopped in a mkfs), NULL for none (t->ours then says so). On success
 * t->fd is the O_EXCL fd and *identity a JSON object (by-id names, size,
 * model, serial, rotational, scheduler) for the manifest. Nothing is
 * written to the device here.
 *
 * Before the checks that another run's work would trip (mounted, held,
 * in use, a signature) the device is claimed for the whole run
 * (devclaim.h), in t->claim: a device another run holds is refused ("it
 * is in use by fsplan run R (pid N)"). target_release lets go of it; so
 * does the exit of the run's last process, SIGKILL included. Every
 * fsplan honours the claim; nothing else does.
 */
int target_device_open(struct target_dev *t, const char *device,
		       const char *destroy, int wipe, const char *own,
		       const char *rundir, const char *workdir,
		       json_t **identity, struct diag *d);

/* The UUID libblkid finds on dev's filesystem. 0, or -1 (cannot open
 * or probe it, no filesystem, or one without a UUID). */
int target_device_uuid(const char *dev, char *uuid, size_t len);

#endif
