/* conf: a config's filesystems attached, made, mounted, unmounted, freed. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/child.h"
#include "host/execpath.h"
#include "host/fs.h"
#include "host/mkfsinfo.h"
#include "run/conf.h"
#include "run/confage.h"
#include "run/runlog.h"
#include "util/clock.h"

/* The directory whose filesystem is volume i's. */
const char *conf_vol_dir(const struct live *l, int i)
{
	return l->volumes ? l->vol[i].mnt : l->work;
}

int conf_mounted(const struct live *l)
{
	for (int i = 0; i < l->n_vol; i++)
		if (!l->vol[i].mounted)
			return 0;
	return 1;
}

/* A figure that failed: an earlier make's must not stand for it. */
static void conf_lost(struct run *r, const struct live *l, const char *metric)
{
	struct strbuf params = { 0 };
	struct csv_key k;

	live_key(r, l, NULL, &params, &k);
	sink_lost(&r->sink, &k, metric, "s");
	free(params.p);
}

/* A per-volume figure (mkfs_s_source); the totals are the caller's. */
static void vol_metric(struct run *r, const struct live *l, int i,
		       const char *metric, double secs)
{
	char name[128];

	if (!l->volumes)
		return;
	snprintf(name, sizeof(name), "%s_%s", metric, l->vol[i].name);
	live_metric(r, l, name, secs);
}

/* Run a root hook (setup/teardown) through the shell, output to log;
 * a stop of the run stops it when stop is set (a setup: a teardown
 * cleans up after one, and runs to its end). */
static int hook(struct run *r, struct live *l, const char *what,
		const char *cmd, int stop)
{
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	char last[256], devs[PLAN_MAX_VOLUMES * 257] = "";
	size_t n = 0;
	int rc;

	/* every volume's device, space-separated (FSPLAN_DEV: the first) */
	for (int i = 0; i < l->n_vol; i++)
		n += snprintf(devs + n, sizeof(devs) - n, "%s%s", i ? " " : "",
			      l->vol[i].dev);
	if (setenv("FSPLAN_DEV", l->vol[0].dev, 1) ||
	    setenv("FSPLAN_DEVS", devs, 1) ||
	    setenv("FSPLAN_MNT", r->mnt, 1) ||
	    setenv("FSPLAN_TYPE", l->fc->fs->type.s, 1)) {
		runlog("%s: %s: %s", l->cid, what, strerror(errno));
		/* it would run with another config's values */
		return -1;
	}
	runlog("%s: %s: %s", l->cid, what, cmd);
	rc = fs_run(argv, runlog_fd(), 3600, stop ? &r->stop : NULL, last,
		    sizeof(last));
	if (rc)
		runlog("%s: %s failed (status %d): %s", l->cid, what, rc, last);
	return rc;
}

/* Processes a phase left behind outside its group die with it: we are
 * the namespace's init, and kill(-1) reaches all but ourselves. They
 * are waited for (a server with many threads takes a moment to die: a
 * MariaDB killed at its phase's timeout), so none is left, not even as
 * a zombie, when the next phase starts; a process that will not die
 * (stuck in the kernel) is left after 10 s to the next sweep. */
void conf_sweep(void)
{
	double until = clock_now() + 10;
	pid_t pid;

	if (getpid() != 1)
		return;
	(void)kill(-1, SIGKILL);	/* ESRCH: there was none */
	while ((pid = waitpid(-1, NULL, WNOHANG)) >= 0 && clock_now() < until)
		if (pid == 0)
			usleep(1000);
}

/* A fresh directory for the phases, owned by runas. */
static int make_work(struct run *r, struct live *l, const char *parent,
		     struct diag *d)
{
	if (snprintf(l->work, sizeof(l->work), "%s/fsplan-work-%d", parent,
		     l->fc->index) >= (int)sizeof(l->work)) {
		l->work[0] = '\0';
		return diag_fail(d, DIAG_LIMIT, 0, "the work directory's path "
				 "is too long");
	}
	if (mkdir(l->work, 0700) ||
	    chown(l->work, r->runas.uid, r->runas.gid)) {
		diag_fail(d, DIAG_SYSTEM, errno, "cannot make %s", l->work);
		l->work[0] = '\0';
		return -1;
	}
	return 0;
}

