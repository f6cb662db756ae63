/* mkfsinfo: what mkfs made, read back by the filesystem's own tools. */
#ifndef FSPLAN_MKFSINFO_H
#define FSPLAN_MKFSINFO_H

#include <jansson.h>

#include "util/diag.h"

/*
 * The key facts of a tool's output as a small object, or NULL when the
 * text does not have them:
 * - dumpe2fs -h (ext2/3/4): features (a list), block_size, inode_size,
 *   inode_count, flex_bg_size, journal_bytes (what it prints of them);
 * - xfs_db -r -c info, as xfs_info prints it: isize, bsize, agcount,
 *   agsize, sectsz, crc, finobt, sparse, rmapbt, reflink, bigtime,
 *   inobtcount, nrext64, blocks, imaxpct, sunit, swidth, ftype, log
 *   ("internal" or "external"), log_bytes;
 * - btrfs inspect-internal dump-super: csum_type, nodesize, sectorsize,
 *   stripesize, num_devices, incompat and compat_ro (lists of flags).
 */
json_t *mkfsinfo_ext(const char *text);
json_t *mkfsinfo_xfs(const char *text);
json_t *mkfsinfo_btrfs(const char *text);

/*
 * What mkfs made on dev, a filesystem of type just made there, read
 * with its tool (LC_ALL=C, at most 10 seconds and 64 KiB of output).
 * 0 with *out, 1 when type has no reader here (*out NULL), -1 with d
 * when the tool is missing, fails or prints what is not understood.
 */
int mkfsinfo_read(const char *type, const char *dev, json_t **out,
		  struct diag *d);

/* argv run as a filesystem's tool on dev, as mkfsinfo_read runs it
 * (LC_ALL=C, at most 10 seconds and 64 KiB): what it printed (free it),
 * or NULL with d when it cannot start, fails or prints nothing. */
char *mkfsinfo_tool(const char *const argv[], const char *dev,
		    struct diag *d);

#endif
