/* test_volumes: target.volumes — N filesystems per config, seen as NAME/ in the
 * work directory, remounted alike. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "e2e.h"
#include "helpers.h"
#include "fsconfcmd.h"


static void fini(void)
{
	e2e_cleanup();
}

Test(volumes, a_bad_list_is_refused_at_its_place)
{
	expect_error("fsplan: 1\n"
		     "target: {volumes: [source, Target]}\n"
		     "filesystems: [{type: ext4}]\n"
		     "phases: [{exec: 'true'}]\n", 2, 28, "not a volume name");
	expect_error("fsplan: 1\n"
		     "target: {volumes: [source, 9x]}\n"
		     "filesystems: [{type: ext4}]\n"
		     "phases: [{exec: 'true'}]\n", 2, 28, "not a volume name");
	expect_error("fsplan: 1\n"
		     "target:\n"
		     "  volumes: [a, b, a]\n"
		     "filesystems: [{type: ext4}]\n"
		     "phases: [{exec: 'true'}]\n", 3, 19, "lists 'a' twice");
	expect_error("fsplan: 1\n"
		     "target: {volumes: source}\n"
		     "filesystems: [{type: ext4}]\n"
		     "phases: [{exec: 'true'}]\n", 2, 19, "a list of names");
	expect_error("fsplan: 1\n"
		     "target: {volumes: []}\n"
		     "filesystems: [{type: ext4}]\n"
		     "phases: [{exec: 'true'}]\n", 2, 19, "empty list");
	expect_error("fsplan: 1\n"
		     "target: {device: /dev/loop9, volumes: [a, b]}\n"
		     "filesystems: [{type: ext4}]\n"
		     "phases: [{exec: 'true'}]\n", 2, 39, "one device");
	expect_error("fsplan: 1\n"
		     "target: {dir: /tmp, volumes: [a, b]}\n"
		     "filesystems: [{type: ext4}]\n"
		     "phases: [{exec: 'true'}]\n", 2, 30, "target.dir");
}

Test(volumes, names_are_kept_in_order)
{
	struct expansion *e = expand_text(
		"fsplan: 1\n"
		"target: {image: 1G, volumes: [source, target_2]}\n"
		"filesystems: [{type: ext4}]\n"
		"phases: [{exec: 'true'}]\n", NULL, 0);

	cr_expect_eq(e->plan->target.n_volumes, 2);
	cr_expect_str_eq(e->plan->target.volumes[0].s, "source");
	cr_expect_str_eq(e->plan->target.volumes[1].s, "target_2");
	cr_expect_str_eq(mkfs_of(e), "mkfs.ext4 LOOPDEV (each volume: source "
			 "target_2)");
	cr_expect_str_eq(mount_of(e, NULL), "mount -t ext4 LOOPDEV MOUNTPOINT "
			 "(each volume: source target_2)");
	free_expanded(e);
}

static const char *out_of(const char *rd, int cell, const char *label,
			  const char *phase)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/exec/%06d-%s_%s_1.out", rd, cell,
		 label, phase);
	return e2e_read(path);
}

Test(volumes, two_mounted_seen_as_directories_and_remounted, .fini = fini,
     .timeout = 120)
{
	const char *dir, *plan, *s;
	char rd[256], path[512], log[512];
	mode_t mask;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = e2e_write(dir, "plan.yaml",
		"fsplan: 1\n"
		"target: {image: 320M, volumes: [source, target]}\n"
		"between: [sync, remount, drop_caches]\n"
		"filesystems: [{type: ext4, mount: noatime}, {type: xfs}]\n"
		"phases:\n"
		"  - name: before\n"
		"    exec: stat -f -c %T source target && echo kept > source/f"
		" && dd if=/dev/zero of=target/g bs=1M count=8 conv=fsync"
		" status=none\n"
		"  - name: after\n"
		"    exec: cat source/f && stat -c %U source target\n");
	snprintf(rd, sizeof(rd), "%s/run", dir);
	/* a private umask (root's 077) must not lock runas out of the
	 * volumes' work directory */
	mask = umask(077);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					  "--workdir", dir, NULL });
	umask(mask);
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	for (int i = 0; i < 2; i++) {
		const char *label = i ? "xfs" : "ext4::noatime";
		const char *fname = i ? "xfs" : "ext4__noatime";
		const char *type = i ? "xfs\nxfs\n" : "ext2/ext3\next2/ext3\n";
		const char *metrics[] = { "mkfs_s", "mkfs_s_source",
					  "mkfs_s_target", "mount_s",
					  "mount_s_source", "mount_s_target",
					  "umount_s", "umount_s_source",
					  "umount_s_target" };
		char cell[128];
		double used_s, used_t;

		cr_expect_str_eq(out_of(rd, 2 * i + 1, fname, "before"), type,
				 "%s", label);
		cr_expect_str_eq(out_of(rd, 2 * i + 2, fname, "after"),
				 "kept\nnobody\nnobody\n",
				 "%s: the file is there after the remount",
				 label);
		for (size_t m = 0; m < sizeof(metrics) / sizeof(*metrics); m++)
			cr_expect_not_null(e2e_metric(rd, label, metrics[m]),
					   "%s: %s", label, metrics[m]);
		snprintf(cell, sizeof(cell), "%s/before#1", label);
		cr_expect_str_eq(e2e_metric(rd, cell, "status"), "ok");
		s = e2e_metric(rd, cell, "fs_used_bytes_target");
		cr_assert_not_null(s);
		used_t = atof(s);
		cr_expect_gt(used_t, 8e6, "target holds the 8 MiB: %s", s);
		s = e2e_metric(rd, cell, "fs_used_bytes_source");
		cr_assert_not_null(s);
		used_s = atof(s);
		s = e2e_metric(rd, cell, "fs_used_bytes");
		cr_assert_not_null(s);
		cr_expect_eq(atof(s), used_s + used_t, "the total is the sum");
	}
	snprintf(log, sizeof(log), "%s/log.txt", rd);
	s = e2e_read(log);
	cr_expect(strstr(s, "ext4::noatime: remounted source") &&
		  strstr(s, "ext4::noatime: remounted target") &&
		  strstr(s, "xfs: remounted target"), "%s", s);
	cr_expect(strstr(s, "mounted source, applied options: rw,noatime"),
		  "%s", s);
	snprintf(path, sizeof(path), "%s/manifest.json", rd);
	cr_expect(strstr(e2e_read(path), "\"mount_applied_volumes\""));
	cr_expect(strstr(e2e_read(path), "\"volumes\": [\n   \"source\",\n"
			 "   \"target\"\n  ]"), "the target's volumes are "
		  "recorded");
	cr_expect_eq(e2e_mounted_under("/run/fsplan/mnt/"), 0);
	cr_expect_eq(e2e_mounted_under(dir), 0);
	cr_expect_eq(e2e_loops_under(dir), 0, "a loop device is left");
}

