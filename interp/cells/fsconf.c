/* fsconf: a filesystem config's mkfs and mount commands, as shown. */
#include <stdio.h>

#include "cells/fsconf.h"

/* The device a config's commands name: known only once it is attached. */
static const char *dev_name(const struct plan *p, const char *dev)
{
	if (dev)
		return dev;
	return p->target.kind == TARGET_DEVICE ? p->target.device : "LOOPDEV";
}

/* target.volumes: the command is run once per volume, which it says. */
static int each_volume(const struct plan *p, struct strbuf *b)
{
	if (!p->target.n_volumes)
		return b->oom ? -1 : 0;
	strbuf_str(b, " (each volume:");
	for (int i = 0; i < p->target.n_volumes; i++)
		strbuf_printf(b, " %s", p->target.volumes[i].s);
	return strbuf_str(b, ")");
}

int fsconf_mkfs_cmd(const struct plan *p, const struct fsconf *fc,
		    const char *dev, struct strbuf *b)
{
	if (p->target.kind == TARGET_DIR || fc->fs->nodev)
		return strbuf_str(b, "-");
	strbuf_printf(b, "mkfs.%s%s%s %s", fc->fs->type.s,
		      fc->mkfs[0] ? " " : "", fc->mkfs, dev_name(p, dev));
	return each_volume(p, b);
}

int fsconf_mount_cmd(const struct plan *p, const struct fsconf *fc,
		     const char *dev, const char *dir, struct strbuf *b)
{
	const char *type = fc->fs->type.s;

	if (!dir)
		dir = "MOUNTPOINT";
	if (p->target.kind == TARGET_DIR)
		return strbuf_printf(b, "- (runs in %s)", p->target.dir);
	strbuf_printf(b, "mount -t %s%s%s %s %s", type,
		      fc->mount[0] ? " -o " : "", fc->mount,
		      fc->fs->nodev ? type : dev_name(p, dev), dir);
	return each_volume(p, b);
}

