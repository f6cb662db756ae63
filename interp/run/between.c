/* between: the actions between phase runs: sync, drop caches, remount. */
#include <string.h>

#include "host/fs.h"
#include "run/between.h"
#include "run/runlog.h"

/* What runs before each phase run. A sync that fails means the next
 * phase would pay for this one's writes: it fails. Caches that cannot be
 * dropped only make the next read warmer, and the log says so. */
int between_run(struct live *l, const struct between *b, struct diag *d)
{
	int rc = 0;

	for (int i = 0; i < b->n; i++) {
		switch (b->act[i]) {
		case BETWEEN_SYNC:
		case BETWEEN_DROP_CACHES:
			for (int v = 0; v < l->n_vol; v++) {
				rc = fs_syncfs(conf_vol_dir(l, v));
				if (rc)
					return diag_fail(d, DIAG_SYSTEM, -rc,
							 "between: sync");
			}
			if (b->act[i] == BETWEEN_DROP_CACHES)
				rc = fs_drop_caches();
			if (rc)
				runlog("drop_caches: %s", strerror(-rc));
			break;
		case BETWEEN_REMOUNT:
			if (!l->vol[0].mounted)
				break;	/* target.dir: nothing to remount */
			if (l->fc->fs->nodev) {
				/* tmpfs would lose its files; its cache is
				 * its storage, so there is nothing to drop */
				runlog("%s: remount skipped: %s keeps its data "
				       "only while mounted", l->cid,
				       l->fc->fs->type.s);
				break;
			}
			for (int v = 0; v < l->n_vol; v++) {
				struct vol *vo = &l->vol[v];

				if (fs_umount(vo->mnt, d))
					return -1;
				vo->mounted = 0;
				if (fs_mount(l->fc->fs->type.s, l->fc->mount,
					     vo->dev, vo->mnt, d))
					return -1;
				vo->mounted = 1;
				runlog("%s: remounted %s", l->cid,
				       vo->name ? vo->name : vo->mnt);
			}
			break;
		}
	}
	return 0;
}
