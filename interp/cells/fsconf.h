/* fsconf: a filesystem config's mkfs and mount commands, as shown. */
#ifndef FSPLAN_FSCONF_H
#define FSPLAN_FSCONF_H

#include "cells/expand.h"
#include "util/strbuf.h"

/*
 * The commands a config will run, for `expand`, the manifest and the
 * log, appended to b: dev is the device (NULL: LOOPDEV, or
 * target.device), dir the mount point (NULL: MOUNTPOINT). 0, or -1 out
 * of memory (b->oom).
 */
int fsconf_mkfs_cmd(const struct plan *p, const struct fsconf *fc,
		    const char *dev, struct strbuf *b);
int fsconf_mount_cmd(const struct plan *p, const struct fsconf *fc,
		     const char *dev, const char *dir, struct strbuf *b);

#endif
