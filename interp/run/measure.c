/* measure: what surrounds a phase run: its cgroup, devices, the machine. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "run/conf.h"
#include "run/measure.h"
#include "run/run.h"
#include "run/runlog.h"
#include "util/file.h"

/* A small proc or sysfs file, NUL-ended; -1 if it cannot be read. */
static int read_small(const char *path, char *buf, size_t len)
{
	return file_read_text(path, buf, len) < 0 ? -1 : 0;
}

/* The cell's ram: "auto" or 0 is none. 0, or -1 with d. */
static int ram_of(struct run *r, const struct cell *c, uint64_t *ram,
		  struct diag *d)
{
	char *v;

	if (!cell_ram(r->e, c, ram))
		return 0;
	v = cell_with(r->e, c, "ram");
	diag_fail(d, DIAG_INPUT, 0, "ram: '%s' is not a size (e.g. 64M, 2G) "
		  "or auto", v ? v : "");
	free(v);
	return -1;
}

/* The sysfs name of the block device at path ("loop3", "sdb1"), from its
 * device number: by-id links and partitions alike. */
static int sysfs_name(const char *path, char *name, size_t len)
{
	char link[128], target[256], *base;
	struct stat st;
	ssize_t n;

	if (!*path || stat(path, &st) || !S_ISBLK(st.st_mode))
		return -1;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u",
		 major(st.st_rdev), minor(st.st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return -1;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) >= len)
		return -1;
	memcpy(name, base, strlen(base) + 1);
	return 0;
}

int measure_open(struct measure *m, struct run *r, const struct live *l,
		 const struct cell *c, struct child_job *job,
		 uint64_t *ram_bytes, struct diag *d)
{
	struct sysinfo si;
	struct diag mc = { 0 };

	memset(m, 0, sizeof(*m));
	sampler_init(&m->sm, r->plan->phases[c->phase].interval_s, NULL);
	m->out.peak_bytes = m->out.load_1m = m->out.others_cpu_s = -1;
	m->out.others_cores = m->out.others_user_s = -1;
	m->out.steal_s = m->out.steal_cores = -1;
	m->out.ram_mib = -1;
	if (!sysinfo(&si))
		m->out.ram_mib = (double)si.totalram * si.mem_unit / 1048576;
	for (int i = 0; i < l->n_vol; i++) {
		if (sysfs_name(l->vol[i].dev, m->dev[m->n_dev],
			       sizeof(m->dev[0])))
			continue;	/* tmpfs, target.dir: no device */
		m->dev_vol[m->n_dev] = l->volumes ? l->vol[i].name : NULL;
		sampler_dev(&m->sm, m->dev[m->n_dev], m->dev_vol[m->n_dev]);
		m->n_dev++;
	}
	m->out.loop_io = conf_loop_io(l);
	if (ram_of(r, c, &m->ram, d))
		return -1;
	if (!m->ram) {
		m->out.ram_limit = memcg_kind_name(MEMCG_NONE);
		return 0;
	}
	m->out.ram_mib = (double)m->ram / 1048576;
	if (memcg_make(&m->mc, m->ram, r->pid, (unsigned)(c - r->e->cells),
		       &mc)) {
		if (m->mc.kind != MEMCG_NONE ||
		    strncmp(mc.msg, "no memory", 9)) {
			diag_fail(d, mc.kind, 0, "ram: %s", mc.msg);
			d->err = mc.err;
			return -1;
		}
		/* the host cannot limit it: the rows say none applied */
		runlog("%s: ram is not enforced: %s", c->id, mc.msg);
		m->out.ram_limit = memcg_kind_name(MEMCG_NONE);
		*ram_bytes = m->ram;
		return 0;
	}
	m->out.ram_limit = memcg_kind_name(m->mc.kind);
	m->sm.mc = &m->mc;
	job->cgroup = m->mc.dir;
	*ram_bytes = m->ram;
	return 0;
}

/* The machine's busy CPU time so far, in seconds (/proc/stat's cpu line:
 * user, nice, system, irq, softirq, steal; guest is inside user), in
 * *user its user-mode part (user, nice), and in *steal the time a
 * hypervisor ran others on this machine's CPUs (0 on bare metal). */
static double busy_s(double *user, double *steal)
{
	unsigned long long v[8] = { 0 };
	char buf[512];
	long hz = sysconf(_SC_CLK_TCK);

	if (read_small("/proc/stat", buf, sizeof(buf)) ||
	    sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8 ||
	    hz <= 0)
		return -1;
	*user = (double)(v[0] + v[1]) / hz;
	*steal = (double)v[7] / hz;
	return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz;
}

