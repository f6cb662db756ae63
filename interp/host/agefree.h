/* agefree: a mounted filesystem's free space as extents, for agemeasure. */
#ifndef FSPLAN_AGEFREE_H
#define FSPLAN_AGEFREE_H

#include <stdint.h>

/* How many free extents, and the median one's size in KiB. */
struct agefree {
	double extents;
	double p50_kib;
};

/*
 * The free extents of the filesystem open at fd, as FS_IOC_GETFSMAP
 * lists them (records owned by FMR_OWN_FREE, as the filesystem splits
 * them: ext4 at its block groups, xfs at its allocation groups). 0, or
 * -errno (-EOPNOTSUPP, -ENOTTY, -EINVAL where the filesystem has no
 * GETFSMAP; -ENOMEM).
 */
int agefree_getfsmap(int fd, struct agefree *out);

/*
 * The same from the filesystem's own tool on dev (the filesystem of type
 * fstype, of blocks of bsize bytes, open at fd): e2freefrag for ext2/3/4,
 * xfs_db -r freesp for xfs. how is then "e2freefrag" or "xfs_db". 0, or
 * -1 when there is no tool for fstype or it cannot say.
 */
int agefree_tool(int fd, const char *dev, const char *fstype,
		 uint64_t bsize, struct agefree *out, char how[16]);

/*
 * The same from a tool's output: e2freefrag's histogram ("Free extents"
 * and "Free Blocks" per size range, of "Blocksize:" bytes) or xfs_db
 * freesp -s's table (from, to, extents, blocks per range, of bsize
 * bytes), less the blocks on the free lists that the text's lines
 * "flcount = N" count (xfs_db counts each as a free extent of one block;
 * to GETFSMAP they are the allocation group's). The count is exact; the median is bucket-resolution: the mean
 * size of the extents in the range that holds the median extent (exact
 * when that range holds one size). 0, or -1 when text has no table.
 */
int agefree_e2freefrag(const char *text, struct agefree *out);
int agefree_xfs_db(const char *text, uint64_t bsize, struct agefree *out);

#endif
