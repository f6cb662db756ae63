/* test_ageload: host/age — the aging workload, on loop filesystems. */
#include <criterion/criterion.h>
#include <errno.h>
#include <grp.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"
#include "host/age.h"

/* ---- the size distribution ----------------------------------------------- */

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

Test(ageload, default_sizes_have_a_median_near_4k_and_stay_in_bounds)
{
	static uint64_t s[10000];
	int n;
	const struct age_size *sz = age_default_sizes(&n);
	unsigned short xs[3] = { 1, 2, 3 };

	cr_assert_geq(n, 6);
	cr_expect_eq(sz[n - 1].upto, 64ull << 20, "the tail ends at 64 MiB");
	for (int i = 0; i < 10000; i++) {
		double w = erand48(xs);

		s[i] = age_size_pick(sz, n, w, erand48(xs));
		cr_assert(s[i] >= 1 && s[i] <= sz[n - 1].upto, "%lu",
			  (unsigned long)s[i]);
	}
	qsort(s, 10000, sizeof(s[0]), cmp_u64);
	cr_expect(s[5000] >= 1024 && s[5000] <= 16384, "median %lu",
		  (unsigned long)s[5000]);
	/* a spread, not one size: the tail holds files of megabytes */
	cr_expect_gt(s[9990], 1 << 20, "p99.9 %lu", (unsigned long)s[9990]);
	cr_expect_lt(s[100], 1024, "p1 %lu", (unsigned long)s[100]);
}

Test(ageload, a_pick_falls_in_its_bucket)
{
	static const struct age_size sz[] = {
		{ 100, 1 }, { 200, 1 }, { 1000, 0 }, { 5000, 2 },
	};
	unsigned short xs[3] = { 4, 5, 6 };
	int seen[4] = { 0 };

	for (int i = 0; i < 4000; i++) {
		double w = erand48(xs), u = erand48(xs);
		uint64_t v = age_size_pick(sz, 4, w, u);
		/* weights 1, 1, 0, 2 of 4: the bucket is w's quarter */
		int b = w < 0.25 ? 0 : w < 0.5 ? 1 : 3;
		uint64_t lo = b ? sz[b - 1].upto : 0;

		if (b == 3)
			lo = sz[2].upto;
		cr_assert(v > lo && v <= sz[b].upto, "w %g u %g: %lu not in "
			  "(%lu, %lu]", w, u, (unsigned long)v,
			  (unsigned long)lo, (unsigned long)sz[b].upto);
		seen[b]++;
	}
	cr_expect(seen[0] && seen[1] && seen[3] && !seen[2]);
	/* the ends of a bucket: whole bytes, at least 1 */
	cr_expect_eq(age_size_pick(sz, 4, 0, 0), 1);
	cr_expect_leq(age_size_pick(sz, 4, 0, 0.999999), 100);
	cr_expect_eq(age_size_pick(sz, 4, 0.3, 0), 101);
}

/* ---- failures without a filesystem ---------------------------------------- */

Test(ageload, a_bad_dir_or_spec_is_a_failure_with_a_message)
{
	struct age_spec spec = { .fill = 0.5, .churn = 1, .seed = 1 };
	struct age_done done;
	struct diag d = { 0 };

	cr_expect_eq(age_run("/nonexistent/fsplan-age", &spec, &done, &d),
		     -1);
	cr_expect_eq(d.err, ENOENT);
	cr_expect(strstr(d.msg, "/nonexistent/fsplan-age"), "%s", d.msg);
	diag_release(&d);
	/* a symbolic link to a directory is not followed */
	{
		char link[64];

		snprintf(link, sizeof(link), "%s/l", e2e_tmpdir());
		cr_assert_eq(symlink("/tmp", link), 0);
		cr_expect_eq(age_run(link, &spec, &done, &d), -1);
		cr_expect(strstr(d.msg, link), "%s", d.msg);
		diag_release(&d);
		e2e_cleanup();
	}
	spec.fill = 0.99;
	cr_expect_eq(age_run("/tmp", &spec, &done, &d), -1);
	cr_expect_eq(d.kind, DIAG_INPUT);
	cr_expect(strstr(d.msg, "fill"), "%s", d.msg);
	diag_release(&d);
}

/* ---- on loop filesystems, as root, aging as nobody -------------------------- */