static int dev_read(const char *name, struct devstat *d)
{
	struct sampler_dev sd;

	if (sampler_devstat(name, &sd))
		return -1;
	*d = (struct devstat){ sd.rd_ios, sd.rd_sect, sd.wr_ios, sd.wr_sect,
			       sd.io_ticks };
	return 0;
}

void measure_start(struct measure *m)
{
	for (int i = 0; i < m->n_dev; i++)
		if (dev_read(m->dev[i], &m->before[i]))
			m->dev[i][0] = '\0';
	m->busy_before = busy_s(&m->user_before, &m->steal_before);
}

void measure_setup_done(void *ctx)
{
	struct measure *m = ctx;
	struct devstat d;

	for (int i = 0; i < m->n_dev; i++)
		if (m->dev[i][0] && !dev_read(m->dev[i], &d))
			m->before[i] = d;
	sampler_start(&m->sm);
}

void measure_stop(struct measure *m, struct child_result *res)
{
	double user, steal, busy = busy_s(&user, &steal);
	char buf[128];
	long kills;

	sampler_end(&m->sm, res->user_s + res->sys_s);
	for (int i = 0; i < m->n_dev; i++) {
		struct devstat a, *b = &m->before[i];
		struct devstat *o = &m->out.dev[m->out.n_dev];

		if (!m->dev[i][0] || dev_read(m->dev[i], &a))
			continue;
		o->rd_ios = a.rd_ios - b->rd_ios;
		o->rd_sect = a.rd_sect - b->rd_sect;
		o->wr_ios = a.wr_ios - b->wr_ios;
		o->wr_sect = a.wr_sect - b->wr_sect;
		o->io_ticks = a.io_ticks - b->io_ticks;
		m->out.dev_vol[m->out.n_dev++] = m->dev_vol[i];
	}
	if (busy >= 0 && m->busy_before >= 0) {
		/* ticks against rusage: not below 0 */
		m->out.others_cpu_s = fmax(0, busy - m->busy_before -
					   res->user_s - res->sys_s);
		/* the disturbance: others' user-mode CPU; the kernel's
		 * threads that serve the phase's own I/O (the loop device's
		 * workers, writeback) run in kernel mode, and would make
		 * every I/O-bound phase look disturbed */
		m->out.others_user_s = fmax(0, user - m->user_before -
					    res->user_s);
		/* a neighbour on the host: the phase's own CPUs were taken
		 * from it, which no load average shows */
		m->out.steal_s = fmax(0, steal - m->steal_before);
		if (res->seconds > 0) {
			m->out.others_cores = m->out.others_user_s /
					      res->seconds;
			m->out.steal_cores = m->out.steal_s / res->seconds;
		}
	}
	if (!read_small("/proc/loadavg", buf, sizeof(buf)))
		m->out.load_1m = strtod(buf, NULL);
	if (!m->mc.dir[0])
		return;
	m->out.peak_bytes = memcg_peak(&m->mc);
	kills = memcg_oom_kills(&m->mc);
	if (kills > 0) {
		double cache = memcg_cache_bytes(&m->mc);
		char left[160] = "", what[96];

		/* most of the limit still page cache: the kernel did not
		 * reclaim it in time, the phase's own memory did not fill */
		if (cache > 0.5 * (double)m->ram)
			snprintf(left, sizeof(left), "; %.1f MiB of it page "
				 "cache the kernel had not reclaimed",
				 cache / 1048576);
		/* a process of it killed is a phase that did not do what
		 * it says, even when its command went on to exit 0 */
		if (res->ok)
			snprintf(what, sizeof(what), "killed %ld of its "
				 "processes, and it went on without them",
				 kills);
		else
			snprintf(what, sizeof(what), "ended it");
		child_set_reason(res, "ram %.0f MiB is too small for this "
				 "phase: the memory cgroup's OOM killer %s "
				 "(peak %.1f MiB%s)", (double)m->ram / 1048576,
				 what, m->out.peak_bytes / 1048576, left);
	}
}

void measure_close(struct measure *m, const struct cell *c)
{
	int rc = memcg_remove(&m->mc);

	sampler_free(&m->sm);

	if (rc)
		runlog("%s: cannot remove the memory cgroup %s: %s", c->id,
		       m->mc.dir, strerror(-rc));
}