/* target.dir: what the phases made goes, removed as runas (so a planted
 * symlink can reach nothing root could), then the empty top as root. */
static void remove_work(struct run *r, struct live *l)
{
	static char cmd[] = "find . -mindepth 1 -delete";
	const char *env[] = { execpath_env, NULL };
	struct child_job job = { .runas = &r->runas, .workdir = l->work,
				 .timeout_s = 600, .env = env,
				 .body = child_exec_body, .arg = cmd };
	struct child_result res;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct diag d = { 0 };

	job.out_fd = job.err_fd = null;
	if (null < 0 || child_run(&job, NULL, &res)) {
		runlog("%s: cannot empty %s: %s", l->cid, l->work,
		       strerror(errno));
	} else {
		conf_sweep();
		if (!res.ok)	/* then the rmdir below says what is left */
			runlog("%s: emptying %s: %s", l->cid, l->work,
			       child_reason(&res));
		child_result_free(&res);
	}
	if (null >= 0)
		close(null);
	if (l->bound) {
		if (fs_umount(r->mnt, &d)) {
			runlog("%s: %s", l->cid, d.msg);
			return;
		}
		l->bound = 0;
		snprintf(l->work, sizeof(l->work), "%s", l->bound_work);
	}
	if (rmdir(l->work))
		runlog("%s: cannot remove %s: %s", l->cid, l->work,
		       strerror(errno));
}

/* Volume i's block device: the guarded device, or an image of its own
 * (numbered so that every volume of every config has its own name). */
static int attach(struct run *r, struct live *l, int i, struct diag *d)
{
	struct vol *v = &l->vol[i];

	if (r->plan->target.kind == TARGET_DEVICE) {
		/* mkfs and mount open it exclusively: let go of ours */
		if (r->dev.fd >= 0) {
			close(r->dev.fd);
			r->dev.fd = -1;
		}
		snprintf(v->dev, sizeof(v->dev), "%s", r->dev.path);
		return 0;
	}
	if (target_image_create(&v->td, r->workdir,
				r->plan->target.image_bytes,
				(l->fc->index - 1) * l->n_vol + i + 1, d))
		return -1;
	if (!v->td.dio) {
		runlog("%s: %s reads and writes %s through the host's page "
		       "cache: its filesystem refused direct I/O, so reads "
		       "may come from RAM beyond any ram limit", l->cid,
		       v->td.path, v->td.image);
		/* it changes what the figures mean: not for the log alone,
		 * and said as the config starts, where its rows begin */
		if (!r->quiet)
			fprintf(stderr, "fsplan: %s: the loop image is "
				"buffered by the host (%s refuses direct "
				"I/O): reads may come from its RAM; a "
				"--workdir on another filesystem avoids it\n",
				l->cid, r->workdir);
	}
	/* one struct holds both: memcpy, which -Wrestrict does not doubt */
	_Static_assert(sizeof(v->dev) == sizeof(v->td.path), "dev's size");
	memcpy(v->dev, v->td.path, sizeof(v->dev));
	v->dev[sizeof(v->dev) - 1] = '\0';
	return 0;
}

/* Volume i mounted (timed) and its applied options read back. The
 * mount point of a volume is NAME/ in the work directory, its root
 * given to runas: the phases see it as a directory of their own. */
static int mount_vol(struct run *r, struct live *l, int i, double *total,
		     json_t *applied_all, struct diag *d)
{
	const struct fsconf *fc = l->fc;
	struct vol *v = &l->vol[i];
	char applied[1024];
	double t;

	if (l->volumes) {
		if (snprintf(v->mnt, sizeof(v->mnt), "%s/%s", l->work,
			     v->name) >= (int)sizeof(v->mnt) ||
		    mkdir(v->mnt, 0755))
			return diag_fail(d, DIAG_SYSTEM, errno, "cannot make "
					 "the mount point of volume %s",
					 v->name);
		v->point = 1;
	}
	t = clock_now();
	if (fs_mount(fc->fs->type.s, fc->mount,
		     fc->fs->nodev ? fc->fs->type.s : v->dev, v->mnt, d))
		return -1;
	v->mounted = 1;
	t = clock_now() - t;
	*total += t;
	vol_metric(r, l, i, "mount_s", t);
	if (l->volumes && chown(v->mnt, r->runas.uid, r->runas.gid))
		return diag_fail(d, DIAG_SYSTEM, errno, "cannot give volume %s "
				 "to the phases' user", v->name);
	/* unknown options leave the manifest without them */
	if (fs_applied_options(v->mnt, applied, sizeof(applied)))
		return 0;
	if (applied_all)
		json_object_set_new(applied_all, v->name, json_string(applied));
	if (i == 0)
		manifest_conf(r->man, fc->index - 1, "mount_applied",
			      json_string(applied));
	runlog("%s: mounted%s%s, applied options: %s", l->cid,
	       v->name ? " " : "", v->name ? v->name : "", applied);
	return 0;
}

