/* confage: a config aged after its mount (DESIGN.md §10), its image kept. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/age.h"
#include "host/agemeasure.h"
#include "host/child.h"
#include "host/execpath.h"
#include "host/fs.h"
#include "host/imgcopy.h"
#include "run/confage.h"
#include "run/runlog.h"
#include "util/clock.h"

/* The longest an aging may take: a full large filesystem churned. */
#define AGE_TIMEOUT_S	(12 * 3600.0)

/* What the aging child reports: numbers and the trace's digest only. */
struct aged {
	double files, bytes, fill_bytes, ops, seconds, rounds, full;
	char trace[65];
};

static json_t *conf_json_of(const struct run *r, const struct live *l)
{
	return json_array_get(r->man->configs, (size_t)l->fc->index - 1);
}

/* RUNDIR/aged/N.img (suffix ".tmp" while it is written), into buf. */
static int kept_path(const struct run *r, const struct live *l,
		     const char *suffix, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/aged/%d.img%s", r->dir, l->fc->index,
			 suffix);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The kept image's sha256 the manifest records, or NULL. */
static const char *kept_sha(const struct run *r, const struct live *l)
{
	json_t *k = json_object_get(conf_json_of(r, l), "age_kept");
	const char *sha = json_string_value(json_object_get(k, "sha256"));

	return sha && strlen(sha) == 64 ? sha : NULL;
}

/* Whether l ages with its image kept: reuse, on one loop image. */
static int keeps(const struct run *r, const struct live *l)
{
	return l->fc->age && l->fc->age->reuse && !l->volumes &&
	       r->plan->target.kind == TARGET_IMAGE;
}

int confage_kept(const struct run *r, const struct live *l)
{
	char path[PATH_MAX];

	return keeps(r, l) && kept_sha(r, l) &&
	       !kept_path(r, l, "", path, sizeof(path)) &&
	       !access(path, R_OK);
}

int confage_restore(struct run *r, struct live *l, struct diag *d)
{
	char path[PATH_MAX], sha[65];
	const char *want = kept_sha(r, l);
	int from = -1, to = -1, rc = -1;
	double t = clock_now();
	struct stat st;

	if (!want || kept_path(r, l, "", path, sizeof(path)))
		return diag_fail(d, DIAG_SYSTEM, 0, "no kept aged image");
	from = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	to = open(l->vol[0].dev, O_WRONLY | O_CLOEXEC);
	if (from < 0 || fstat(from, &st) || !S_ISREG(st.st_mode)) {
		diag_fail(d, DIAG_SYSTEM, errno, "cannot read the kept aged "
			  "image %s", path);
		goto out;
	}
	if (to < 0) {
		diag_fail(d, DIAG_SYSTEM, errno, "cannot write %s",
			  l->vol[0].dev);
		goto out;
	}
	if (imgcopy(from, to, (uint64_t)st.st_size, path, sha, d))
		goto out;
	if (fsync(to)) {
		diag_fail(d, DIAG_SYSTEM, errno, "cannot write %s",
			  l->vol[0].dev);
		goto out;
	}
	if (strcmp(sha, want)) {
		diag_fail(d, DIAG_REFUSED, 0, "the kept aged image %s changed "
			  "since it was made (sha256 %.12s..., the manifest "
			  "says %.12s...): remove it to age anew", path, sha,
			  want);
		goto out;
	}
	runlog("%s: made from the kept aged image %s (sha256 %s)", l->cid,
	       path, sha);
	live_metric(r, l, "age_restore_s", clock_now() - t);
	rc = 0;
out:
	if (from >= 0)
		close(from);
	if (to >= 0)
		close(to);
	return rc;
}

/* ---- aging, in a child that holds nothing ---- */

struct age_job {
	struct age_spec spec;
	struct age_size sizes[64];
};

static int age_body(void *arg)
{
	struct age_job *j = arg;
	struct age_done done;
	struct diag d = { 0 };

	memset(&done, 0, sizeof(done));
	if (age_run(".", &j->spec, &done, &d)) {
		metrics_diag_send(CHILD_REPORT_FD, &d);
		return 1;
	}
	dprintf(CHILD_REPORT_FD, "files %llu\nbytes %llu\nfill_bytes %llu\n"
		"ops %llu\nseconds %.6f\nrounds %d\nfull %d\ntrace %s\n",
		(unsigned long long)done.files,
		(unsigned long long)done.bytes_written,
		(unsigned long long)done.fill_bytes,
		(unsigned long long)done.ops, done.seconds, done.rounds,
		done.full, done.trace_sha256);
	return 0;
}