/* What an exec phase prints about a tree: every entry with its size,
 * mtime and content checksum, sorted (so equal trees print alike). */
#define LIST(d) "cd " d " && find . -printf '%P %y %s %T@\\\\n' | sort && " \
		"find . -type f | sort | xargs sha256sum | sha256sum && " \
		"find . -type f | wc -l && find . -type f -printf '%s\\\\n' " \
		"| awk '{s+=$1} END {print s}'"

Test(volumes, tree_steps_keep_the_tree_and_rm_empties, .fini = fini,
     .timeout = 180)
{
	const char *dir, *plan;
	char rd[256], *src, *dst, *cpy, *mvd, buf[64];
	const char *s;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = e2e_write(dir, "plan.yaml",
		"fsplan: 1\n"
		"seed: 3\n"
		"target: {image: 256M, volumes: [source, target]}\n"
		"between: [sync, remount, drop_caches]\n"
		"filesystems: [{type: ext4}]\n"
		"phases:\n"
		"  - {name: prepare, use: tree, with: {step: prepare, size: 16M}}\n"
		"  - {name: src, exec: \"" LIST("source/home") "\"}\n"
		"  - {name: create, use: tree, with: {step: create, size: 16M}}\n"
		"  - {name: dst, exec: \"" LIST("target/home") "\"}\n"
		"  - {name: copy, use: tree, with: {step: copy, size: 16M}}\n"
		"  - {name: cpy, exec: \"" LIST("target/home.copy") "\"}\n"
		"  - {name: move, use: tree, with: {step: move, size: 16M}}\n"
		"  - {name: mvd, exec: \"" LIST("target/moved/home.copy") "\"}\n"
		"  - {name: rm1, use: tree, with: {step: rm1, size: 16M}}\n"
		"  - {name: rm2, use: tree, with: {step: rm2, size: 16M}}\n"
		"  - {name: left, exec: 'ls -A target'}\n");
	snprintf(rd, sizeof(rd), "%s/run", dir);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					  "--workdir", dir, NULL });
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	src = strdup(out_of(rd, 2, "ext4", "src"));
	dst = strdup(out_of(rd, 4, "ext4", "dst"));
	cpy = strdup(out_of(rd, 6, "ext4", "cpy"));
	mvd = strdup(out_of(rd, 8, "ext4", "mvd"));
	cr_assert(strlen(src) > 1000, "%s", src);
	cr_expect_str_eq(dst, src, "create: names, sizes, mtimes, contents");
	cr_expect_str_eq(cpy, src, "copy");
	cr_expect_str_eq(mvd, src, "move");
	s = e2e_metric(rd, "ext4/create#1", "files");
	cr_assert_not_null(s);
	snprintf(buf, sizeof(buf), "\n%s\n16777216\n", s);
	cr_expect(strstr(src, buf), "files %s and 16 MiB: %s", s,
		  strrchr(src, ':') ? strrchr(src, ':') : src);
	cr_expect_gt(atoi(s), 50, "a 16M home is many files");
	cr_expect_str_eq(e2e_metric(rd, "ext4/create#1", "bytes"), "16777216");
	cr_expect_not_null(e2e_metric(rd, "ext4/create#1", "rate_mbs"));
	cr_expect_not_null(e2e_metric(rd, "ext4/copy#1", "files_per_s"));
	/* MiB over seconds, as the study's table heads it */
	cr_expect_str_eq(e2e_unit(rd, "ext4/create#1", "rate_mbs"), "MiB/s");
	cr_expect_str_eq(e2e_unit(rd, "ext4/copy#1", "files_per_s"),
			 "files/s");
	/* prepare, move and the rms have no rate, create and copy do: no
	 * misspelt key */
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", rd, NULL }), 0,
		     "%s", e2e_err);
	cr_expect_null(strstr(e2e_out, "key metric of the phase with no rows"),
		       "%s", e2e_out);
	/* what the steps copied and removed: the tree */
	cr_expect_str_eq(e2e_metric(rd, "ext4/copy#1", "files"), s);
	cr_expect_str_eq(e2e_metric(rd, "ext4/rm1#1", "files"), s);
	cr_expect_str_eq(e2e_metric(rd, "ext4/rm2#1", "files"), s);
	cr_expect_str_eq(e2e_metric(rd, "ext4/rm1#1", "bytes"), "16777216");
	cr_expect_not_null(e2e_metric(rd, "ext4/rm2#1",
				      "fs_used_bytes_target"));
	cr_expect_str_eq(out_of(rd, 11, "ext4", "left"), "lost+found\n",
			 "rm1 and rm2 leave the volume empty");
	free(src);
	free(dst);
	free(cpy);
	free(mvd);
	cr_expect_eq(e2e_mounted_under(dir), 0);
	cr_expect_eq(e2e_loops_under(dir), 0);
}

