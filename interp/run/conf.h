/* conf: a config's filesystems attached, made, mounted, unmounted, freed. */
#ifndef FSPLAN_CONF_H
#define FSPLAN_CONF_H

#include <limits.h>
#include <stddef.h>

#include "run/live.h"
#include "run/run.h"
#include "util/diag.h"
#include "util/strbuf.h"

/* The directory whose filesystem is volume i's. */
const char *conf_vol_dir(const struct live *l, int i);
/* Whether every volume is mounted (after a remount, say). */
int conf_mounted(const struct live *l);

/* How the config's loop images are read and written now (a setup hook
 * may have changed it): "direct" when every one is with O_DIRECT (the
 * host's page cache holds none of them), "buffered" when one is not,
 * NULL without images. */
const char *conf_loop_io(const struct live *l);
/* Every process a phase left behind killed and reaped (we are init). */
void conf_sweep(void);
/* The filesystems made and mounted (or target.dir entered), and a fresh
 * work directory for the phases. 0, or -1 with d. */
int conf_up(struct run *r, struct live *l, struct diag *d);
/* Whatever conf_up got to, undone, and the manifest written. */
void conf_down(struct run *r, struct live *l);

/* At the start of a run on loop images: a warning (stderr and the log)
 * when the workdir has less room than one config's images may take. */
void conf_workdir_warn(struct run *r);
/* A failure's reason, or (in buf) the reason and that the workdir is
 * full, when the config's images could still grow and it has no room:
 * the phase's I/O error was the loop device's. */
const char *conf_workdir_full(const struct run *r, const struct live *l,
			      const char *reason, char *buf, size_t len);

#endif