/* One "key value" line of the child's report into a: only the keys it
 * sends, finite numbers >= 0, a digest of 64 hex digits. */
static int take_line(struct aged *a, const char *key, const char *val)
{
	static const char *const names[] = { "files", "bytes", "fill_bytes",
		"ops", "seconds", "rounds", "full" };
	double *slot[] = { &a->files, &a->bytes, &a->fill_bytes, &a->ops,
			   &a->seconds, &a->rounds, &a->full };
	char *end;

	if (!strcmp(key, "trace")) {
		if (strlen(val) != 64 || strspn(val, "0123456789abcdef") != 64)
			return -1;
		memcpy(a->trace, val, 65);
		return 0;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(key, names[i])) {
			errno = 0;
			*slot[i] = strtod(val, &end);
			return errno || *end || !isfinite(*slot[i]) ||
			       *slot[i] < 0 ? -1 : 0;
		}
	return -1;
}

/* The child's report, a line at a time. 0, or -1: not what it sends. */
static int take_report(const char *text, size_t len, struct aged *a)
{
	char line[160];

	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < len;) {
		size_t n = strcspn(text + i, "\n"), k;

		if (n >= sizeof(line) || i + n > len)
			return -1;
		memcpy(line, text + i, n);
		line[n] = '\0';
		i += n + 1;
		k = strcspn(line, " ");
		if (!line[k])
			return -1;
		line[k] = '\0';
		if (take_line(a, line, line + k + 1))
			return -1;
	}
	return a->trace[0] ? 0 : -1;
}

/* The plan's age as the workload takes it. */
static void spec_of(const struct plan_age *pa, struct age_job *j)
{
	memset(j, 0, sizeof(*j));
	j->spec.fill = pa->fill;
	j->spec.churn = pa->churn;
	j->spec.seed = pa->seed;
	j->spec.dirs = pa->dirs;
	for (int i = 0; pa->sizes && i < pa->n_sizes && i < 64; i++) {
		j->sizes[i].upto = pa->sizes[i].upto;
		j->sizes[i].weight = pa->sizes[i].weight;
		j->spec.n_sizes = i + 1;
	}
	if (j->spec.n_sizes)
		j->spec.sizes = j->sizes;
}

/* MNT/fsplan-aged made, runas's; the workload run there. */
static int age_child(struct run *r, struct live *l, struct aged *a,
		     struct diag *d)
{
	const char *env[] = { execpath_env, NULL };
	char dir[PATH_MAX];
	struct age_job j;
	struct child_job job = { 0 };
	struct child_result res;
	int rc = -1;

	if (snprintf(dir, sizeof(dir), "%s/fsplan-aged", r->mnt) >=
	    (int)sizeof(dir) || mkdir(dir, 0700) ||
	    chown(dir, r->runas.uid, r->runas.gid))
		return diag_fail(d, DIAG_SYSTEM, errno, "cannot make the "
				 "aging directory %s", dir);
	spec_of(l->fc->age, &j);
	job.runas = &r->runas;
	job.workdir = dir;
	job.out_fd = job.err_fd = runlog_fd();
	job.timeout_s = AGE_TIMEOUT_S;
	job.env = env;
	job.body = age_body;
	job.arg = &j;
	if (child_run(&job, &r->stop, &res))
		return diag_fail(d, DIAG_SYSTEM, errno, "cannot start the "
				 "aging");
	if (!res.ok)
		diag_fail(d, DIAG_PHASE, 0, "aging failed: %s",
			  child_reason(&res));
	else if (take_report(res.report ? res.report : "", res.report_len,
			     a))
		diag_fail(d, DIAG_PHASE, 0, "aging failed: its report is not "
			  "what the workload sends");
	else
		rc = 0;
	child_result_free(&res);
	return rc;
}

/* ---- how aged: rows, the manifest ---- */

static void value(struct run *r, struct live *l, const char *metric,
		  const char *unit, double v)
{
	if (isfinite(v))
		live_value(r, l, metric, unit, v);
}

/* The measured rows, and the aging's own (a's: NULL, the kept record's). */
static int measure_rows(struct run *r, struct live *l, const struct aged *a,
			struct diag *d)
{
	json_t *k = json_object_get(conf_json_of(r, l), "age_kept");
	struct age_measure m;