static char base[64], dev[64], mnt[128], top[160];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static void fs_drop(void)
{
	if (mnt[0])
		sh("! mountpoint -q '%s' || umount '%s' || umount -l '%s'", mnt,
		   mnt, mnt);
	if (dev[0])
		sh("losetup -d '%s'", dev);
	if (base[0])
		sh("rm -rf '%s'", base);
	base[0] = dev[0] = mnt[0] = '\0';
}

static void fini(void)
{
	fs_drop();
}

/* A fresh filesystem of type on a sparse image of size, mounted, with
 * a directory for nobody to age (top); skips if the type is missing. */
static void fs_make(const char *type, const char *size)
{
	FILE *p;
	char cmd[256];

	fs_drop();
	snprintf(base, sizeof(base), "/tmp/fsplan-ageload-XXXXXX");
	cr_assert_not_null(mkdtemp(base));
	cr_assert_eq(chmod(base, 0755), 0);
	snprintf(mnt, sizeof(mnt), "%s/mnt", base);
	snprintf(top, sizeof(top), "%s/a", mnt);
	cr_assert_eq(sh("truncate -s %s '%s/img' && mkdir '%s'", size, base,
			mnt), 0);
	snprintf(cmd, sizeof(cmd), "losetup --find --show '%s/img'", base);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	if (!fgets(dev, sizeof(dev), p))
		dev[0] = '\0';
	pclose(p);
	dev[strcspn(dev, "\n")] = '\0';
	cr_assert(dev[0] == '/', "losetup gave no device");
	if (sh("mkfs.%s -q '%s' > /dev/null 2>&1", type, dev))
		cr_skip_test("mkfs.%s failed: not installed?", type);
	if (sh("mount -t %s '%s' '%s'", type, dev, mnt))
		cr_skip_test("cannot mount %s: not in this kernel?", type);
	cr_assert_eq(sh("mkdir '%s' && chown 65534:65534 '%s'", top, top), 0);
}

struct aged {
	int rc;
	struct age_done done;
	char msg[1024];
};

/* age_run on top in a child that is nobody, as the run calls it. */
static struct aged age_as_nobody(const struct age_spec *spec)
{
	struct aged r = { .rc = -2 };
	int fd[2], st;
	pid_t pid;

