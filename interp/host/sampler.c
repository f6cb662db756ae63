/* sampler: root's probes of a phase run, one set of points per interval. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/sampler.h"
#include "util/clock.h"
#include "util/file.h"

/* A process tree deeper or wider than this is not a phase's. */
#define TREE_MAX	4096

int sampler_devstat(const char *name, struct sampler_dev *d)
{
	unsigned long long f[10];
	char path[128], buf[512];

	snprintf(path, sizeof(path), "/sys/class/block/%s/stat", name);
	if (file_read_text(path, buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7],
		   &f[8], &f[9]) != 10)
		return -1;
	d->rd_ios = f[0];
	d->rd_sect = f[2];
	d->wr_ios = f[4];
	d->wr_sect = f[6];
	d->inflight = f[8];
	d->io_ticks = f[9];
	return 0;
}

void sampler_init(struct sampler *sm, double interval_s,
		  const struct memcg *mc)
{
	memset(sm, 0, sizeof(*sm));
	sm->interval_s = interval_s > 0 ? interval_s : 0;
	sm->mc = mc && mc->dir[0] ? mc : NULL;
	sm->cpu_prev = -1;
}

void sampler_dev(struct sampler *sm, const char *name, const char *vol)
{
	int i = sm->n_dev;

	if (i >= PLAN_MAX_VOLUMES || strlen(name) >= sizeof(sm->dev[0]))
		return;
	memcpy(sm->dev[i], name, strlen(name) + 1);
	sm->vol[i] = vol;
	sm->n_dev++;
}

/* Our child's pid in /proc, which is the host's: a child in our PID
 * namespace has another number there (NSpid's last is ours). */
static pid_t proc_pid_of(pid_t pid)
{
	char path[64], buf[4096], *at, *nl, *last;
	pid_t found = -1;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	while (d && found < 0 && (e = readdir(d))) {
		char kids[4096], *p, *end;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.16s/children",
			 e->d_name);
		if (file_read_text(path, kids, sizeof(kids)) < 0)
			continue;
		for (p = kids; found < 0; p = end) {
			long c = strtol(p, &end, 10);

			if (end == p)
				break;
			snprintf(path, sizeof(path), "/proc/%ld/status", c);
			if (file_read_text(path, buf, sizeof(buf)) < 0 ||
			    !(at = strstr(buf, "\nNSpid:")))
				continue;
			nl = strchr(at + 1, '\n');
			if (nl)
				*nl = '\0';
			last = strrchr(at, '\t');
			last = last ? last : strrchr(at, ' ');
			if (last && strtol(last + 1, NULL, 10) == pid)
				found = (pid_t)c;
		}
	}
	if (d)
		closedir(d);
	return found;
}

/* CPU seconds of process p (its own, and its reaped children's), and
 * of its children's trees, through every thread's children file; -1
 * when p is not there. */
static double tree_cpu(long p, int *budget, long hz)
{
	unsigned long long u, s, cu, cs;
	char path[96], buf[1024], *at;
	double sum;
	DIR *d;
	struct dirent *e;

	if (--*budget < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", p);
	if (file_read_text(path, buf, sizeof(buf)) < 0 ||
	    !(at = strrchr(buf, ')')) ||
	    sscanf(at + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
		   "%llu %llu %llu %llu", &u, &s, &cu, &cs) != 4)
		return -1;
	sum = (double)(u + s + cu + cs) / hz;
	snprintf(path, sizeof(path), "/proc/%ld/task", p);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		char kids[4096], *q, *end;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%.16s/children",
			 p, e->d_name);
		if (file_read_text(path, kids, sizeof(kids)) < 0)
			continue;
		for (q = kids;; q = end) {
			long c = strtol(q, &end, 10);

			if (end == q)
				break;
			sum += fmax(0, tree_cpu(c, budget, hz));
		}
	}
	if (d)
		closedir(d);
	return sum;
}

/* The child's CPU seconds so far, or -1 unknown. */
static double child_cpu(struct sampler *sm)
{
	long hz = sysconf(_SC_CLK_TCK);
	int budget = TREE_MAX;
	double s = sm->mc ? memcg_cpu_s(sm->mc) : -1;

	/* a v2 cgroup counts every thread and process it ever held */
	if (s >= 0)
		return s;
	if (sm->pid <= 0 || hz <= 0)
		return -1;
	if (!sm->proc_pid)
		sm->proc_pid = proc_pid_of(sm->pid);
	if (sm->proc_pid < 0)
		return -1;
	return tree_cpu(sm->proc_pid, &budget, hz);
}

/* Dirty and Writeback of /proc/meminfo, in MiB (-1 unknown). */
static void meminfo(double *dirty, double *wb)
{
	char buf[8192], *at;

	*dirty = *wb = -1;
	if (file_read_text("/proc/meminfo", buf, sizeof(buf)) < 0)
		return;
	if ((at = strstr(buf, "\nDirty:")))
		*dirty = strtod(at + 7, NULL) / 1024;
	if ((at = strstr(buf, "\nWriteback:")))
		*wb = strtod(at + 11, NULL) / 1024;
}

static void point(struct sampler *sm, double t, const char *metric,
		  const char *vol, double v, const char *unit)
{
	char name[METRICS_METRIC_LEN + 1];

	if (v < 0)
		return;
	/* a probe's figure has no 17 digits: four decimals keep
	 * timeseries.csv small (an hour at 1 s, a few MiB) */
	v = round(v * 1e4) / 1e4;
	snprintf(name, sizeof(name), "%s%s%s", metric, vol ? "_" : "",
		 vol ? vol : "");
	if (series_add(&sm->s, t, name, v, unit) == -1)
		sm->lost = 1;
}

