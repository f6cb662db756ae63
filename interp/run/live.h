/* live: a config while its cells run — where it lives, and its own rows. */
#ifndef FSPLAN_LIVE_H
#define FSPLAN_LIVE_H

#include <limits.h>
#include <stddef.h>

#include "run/run.h"
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

/* The top-level axes of a config (and a cell's own, with c) as k=v;k=v,
 * appended to b. 0, or -1 out of memory (b->oom). */
int live_axes(const struct expansion *e, const struct cell *c,
	      const struct fsconf *fc, struct strbuf *b);
/* The results.csv key of a cell, or of the config itself (c NULL); its
 * params in params, which the caller frees. */
void live_key(struct run *r, const struct live *l, const struct cell *c,
	      struct strbuf *params, struct csv_key *k);
/* A config's own figure (mkfs_s, ...). */
void live_metric(struct run *r, const struct live *l, const char *metric,
		 double secs);
/* One of another unit (age_fill_pct in "%"). */
void live_value(struct run *r, const struct live *l, const char *metric,
		const char *unit, double v);
#endif