	if (age_measure(r->mnt, l->vol[0].dev, l->fc->fs->type.s, &m, d))
		return -1;
	value(r, l, "age_fill_pct", "%", m.fill_pct);
	value(r, l, "age_files", "", (double)m.files);
	value(r, l, "age_layout_score", "", m.layout_score);
	value(r, l, "age_extents_per_file", "", m.extents_mean);
	value(r, l, "age_extents_per_file_p99", "", m.extents_p99);
	value(r, l, "age_free_extents", "", m.free_extents);
	value(r, l, "age_free_extent_p50_kib", "KiB", m.free_extent_p50_kib);
	value(r, l, "age_seconds", "s", a ? a->seconds :
	      json_number_value(json_object_get(k, "seconds")));
	value(r, l, "age_bytes_written", "B", a ? a->bytes :
	      json_number_value(json_object_get(k, "bytes_written")));
	value(r, l, "age_churn_rounds", "", a ? a->rounds :
	      json_number_value(json_object_get(k, "churn_rounds")));
	if (a && a->full) {
		runlog("%s: warning: the aging ran out of room (a full "
		       "filesystem, or no inode left) at %.1f%% full, %llu "
		       "files, asked %.0f%%", l->cid, m.fill_pct,
		       (unsigned long long)m.files, l->fc->age->fill * 100);
		if (!r->quiet)
			fprintf(stderr, "fsplan: %s: warning: the aging ran "
				"out of room at %.1f%% full (%llu files; asked "
				"%.0f%%): ext4 keeps 5%% for root, and a small "
				"filesystem has few inodes for many dirs\n",
				l->cid, m.fill_pct,
				(unsigned long long)m.files,
				l->fc->age->fill * 100);
	}
	runlog("%s: aged: %.1f%% full, %llu files, layout score %.3f, "
	       "%.2f extents a file (p99 %.0f), %.0f free extents (%s)",
	       l->cid, m.fill_pct, (unsigned long long)m.files,
	       m.layout_score, m.extents_mean, m.extents_p99, m.free_extents,
	       m.free_how[0] ? m.free_how : "unknown");
	return 0;
}

/* The filesystem unmounted, its image copied into the run directory
 * (written aside, then renamed), mounted again: later makes start from
 * that copy. 0, or -1 with d. */
static int keep_image(struct run *r, struct live *l, const struct aged *a,
		      struct diag *d)
{
	char dir[PATH_MAX + 16], tmp[PATH_MAX], path[PATH_MAX], sha[65];
	struct vol *v = &l->vol[0];
	struct diag md = { 0 };
	int from = -1, to = -1, rc = -1;
	struct stat st;

	if (kept_path(r, l, ".tmp", tmp, sizeof(tmp)) ||
	    kept_path(r, l, "", path, sizeof(path)))
		return diag_fail(d, DIAG_LIMIT, 0, "the run directory's path "
				 "is too long");
	snprintf(dir, sizeof(dir), "%s/aged", r->dir);
	if (mkdir(dir, 0700) && errno != EEXIST)
		return diag_fail(d, DIAG_SYSTEM, errno, "cannot make %s", dir);
	if (fs_umount(v->mnt, d))
		return -1;
	v->mounted = 0;
	from = open(v->td.image, O_RDONLY | O_CLOEXEC);
	if (from < 0 || fstat(from, &st)) {
		diag_fail(d, DIAG_SYSTEM, errno, "cannot read %s",
			  v->td.image);
		goto out;
	}
	to = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (to < 0 || ftruncate(to, st.st_size)) {
		diag_fail(d, DIAG_SYSTEM, errno, "cannot write %s", tmp);
		goto out;
	}
	if (imgcopy(from, to, (uint64_t)st.st_size, tmp, sha, d))
		goto out;
	if (fsync(to) || rename(tmp, path)) {
		diag_fail(d, DIAG_SYSTEM, errno, "cannot keep %s", path);
		goto out;
	}
	manifest_conf(r->man, l->fc->index - 1, "age_kept", json_pack(
		"{s:s, s:s, s:s, s:f, s:f, s:f}", "image",
		path + strlen(r->dir) + 1, "sha256", sha, "trace_sha256",
		a->trace, "seconds", a->seconds, "bytes_written", a->bytes,
		"churn_rounds", a->rounds));
	sink_save(&r->sink);
	runlog("%s: the aged image kept as %s (sha256 %s)", l->cid, path, sha);
	rc = 0;
out:
	if (from >= 0)
		close(from);
	if (to >= 0)
		close(to);
	if (rc)
		unlink(tmp);
	if (fs_mount(l->fc->fs->type.s, l->fc->mount, v->dev, v->mnt, &md)) {
		if (!rc)
			diag_fail(d, DIAG_SYSTEM, 0, "%s", md.msg);
		else
			runlog("%s: %s", l->cid, md.msg);
		return -1;
	}
	v->mounted = 1;
	return rc;
}

