/* test_seedplans: the seed plans have the configs and options the studies had.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

/* One expanded cell: its config (the id up to the first '/'), the mkfs
 * and the mount command. */
struct cell {
	char cfg[256], mkfs[256], mount[256];
};

static struct cell cells[512];
static int ncells;

static void field(char *dst, size_t len, const char *s, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, s, n);
	dst[n] = 0;
}

/* Split one line of fsplan expand (index, id, mkfs, mount) into c. */
static int parse_line(const char *line, const char *end, struct cell *c)
{
	const char *f[4], *p = line;
	const char *slash;

	for (int i = 0; i < 4; i++) {
		f[i] = p;
		p = memchr(p, '\t', end - p);
		if (!p && i < 3)
			return -1;
		p = p ? p + 1 : end;
	}
	slash = memchr(f[1], '/', f[2] - f[1]);
	if (!slash)
		return -1;
	field(c->cfg, sizeof(c->cfg), f[1], slash - f[1]);
	field(c->mkfs, sizeof(c->mkfs), f[2], f[3] - f[2] - 1);
	field(c->mount, sizeof(c->mount), f[3], end - f[3]);
	return 0;
}

/* fsplan expand ../plans/PLAN with extra args (NULL-ended, at most 12):
 * its cells in cells[], their count returned. */