/* A phase that writes beside the volumes fills the work directory's
 * tmpfs of a MiB: its reason says where its files belong; one that
 * fills a volume names the volume's file and gets no such hint. */
Test(volumes, a_write_beside_the_volumes_says_where_files_go,
     .fini = fini, .timeout = 120)
{
	char rd[256];
	const char *why;
	const char *plan = e2e_write(e2e_tmpdir(), "plan.yaml",
		"fsplan: 1\n"
		"target: {image: 64M, volumes: [source, target]}\n"
		"filesystems: [{type: ext4}]\n"
		"phases:\n"
		"  - {name: beside, exec: 'dd if=/dev/zero of=x bs=1M count=4'}\n"
		"  - {name: inside, exec: 'dd if=/dev/zero of=source/x bs=1M "
		"count=100'}\n");

	e2e_require_root();
	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	cr_expect_eq(e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
						  NULL }), 1, "%s", e2e_err);
	why = e2e_reason(rd, "ext4/beside#1");
	cr_expect(why && strstr(why, "No space left") &&
		  strstr(why, "the work directory itself is a 1 MiB tmpfs"),
		  "%s", why);
	why = e2e_reason(rd, "ext4/inside#1");
	cr_expect(why && strstr(why, "No space left") &&
		  !strstr(why, "1 MiB tmpfs"), "%s", why);
}