/* How io_uring serves a lone op the probe asked about. */
static const char *way(int ring)
{
	return ring ? "inline" : "kernel thread";
}

/* What io_uring does with a lone op there (fs_probe_engine), into the
 * manifest and the log; a probe that cannot run is logged, no more. */
static void probe_engine(struct run *r, struct live *l, const char *dir)
{
	struct fs_probe p;
	struct diag d = { 0 };
	json_t *o;

	if (fs_probe_engine(dir, &p, &d)) {
		runlog("%s: %s", l->cid, d.msg);
		return;
	}
	o = json_pack("{s:s, s:s, s:s, s:s}", "read", way(p.read_ring),
		      "write", way(p.write_ring),
		      "direct_read", !p.direct ? "unsupported" :
		      way(p.direct_read_ring),
		      "direct_write", !p.direct ? "unsupported" :
		      way(p.direct_write_ring));
	if (o)
		manifest_conf(r->man, l->fc->index - 1, "engine_probe", o);
	runlog("%s: io_uring serves a buffered read %s, a buffered write %s",
	       l->cid, way(p.read_ring), way(p.write_ring));
}

const char *conf_loop_io(const struct live *l)
{
	const char *io = NULL;

	for (int i = 0; i < l->n_vol; i++) {
		if (!l->vol[i].td.image[0])
			continue;
		if (target_loop_dio(l->vol[i].dev) != 1)
			return "buffered";
		io = "direct";
	}
	return io;
}

/*
 * What the run makes on its target.device, in the manifest at once: a
 * --resume takes the filesystem found there for its own when it is this
 * one (its UUID), or anything when the run stopped in a mkfs (uuid null).
 */
static void device_fs(struct run *r, const char *type, int made)
{
	char uuid[64];
	json_t *o = json_object();

	json_object_set_new(o, "type", json_string(type));
	if (made && !target_device_uuid(r->dev.path, uuid, sizeof(uuid)))
		json_object_set_new(o, "uuid", json_string(uuid));
	else
		json_object_set_new(o, "uuid", json_null());
	manifest_set(r->man, "device_fs", o);
	sink_save(&r->sink);
}

/* What mkfs made on volume i (mkfsinfo_read), as mkfs_applied (volume
 * 0) and in made (by volume name); a tool missing or failing leaves null
 * there, its reason in the log. */
static void mkfs_applied(struct run *r, struct live *l, int i, json_t *made)
{
	struct diag d = { 0 };
	json_t *o;
	int rc = mkfsinfo_read(l->fc->fs->type.s, l->vol[i].dev, &o, &d);

	if (rc > 0)
		return;
	if (rc < 0)
		runlog("%s: what mkfs made%s%s is not recorded: %s", l->cid,
		       made ? " on " : "", made ? l->vol[i].name : "", d.msg);
	if (!o)
		o = json_null();
	if (made)
		json_object_set(made, l->vol[i].name, o);
	if (i == 0)
		manifest_conf(r->man, l->fc->index - 1, "mkfs_applied",
			      json_incref(o));
	json_decref(o);
}

/* The config's filesystems made on their devices (attached first, then
 * the setup hook, which may change them), timed; restore: written from
 * the config's kept aged image instead (confage.h). 0, or -1 with d. */
static int make_fs(struct run *r, struct live *l, int restore,
		   struct diag *d)
{
	const struct plan *p = r->plan;
	const struct fsconf *fc = l->fc;
	const char *io;
	double t, total = 0;
	json_t *made = NULL;