static int expand(const char *plan, const char *const *extra)
{
	const char *argv[20] = { "expand" };
	char path[128];
	const char *s, *nl;
	int n = 1, rc;

	snprintf(path, sizeof(path), "../plans/%s", plan);
	argv[n++] = path;
	for (int i = 0; extra && extra[i] && n < 19; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	rc = e2e_fsplan(argv);
	cr_assert_eq(rc, 0, "expand %s: exit %d: %s", plan, rc, e2e_err);
	ncells = 0;
	for (s = e2e_out; *s && ncells < 512; s = nl + 1) {
		nl = strchr(s, '\n');
		cr_assert_not_null(nl, "expand's output was cut short");
		cr_assert_eq(parse_line(s, nl, &cells[ncells]), 0,
			     "not a cell line: %.*s", (int)(nl - s), s);
		ncells++;
	}
	return ncells;
}

/* The first cell of config cfg, or NULL. */
static const struct cell *config(const char *cfg)
{
	for (int i = 0; i < ncells; i++)
		if (!strcmp(cells[i].cfg, cfg))
			return &cells[i];
	return NULL;
}

/* How many distinct configs the cells have. */
static int nconfigs(void)
{
	int n = 0;

	for (int i = 0; i < ncells; i++)
		if (config(cells[i].cfg) == &cells[i])
			n++;
	return n;
}

/* Config cfg exists, its mkfs command has mkfs and its mount command has
 * every comma-separated option of opts in its -o list. */
static void want(const char *cfg, const char *mkfs, const char *opts)
{
	const struct cell *c = config(cfg);
	char list[256], o[256], *tok, *save;
	const char *p;

	cr_assert_not_null(c, "no config '%s' in:\n%s", cfg, e2e_out);
	cr_expect(strstr(c->mkfs, mkfs), "%s: mkfs '%s' lacks '%s'", cfg,
		  c->mkfs, mkfs);
	p = strstr(c->mount, " -o ");
	snprintf(list, sizeof(list), ",%s", p ? p + 4 : "");
	*strchrnul(list, ' ') = 0;
	strcat(list, ",");
	snprintf(o, sizeof(o), "%s", opts);
	for (tok = strtok_r(o, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char one[128];

		snprintf(one, sizeof(one), ",%s,", tok);
		cr_expect(strstr(list, one), "%s: mount '%s' lacks %s", cfg,
			  c->mount, tok);
	}
}

/* No cell of config cfg mounts with option opt. */
static void unwanted(const char *cfg, const char *opt)
{
	const struct cell *c = config(cfg);

	cr_assert_not_null(c, "no config '%s'", cfg);
	cr_expect_null(strstr(c->mount, opt), "%s: mount '%s' has %s", cfg,
		       c->mount, opt);
}

/*
 * hron-2003: every config mounted noatime as the study did, ext3 with a
 * 400 MiB journal, xfs with its log size and log buffers; the real
 * bonnie++ and dbench beside the native phases.
 */
Test(seedplans, hron_2003_has_the_study_options)
{
	const char *plan;

	cr_assert_eq(expand("hron-2003.yaml", (const char *[]){
		"-D", "reps=1", "--only", "phase=bonnie", NULL }), 5);
	for (int i = 0; i < ncells; i++)
		cr_expect(strstr(cells[i].mount, "noatime"),
			  "%s: '%s' lacks noatime", cells[i].cfg,
			  cells[i].mount);
	want("ext2::noatime", "mkfs.ext2", "noatime");
	want("ext3:-J size=400:noatime,data=writeback", "-J size=400",
	     "noatime,data=writeback");
	want("xfs-log", "-l size=32768b", "noatime,logbufs=8,logbsize=32768");
	want("jfs::noatime", "mkfs.jfs", "noatime");
	want("reiserfs::noatime", "mkfs.reiserfs", "noatime");
	cr_expect_eq(expand("hron-2003.yaml", (const char *[]){
		"-D", "reps=1", "--only", "phase=real-bonnie", NULL }), 5);
	cr_expect_eq(expand("hron-2003.yaml", (const char *[]){
		"-D", "db_reps=1", "--only", "phase=real-dbench", NULL }), 10);
	cr_expect(strstr(e2e_out, "/real-dbench/clients=64#1\t") &&
		  strstr(e2e_out, "/real-dbench/clients=192#1\t"),
		  "%s", e2e_out);
	/* expand prints no parameters: bonnie's are read in the plan */
	plan = e2e_read("../plans/hron-2003.yaml");
	cr_expect(strstr(plan, "\n  files: 64 "), "bonnie -n 64");
	cr_expect(strstr(plan, "stdio_char: true"), "per-char via stdio");
}

/*
 * ext4-2008: ext3 and ext4 data=writeback without nobarrier (the post
 * gave it to xfs only), xfs's nobarrier a parameter, and the ext4 feature
 * configs.
 */
Test(seedplans, ext4_2008_has_writeback_and_the_features)
{
	static const char *const ext[] = { "ext3:-I 128:data=writeback",
					   "ext4:-I 256:data=writeback" };
	static const char *const inode[] = { "mkfs.ext3 -I 128 ",
					     "mkfs.ext4 -I 256 " };

	expand("ext4-2008.yaml", NULL);
	cr_expect_eq(nconfigs(), 8, "%s", e2e_out);
	for (int i = 0; i < 2; i++) {
		want(ext[i], inode[i], "data=writeback");
		unwanted(ext[i], "barrier");
	}
	want("ext4-extents", "-O ^flex_bg,^metadata_csum",
	     "data=writeback,nodelalloc");
	want("ext4-delalloc", "-O ^flex_bg,^metadata_csum",
	     "data=writeback,delalloc");
	want("ext4-flex_bg", "-O ^metadata_csum", "data=writeback,nodelalloc");
	cr_expect_null(strstr(config("ext4-flex_bg")->mkfs, "^flex_bg"));
	want("ext4-uninit_bg", "^metadata_csum,uninit_bg",
	     "data=writeback,nodelalloc");
	want("ext4-journal_checksum", "-O ^flex_bg,^metadata_csum",
	     "data=writeback,nodelalloc,journal_checksum");
	unwanted("xfs:-f:defaults", "barrier");
	expand("ext4-2008.yaml", (const char *[]){
		"-D", "xfs_mount=nobarrier", "--only", "type=xfs", NULL });
	want("xfs:-f:nobarrier", "mkfs.xfs", "nobarrier");
}

/* ext4-2008's feature configs make and mount on this kernel: one tiny
 * small-file cell each, every one ok. */
Test(seedplans, ext4_2008_features_mount, .timeout = 240)
{
	static const char *const fs[] = { "ext4-extents", "ext4-delalloc",
		"ext4-flex_bg", "ext4-uninit_bg", "ext4-journal_checksum" };
	char rd[600], cell[256];
	int rc;

	e2e_require_root();
	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	rc = e2e_fsplan((const char *[]){
		"run", "../plans/ext4-2008.yaml", "-o", rd, "-q",
		"--only", "label=ext4-extents,threads=1,profile=small_file",
		"--only", "label=ext4-delalloc,threads=1,profile=small_file",
		"--only", "label=ext4-flex_bg,threads=1,profile=small_file",
		"--only", "label=ext4-uninit_bg,threads=1,profile=small_file",
		"--only",
		"label=ext4-journal_checksum,threads=1,profile=small_file",
		"-D", "image=256M", "-D", "small_files=16", "-D", "small_dirs=4",
		"-D", "small_max=16k", "-D", "small_ops=100",
		"-D", "small_seconds=1s", NULL });
	cr_assert_eq(rc, 0, "exit %d: %s%s", rc, e2e_err, e2e_failed(rd));
	for (int i = 0; i < 5; i++) {
		const char *st;

		snprintf(cell, sizeof(cell), "%s/small_file/threads=1,"
			 "profile=small_file#1", fs[i]);
		st = e2e_metric(rd, cell, "status");
		cr_expect(st && !strcmp(st, "ok"), "%s: %s", cell,
			  st ? st : "no status row");
	}
	cr_expect_eq(e2e_count(rd, "mkfs_s"), 5);
	e2e_cleanup();
}

/* atime-2007: xfs and ext4 only, each with the three atime modes, and
 * the real bonnie++ beside the native one. */
Test(seedplans, atime_2007_configs)
{
	static const char *const cfg[] = {
		"xfs::strictatime", "xfs::relatime", "xfs::noatime",
		"ext4::strictatime", "ext4::relatime", "ext4::noatime" };

	expand("atime-2007.yaml", (const char *[]){ "-D", "reps=1", NULL });
	cr_expect_eq(nconfigs(), 6, "%s", e2e_out);
	for (int i = 0; i < 6; i++)
		want(cfg[i], "mkfs.", strchr(cfg[i], ':') + 2);
	cr_expect(strstr(e2e_out, "ext4::noatime/real-bonnie#1\t"));
}

/* atime-2007's real bonnie++ runs in the memory cgroup of the plan's
 * ram, as the native bonnie does: in a reduced run it is not served by
 * the page cache. */
Test(seedplans, atime_2007_real_bonnie_has_the_ram_limit, .timeout = 240)
{
	const char *cell = "ext4::noatime/real-bonnie#1";
	const char *lim;
	char rd[600];
	int rc;

	e2e_require_root();
	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	rc = e2e_fsplan((const char *[]){
		"run", "../plans/atime-2007.yaml", "-o", rd, "-q",
		"--only", "type=ext4,mount=noatime,phase=real-bonnie",
		"-D", "image=1G", "-D", "ram=32M", "-D", "files=1",
		"-D", "reps=1", "-D", "bonnie_sizes=-s 64 -r 32", NULL });
	cr_assert_eq(rc, 0, "exit %d: %s%s", rc, e2e_err, e2e_failed(rd));
	cr_expect_eq(e2e_num(rd, cell, "ram_mib"), 32);
	lim = e2e_metric(rd, cell, "ram_limit");
	cr_expect(lim && strncmp(lim, "cgroup-", 7) == 0, "ram_limit %s",
		  lim ? lim : "missing");
	e2e_cleanup();
}

/* oltp-2008: the study's 12 configs, the three data=writeback ext4 ones
 * among them. */
Test(seedplans, oltp_2008_has_twelve_configs)
{
	expand("oltp-2008.yaml", NULL);
	cr_expect_eq(nconfigs(), 12, "%s", e2e_out);
	want("ext4-writeback-extents", "mkfs.ext4",
	     "data=writeback,nodelalloc");
	want("ext4-writeback-mballoc-extents", "mkfs.ext4",
	     "data=writeback,nodelalloc");
	want("ext4-writeback-mballoc-delalloc-extents", "mkfs.ext4",
	     "data=writeback");
	unwanted("ext4-writeback-mballoc-delalloc-extents", "nodelalloc");
	want("ext3::data=ordered", "mkfs.ext3", "data=ordered");
	want("ext3::data=writeback", "mkfs.ext3", "data=writeback");
}

/* home-tree-2008: xfs keeps the study's noatime, ext3 its options. */
Test(seedplans, home_tree_2008_xfs_noatime)
{
	expand("home-tree-2008.yaml", NULL);
	want("xfs::noatime", "mkfs.xfs", "noatime");
	want("ext3::barrier=1,data=journal,noatime", "mkfs.ext3",
	     "barrier=1,data=journal,noatime");
}

/* Every seed plan passes fsplan check as it is. */
Test(seedplans, every_seed_plan_checks)
{
	static const char *const plans[] = {
		"../plans/hron-2003.yaml", "../plans/ext4-2008.yaml",
		"../plans/atime-2007.yaml", "../plans/home-tree-2008.yaml",
		"../plans/oltp-2008.yaml" };

	for (int i = 0; i < 5; i++) {
		int rc = e2e_fsplan((const char *[]){ "check", plans[i],
						      NULL });

		cr_expect_eq(rc, 0, "%s: exit %d: %s", plans[i], rc, e2e_err);
	}
}
