/* conf: a config's filesystems attached, made, mounted, unmounted, freed. */
#ifndef FSPLAN_CONF_H
#define FSPLAN_CONF_H

#include <limits.h>
#include <stddef.h>

#include "run/run.h"
#include "util/diag.h"
#include "util/strbuf.h"

/* One filesystem of a config: the config's only one, or one of its
 * target.volumes, mounted on the work directory's NAME/. */
struct vol {
	const char *name;	/* NULL: no volumes */
	char dev[256];		/* the block device, or "" */
	char mnt[PATH_MAX];	/* where it is mounted */
	struct target_dev td;	/* its image */
	int mounted;
	int point;		/* mnt is a directory we made */
};

/* Where one config lives while its cells run. */
struct live {
	struct fsconf *fc;
	char *cid;		/* the config's id: label[/axes] (grown) */
	struct vol vol[PLAN_MAX_VOLUMES];
	int n_vol;		/* 1 without volumes */
	int volumes;		/* target.volumes: vol[i].name are set */
	char work[PATH_MAX];	/* the phases' directory */
	int bound;		/* target.dir's work bound on the mount point */
	char bound_work[PATH_MAX];	/* the directory bound there */
	int round;		/* order: rounds: the round, 0 without */
	char *cell;		/* its own rows' cell: cid, or cid#round */
};

/* The directory whose filesystem is volume i's. */
const char *conf_vol_dir(const struct live *l, int i);
/* Whether every volume is mounted (after a remount, say). */
int conf_mounted(const struct live *l);

/* How the config's loop images are read and written now (a setup hook
 * may have changed it): "direct" when every one is with O_DIRECT (the
 * host's page cache holds none of them), "buffered" when one is not,
 * NULL without images. */
const char *conf_loop_io(const struct live *l);
/* The top-level axes of a config (and a cell's own, with c) as k=v;k=v,
 * appended to b. 0, or -1 out of memory (b->oom). */
int conf_axes(const struct expansion *e, const struct cell *c,
	      const struct fsconf *fc, struct strbuf *b);
/* The results.csv key of a cell, or of the config itself (c NULL); its
 * params in params, which the caller frees. */
void conf_key(struct run *r, const struct live *l, const struct cell *c,
	      struct strbuf *params, struct csv_key *k);
/* A config's own figure (mkfs_s, ...). */
void conf_metric(struct run *r, const struct live *l, const char *metric,
		 double secs);
/* One of another unit (age_fill_pct in "%"). */
void conf_value(struct run *r, const struct live *l, const char *metric,
		const char *unit, double v);
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