/* A tree-study plan (head: plan keys; body: its phases, and a matrix) of
 * a home of size on a 64M image per volume. */
static const char *tree_plan(const char *head, const char *size,
			     const char *body)
{
	char text[4096];

	snprintf(text, sizeof(text), "fsplan: 1\n%s"
		 "params: {size: %s}\n"
		 "target: {image: 64M, volumes: [source, target]}\n"
		 "between: [sync, remount, drop_caches]\n"
		 "filesystems: [{type: ext4}]\n"
		 "%s", head, size, body);
	return e2e_write(e2e_tmpdir(), "plan.yaml", text);
}

static int run_tree(const char *size, const char *steps, char *rd,
		    size_t len)
{
	const char *plan = tree_plan("", size, steps);

	snprintf(rd, len, "%s/run", e2e_tmpdir());
	return e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					    "--workdir", e2e_tmpdir(), NULL });
}

#define STEP(s) "  - {name: " s ", use: tree, with: {step: " s \
		", size: \"${size}\"}}\n"

/*
 * A step whose start is not what the steps before it leave fails in its
 * setup, and says what is missing and which step did not make it: a 53M
 * home does not fit a 64M image's ext4 (prepare runs out of space), and
 * each later step was ok with the nominal tree's figures (rm1: 751 files,
 * 100 MiB, of a tree that was never there).
 */
Test(volumes, tree_step_after_a_failed_one_fails_in_setup, .fini = fini,
     .timeout = 120)
{
	static const char *const want[][2] = {
		{ "ext4/create#1", "setup: source/home is not the whole tree: " },
		{ "ext4/copy#1", "setup: target/home is missing — the create "
				 "step failed or did not run" },
		{ "ext4/move#1", "setup: target/home.copy is missing — the "
				 "copy step" },
		{ "ext4/rm1#1", "setup: target/moved/home.copy is missing — "
				"the move step" },
		{ "ext4/rm2#1", "setup: target/home is missing" },
	};
	char rd[256];
	const char *why;
	int rc;

	e2e_require_root();
	rc = run_tree("53M", "phases:\n" STEP("prepare") STEP("create") STEP("copy")
		      STEP("move") STEP("rm1") STEP("rm2"), rd, sizeof(rd));
	cr_assert_eq(rc, 1, "exit %d: %s", rc, e2e_err);
	why = e2e_reason(rd, "ext4/prepare#1");
	cr_expect(why && strstr(why, "No space left on device"), "%s", why);
	why = e2e_reason(rd, "ext4/create#1");
	cr_expect(why && strstr(why, "— the prepare step failed or did not "
				"run"), "%s", why);
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++) {
		cr_expect_str_eq(e2e_metric(rd, want[i][0], "status"),
				 "failed", "%s", want[i][0]);
		why = e2e_reason(rd, want[i][0]);
		cr_expect(why && strstr(why, want[i][1]), "%s: %s",
			  want[i][0], why);
		cr_expect_null(e2e_metric(rd, want[i][0], "files"),
			       "%s: figures of a tree it did not have",
			       want[i][0]);
	}
}

