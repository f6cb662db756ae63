/* sampler: root's probes of a phase run, one set of points per interval. */
#ifndef FSPLAN_SAMPLER_H
#define FSPLAN_SAMPLER_H

#include <stdint.h>
#include <sys/types.h>

#include "host/memcg.h"
#include "plan/types.h"
#include "results/series.h"

/* /sys/block/<dev>/stat's counters (sectors are 512 bytes), and the
 * requests in flight when it was read. */
struct sampler_dev {
	uint64_t rd_ios, rd_sect, wr_ios, wr_sect, io_ticks, inflight;
};

/* A block device's counters now (name as in /sys/class/block): 0, or
 * -1 when it cannot be read. */
int sampler_devstat(const char *name, struct sampler_dev *d);

/*
 * What root samples of a phase run (DESIGN.md section 8): its devices'
 * rates, busy share and queue, the machine's Dirty and Writeback, the
 * child's CPU (its cgroup's when v2, else its process tree's in /proc)
 * and its memory cgroup's usage. Every point's t_s is the real end of
 * its interval, seconds since the timed start.
 */
struct sampler {
	double interval_s;		/* 0: no sampling */
	double t0;			/* the timed start, clock_now(); 0
					 * until sampler_start */
	double last;			/* the last sample's time */
	int n;				/* samples taken */
	pid_t pid;			/* the child, as its fork gave it */
	pid_t proc_pid;		/* the same in /proc; 0 not looked
					 * for, -1 not there */
	int n_dev;
	char dev[PLAN_MAX_VOLUMES][64];	/* sysfs names */
	const char *vol[PLAN_MAX_VOLUMES];	/* a volume's name, or NULL */
	struct sampler_dev prev[PLAN_MAX_VOLUMES];
	int dev_ok[PLAN_MAX_VOLUMES];
	const struct memcg *mc;		/* the child's cgroup, or NULL */
	double cpu_prev;		/* its CPU seconds at the last sample,
					 * < 0 unknown */
	struct series s;		/* the points so far */
	int lost;			/* a point could not be kept */
};

/* Sampling at interval_s (0: none) of devices added with sampler_dev,
 * and of mc's cgroup when it has a directory (mc may be NULL). */
void sampler_init(struct sampler *sm, double interval_s,
		  const struct memcg *mc);
/* One more device (its sysfs name), vol the volume it holds or NULL. */
void sampler_dev(struct sampler *sm, const char *name, const char *vol);

/* The timed start: the counters read as the base of the first interval. */
void sampler_start(struct sampler *sm);
/* From the child's ticks: a sample when an interval has ended. */
void sampler_tick(struct sampler *sm);
/* The child reaped: the last (short) interval, its CPU the whole
 * child's cpu_s (its rusage) when /proc has no more of it. */
void sampler_end(struct sampler *sm, double cpu_s);

void sampler_free(struct sampler *sm);

#endif
