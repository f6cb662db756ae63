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

/* The report of a run directory made of manifest.json's phases (JSON
 * objects) and results.csv's rows; fini removes the directory. */
static const char *report_of(const char *phases, const char *rows)
{
	char *argv[] = { (char *)"report", home, (char *)"-o", out, NULL };
	char manifest[1024];

	snprintf(home, sizeof(home), "/tmp/fsplan-studies-XXXXXX");
	cr_assert_not_null(mkdtemp(home));
	snprintf(out, sizeof(out), "%s/out", home);
	snprintf(manifest, sizeof(manifest), "{\"run_id\": \"t\", "
		 "\"status\": \"complete\", \"phases\": [%s]}\n", phases);
	put("manifest.json", manifest);
	put("results.csv", rows);
	cr_assert_eq(report_command(4, argv), 0);
	return e2e_read(out);
}

static void fini(void)
{
	char cmd[128];

	if (!*home)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	cr_expect_eq(system(cmd), 0);
	*home = 0;
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

Test(studies, tree_steps_as_the_study_printed_them, .fini = fini)
{
	const char *s, *ext4, *xfs;

	s = report_of("{\"name\": \"create\", \"use\": \"tree\"}, "
		      "{\"name\": \"rm1\", \"use\": \"examples/tree.lua\"}, "
		      "{\"name\": \"other\", \"use\": \"bonnie\"}", HEAD
		      "t,ext4,ext4,ext4,,,,,0,mkfs_s,1.5,s\n"
		      "t,ext4,ext4,ext4,,,,,0,mount_s,0.25,s\n"
		      STEP("ext4", "create", "1", "10", "100", "50", "2097152",
			   "3145728", "ok")
		      STEP("ext4", "create", "2", "20", "200", "70", "2097152",
			   "3145728", "ok")
		      STEP("ext4", "create", "3", "999", "1", "1", "0", "0",
			   "failed")
		      STEP("ext4", "rm1", "1", "3", "300", "0.5", "2097152",
			   "0", "ok")
		      STEP("ext4", "other", "1", "7", "7", "7", "0", "0", "ok")
		      STEP("xfs", "create", "1", "4", "400", "40", "1048576",
			   "1048576", "ok"));
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

#define FFSB(label, phase, t, rep, fig, figv, cpu, status) \
	"t," label "/" phase "/threads=" t "#" rep "," label ",ext4,,," \
	phase ",threads=" t "," rep ",threads," t ",\n" \
	"t," label "/" phase "/threads=" t "#" rep "," label ",ext4,,," \
	phase ",threads=" t "," rep "," fig "," figv ",\n" \
	"t," label "/" phase "/threads=" t "#" rep "," label ",ext4,,," \
	phase ",threads=" t "," rep ",test_cpu_pct," cpu ",%\n" \
	"t," label "/" phase "/threads=" t "#" rep "," label ",ext4,,," \
	phase ",threads=" t "," rep ",status," status ",\n"

/*
 * The 2008 ext4 study's ffsb table: per profile a row per config, the
 * thread counts ascending as columns, the means of the ok runs; the
 * large-file create (nothing read) in write MB/s, the small-file
 * profile (it reads) in transactions/s.
 */
Test(studies, ffsb_profiles_by_threads, .fini = fini)
{
	const char *s, *large, *small;

	s = report_of("{\"name\": \"large\", \"use\": \"ffsb\"}, "
		      "{\"name\": \"small\", \"use\": \"lib/ffsb.lua\"}, "
		      "{\"name\": \"other\", \"use\": \"tiobench\"}", HEAD
		      FFSB("ext4", "large", "16", "1", "write_mbs", "100", "20",
			   "ok")
		      FFSB("ext4", "large", "16", "2", "write_mbs", "120", "30",
			   "ok")
		      FFSB("ext4", "large", "16", "3", "write_mbs", "999", "99",
			   "failed")
		      FFSB("ext4", "large", "1", "1", "write_mbs", "80.25", "10",
			   "ok")
		      FFSB("xfs", "large", "1", "1", "write_mbs", "60", "5",
			   "ok")
		      "t,ext4/small/threads=1#1,ext4,ext4,,,small,threads=1,1,"
		      "read_mbs,2.5,MiB/s\n"
		      FFSB("ext4", "small", "1", "1", "transactions_per_s",
			   "5000", "40", "ok")
		      FFSB("ext4", "other", "1", "1", "write_mbs", "7", "7",
			   "ok"));
	large = strstr(s, "== ffsb");
	cr_assert_not_null(large, "%s", s);
	large = strstr(large, "\nlarge: write MB/s (MiB) and %CPU\n");
	cr_assert_not_null(large, "%s", s);
	cr_expect(strstr(large, "\nthreads                  1"
			 "                 16\n"
			 "config         MB/s   %CPU        MB/s   %CPU\n"),
		  "thread counts ascending: %s", large);
	cr_expect(strstr(large, "\next4           80.2   10.0       110.0   "
			 "25.0\n"), "the means of the ok runs: %s", large);
	cr_expect(strstr(large, "\nxfs            60.0    5.0           -      "
			 "-\n"), "no run is a dash: %s", large);
	small = strstr(large, "\nsmall: transactions/s and %CPU\n");
	cr_assert_not_null(small, "%s", s);
	cr_expect(strstr(small, "\nconfig      trans/s   %CPU\n"
			 "ext4           5000   40.0\n"), "%s", small);
	cr_expect(!strstr(s, "\nother:"), "a tiobench phase: %s", s);
}
