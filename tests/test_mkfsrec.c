/* test_mkfsrec: what mkfs made, read back and recorded beside what was asked.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "host/mkfsinfo.h"
#include "report/manifestread.h"
#include "util/strbuf.h"

#define FIXTURES "fixtures/mkfs"

static void fini(void)
{
	e2e_cleanup();
}

static json_t *parsed(json_t *(*parse)(const char *), const char *name)
{
	char path[256];
	char *text;
	json_t *o;

	snprintf(path, sizeof(path), FIXTURES "/%s", name);
	text = e2e_slurp(path, NULL);
	o = parse(text);
	free(text);
	cr_assert_not_null(o, "%s: parsed", name);
	return o;
}

static long long num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	cr_assert(json_is_integer(v), "%s is a number", key);
	return json_integer_value(v);
}

/* Whether the list o[key] holds word. */
static int listed(json_t *o, const char *key, const char *word)
{
	json_t *a = json_object_get(o, key), *w;
	size_t i;

	cr_assert(json_is_array(a), "%s is a list", key);
	json_array_foreach(a, i, w)
		if (!strcmp(json_string_value(w), word))
			return 1;
	return 0;
}

Test(mkfsrec, dumpe2fs_features_and_sizes)
{
	json_t *o = parsed(mkfsinfo_ext, "dumpe2fs-ext4-nocsum-i128.txt");

	cr_expect(listed(o, "features", "has_journal"));
	cr_expect(listed(o, "features", "flex_bg"));
	cr_expect(!listed(o, "features", "metadata_csum"));
	cr_expect_eq(json_array_size(json_object_get(o, "features")), 13);
	cr_expect_eq(num(o, "inode_size"), 128);
	cr_expect_eq(num(o, "block_size"), 1024);
	cr_expect_eq(num(o, "inode_count"), 81920);
	cr_expect_eq(num(o, "flex_bg_size"), 16);
	cr_expect_eq(num(o, "journal_bytes"), 8 << 20);
	json_decref(o);
	o = parsed(mkfsinfo_ext, "dumpe2fs-ext4-default.txt");
	cr_expect(listed(o, "features", "metadata_csum"));
	cr_expect_eq(num(o, "inode_size"), 256);
	json_decref(o);
	o = parsed(mkfsinfo_ext, "dumpe2fs-ext2.txt");
	cr_expect(!listed(o, "features", "has_journal"));
	cr_expect_null(json_object_get(o, "journal_bytes"), "ext2: none");
	cr_expect_null(json_object_get(o, "flex_bg_size"));
	json_decref(o);
}

Test(mkfsrec, xfs_info_geometry)
{
	json_t *o = parsed(mkfsinfo_xfs, "xfs_info-isize512.txt");

	cr_expect_eq(num(o, "isize"), 512);
	cr_expect_eq(num(o, "bsize"), 4096, "data's, not naming's or log's");
	cr_expect_eq(num(o, "agcount"), 4);
	cr_expect_eq(num(o, "agsize"), 20480);
	cr_expect_eq(num(o, "blocks"), 81920, "data's, not the log's");
	cr_expect_eq(num(o, "log_bytes"), 16384LL * 4096);
	cr_expect_str_eq(json_string_value(json_object_get(o, "log")),
			 "internal");
	cr_expect_eq(num(o, "crc"), 1);
	cr_expect_eq(num(o, "rmapbt"), 0);
	cr_expect_eq(num(o, "ftype"), 1);
	cr_expect_null(json_object_get(o, "log_blocks"));
	json_decref(o);
}

Test(mkfsrec, dump_super_sizes_and_flags)
{
	json_t *o = parsed(mkfsinfo_btrfs, "dump-super-n32k.txt");

	cr_expect_eq(num(o, "nodesize"), 32768);
	cr_expect_eq(num(o, "sectorsize"), 4096);
	cr_expect_eq(num(o, "num_devices"), 1);
	cr_expect_str_eq(json_string_value(json_object_get(o, "csum_type")),
			 "crc32c");
	cr_expect_eq(json_array_size(json_object_get(o, "incompat")), 4);
	cr_expect(listed(o, "incompat", "NO_HOLES"));
	cr_expect(listed(o, "incompat", "MIXED_BACKREF"));
	cr_expect(!listed(o, "incompat", "WRITTEN"), "the flags field's");
	cr_expect_eq(json_array_size(json_object_get(o, "compat_ro")), 2);
	cr_expect(listed(o, "compat_ro", "FREE_SPACE_TREE_VALID"));
	json_decref(o);
}

Test(mkfsrec, other_text_is_not_understood)
{
	static const char *const text[] = {
		"", "dumpe2fs 1.47.0 (5-Feb-2023)\ndumpe2fs: Bad magic number "
		"in super-block while trying to open /dev/loop0\n",
		"xfs_db: /dev/loop0 is not a valid XFS filesystem\n",
		"No valid Btrfs found on /dev/loop0\n",
	};

	for (size_t i = 0; i < sizeof(text) / sizeof(*text); i++) {
		cr_expect_null(mkfsinfo_ext(text[i]), "%zu", i);
		cr_expect_null(mkfsinfo_xfs(text[i]), "%zu", i);
		cr_expect_null(mkfsinfo_btrfs(text[i]), "%zu", i);
	}
}

