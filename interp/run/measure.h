/* measure: what surrounds a phase run: its cgroup, devices, the machine. */
#ifndef FSPLAN_MEASURE_H
#define FSPLAN_MEASURE_H

#include <stdint.h>

#include "host/child.h"
#include "host/memcg.h"
#include "host/sampler.h"
#include "plan/types.h"
#include "run/sink.h"

struct run;
struct live;
struct cell;

struct measure {
	struct memcg mc;
	uint64_t ram;			/* the limit asked for; 0: none */
	int n_dev;
	char dev[PLAN_MAX_VOLUMES][64];	/* the block device's sysfs name */
	const char *dev_vol[PLAN_MAX_VOLUMES];
	struct devstat before[PLAN_MAX_VOLUMES];
	double busy_before;		/* /proc/stat, seconds */
	double user_before;		/* its user-mode part */
	double steal_before;		/* its steal part */
	struct measured out;
	struct sampler sm;		/* root's points over time */
};

/*
 * Before the fork of cell c: its `ram` (a size; "auto" or 0: none), the
 * memory cgroup made for it and named in job (ctx.ram_bytes becomes the
 * limit), the devices its config's filesystems are on. 0, or -1 with d
 * (a bad ram value, a cgroup that could not be made).
 */
int measure_open(struct measure *m, struct run *r, const struct live *l,
		 const struct cell *c, struct child_job *job,
		 uint64_t *ram_bytes, struct diag *d);

/* Right before the fork (after the between actions, whose writes are
 * not the phase's): the devices' and the machine's counters. An exec
 * phase's timed start is here: the runner starts m->sm then. */
void measure_start(struct measure *m);

/* When a Lua phase's child says its setup is done (child.h's
 * setup_done, m as ctx): the devices' counters read anew, so that their
 * rows are the workers' and teardown's, not setup's; the sampler's
 * timed start. */
void measure_setup_done(void *m);

/* Right after the child is reaped: the sampler's last interval, the
 * counters' differences, the cgroup's peak; a child the limit's OOM killer ended, or one of whose
 * processes it killed, is not ok, with a reason that says so. */
void measure_stop(struct measure *m, struct child_result *res);

/* The cgroup removed, the sampler's points freed. */
void measure_close(struct measure *m, const struct cell *c);

#endif
