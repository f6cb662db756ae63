/* test_agemeasure: how aged a filesystem is, on loop images made here. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"
#include "host/agefree.h"
#include "host/agemeasure.h"
#include "host/fs.h"
#include "host/target.h"

#define MIB (UINT64_C(1) << 20)

/* What a test made, undone by teardown on every path; each test runs in
 * a mount namespace of its own, so not even a crash leaves a mount. */
static struct target_dev td = { .fd = -1, .lock_fd = -1,
				.claim = { .fd = -1, .disk_fd = -1 } };
static char mnt[512];

static void setup(void)
{
	if (geteuid() == 0 && !unshare(CLONE_NEWNS))
		mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

static void teardown(void)
{
	if (mnt[0] && umount2(mnt, 0))
		umount2(mnt, MNT_DETACH);
	mnt[0] = '\0';
	target_release(&td);
	e2e_cleanup();
}

TestSuite(agemeasure, .init = setup, .fini = teardown, .timeout = 120);

static void need_tool(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	if (system(cmd))
		cr_skip_test("%s is not installed", tool);
}

/* A loop image of mib MiB, made type with opts, mounted at mnt. */
static void make_fs(const char *type, const char *opts, unsigned mib)
{
	struct diag d = { 0 };

	e2e_require_root();
	need_tool(!strcmp(type, "xfs") ? "mkfs.xfs" : "mkfs.ext4");
	cr_assert_eq(target_image_create(&td, e2e_tmpdir(), mib * MIB, 0, &d),
		     0, "image: %s", d.msg);
	cr_assert_eq(fs_mkfs(type, opts, td.path, 1, NULL, -1, &d), 0,
		     "mkfs: %s", d.msg);
	snprintf(mnt, sizeof(mnt), "%s/mnt", e2e_tmpdir());
	cr_assert_eq(mkdir(mnt, 0755), 0);
	if (fs_mount(type, "", td.path, mnt, &d)) {
		mnt[0] = '\0';
		cr_assert_fail("mount: %s", d.msg);
	}
}

static int open_file(const char *name)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	return fd;
}

/* Append len bytes to fd, then fsync it. */
static void append(int fd, size_t len)
{
	static char buf[4 * MIB];

	memset(buf, 'a', sizeof(buf));
	cr_assert_leq(len, sizeof(buf));
	cr_assert_eq(write(fd, buf, len), (ssize_t)len);
	cr_assert_eq(fsync(fd), 0);
}

static void measure(const char *type, struct age_measure *m)
{
	struct diag d = { 0 };

	cr_assert_eq(age_measure(mnt, td.path, type, m, &d), 0,
		     "age_measure: %s", d.msg);
}

Test(agemeasure, interleaved_appends_lower_the_layout_score)
{
	struct age_measure fresh, aged;
	int fd[2];

	make_fs("ext4", "-b 4096", 256);
	for (int i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "seq%d", i);
		fd[0] = open_file(name);
		append(fd[0], 4 * MIB);
		close(fd[0]);
	}
	measure("ext4", &fresh);
	cr_expect_eq(fresh.files, 4);
	cr_expect_eq(fresh.sampled, 4);
	cr_expect_geq(fresh.layout_score, 0.99, "fresh layout %.4f",
		      fresh.layout_score);
	cr_expect_leq(fresh.extents_mean, 2, "fresh extents %.2f",
		      fresh.extents_mean);
	cr_expect(fresh.fill_pct > 0 && fresh.fill_pct < 50, "fill %.2f",
		  fresh.fill_pct);
	cr_expect_str_eq(fresh.free_how, "getfsmap");
	cr_expect_gt(fresh.free_extents, 0);
	cr_expect_gt(fresh.free_extent_p50_kib, 0);

	fd[0] = open_file("a");
	fd[1] = open_file("b");
	for (int i = 0; i < 1024; i++)
		append(fd[i % 2], 4096);
	for (int i = 0; i < 1024; i++)
		append(fd[1 - i % 2], 4096);
	close(fd[0]);
	close(fd[1]);
	measure("ext4", &aged);
	cr_expect_eq(aged.files, 6);
	cr_expect_lt(aged.layout_score, fresh.layout_score, "aged %.4f, "
		     "fresh %.4f", aged.layout_score, fresh.layout_score);
	cr_expect_gt(aged.extents_mean, fresh.extents_mean, "aged %.2f, "
		     "fresh %.2f", aged.extents_mean, fresh.extents_mean);
	cr_expect_gt(aged.extents_p99, fresh.extents_p99);
	cr_expect_gt(aged.fill_pct, fresh.fill_pct);
	cr_log_info("ext4 fresh: layout %.4f extents %.2f p99 %.0f free %.0f "
		    "p50 %.0f KiB; interleaved: layout %.4f extents %.2f p99 "
		    "%.0f free %.0f p50 %.0f KiB", fresh.layout_score,
		    fresh.extents_mean, fresh.extents_p99, fresh.free_extents,
		    fresh.free_extent_p50_kib, aged.layout_score,
		    aged.extents_mean, aged.extents_p99, aged.free_extents,
		    aged.free_extent_p50_kib);
}

