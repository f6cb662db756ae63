/* test_studies: `fsplan report`'s study tables that span phases (the home
 * tree's steps, the OLTP engines side by side). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"

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

/* The report (format "text" or "html") of a run directory made of
 * manifest.json's phases (JSON objects) and results.csv's rows; fini
 * removes the directory. */
static const char *report_as(const char *format, const char *phases,
			     const char *rows)
{
	char *argv[] = { (char *)"report", home, (char *)"--format",
			 (char *)format, (char *)"-o", out, NULL };
	char manifest[1024];

	snprintf(home, sizeof(home), "/tmp/fsplan-studies-XXXXXX");
	cr_assert_not_null(mkdtemp(home));
	snprintf(out, sizeof(out), "%s/out", home);
	snprintf(manifest, sizeof(manifest), "{\"run_id\": \"t\", "
		 "\"status\": \"complete\", \"phases\": [%s]}\n", phases);
	put("manifest.json", manifest);
	put("results.csv", rows);
	cr_assert_eq(e2e_fsplan((const char *const *)argv), 0);
	return e2e_read(out);
}

static const char *report_of(const char *phases, const char *rows)
{
	return report_as("text", phases, rows);
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

/* want is in t. */
static void expect_in(const char *t, const char *want)
{
	cr_expect(strstr(t, want), "no '%s' in:\n%s", want, t);
}

#define HEAD "run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase," \
	     "phase_params,rep,metric,value,unit\n"
/* One row of results.csv: a metric of a phase run of config label. */
#define ROW(label, phase, rep, metric, value, unit) \
	"t," label "/" phase "#" rep "," label ",ext4,,," phase ",," rep \
	"," metric "," value "," unit "\n"
#define STEP(label, phase, rep, secs, fps, mbs, src, dst, status) \
	ROW(label, phase, rep, "seconds", secs, "s") \
	ROW(label, phase, rep, "files_per_s", fps, "") \
	ROW(label, phase, rep, "rate_mbs", mbs, "") \
	ROW(label, phase, rep, "fs_used_bytes_source", src, "bytes") \
	ROW(label, phase, rep, "fs_used_bytes_target", dst, "bytes") \
	ROW(label, phase, rep, "status", status, "")
/* A step's CPU: user and system seconds, CPU%. */
#define CPU(label, phase, rep, user, sys, pct) \
	ROW(label, phase, rep, "cpu_user_s", user, "s") \
	ROW(label, phase, rep, "cpu_sys_s", sys, "s") \
	ROW(label, phase, rep, "cpu_pct", pct, "%")

/* Two configs whose create and rm1 phases use the tree module (create:
 * the module's default step). */
#define TREE_PHASES "{\"name\": \"create\", \"use\": \"tree\"}, " \
	"{\"name\": \"rm1\", \"use\": \"examples/tree.lua\", " \
	"\"with\": {\"step\": \"rm1\"}}, " \
	"{\"name\": \"other\", \"use\": \"bonnie\"}"
#define TREE_ROWS HEAD \
	"t,ext4,ext4,ext4,,,,,0,mkfs_s,1.5,s\n" \
	"t,ext4,ext4,ext4,,,,,0,mount_s,0.25,s\n" \
	STEP("ext4", "create", "1", "10", "100", "50", "2097152", "3145728", \
	     "ok") \
	CPU("ext4", "create", "1", "1", "2", "30") \
	STEP("ext4", "create", "2", "20", "200", "70", "2097152", "3145728", \
	     "ok") \
	CPU("ext4", "create", "2", "3", "4", "40") \
	STEP("ext4", "create", "3", "999", "1", "1", "0", "0", "failed") \
	STEP("ext4", "rm1", "1", "3", "300", "0.5", "2097152", "0", "ok") \
	STEP("ext4", "other", "1", "7", "7", "7", "0", "0", "ok") \
	STEP("xfs", "create", "1", "4", "400", "40", "1048576", "1048576", \
	     "ok")

Test(studies, tree_steps_as_the_study_printed_them, .fini = fini)
{
	const char *s, *ext4, *xfs;

	s = report_of(TREE_PHASES, TREE_ROWS);
	cr_assert(strstr(s, "== the home tree"), "%s", s);
	ext4 = strstr(s, "\next4   mkfs 1.500 s   mount 0.250 s\n");
	cr_assert_not_null(ext4, "%s", s);
	cr_expect(strstr(ext4, "  create        15.00    2.00     3.00    35"
			 "       150     60.0          2          3\n"),
		  "the means of the ok runs, df in MiB: %s", ext4);
	cr_expect(strstr(ext4, "  rm1            3.00       -        -     -"
			 "       300        -          2          0\n"),
		  "an rm unlinks: no MiB/s, whatever was recorded: %s", ext4);
	cr_expect(!strstr(strstr(s, "== the home tree"), "  other "),
		  "a phase of another module is not a step: %s", s);
	xfs = strstr(s, "\nxfs\n");
	cr_assert_not_null(xfs, "%s", s);
	cr_expect(strstr(xfs, "  create         4.00       -        -     -"
			 "       400     40.0          1          1\n"), "%s", xfs);
	cr_expect(!strstr(xfs, "  rm1 "), "xfs has no rm1 run: %s", xfs);
}

/* A move within one filesystem is one rename: its bytes over its time
 * are no rate (50,000+ MB/s in a real run), so its MiB/s is "-"; the
 * figures are MiB, and the head says so. */
Test(studies, tree_move_is_a_rename_with_no_rate, .fini = fini)
{
	const char *s, *t;

	s = report_of("{\"name\": \"copy\", \"use\": \"tree\", \"with\": "
		      "{\"step\": \"copy\"}}, {\"name\": \"mv\", \"use\": "
		      "\"tree\", \"with\": {\"step\": \"move\"}}", HEAD
		      STEP("ext4", "copy", "1", "2", "1000", "200", "2097152",
			   "4194304", "ok")
		      STEP("ext4", "mv", "1", "0.002", "900000", "51200",
			   "2097152", "4194304", "ok"));
	t = strstr(s, "== the home tree");
	cr_assert_not_null(t, "%s", s);
	expect_in(t, "  step        seconds  user s system s  CPU%   files/s"
		  "    MiB/s source MiB target MiB\n");
	expect_in(t, "  copy           2.00       -        -     -      1000"
		  "    200.0          2          4\n");
	expect_in(t, "  mv             0.00       -        -     -    900000"
		  "        -          2          4\n");
	fini();
	t = report_as("html", "{\"name\": \"mv\", \"use\": \"tree\", "
		      "\"with\": {\"step\": \"move\"}}", HEAD
		      STEP("ext4", "mv", "1", "0.002", "900000", "51200",
			   "2097152", "4194304", "ok"));
	t = strstr(t, "<h2 id=\"tree\">");
	cr_assert_not_null(t, "%s", e2e_read(out));
	expect_in(t, "<th>MiB/s</th>");
	expect_in(t, "<th>user s</th><th>system s</th><th>CPU%</th>");
	expect_in(t, "<td>mv</td><td class=\"num\">0.00</td><td class="
		  "\"num\">-</td><td class=\"num\">-</td><td class=\"num"
		  "\">-</td><td class=\"num\">900000</td><td class=\"num\">"
		  "-</td>");
}

/* The page has the same table, a grid per config. */
Test(studies, tree_steps_in_the_html_page, .fini = fini)
{
	const char *s, *ext4, *xfs;

	s = strstr(report_as("html", TREE_PHASES, TREE_ROWS),
		   "<h2 id=\"tree\">");
	cr_assert_not_null(s, "%s", e2e_read(out));
	ext4 = strstr(s, "<h3>ext4: mkfs 1.500 s; mount 0.250 s</h3>");
	xfs = strstr(s, "<h3>xfs</h3>");
	cr_assert(ext4 && xfs && ext4 < xfs, "%s", s);
	cr_expect(strstr(ext4, "<tr><td>create</td><td class=\"num\">15.00"
			 "</td><td class=\"num\">2.00</td><td class=\"num\">"
			 "3.00</td><td class=\"num\">35</td><td class=\"num"
			 "\">150</td><td class=\"num\">60.0</td><td class="
			 "\"num\">2</td><td class=\"num\">3</td></tr>"), "%s",
		  ext4);
	cr_expect(strstr(xfs, "<tr><td>create</td><td class=\"num\">4.00"),
		  "%s", xfs);
	cr_expect_null(strstr(xfs, "<td>rm1</td>"));
	cr_expect_null(strstr(s, "<td>other</td>"));
}

/* A row of a run with parameters (a matrix's axes); a config's own row
 * (phase "") with its top-level axes. */
#define PROW(label, phase, params, rep, metric, value, unit) \
	"t," label "/" phase "/" params "#" rep "," label ",xfs,,," phase \
	"," params "," rep "," metric "," value "," unit "\n"
#define CONF(label, params, metric, value) \
	"t," label "/" params "," label ",xfs,,,," params ",0," metric "," \
	value ",s\n"
#define COPY(params, rep, secs, mbs) \
	PROW("xfs", "copy", params, rep, "seconds", secs, "s") \
	PROW("xfs", "copy", params, rep, "files_per_s", "10", "") \
	PROW("xfs", "copy", params, rep, "rate_mbs", mbs, "") \
	PROW("xfs", "copy", params, rep, "fs_used_bytes_source", "2097152", "") \
	PROW("xfs", "copy", params, rep, "fs_used_bytes_target", "4194304", "") \
	PROW("xfs", "copy", params, rep, "status", "ok", "")

/* A top-level matrix (reflink: [never, auto]) makes each config twice: a
 * section each, never one mean of both (0.287 s and 1.372 s are not
 * 0.83 s); a phase's own axis a row per value; mkfs and mount seconds
 * per volume, not summed. */
Test(studies, tree_matrix_axes_stay_apart, .fini = fini)
{
	const char *s, *never, *aut;

	s = report_of("{\"name\": \"copy\", \"use\": \"tree\", \"with\": "
		      "{\"step\": \"copy\"}}, {\"name\": \"cp\", \"use\": "
		      "\"tree\", \"with\": {\"step\": \"copy\"}}", HEAD
		      CONF("xfs", "reflink=never", "mkfs_s_source", "0.1")
		      CONF("xfs", "reflink=never", "mkfs_s_target", "0.2")
		      CONF("xfs", "reflink=never", "mkfs_s", "0.3")
		      CONF("xfs", "reflink=never", "mount_s_source", "0.04")
		      CONF("xfs", "reflink=never", "mount_s_target", "0.05")
		      CONF("xfs", "reflink=never", "mount_s", "0.09")
		      CONF("xfs", "reflink=auto", "mkfs_s_source", "0.6")
		      CONF("xfs", "reflink=auto", "mkfs_s_target", "0.7")
		      CONF("xfs", "reflink=auto", "mkfs_s", "1.3")
		      COPY("reflink=never", "1", "0.287", "200")
		      PROW("xfs", "copy", "reflink=never", "1", "cpu_user_s",
			   "0.01", "s")
		      PROW("xfs", "copy", "reflink=never", "1", "cpu_sys_s",
			   "0.2", "s")
		      PROW("xfs", "copy", "reflink=never", "1", "cpu_pct",
			   "70", "%")
		      COPY("reflink=auto", "1", "1.372", "42")
		      PROW("xfs", "cp", "reflink=never;bs=1", "1", "seconds",
			   "3", "s")
		      PROW("xfs", "cp", "reflink=never;bs=1", "1", "status",
			   "ok", "")
		      PROW("xfs", "cp", "reflink=never;bs=2", "1", "seconds",
			   "5", "s")
		      PROW("xfs", "cp", "reflink=never;bs=2", "1", "status",
			   "ok", ""));
	never = strstr(s, "\nxfs reflink=never   mkfs source 0.100 s, target "
		       "0.200 s   mount source 0.040 s, target 0.050 s\n");
	aut = strstr(s, "\nxfs reflink=auto   mkfs source 0.600 s, target "
		     "0.700 s\n");
	cr_assert(never && aut && never < aut, "%s", s);
	cr_expect(strstr(never, "  copy           0.29    0.01     0.20    70"
			 "        10    200.0          2          4\n") < aut,
		  "%s", s);
	cr_expect(strstr(never, "  cp bs=1        3.00       -        -     -"
			 "         -        -          -          -\n") < aut,
		  "%s", s);
	cr_expect(strstr(never, "  cp bs=2        5.00       -        -     -"
			 "         -        -          -          -\n") < aut,
		  "%s", s);
	expect_in(aut, "  copy           1.37       -        -     -        10"
		  "     42.0          2          4\n");
	cr_expect_null(strstr(aut, "  cp "), "%s", aut);
	cr_expect_null(strstr(s, "0.83"), "no mean of both: %s", s);
	cr_expect_null(strstr(s, "mkfs 0.300"), "not summed: %s", s);
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

/* The same ffsb tables in the HTML page: a grid per profile, a column
 * pair per thread count. */
Test(studies, ffsb_profiles_in_the_html_page, .fini = fini)
{
	const char *s, *large;

	s = strstr(report_as("html", "{\"name\": \"large\", \"use\": "
			     "\"ffsb\"}", HEAD
			     FFSB("ext4", "large", "16", "1", "write_mbs", "100",
				  "20", "ok")
			     FFSB("ext4", "large", "16", "2", "write_mbs", "120",
				  "30", "ok")
			     FFSB("ext4", "large", "1", "1", "write_mbs",
				  "80.25", "10", "ok")),
		   "<h2 id=\"ffsb\">");
	cr_assert_not_null(s, "%s", e2e_read(out));
	large = strstr(s, "<h3>large: write MB/s (MiB) and %CPU</h3>");
	cr_assert_not_null(large, "%s", s);
	cr_expect(strstr(large, "<th>1 threads: MB/s</th><th>%CPU</th><th>"
			 "16 threads: MB/s</th><th>%CPU</th>"), "%s", large);
	cr_expect(strstr(large, "<tr><td>ext4</td><td class=\"num\">80.2</td>"
			 "<td class=\"num\">10.0</td><td class=\"num\">110.0"
			 "</td><td class=\"num\">25.0</td></tr>"), "%s", large);
}

#define OLTP(label, phase, rep, secs, ev, tps, rps, ops, mn, av, mx, status) \
	ROW(label, phase, rep, "total_time_s", secs, "s") \
	ROW(label, phase, rep, "events", ev, "") \
	ROW(label, phase, rep, "transactions_per_s", tps, "") \
	ROW(label, phase, rep, "requests_per_s", rps, "") \
	ROW(label, phase, rep, "other_per_s", ops, "") \
	ROW(label, phase, rep, "lat_min_ms", mn, "ms") \
	ROW(label, phase, rep, "lat_avg_ms", av, "ms") \
	ROW(label, phase, rep, "lat_max_ms", mx, "ms") \
	ROW(label, phase, rep, "status", status, "")
/* A step's CPU: user and system seconds, CPU%. */
#define CPU(label, phase, rep, user, sys, pct) \
	ROW(label, phase, rep, "cpu_user_s", user, "s") \
	ROW(label, phase, rep, "cpu_sys_s", sys, "s") \
	ROW(label, phase, rep, "cpu_pct", pct, "%")

Test(studies, oltp_engines_side_by_side_as_the_study_printed_them,
     .fini = fini)
{
	const char *s, *t;

	s = report_of("{\"name\": \"native\", \"use\": \"oltp\"}, "
		      "{\"name\": \"real\", \"use\": \"mariadb\"}, "
		      "{\"name\": \"other\", \"use\": \"bonnie\"}", HEAD
		      OLTP("ext4", "native", "1", "60", "1000", "100",
			   "2000", "200", "1", "10", "100", "ok")
		      OLTP("ext4", "native", "2", "60", "3000", "300",
			   "6000", "600", "3", "30", "300", "ok")
		      OLTP("ext4", "native", "3", "1", "1", "9999",
			   "1", "1", "1", "1", "1", "failed")
		      OLTP("ext4", "real", "1", "61", "500", "50",
			   "1000", "100", "2", "20", "200", "ok")
		      OLTP("ext4", "other", "1", "7", "7", "7",
			   "7", "7", "7", "7", "7", "ok")
		      OLTP("xfs", "real", "1", "60", "400", "40",
			   "800", "80", "4", "25", "250", "ok"));
	t = strstr(s, "== OLTP (the 2008 sysbench study)");
	cr_assert_not_null(t, "%s", s);
	cr_expect(strstr(t, "config phase        time s    events   trans/s "
			 "    req/s   other/s      min      avg      max\n"),
		  "%s", t);
	cr_expect(strstr(t, "\next4   native        60.00      2000     200.0"
			 "    4000.0     400.0     2.00    20.00   200.00\n"),
		  "the means of the ok runs: %s", t);
	cr_expect(strstr(t, "\next4   real          61.00       500      50.0"
			 "    1000.0     100.0     2.00    20.00   200.00\n"),
		  "%s", t);
	cr_expect(strstr(t, "\nxfs    real          60.00       400      40.0"
			 "     800.0      80.0     4.00    25.00   250.00\n"),
		  "%s", t);
	cr_expect(!strstr(t, " other "), "another module's phase: %s", t);
	cr_expect(!strstr(t, "\nxfs    native"), "no native run on xfs: %s",
		  t);
}

/* A user's own exec module (or exec: phase) whose output sysbench's
 * parser reads is an OLTP engine too: its runs get the study's table. */
Test(studies, oltp_a_users_sysbench_phase_gets_the_table, .fini = fini)
{
	const char *s, *t;

	s = report_of("{\"name\": \"mine\", \"use\": \"./mydb.lua\", "
		      "\"exec_script\": \"mydb.sh\", \"parse\": \"sysbench\"}, "
		      "{\"name\": \"raw\", \"exec\": \"sysbench run\", "
		      "\"parse\": \"sysbench\"}", HEAD
		      OLTP("ext4", "mine", "1", "30", "900", "30",
			   "1800", "60", "1", "10", "100", "ok")
		      OLTP("ext4", "raw", "1", "20", "400", "20",
			   "800", "40", "1", "10", "100", "ok"));
	t = strstr(s, "== OLTP (the 2008 sysbench study)");
	cr_assert_not_null(t, "%s", s);
	cr_expect(strstr(t, "\next4   mine  "), "%s", t);
	cr_expect(strstr(t, "\next4   raw   "), "%s", t);
}

/* The native engine's rates are ~30 times MariaDB's: the table says why,
 * and the phases' own tables title the same rates alike, sysbench's units
 * (transactions/s, queries/s) or none. */
#define KEYS ", \"key\": [\"transactions_per_s\", \"requests_per_s\", " \
	"\"other_per_s\"]}"
Test(studies, oltp_native_rates_are_not_sysbench_s, .fini = fini)
{
	const char *s, *t;

	s = report_of("{\"name\": \"native\", \"use\": \"oltp\"" KEYS ", "
		      "{\"name\": \"real\", \"use\": \"mariadb\"" KEYS, HEAD
		      ROW("ext4", "native", "1", "transactions_per_s", "15000",
			  "")
		      ROW("ext4", "native", "1", "requests_per_s", "300000",
			  "")
		      ROW("ext4", "native", "1", "other_per_s", "30000", "")
		      ROW("ext4", "native", "1", "status", "ok", "")
		      ROW("ext4", "real", "1", "transactions_per_s", "500",
			  "transactions/s")
		      ROW("ext4", "real", "1", "requests_per_s", "10000",
			  "queries/s")
		      ROW("ext4", "real", "1", "other_per_s", "1000",
			  "queries/s")
		      ROW("ext4", "real", "1", "status", "ok", ""));
	t = strstr(s, "== OLTP (the 2008 sysbench study)");
	cr_assert_not_null(t, "%s", s);
	expect_in(t, "\n\nuse: oltp is MariaDB's I/O and a loop for its "
		  "CPU, not sysbench: compare configs' rates relative to one "
		  "another.\nRelative to ext4, its rates were 0.83-1.02x "
		  "MariaDB's and its I/O a transaction 0.86-1.24x "
		  "(bench/oltp.sh, two runs of 5 rounds; the orders "
		  "agree).\n");
	for (int i = 0; i < 2; i++) {
		t = strstr(s, i ? "== phase real:" : "== phase native:");
		cr_assert_not_null(t, "%s", s);
		expect_in(t, "\ntransactions_per_s: transactions/s, higher is "
			  "better\n");
		expect_in(t, "\nrequests_per_s: requests/s, higher is "
			  "better\n");
		expect_in(t, "\nother_per_s: other/s, higher is better\n");
	}
	fini();
	/* sysbench alone needs no note */
	s = report_of("{\"name\": \"real\", \"use\": \"mariadb\"}", HEAD
		      OLTP("ext4", "real", "1", "61", "500", "50",
			   "1000", "100", "2", "20", "200", "ok"));
	cr_assert(strstr(s, "== OLTP (the 2008 sysbench study)"), "%s", s);
	cr_expect(!strstr(s, "use: oltp is"), "%s", s);
}

/* The OLTP table in the HTML page: one grid, a row per config and
 * engine. */
Test(studies, oltp_engines_in_the_html_page, .fini = fini)
{
	const char *s;

	s = strstr(report_as("html", "{\"name\": \"native\", \"use\": "
			     "\"oltp\"}, {\"name\": \"real\", \"use\": "
			     "\"mariadb\"}", HEAD
			     OLTP("ext4", "native", "1", "60", "1000", "100",
				  "2000", "200", "1", "10", "100", "ok")
			     OLTP("ext4", "real", "1", "61", "500", "50",
				  "1000", "100", "2", "20", "200", "ok")),
		   "<h2 id=\"oltp\">");
	cr_assert_not_null(s, "%s", e2e_read(out));
	cr_expect(strstr(s, "<th>trans/s</th>"), "%s", s);
	cr_expect(strstr(s, "<tr><td>ext4</td><td>native</td><td class=\"num"
			 "\">60.00</td><td class=\"num\">1000</td><td class="
			 "\"num\">100.0</td>"), "%s", s);
	cr_expect(strstr(s, "<tr><td>ext4</td><td>real</td><td class=\"num"
			 "\">61.00</td>"), "%s", s);
	cr_expect(strstr(s, "use: oltp is MariaDB's I/O and a loop"), "%s", s);
}

/* Every thread count is a column, in the text and the page alike (the
 * text stopped at 16, the page at 7). */
Test(studies, ffsb_every_thread_count_is_a_column, .fini = fini)
{
	static const char *const metric[4] = { "threads", "write_mbs",
		"test_cpu_pct", "status" };
	static char rows[1 << 14];
	size_t n = (size_t)snprintf(rows, sizeof(rows), "%s", HEAD);
	const char *s;

	for (int k = 1; k <= 20; k++) {
		char v[4][16];

		snprintf(v[0], sizeof(v[0]), "%d", k);
		snprintf(v[1], sizeof(v[1]), "%d", 10 * k);
		snprintf(v[2], sizeof(v[2]), "1");
		snprintf(v[3], sizeof(v[3]), "ok");
		for (int i = 0; i < 4; i++)
			n += (size_t)snprintf(rows + n, sizeof(rows) - n,
				"t,ext4/large/threads=%d#1,ext4,ext4,,,large,"
				"threads=%d,1,%s,%s,\n", k, k, metric[i],
				v[i]);
	}
	s = report_as("text", "{\"name\": \"large\", \"use\": \"ffsb\"}",
		      rows);
	cr_expect(strstr(s, "\nthreads                  1                  2"),
		  "%s", s);
	cr_expect(strstr(s, "                 20\n"), "%s", s);
	cr_expect(strstr(s, "      200.0    1.0\n"), "%s", s);
	fini();
	s = report_as("html", "{\"name\": \"large\", \"use\": \"ffsb\"}",
		      rows);
	cr_expect(strstr(s, "<th>20 threads: MB/s</th>"), "%s", s);
}