Test(mkfsrec, a_failing_tool_is_a_reason_a_type_without_one_nothing)
{
	struct diag d = { 0 };
	json_t *o = json_true();

	cr_expect_eq(mkfsinfo_read("tmpfs", "/dev/null", &o, &d), 1);
	cr_expect_null(o);
	cr_expect_eq(mkfsinfo_read("ext4", "/nonexistent/dev", &o, &d), -1);
	cr_expect_null(o);
	cr_expect(strstr(d.msg, "dumpe2fs on ") &&
		  strstr(d.msg, "/nonexistent/dev"), "%s", d.msg);
	cr_expect_eq(mkfsinfo_read("xfs", "/nonexistent/dev", &o, &d), -1);
	cr_expect(strstr(d.msg, "xfs_db"), "%s", d.msg);
}

Test(mkfsrec, short_form_for_the_report)
{
	json_t *conf = json_object();
	struct strbuf s = { 0 };

	json_object_set_new(conf, "mkfs_applied",
			    parsed(mkfsinfo_xfs, "xfs_info-isize512.txt"));
	manifestread_mkfs_applied(conf, &s);
	cr_expect_str_eq(s.p, "isize=512 bsize=4096 agcount=4 log=64MiB crc=1 "
			 "finobt=1 sparse=1 rmapbt=0 reflink=1 bigtime=1");
	free(s.p);
	s = (struct strbuf){ 0 };
	json_object_set_new(conf, "mkfs_applied",
			    parsed(mkfsinfo_ext, "dumpe2fs-ext2.txt"));
	manifestread_mkfs_applied(conf, &s);
	cr_expect_str_eq(s.p, "features=ext_attr,resize_inode,dir_index,"
			 "filetype,sparse_super,large_file inode_size=256 "
			 "block_size=1024");
	free(s.p);
	s = (struct strbuf){ 0 };
	json_object_set_new(conf, "mkfs_applied", json_null());
	manifestread_mkfs_applied(conf, &s);
	cr_expect_eq(s.len, 0, "null: nothing");
	free(s.p);
	json_decref(conf);
}

/* The text report's configs table: from its head to the blank line. */
static char *text_table(const char *out)
{
	const char *p = strstr(out, "\n== filesystem configs"), *end;

	cr_assert_not_null(p, "a configs section: %s", out);
	p = strchr(p + 1, '\n') + 1;
	end = strstr(p, "\n\n");
	return strndup(p, end ? (size_t)(end - p) : strlen(p));
}

/* Run plan text into a run directory (rd), its manifest's configs, its
 * html report (into page, to free) and its text report's configs table
 * (into table, to free: from the head to the blank line) read back. */
static json_t *run_configs(const char *text, char *rd, size_t len,
			   char **page, char **table)
{
	static char html[512];
	const char *dir;
	json_error_t err;
	char path[512];
	json_t *m, *c;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	rc = e2e_run_plan(dir, "mkfsrec", text, rd, len);
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	snprintf(path, sizeof(path), "%s/manifest.json", rd);
	m = json_load_file(path, 0, &err);
	cr_assert_not_null(m, "%s: %s", path, err.text);
	c = json_incref(json_object_get(m, "configs"));
	json_decref(m);
	snprintf(html, sizeof(html), "%s/report.html", dir);
	rc = e2e_fsplan((const char *[]){ "report", rd, "--format", "html",
					  "-o", html, NULL });
	cr_assert_eq(rc, 0, "report: %s", e2e_err);
	*page = e2e_slurp(html, NULL);
	rc = e2e_fsplan((const char *[]){ "report", rd, NULL });
	cr_assert_eq(rc, 0, "report: %s", e2e_err);
	*table = text_table(e2e_out);
	cr_expect_eq(e2e_mounted_under(dir), 0);
	cr_expect_eq(e2e_loops_under(dir), 0, "a loop device is left");
	return c;
}

/* How many times word is in text. */
static json_t *made(json_t *configs, int i)
{
	json_t *o = json_object_get(json_array_get(configs, i),
				    "mkfs_applied");

	cr_assert(json_is_object(o), "config %d has mkfs_applied", i);
	return o;
}

