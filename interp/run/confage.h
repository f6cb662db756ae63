/* confage: a config aged after its mount (DESIGN.md §10), its image kept. */
#ifndef FSPLAN_CONFAGE_H
#define FSPLAN_CONFAGE_H

#include "run/live.h"
#include "util/diag.h"

/*
 * Whether config l's filesystem comes from its kept aged image instead
 * of mkfs: an age with reuse, on a loop image, whose aged image the run
 * kept (an earlier round of this run, or of the run a --resume goes on)
 * and recorded in the manifest (configs[i].age_kept).
 */
int confage_kept(const struct run *r, const struct live *l);

/*
 * Volume 0's device (attached, not yet mounted) written from the kept
 * image, data only (the image is sparse, the device new and zero), its
 * sha256 taken on the way and checked against the manifest's: a kept
 * image that changed is refused. 0, or -1 with d.
 */
int confage_restore(struct run *r, struct live *l, struct diag *d);

/*
 * After the mount, before the work directory: a config with an age not
 * none aged (as runas, in a child, in MNT/fsplan-aged) and measured, or
 * when restored only measured; its rows (age_*) written; with reuse on
 * a loop image, the filesystem unmounted, its image kept in the run
 * directory's aged/ (sha256 in the manifest), and mounted again. Nothing
 * for a config without age. 0, or -1 with d.
 */
int confage_up(struct run *r, struct live *l, int restored, struct diag *d);

/* After the config's last phase run, before its unmount: an aged
 * config measured again, as the phases left it (age_end_* rows:
 * fill_pct, files, layout_score, extents_per_file, free_extents). */
void confage_end(struct run *r, struct live *l);

/* At the run's end: a run that completed with no failed phase run has
 * nothing to resume, and its kept images go (the manifest keeps their
 * sha256s). */
void confage_forget(struct run *r);

#endif