	for (int i = 0; !fc->fs->nodev && i < l->n_vol; i++)
		if (attach(r, l, i, d))
			return -1;
	if (fc->setup && hook(r, l, "setup", fc->setup, 1))
		return diag_fail(d, DIAG_SYSTEM, 0, "setup hook failed");
	/* after the setup hook, which may change it */
	if ((io = conf_loop_io(l)))
		manifest_conf(r->man, fc->index - 1, "loop_io",
			      json_string(io));
	if (l->volumes && !fc->fs->nodev)
		made = json_object();
	for (int i = 0; !fc->fs->nodev && i < l->n_vol; i++) {
		/* A guarded device carries what the guard allowed (nothing,
		 * or wipe: true), then only what this run's configs made:
		 * mkfs may overwrite (xfs and btrfs refuse, unforced, the
		 * ext4 of the config before). */
		int force = p->target.kind == TARGET_DEVICE &&
			    (p->target.wipe || r->dev.ours);

		if (p->target.kind == TARGET_DEVICE) {
			r->dev.ours = 1;
			device_fs(r, fc->fs->type.s, 0);
		}
		if (restore) {
			if (confage_restore(r, l, d))
				return -1;
			continue;
		}
		t = clock_now();
		if (fs_mkfs(fc->fs->type.s, fc->mkfs, l->vol[i].dev, force,
			    &r->stop, runlog_fd(), d)) {
			json_decref(made);
			return -1;
		}
		if (p->target.kind == TARGET_DEVICE)
			device_fs(r, fc->fs->type.s, 1);
		t = clock_now() - t;
		total += t;
		vol_metric(r, l, i, "mkfs_s", t);
		mkfs_applied(r, l, i, made);
	}
	if (json_object_size(made))
		manifest_conf(r->man, fc->index - 1, "mkfs_applied_volumes",
			      json_incref(made));
	json_decref(made);
	if (!fc->fs->nodev && !restore)
		live_metric(r, l, "mkfs_s", total);
	return 0;
}

/* Every volume mounted, timed, the options applied in the manifest. 0,
 * or -1 with d. */
static int mount_all(struct run *r, struct live *l, struct diag *d)
{
	json_t *applied = NULL;
	double total = 0;
	int rc = 0;

	if (l->volumes && !(applied = json_object()))
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	for (int i = 0; !rc && i < l->n_vol; i++)
		rc = mount_vol(r, l, i, &total, applied, d);
	if (applied)
		manifest_conf(r->man, l->fc->index - 1,
			      "mount_applied_volumes", applied);
	if (rc)
		return -1;
	live_metric(r, l, "mount_s", total);
	return 0;
}

/* The filesystem made and mounted (or target.dir entered), and a fresh
 * work directory on it for the phases. 0, or -1 with d. */
int conf_up(struct run *r, struct live *l, struct diag *d)
{
	const struct plan *p = r->plan;
	int is_dir = p->target.kind == TARGET_DIR;
	int kept = !is_dir && confage_kept(r, l);

	if (!is_dir && make_fs(r, l, kept, d))
		return -1;
	if (is_dir && l->fc->setup && hook(r, l, "setup", l->fc->setup, 1))
		return diag_fail(d, DIAG_SYSTEM, 0, "setup hook failed");
	/* volumes: the work directory is on our namespace's tmpfs and
	 * holds their mount points; else it is on the one filesystem */
	if (l->volumes && make_work(r, l, r->mnt, d))
		return -1;
	if (!is_dir && (mount_all(r, l, d) || confage_up(r, l, kept, d)))
		return -1;
	if (l->volumes) {
		probe_engine(r, l, l->vol[0].mnt);
		return 0;
	}
	if (make_work(r, l, is_dir ? p->target.dir : r->mnt, d))
		return -1;
	probe_engine(r, l, l->work);
	/* target.dir's fresh subdirectory is seen through the mount point
	 * when runas cannot reach where it lies (then `..` is not the
	 * target's directory); else where it is */
	if (is_dir && !privdrop_can_reach(&r->runas, p->target.dir)) {
		if (fs_bind(l->work, r->mnt, d))
			return -1;
		l->bound = 1;
		snprintf(l->bound_work, sizeof(l->bound_work), "%s", l->work);
		snprintf(l->work, sizeof(l->work), "%s", r->mnt);
	}
	return 0;
}