/* The filesystem unmounted and mounted again. 0, or -1 with d. */
static int remount(struct run *r, struct live *l, struct diag *d)
{
	struct vol *v = &l->vol[0];

	(void)r;
	if (fs_umount(v->mnt, d))
		return -1;
	v->mounted = 0;
	if (fs_mount(l->fc->fs->type.s, l->fc->mount, v->dev, v->mnt, d))
		return -1;
	v->mounted = 1;
	return 0;
}

int confage_up(struct run *r, struct live *l, int restored, struct diag *d)
{
	const struct plan_age *pa = l->fc->age;
	struct aged a;

	if (!pa)
		return 0;
	if (l->volumes)
		return diag_fail(d, DIAG_INPUT, 0, "age: with target.volumes "
				 "is not supported: age a plan of one "
				 "filesystem");
	if (restored)
		return measure_rows(r, l, NULL, d);
	runlog("%s: aging: fill %.0f%%, churn %g, seed %llu", l->cid,
	       pa->fill * 100, pa->churn, (unsigned long long)pa->seed);
	if (age_child(r, l, &a, d))
		return -1;
	runlog("%s: aged in %.1f s: %.0f files, %.0f bytes written, %.0f "
	       "churn rounds%s, trace sha256 %s", l->cid, a.seconds, a.files,
	       a.bytes, a.rounds, a.full ? " (the filesystem filled up)" : "",
	       a.trace);
	manifest_conf(r->man, l->fc->index - 1, "age_trace_sha256",
		      json_string(a.trace));
	/* unmounted and mounted again, kept or not: what the aging left in
	 * memory goes (xfs's preallocation past the files' ends with it),
	 * and every make of the config is measured in the same state */
	if (keeps(r, l) ? keep_image(r, l, &a, d) : remount(r, l, d))
		return -1;
	if (!keeps(r, l) && l->fc->age->reuse &&
	    r->plan->target.kind == TARGET_DEVICE)
		runlog("%s: a device is aged each time its config is made (no "
		       "image to keep)", l->cid);
	return measure_rows(r, l, &a, d);
}

void confage_end(struct run *r, struct live *l)
{
	struct age_measure m;
	struct diag d = { 0 };

	if (!l->fc->age || l->volumes || !l->vol[0].mounted)
		return;
	if (age_measure(r->mnt, l->vol[0].dev, l->fc->fs->type.s, &m, &d)) {
		runlog("%s: how aged after the phases: %s", l->cid, d.msg);
		return;
	}
	value(r, l, "age_end_fill_pct", "%", m.fill_pct);
	value(r, l, "age_end_files", "", (double)m.files);
	value(r, l, "age_end_layout_score", "", m.layout_score);
	value(r, l, "age_end_extents_per_file", "", m.extents_mean);
	value(r, l, "age_end_free_extents", "", m.free_extents);
	runlog("%s: after the phases: %.1f%% full, %llu files, layout score "
	       "%.3f, %.2f extents a file, %.0f free extents", l->cid,
	       m.fill_pct, (unsigned long long)m.files, m.layout_score,
	       m.extents_mean, m.free_extents);
}

void confage_forget(struct run *r)
{
	char path[PATH_MAX + 32];
	int any = 0;

	if (r->stop || r->n_failed)
		return;
	for (int i = 0; i < r->e->n_confs; i++) {
		snprintf(path, sizeof(path), "%s/aged/%d.img", r->dir,
			 r->e->confs[i].index);
		any |= !unlink(path);
	}
	snprintf(path, sizeof(path), "%s/aged", r->dir);
	if (any && !rmdir(path))
		runlog("the kept aged images removed: the run completed "
		       "(their sha256s stay in the manifest)");
}