/* One device's (or the sum's) points over dt seconds. */
static void dev_points(struct sampler *sm, double t, double dt,
		       const struct sampler_dev *a, const char *vol)
{
	point(sm, t, "dev_read_mbs", vol, a->rd_sect * 512.0 / 1048576 / dt,
	      "MiB/s");
	point(sm, t, "dev_write_mbs", vol, a->wr_sect * 512.0 / 1048576 / dt,
	      "MiB/s");
	point(sm, t, "dev_read_iops", vol, a->rd_ios / dt, "1/s");
	point(sm, t, "dev_write_iops", vol, a->wr_ios / dt, "1/s");
	/* io_ticks are ms the device had a request in flight */
	point(sm, t, "dev_busy_pct", vol,
	      a->io_ticks / (dt * 1000) * 100 > 100 ? 100 :
	      a->io_ticks / (dt * 1000) * 100, "%");
	point(sm, t, "dev_inflight", vol, (double)a->inflight, "");
}

/* The devices' differences since the last sample, summed, and each
 * volume's when there are several. */
static void devices(struct sampler *sm, double t, double dt)
{
	struct sampler_dev sum = { 0 }, now, dif[PLAN_MAX_VOLUMES];
	int n = 0, read[PLAN_MAX_VOLUMES] = { 0 };

	for (int i = 0; i < sm->n_dev; i++) {
		struct sampler_dev *b = &sm->prev[i];

		if (!sm->dev_ok[i] || sampler_devstat(sm->dev[i], &now))
			continue;
		read[i] = 1;
		dif[i] = (struct sampler_dev){ now.rd_ios - b->rd_ios,
			now.rd_sect - b->rd_sect, now.wr_ios - b->wr_ios,
			now.wr_sect - b->wr_sect, now.io_ticks - b->io_ticks,
			now.inflight };
		*b = now;
		sum.rd_ios += dif[i].rd_ios;
		sum.rd_sect += dif[i].rd_sect;
		sum.wr_ios += dif[i].wr_ios;
		sum.wr_sect += dif[i].wr_sect;
		sum.inflight += dif[i].inflight;
		/* busy: the busiest, as iostat's %util of the set */
		if (dif[i].io_ticks > sum.io_ticks)
			sum.io_ticks = dif[i].io_ticks;
		n++;
	}
	if (!n)
		return;
	dev_points(sm, t, dt, &sum, NULL);
	for (int i = 0; sm->n_dev > 1 && i < sm->n_dev; i++)
		if (read[i] && sm->vol[i])
			dev_points(sm, t, dt, &dif[i], sm->vol[i]);
}

/* The points of the interval that ends now, at t_s t (its nominal end,
 * which the child's points share: a table pivoted on t_s lines them up;
 * the rates are over the real dt); cpu_s >= 0: the child's CPU so far,
 * when /proc no longer has it. */
static void sample(struct sampler *sm, double now, double t, double cpu_s)
{
	double dt = now - sm->last, dirty, wb, cpu;

	if (dt <= 0)
		return;
	devices(sm, t, dt);
	meminfo(&dirty, &wb);
	point(sm, t, "dirty_mib", NULL, dirty, "MiB");
	point(sm, t, "writeback_mib", NULL, wb, "MiB");
	cpu = child_cpu(sm);
	if (cpu < 0 || (cpu_s >= 0 && cpu_s > cpu))
		cpu = cpu_s;
	if (cpu >= 0 && sm->cpu_prev >= 0)
		point(sm, t, "cpu_pct", NULL, cpu > sm->cpu_prev ?
		      (cpu - sm->cpu_prev) / dt * 100 : 0, "%");
	if (cpu >= 0)
		sm->cpu_prev = cpu;
	if (sm->mc)
		point(sm, t, "cgroup_mib", NULL, memcg_usage(sm->mc) / 1048576,
		      "MiB");
	sm->last = now;
	sm->n++;
}

void sampler_start(struct sampler *sm)
{
	if (!sm->interval_s || sm->t0 > 0)
		return;
	for (int i = 0; i < sm->n_dev; i++)
		sm->dev_ok[i] = !sampler_devstat(sm->dev[i], &sm->prev[i]);
	/* an exec phase starts before its fork: none of its CPU yet */
	sm->cpu_prev = sm->pid > 0 ? child_cpu(sm) : 0;
	sm->t0 = sm->last = clock_now();
}

void sampler_tick(struct sampler *sm)
{
	double now = clock_now(), end = (sm->n + 1) * sm->interval_s;

	/* a tick a little early (the poll's ms) still ends the interval;
	 * one late by less than half of it is its nominal end's */
	if (sm->t0 > 0 && now >= sm->t0 + end - 0.002)
		sample(sm, now, now - sm->t0 - end < sm->interval_s / 2 ? end :
		       now - sm->t0, -1);
}

void sampler_end(struct sampler *sm, double cpu_s)
{
	double now = clock_now();

	/* the last interval, short; one of a few ms is only noise */
	if (sm->t0 > 0 && now - sm->last > 0.01 * sm->interval_s &&
	    now - sm->last > 0.005)
		sample(sm, now, now - sm->t0, cpu_s);
}

void sampler_free(struct sampler *sm)
{
	series_free(&sm->s);
}