Test(agemeasure, empty_filesystem_has_no_layout)
{
	struct age_measure m;

	make_fs("ext4", "", 64);
	measure("ext4", &m);
	cr_expect_eq(m.files, 0);
	cr_expect(isnan(m.layout_score) && isnan(m.extents_mean),
		  "layout %f extents %f", m.layout_score, m.extents_mean);
	cr_expect_gt(m.free_extents, 0);
}

/* Neither a mount inside it nor a symbolic link leads the walk out. */
Test(agemeasure, stays_on_its_filesystem)
{
	struct age_measure m;
	char sub[600], link[600];
	int fd;

	make_fs("ext4", "", 64);
	fd = open_file("own");
	append(fd, 8192);
	close(fd);
	snprintf(sub, sizeof(sub), "%s/sub", mnt);
	snprintf(link, sizeof(link), "%s/usr", mnt);
	cr_assert_eq(mkdir(sub, 0755), 0);
	cr_assert_eq(symlink("/usr/bin", link), 0);
	cr_assert_eq(mount("tmpfs", sub, "tmpfs", 0, "size=4m"), 0);
	for (int i = 0; i < 5; i++) {
		char name[32];

		snprintf(name, sizeof(name), "sub/t%d", i);
		fd = open_file(name);
		append(fd, 4096);
		close(fd);
	}
	measure("ext4", &m);
	umount2(sub, MNT_DETACH);
	cr_expect_eq(m.files, 1, "files %llu", (unsigned long long)m.files);
	cr_expect_eq(m.sampled, 1);
}

/* Past the cap, every k-th file in directory order: 60 files, a cap of
 * 10, every 6th. */
Test(agemeasure, past_the_cap_a_sample)
{
	struct age_measure all, some;
	char name[32];

	make_fs("ext4", "", 64);
	for (int i = 0; i < 60; i++) {
		int fd;

		snprintf(name, sizeof(name), "d%d", i % 3);
		if (i < 3) {
			char path[600];

			snprintf(path, sizeof(path), "%s/%s", mnt, name);
			cr_assert_eq(mkdir(path, 0755), 0);
		}
		snprintf(name, sizeof(name), "d%d/f%d", i % 3, i);
		fd = open_file(name);
		append(fd, 8192);
		close(fd);
	}
	measure("ext4", &all);
	cr_expect_eq(all.files, 60);
	cr_expect_eq(all.sampled, 60);
	cr_assert_eq(setenv("FSPLAN_AGEMEASURE_MAX_FILES", "10", 1), 0);
	measure("ext4", &some);
	unsetenv("FSPLAN_AGEMEASURE_MAX_FILES");
	cr_expect_eq(some.files, 60);
	cr_expect_eq(some.sampled, 10);
	cr_expect_geq(some.extents_mean, 1);
	cr_expect_leq(some.extents_p99, all.extents_p99);
}