/* With less free than this, and less than a twentieth of its size, a
 * workdir that an image still has to grow into is full: the loop
 * device's writes fail with ENOSPC, which the filesystem under test and
 * its phase see as I/O errors while it has room itself. */
#define WORKDIR_FULL	(UINT64_C(4) << 20)

void conf_workdir_warn(struct run *r)
{
	const struct plan_target *t = &r->plan->target;
	uint64_t need, avail, size;
	int images = 0;

	for (int i = 0; i < r->e->n_confs; i++)
		images |= !r->e->confs[i].fs->nodev;
	if (t->kind != TARGET_IMAGE || !images ||
	    target_dir_free(r->workdir, &avail, &size))
		return;
	/* one config at a time, each with its volumes' images */
	need = t->image_bytes * (uint64_t)(t->n_volumes ? t->n_volumes : 1);
	if (avail >= need)
		return;
	runlog("warning: the workdir %s has %llu MiB free, less than the "
	       "%llu MiB that a config's loop images may grow to", r->workdir,
	       (unsigned long long)(avail >> 20),
	       (unsigned long long)(need >> 20));
	/* even with -q: a phase that fills it fails with I/O errors */
	fprintf(stderr, "fsplan: warning: the workdir %s has %llu MiB free, "
		"less than the %llu MiB that a config's loop images may grow "
		"to (they are sparse: they take what the phases write); when "
		"it fills up the filesystem under test sees I/O errors: give "
		"--workdir a directory with room\n", r->workdir,
		(unsigned long long)(avail >> 20),
		(unsigned long long)(need >> 20));
}

const char *conf_workdir_full(const struct run *r, const struct live *l,
			      const char *reason, char *buf, size_t len)
{
	uint64_t grow = 0, avail, size;

	for (int i = 0; i < l->n_vol; i++)
		grow += target_image_growth(&l->vol[i].td);
	if (!grow || target_dir_free(r->workdir, &avail, &size) ||
	    avail >= WORKDIR_FULL || avail >= grow || avail >= size / 20)
		return reason;
	snprintf(buf, len, "%s; the workdir %s is full (%llu MiB free): the "
		 "loop image could not grow", reason ? reason : "failed",
		 r->workdir, (unsigned long long)(avail >> 20));
	return buf;
}

/* Whatever bring_up got to, undone, and the manifest written. */
void conf_down(struct run *r, struct live *l)
{
	char lost[256];
	struct diag d = { 0 };
	double t, total = 0;
	int n = 0, failed = 0;

	conf_sweep();
	if (r->plan->target.kind == TARGET_DIR && l->work[0])
		remove_work(r, l);
	for (int i = 0; i < l->n_vol; i++) {
		struct vol *v = &l->vol[i];

		if (!v->mounted)
			continue;
		t = clock_now();
		if (fs_umount(v->mnt, &d)) {
			runlog("%s: %s", l->cid, d.msg);
			if (l->volumes) {
				snprintf(lost, sizeof(lost), "umount_s_%s",
					 v->name);
				conf_lost(r, l, lost);
			}
			failed = 1;
			continue;
		}
		v->mounted = 0;
		t = clock_now() - t;
		total += t;
		n++;
		vol_metric(r, l, i, "umount_s", t);
	}
	if (n && !failed)
		live_metric(r, l, "umount_s", total);
	else if (failed)
		conf_lost(r, l, "umount_s");
	/* what phases left in the work directory itself is on our
	 * namespace's tmpfs, which goes with the namespace */
	for (int i = 0; i < l->n_vol; i++)
		if (l->vol[i].point && !l->vol[i].mounted &&
		    rmdir(l->vol[i].mnt))
			runlog("%s: cannot remove %s: %s", l->cid,
			       l->vol[i].mnt, strerror(errno));
	if (l->volumes && l->work[0] && rmdir(l->work))
		runlog("%s: %s is left on the namespace's tmpfs: %s", l->cid,
		       l->work, strerror(errno));
	/* a failed teardown is in the log: the phase runs are recorded */
	if (l->fc->teardown)
		(void)hook(r, l, "teardown", l->fc->teardown, 0);
	for (int i = 0; i < l->n_vol; i++)
		target_release(&l->vol[i].td);
	sink_save(&r->sink);
}