	cr_assert_eq(pipe(fd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		struct diag d = { 0 };

		close(fd[0]);
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(3);
		r.rc = age_run(top, spec, &r.done, &d);
		snprintf(r.msg, sizeof(r.msg), "%s", d.msg);
		_exit(write(fd[1], &r, sizeof(r)) == sizeof(r) ? 0 : 4);
	}
	close(fd[1]);
	cr_assert_eq(read(fd[0], &r, sizeof(r)), (ssize_t)sizeof(r));
	close(fd[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && !WEXITSTATUS(st), "status %d", st);
	return r;
}

/* Every file and directory under top, "path size" a line, sorted. */
static char *listing(void)
{
	char cmd[256], *s;
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "cd '%s' && find . -printf '%%P %%y "
		 "%%s\\n' | LC_ALL=C sort", top);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	s = calloc(1, 1 << 20);
	cr_assert_not_null(s);
	n = fread(s, 1, (1 << 20) - 1, p);
	pclose(p);
	cr_assert_lt(n, (1 << 20) - 1);
	return s;
}

/* The share of the filesystem in use, in percent. */
static double used_pct(void)
{
	struct statvfs v;

	cr_assert_eq(statvfs(mnt, &v), 0);
	return 100.0 * (double)(v.f_blocks - v.f_bfree) / (double)v.f_blocks;
}

/* fill 50%, churn 1 on a fresh fs of type: what it left, checked. */
static struct aged age_half(const char *type, const char *size,
			    uint64_t seed, char **list)
{
	struct age_spec spec = { .fill = 0.5, .churn = 1, .seed = seed };
	struct aged r;
	struct statvfs v;
	double used, want, fresh;

	fs_make(type, size);
	fresh = used_pct();
	cr_assert_eq(statvfs(mnt, &v), 0);
	want = 0.5 * (double)v.f_blocks * (double)v.f_frsize;
	r = age_as_nobody(&spec);
	cr_assert_eq(r.rc, 0, "%s", r.msg);
	cr_expect_eq(r.done.full, 0);
	cr_expect_lt(fabs((double)r.done.fill_bytes - want), 1.0,
		     "fill %lu of %.0f", (unsigned long)r.done.fill_bytes, want);
	cr_expect_lt(fabs((double)r.done.bytes_written /
			  (2.0 * (double)r.done.fill_bytes) - 1), 0.05,
		     "written %lu, filled %lu",
		     (unsigned long)r.done.bytes_written,
		     (unsigned long)r.done.fill_bytes);
	/* what the data takes, within 4 points of 50% of the fs: the
	 * files' last blocks, directories and inodes, and xfs's post-EOF
	 * speculative preallocation (about 10 points on 256 MiB, kept
	 * for files opened to append again and again), trimmed first */
	if (!strcmp(type, "xfs"))
		cr_assert_eq(sh("xfs_spaceman -c 'prealloc -s' '%s'", mnt), 0);
	used = used_pct() - fresh;
	cr_expect(used > 46 && used < 54, "%s: %.1f%% used by the aging",
		  type, used);
	cr_expect_geq(r.done.rounds, 1);
	cr_expect_gt(r.done.ops, r.done.files);
	cr_expect_gt(r.done.seconds, 0);
	cr_expect_eq(strlen(r.done.trace_sha256), 64);
	*list = listing();
	cr_expect_eq(e2e_occurrences(*list, " f "), (int)r.done.files, "%s",
		     *list);
	cr_expect_eq(e2e_occurrences(*list, " d "), (int)r.done.dirs + 1);
	cr_log_info("%s: %.1f%% used by the aging, %lu files in %lu dirs, %lu B written, "
		    "%d rounds, %.2f s", type, used,
		    (unsigned long)r.done.files, (unsigned long)r.done.dirs,
		    (unsigned long)r.done.bytes_written, r.done.rounds,
		    r.done.seconds);
	return r;
}

Test(ageload, ext4_half_full_churned_once_is_repeatable, .fini = fini,
     .timeout = 240)
{
	struct aged a, b, c;
	char *la, *lb, *lc;

	e2e_require_root();
	a = age_half("ext4", "256M", 7, &la);
	b = age_half("ext4", "256M", 7, &lb);
	cr_expect_str_eq(a.done.trace_sha256, b.done.trace_sha256);
	cr_expect_str_eq(la, lb, "the same seed, another file list");
	cr_expect_eq(a.done.ops, b.done.ops);
	cr_expect_eq(a.done.bytes_written, b.done.bytes_written);
	c = age_half("ext4", "256M", 8, &lc);
	cr_expect_str_neq(a.done.trace_sha256, c.done.trace_sha256);
	cr_expect_str_neq(la, lc, "another seed, the same file list");
	free(la);
	free(lb);
	free(lc);
}

Test(ageload, xfs_half_full_churned_once, .fini = fini, .timeout = 240)
{
	char *l;

	e2e_require_root();
	age_half("xfs", "320M", 7, &l);
	free(l);
}

/* 95% of large files as nobody: ext4 keeps 5% of its blocks for root,
 * so the fill meets ENOSPC; that is no failure: the run succeeds, says
 * full, and leaves the filesystem nearly full. */
Test(ageload, nearly_full_with_large_files_is_no_failure, .fini = fini,
     .timeout = 240)
{
	static const struct age_size big[] = { { 4 << 20, 1 }, { 64 << 20, 2 } };
	struct age_spec spec = {
		.fill = 0.95, .churn = 0.5, .seed = 3, .sizes = big,
		.n_sizes = 2,
	};
	struct aged r;
	struct statvfs v;
	double used;

	e2e_require_root();
	fs_make("ext4", "256M");
	cr_assert_eq(statvfs(mnt, &v), 0);
	r = age_as_nobody(&spec);
	cr_assert_eq(r.rc, 0, "%s", r.msg);
	cr_expect_eq(r.done.full, 1);
	cr_expect_lt((double)r.done.fill_bytes,
		     0.95 * (double)v.f_blocks * (double)v.f_frsize);
	used = used_pct();
	cr_expect_gt(used, 85, "%.1f%% used", used);
	cr_expect_gt(r.done.files, 0);
	cr_expect_gt(r.done.bytes_written, r.done.fill_bytes);
	cr_log_info("95%%: full %d, %.1f%% used, %lu files, %d rounds",
		    r.done.full, used, (unsigned long)r.done.files,
		    r.done.rounds);
}