Test(mkfsrec, ext4_and_xfs_as_made_in_manifest_and_report, .fini = fini,
     .timeout = 120)
{
	char *page, *table, head[512];
	char rd[256];
	json_t *c = run_configs(
		"target: {image: 320M}\n"
		"between: none\n"
		"filesystems:\n"
		"  - {type: ext4, mkfs: -O ^metadata_csum -I 128}\n"
		"  - {type: ext4}\n"
		"  - {type: xfs, mkfs: -i size=512}\n"
		"phases: [{exec: 'true'}]\n", rd, sizeof(rd), &page, &table);
	size_t width;
	int lines = 0;

	cr_expect(!listed(made(c, 0), "features", "metadata_csum"));
	cr_expect(listed(made(c, 0), "features", "has_journal"));
	cr_expect_eq(num(made(c, 0), "inode_size"), 128);
	cr_expect(listed(made(c, 1), "features", "metadata_csum"),
		  "mke2fs's default, read back");
	cr_expect_eq(num(made(c, 1), "inode_size"), 256);
	cr_expect_eq(num(made(c, 2), "isize"), 512);
	cr_expect_eq(num(made(c, 2), "agcount"), 4);
	cr_expect(strstr(page, "<th>mkfs made</th>"), "the column");
	cr_expect(strstr(page, "extra_isize inode_size=128 block_size="),
		  "ext4's short form");
	cr_expect(strstr(page, "<td class=\"words\">isize=512 bsize=4096 "
			 "agcount=4 log="),
		  "xfs's short form");
	cr_expect_eq(e2e_occurrences(page, "<th>mkfs made</th>"), 1,
		     "one table");
	/* the text report: the same column, its words wrapped */
	width = strcspn(table, "\n");
	snprintf(head, sizeof(head), "%.*s", (int)width, table);
	cr_expect(strstr(head, "mkfs options") &&
		  strstr(strstr(head, "mkfs options"), "  mkfs made  ") &&
		  strstr(strstr(head, "mkfs made"), "  mount options"),
		  "between mkfs and mount options: %s", head);
	for (const char *p = table; p; p = strchr(p, '\n')) {
		size_t n = strcspn(p += *p == '\n', "\n");

		cr_expect(n <= width, "within the head's %zu columns: %.*s",
			  width, (int)n, p);
		lines++;
	}
	cr_expect_gt(lines, 2 + 3 + 3, "wrapped: more lines than rows");
	cr_expect(strstr(table, "\nxfs") &&
		  strstr(strstr(table, "\nxfs"), "isize=512 bsize=4096 "),
		  "xfs's row: %s", table);
	cr_expect_eq(e2e_occurrences(table, "metadata_csum") -
		     e2e_occurrences(table, "^metadata_csum"), 1,
		     "made on the second ext4 only: %s", table);
	cr_expect_eq(e2e_occurrences(table, "inode_size=128"), 1, "%s", table);
	cr_expect_eq(e2e_occurrences(table, "inode_size=256"), 1, "%s", table);
	/* the second ext4 against the first: what differs, not all again */
	cr_expect_eq(e2e_occurrences(table, "block_size="), 1, "%s", table);
	cr_expect(strstr(table, " as ext4:-O ^metadata_csum -I 128 but"), "%s",
		  table);
	cr_expect(strstr(table, " features +metadata_csum inode_size=256"),
		  "%s", table);
	json_decref(c);
	free(page);
	free(table);
}

Test(mkfsrec, btrfs_nodesize_as_made, .fini = fini, .timeout = 120)
{
	char *page, *table;
	char rd[256];
	json_t *c;

	if (access("/usr/sbin/mkfs.btrfs", X_OK) &&
	    access("/sbin/mkfs.btrfs", X_OK) &&
	    access("/usr/bin/mkfs.btrfs", X_OK))
		cr_skip_test("no mkfs.btrfs here (btrfs-progs)");
	c = run_configs("target: {image: 320M}\n"
			"between: none\n"
			"filesystems: [{type: btrfs, mkfs: -n 32k}]\n"
			"phases: [{exec: 'true'}]\n", rd, sizeof(rd), &page,
			&table);
	cr_expect_eq(num(made(c, 0), "nodesize"), 32768);
	cr_expect_eq(num(made(c, 0), "sectorsize"), 4096);
	cr_expect(strstr(page, "<td class=\"words\">nodesize=32768 "
			 "sectorsize=4096 "),
		  "btrfs's short form");
	cr_expect(strstr(table, "nodesize=32768 sectorsize=4096 "),
		  "the text report's: %s", table);
	json_decref(c);
	free(page);
	free(table);
}

Test(mkfsrec, each_volume_as_made, .fini = fini, .timeout = 120)
{
	char *page, *table;
	char rd[256];
	json_t *c = run_configs(
		"target: {image: 128M, volumes: [source, target]}\n"
		"between: none\n"
		"filesystems: [{type: ext4, mkfs: -I 128 -O ^flex_bg}]\n"
		"phases: [{exec: 'true'}]\n", rd, sizeof(rd), &page, &table);
	json_t *v = json_object_get(json_array_get(c, 0),
				    "mkfs_applied_volumes");

	cr_assert(json_is_object(v), "mkfs_applied_volumes");
	cr_expect_eq(json_object_size(v), 2);
	for (int i = 0; i < 2; i++) {
		json_t *o = json_object_get(v, i ? "target" : "source");

		cr_assert(json_is_object(o), "volume %d", i);
		cr_expect_eq(num(o, "inode_size"), 128);
		cr_expect(!listed(o, "features", "flex_bg"));
	}
	cr_expect_eq(num(made(c, 0), "inode_size"), 128, "the first's");
	cr_expect(strstr(table, " inode_size=128 "), "the first's in the "
		  "text report: %s", table);
	json_decref(c);
	free(page);
	free(table);
}