/*
 * The copy step's running out of space names the file it was writing
 * (target/home.copy/...), not the one it read, by the kernel's copy and
 * by the buffer's; the move after it finds the copy short; what create
 * copied and rm1 removed is what they count.
 */
Test(volumes, tree_copy_names_the_file_it_could_not_write, .fini = fini,
     .timeout = 120)
{
	char rd[256], cell[64];
	const char *why, *by[] = { "auto", "never" };
	int rc;

	e2e_require_root();
	rc = run_tree("32M", "matrix: {by: [auto, never]}\n"
		      "phases:\n"
		      STEP("prepare") STEP("create")
		      "  - {name: copy, use: tree, with: {step: copy, size: "
		      "\"${size}\", reflink: \"${by}\"}}\n"
		      STEP("move"), rd, sizeof(rd));
	cr_assert_eq(rc, 1, "exit %d: %s", rc, e2e_err);
	for (int i = 0; i < 2; i++) {
		snprintf(cell, sizeof(cell), "ext4/create/by=%s#1", by[i]);
		cr_expect_str_eq(e2e_metric(rd, cell, "bytes"), "33554432");
		snprintf(cell, sizeof(cell), "ext4/copy/by=%s#1", by[i]);
		why = e2e_reason(rd, cell);
		cr_expect(why && strstr(why, ": target/home.copy/") &&
			  strstr(why, "No space left on device"), "%s: %s",
			  cell, why);
		snprintf(cell, sizeof(cell), "ext4/move/by=%s#1", by[i]);
		why = e2e_reason(rd, cell);
		cr_expect(why && strstr(why, "setup: target/home.copy is not "
					"the whole tree: "), "%s: %s", cell,
			  why);
	}
}

/* fsplan check of a tree plan: its exit status; what it said in e2e_err. */
static int check_tree(const char *head, const char *size)
{
	const char *plan = tree_plan(head, size, "phases:\n" STEP("prepare")
				     STEP("create"));

	return e2e_fsplan((const char *[]){ "check", plan, NULL });
}

/* Under order: configs a step's repetitions run back to back on the
 * same filesystems, and the second prepare found the first's tree
 * (prepare#2: "source/home: File exists", and so on): refused at check,
 * with what to do; order: rounds repeats. */
Test(volumes, tree_check_refuses_repeat_without_rounds, .fini = fini)
{
	cr_expect_eq(check_tree("repeat: 2\n", "16M"), 2, "%s", e2e_err);
	cr_expect(strstr(e2e_err, "cell ext4/prepare#1: repeat: 2 with order: "
			 "configs runs each step's repetitions back to back") &&
		  strstr(e2e_err, "give order: rounds"), "%s", e2e_err);
	cr_expect_eq(check_tree("repeat: {min: 2, max: 4, ci: 5%}\n", "16M"),
		     2, "%s", e2e_err);
	cr_expect_eq(check_tree("repeat: 2\norder: rounds\n", "16M"), 0, "%s",
		     e2e_err);
	cr_expect_eq(check_tree("", "16M"), 0, "%s", e2e_err);
}

/* A home larger than the image is refused at check (it ran, and prepare
 * ran out of space). */
Test(volumes, tree_check_refuses_a_home_larger_than_the_image, .fini = fini)
{
	cr_expect_eq(check_tree("", "64M"), 0, "%s", e2e_err);
	cr_expect_eq(check_tree("", "100M"), 2, "%s", e2e_err);
	cr_expect(strstr(e2e_err, "size 100 MiB does not fit the image of "
			 "64 MiB"), "%s", e2e_err);
}
