/* agemeasure: how aged a mounted filesystem is, measured by root. */
#ifndef FSPLAN_AGEMEASURE_H
#define FSPLAN_AGEMEASURE_H

#include <stdint.h>

#include "util/diag.h"

/* At most this many files are walked with FIEMAP: beyond it, a sample of
 * every k-th file in directory order (sampled says how many). */
#define AGEMEASURE_MAX_FILES 200000

struct age_measure {
	double fill_pct;	/* statvfs: (blocks - free) / blocks x 100 */
	uint64_t files;		/* regular files under the mount */
	uint64_t sampled;	/* of them, walked with FIEMAP */
	/* Smith and Seltzer's layout score: of the blocks of files with
	 * two blocks or more, after each file's first, the share that
	 * follows the file's previous block on the device (1.0: none
	 * fragmented); NAN when no file has two blocks */
	double layout_score;
	double extents_mean;	/* extents per file (files with data) */
	double extents_p99;
	/* free space: its extents, and the median extent's size; from
	 * FS_IOC_GETFSMAP, else the filesystem's own tool (e2freefrag,
	 * xfs_db freesp); free_how "" and NAN when none could say */
	double free_extents;
	double free_extent_p50_kib;
	char free_how[16];	/* "getfsmap", "e2freefrag", "xfs_db", "" */
};

/*
 * Measure the filesystem mounted at mnt, of type fstype, on block device
 * dev ("" for none): as root, read only (FIEMAP, GETFSMAP, statvfs, and
 * e2freefrag or xfs_db -r on dev). 0, or -1 with d (a filesystem
 * without FIEMAP leaves layout and extents NAN, not a failure).
 */
int age_measure(const char *mnt, const char *dev, const char *fstype,
		struct age_measure *out, struct diag *d);

#endif
