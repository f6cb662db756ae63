/* test_studies: `fsplan report`'s study tables that span phases (the home tree's steps). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "report/report.h"

static char home[64], out[512];

static void put(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", home, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fputs(text, f) >= 0, 1);
	cr_assert_eq(fclose(f), 0);
}

#define HEAD "run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase," \
	     "phase_params,rep,metric,value,unit\n"
#define STEP(label, phase, rep, secs, fps, mbs, src, dst, status) \
	"t," label "/" phase "#" rep "," label ",ext4,,," phase ",," rep \
	",seconds," secs ",s\n" \
	"t," label "/" phase "#" rep "," label ",ext4,,," phase ",," rep \
	",files_per_s," fps ",\n" \
	"t," label "/" phase "#" rep "," label ",ext4,,," phase ",," rep \
	",rate_mbs," mbs ",\n" \
	"t," label "/" phase "#" rep "," label ",ext4,,," phase ",," rep \
	",fs_used_bytes_source," src ",bytes\n" \
	"t," label "/" phase "#" rep "," label ",ext4,,," phase ",," rep \
	",fs_used_bytes_target," dst ",bytes\n" \
	"t," label "/" phase "#" rep "," label ",ext4,,," phase ",," rep \
	",status," status ",\n"

/* A run of two configs whose create and rm1 phases use the tree module. */
static void tree_run(void)
{
	snprintf(home, sizeof(home), "/tmp/fsplan-studies-XXXXXX");
	cr_assert_not_null(mkdtemp(home));
	snprintf(out, sizeof(out), "%s/out", home);
	put("manifest.json", "{\"run_id\": \"t\", \"status\": \"complete\", "
	    "\"phases\": [{\"name\": \"create\", \"use\": \"tree\"}, "
	    "{\"name\": \"rm1\", \"use\": \"examples/tree.lua\"}, "
	    "{\"name\": \"other\", \"use\": \"bonnie\"}]}\n");
	put("results.csv", HEAD
	    "t,ext4,ext4,ext4,,,,,0,mkfs_s,1.5,s\n"
	    "t,ext4,ext4,ext4,,,,,0,mount_s,0.25,s\n"
	    STEP("ext4", "create", "1", "10", "100", "50", "2097152",
		 "3145728", "ok")
	    STEP("ext4", "create", "2", "20", "200", "70", "2097152",
		 "3145728", "ok")
	    STEP("ext4", "create", "3", "999", "1", "1", "0", "0", "failed")
	    STEP("ext4", "rm1", "1", "3", "300", "0.5", "2097152", "0", "ok")
	    STEP("ext4", "other", "1", "7", "7", "7", "0", "0", "ok")
	    STEP("xfs", "create", "1", "4", "400", "40", "1048576", "1048576",
		 "ok"));
}

static void tree_fini(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	cr_expect_eq(system(cmd), 0);
}

Test(studies, tree_steps_as_the_study_printed_them, .fini = tree_fini)
{
	char *argv[] = { (char *)"report", home, (char *)"-o", out, NULL };
	const char *s, *ext4, *xfs;

	tree_run();
	cr_assert_eq(report_command(4, argv), 0);
	s = e2e_read(out);
	cr_assert(strstr(s, "== the home tree"), "%s", s);
	ext4 = strstr(s, "\next4   mkfs 1.500 s   mount 0.250 s\n");
	cr_assert_not_null(ext4, "%s", s);
	cr_expect(strstr(ext4, "  create          15.00        150       60.0"
			 "          2          3\n"),
		  "the means of the ok runs, df in MiB: %s", ext4);
	cr_expect(strstr(ext4, "  rm1              3.00        300        0.5"
			 "          2          0\n"), "%s", ext4);
	cr_expect(!strstr(strstr(s, "== the home tree"), "  other "),
		  "a phase of another module is not a step: %s", s);
	xfs = strstr(s, "\nxfs\n");
	cr_assert_not_null(xfs, "%s", s);
	cr_expect(strstr(xfs, "  create           4.00        400       40.0"
			 "          1          1\n"), "%s", xfs);
	cr_expect(!strstr(xfs, "  rm1 "), "xfs has no rm1 run: %s", xfs);
}

/* The page has the same table, a grid per config. */
Test(studies, tree_steps_in_the_html_page, .fini = tree_fini)
{
	char *argv[] = { (char *)"report", home, (char *)"--format",
			 (char *)"html", (char *)"-o", out, NULL };
	const char *s, *ext4, *xfs;

	tree_run();
	cr_assert_eq(report_command(6, argv), 0);
	s = strstr(e2e_read(out), "<h2 id=\"tree\">");
	cr_assert_not_null(s, "%s", e2e_read(out));
	ext4 = strstr(s, "<h3>ext4: mkfs 1.500 s, mount 0.250 s</h3>");
	xfs = strstr(s, "<h3>xfs</h3>");
	cr_assert(ext4 && xfs && ext4 < xfs, "%s", s);
	cr_expect(strstr(ext4, "<tr><td>create</td><td class=\"num\">15.00"
			 "</td><td class=\"num\">150</td><td class=\"num\">"
			 "60.0</td><td class=\"num\">2</td><td class=\"num"
			 "\">3</td></tr>"), "%s", ext4);
	cr_expect(strstr(xfs, "<tr><td>create</td><td class=\"num\">4.00"),
		  "%s", xfs);
	cr_expect_null(strstr(xfs, "<td>rm1</td>"));
	cr_expect_null(strstr(s, "<td>other</td>"));
}