/* The free extents by the tool against GETFSMAP's, on the same state. */
static void tool_path(const char *type, const char *tool, unsigned mib)
{
	struct age_measure by_map, by_tool;
	int fd[2];

	need_tool(tool);
	make_fs(type, "", mib);
	fd[0] = open_file("a");
	fd[1] = open_file("b");
	for (int i = 0; i < 256; i++)
		append(fd[i % 2], 4096);
	close(fd[0]);
	close(fd[1]);
	measure(type, &by_map);
	cr_assert_eq(setenv("FSPLAN_AGEMEASURE_NO_GETFSMAP", "1", 1), 0);
	measure(type, &by_tool);
	unsetenv("FSPLAN_AGEMEASURE_NO_GETFSMAP");
	cr_expect_str_eq(by_map.free_how, "getfsmap");
	cr_expect_str_eq(by_tool.free_how, tool);
	cr_expect_gt(by_tool.free_extents, 0);
	cr_expect_gt(by_tool.free_extent_p50_kib, 0);
	cr_expect_eq(by_tool.files, 2);
	/* the same extents, the median to its range (a power of two) */
	cr_expect_eq(by_tool.free_extents, by_map.free_extents);
	cr_expect(by_tool.free_extent_p50_kib > by_map.free_extent_p50_kib / 2
		  && by_tool.free_extent_p50_kib <
		  by_map.free_extent_p50_kib * 2, "p50 %.1f KiB by %s, %.1f "
		  "by getfsmap", by_tool.free_extent_p50_kib, tool,
		  by_map.free_extent_p50_kib);
	cr_log_info("%s: getfsmap %.0f extents p50 %.1f KiB; %s %.0f "
		    "extents p50 %.1f KiB", type, by_map.free_extents,
		    by_map.free_extent_p50_kib, tool, by_tool.free_extents,
		    by_tool.free_extent_p50_kib);
}

Test(agemeasure, ext4_free_space_by_e2freefrag)
{
	tool_path("ext4", "e2freefrag", 256);
}

Test(agemeasure, xfs_free_space_by_xfs_db)
{
	tool_path("xfs", "xfs_db", 320);
}

/* ---- the tools' output, parsed (no root) ------------------------------ */

Test(agemeasure, e2freefrag_histogram)
{
	const char *text =
		"Device: e.img\nBlocksize: 1024 bytes\n"
		"Total blocks: 262144\nFree blocks: 235417 (89.8%)\n\n"
		"Min. free extent: 207 KB \nMax. free extent: 65504 KB\n"
		"Avg. free extent: 23541 KB\nNum. free extent: 10\n\n"
		"HISTOGRAM OF FREE EXTENT SIZES:\n"
		"Extent Size Range :  Free extents   Free Blocks  Percent\n"
		"  128K...  256K-  :             1           207    0.09%\n"
		"    8M...   16M-  :             6         88305   37.51%\n"
		"   32M...   64M-  :             3        146905   62.40%\n";
	struct agefree f;

	cr_assert_eq(agefree_e2freefrag(text, &f), 0);
	cr_expect_eq(f.extents, 10);
	/* the 5th and 6th of 10 are in the 8M range: its mean, 88305 / 6
	 * blocks of 1 KiB */
	cr_expect_float_eq(f.p50_kib, 88305.0 / 6, 1e-9);
	cr_expect_eq(agefree_e2freefrag("Blocksize: 4096 bytes\n", &f), -1);
}

Test(agemeasure, xfs_db_freesp_table)
{
	const char *text =
		"   from      to extents  blocks    pct\n"
		"      1       1      16      16   0.02\n"
		"      4       7       1       6   0.01\n"
		"   2048    4095       1    4086   6.24\n"
		"  16384   20480       3   61396  93.73\n"
		"total free extents 21\ntotal free blocks 65504\n"
		"average free extent size 3119.24\n";
	struct agefree f;

	cr_assert_eq(agefree_xfs_db(text, 4096, &f), 0);
	cr_expect_eq(f.extents, 21);
	/* the 11th of 21 is one block */
	cr_expect_float_eq(f.p50_kib, 4.0, 1e-9);
	/* less the 16 blocks of 4 free lists: 5 left, the 3rd of them in
	 * the range from 16384 */
	{
		char more[1024];

		snprintf(more, sizeof(more), "%s%s", text, "flcount = 4\n"
			 "flcount = 4\nflcount = 4\nflcount = 4\n");
		cr_assert_eq(agefree_xfs_db(more, 4096, &f), 0);
		cr_expect_eq(f.extents, 5);
		cr_expect_float_eq(f.p50_kib, 61396.0 / 3 * 4, 1e-9);
	}
	cr_assert_eq(agefree_xfs_db("   from      to extents  blocks    pct\n"
				    "total free extents 0\n", 4096, &f), 0);
	cr_expect_eq(f.extents, 0);
	cr_expect(isnan(f.p50_kib));
	cr_expect_eq(agefree_xfs_db("xfs_db: cannot open\n", 4096, &f), -1);
}
