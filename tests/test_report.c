/* test_report: `fsplan report` on hand-made results.csv files, and a run. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csvtext.h"
#include "e2e.h"
#include "report/rank.h"
#include "results/results.h"

/* A results.csv of its header alone. */
static void begin(void)
{
	len = 0;
	add("run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase,"
	    "phase_params,rep,metric,value,unit\n");
}

/* One row; the cell id is quoted since it may hold commas. */
static void row(const char *cell, const char *label, const char *phase,
		const char *params, int rep, const char *metric,
		const char *value, const char *unit)
{
	add("t,\"%s\",%s,%.4s,,defaults,%s,%s,%d,%s,%s,%s\n", cell, label,
	    label, phase, params, rep, metric, value, unit);
}

static void num(const char *cell, const char *label, const char *phase,
		const char *params, int rep, const char *metric, double v,
		const char *unit)
{
	char s[64];

	snprintf(s, sizeof(s), "%.17g", v);
	row(cell, label, phase, params, rep, metric, s, unit);
}

/* A tiobench-like phase run: rate and CPU vary, the rest is fixed. */
static void tio(const char *label, const char *mode, int threads, int rep,
		double rate, double cpu, const char *status)
{
	char cell[256], params[64];

	snprintf(cell, sizeof(cell), "%s/tio/mode=%s,threads=%d#%d", label,
		 mode, threads, rep);
	snprintf(params, sizeof(params), "mode=%s;threads=%d", mode, threads);
	num(cell, label, "tio", params, rep, "seconds", 1.5, "s");
	/* xfs's runs say which CPU% is the test's own, as tiobench.lua does */
	if (!strncmp(label, "xfs", 3))
		num(cell, label, "tio", params, rep, "test_cpu_pct", cpu, "");
	num(cell, label, "tio", params, rep, "cpu_pct",
	    strncmp(label, "xfs", 3) ? cpu : 90, "%");
	num(cell, label, "tio", params, rep, "rate_mbs", rate, "MiB/s");
	num(cell, label, "tio", params, rep, "avg_lat_ms", 0.002, "ms");
	num(cell, label, "tio", params, rep, "max_lat_ms", 1.5, "ms");
	num(cell, label, "tio", params, rep, "over_2s_pct", 0, "%");
	num(cell, label, "tio", params, rep, "over_10s_pct", 0, "%");
	num(cell, label, "tio", params, rep, "file_size_mib", 256, "MiB");
	num(cell, label, "tio", params, rep, "block_bytes", 4096, "bytes");
	num(cell, label, "tio", params, rep, "threads", threads, "");
	row(cell, label, "tio", params, rep, "status", status,
	    strcmp(status, "ok") ? "exit status 1" : "");
}

/* A bonnie-like phase run: IO tests, a fast rewrite, no getc, files. */
static void bon(const char *label, int rep, double k)
{
	static const char *const names[] = { "bonnie_line", "file_size_mib",
		"seeks_count", "seek_procs", "num_files", "putc", "putc_cpu",
		"putc_latency_us", "put_block", "put_block_cpu",
		"rewrite", "rewrite_fast", "rewrite_latency_us", "get_block",
		"get_block_cpu", "seeks", "seeks_cpu", "seeks_fast",
		"seq_create", "seq_create_cpu", "seq_create_latency_us",
		NULL };
	/* rewrite is too fast both times, seeks the first time only */
	const double v[] = { 1, 256, 8192, 5, 16, 500 + 100 * k, 90 + 6 * k,
		40000 + 10000 * k, 400000 + 20000 * k, 36, 999999, 1, 681,
		2000000 + 100000 * k, 5, 1200 + 100 * k, 3 + k, k == 0,
		2000 + 1000 * k, 10, 150000 };
	char cell[256];

	snprintf(cell, sizeof(cell), "%s/bon#%d", label, rep);
	for (int i = 0; names[i]; i++)
		num(cell, label, "bon", "", rep, names[i], v[i], "");
	row(cell, label, "bon", "", rep, "status", "ok", "");
}

static void fixture(void)
{
	begin();
	row("ext4::defaults", "ext4::defaults", "", "", 0, "mkfs_s", "0.5",
	    "s");
	tio("ext4::defaults", "seq_read", 1, 1, 10, 50, "ok");
	tio("ext4::defaults", "seq_read", 1, 2, 12, 50, "ok");
	tio("ext4::defaults", "seq_read", 1, 3, 14, 50, "ok");
	tio("ext4::defaults", "seq_read", 1, 4, 1000, 50, "failed");
	tio("ext4::defaults", "seq_read", 2, 1, 29, 60, "ok");
	tio("ext4::defaults", "seq_read", 2, 2, 31, 60, "ok");
	tio("ext4::defaults", "rand_write", 1, 1, 5, 25, "ok");
	bon("ext4::defaults", 1, 0);
	bon("ext4::defaults", 2, 1);
	row("ext4::defaults", "ext4::defaults", "", "", 0, "umount_s", "0.25",
	    "s");
	row("xfs::defaults", "xfs::defaults", "", "", 0, "mkfs_s", "0.75",
	    "s");
	tio("xfs::defaults", "seq_read", 1, 1, 19, 40, "ok");
	tio("xfs::defaults", "seq_read", 1, 2, 20, 40, "ok");
	tio("xfs::defaults", "seq_read", 1, 3, 21, 40, "ok");
	row("jfs/tio/mode=seq_read,threads=1#1", "jfs", "tio",
	    "mode=seq_read;threads=1", 1, "status", "skipped",
	    "this kernel has no jfs filesystem");
}

/* home: this test's directory; dir: the RUNDIR given to report. */
static char home[64], dir[256], out[512];

static void setup(void)
{
	snprintf(home, sizeof(home), "/tmp/fsplan-report-XXXXXX");
	cr_assert_not_null(mkdtemp(home));
	snprintf(dir, sizeof(dir), "%s", home);
	snprintf(out, sizeof(out), "%s/out", home);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	cr_expect_eq(system(cmd), 0);
	e2e_cleanup();
}

TestSuite(report, .init = setup, .fini = teardown);

static void write_results(void)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/results.csv", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(csv, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

/* fsplan report DIR [extra] -o out; returns the exit status. */
static int report(const char *extra1, const char *extra2)
{
	char *argv[8];
	int argc = 0;

	argv[argc++] = (char *)"report";
	argv[argc++] = dir;
	if (extra1)
		argv[argc++] = (char *)extra1;
	if (extra2)
		argv[argc++] = (char *)extra2;
	argv[argc++] = (char *)"-o";
	argv[argc++] = out;
	argv[argc] = NULL;
	return e2e_fsplan((const char *const *)argv);
}

static const char *output(void)
{
	return e2e_read(out);
}

/* The line after `from` whose words start with words (space-separated). */
static const char *line_with(const char *from, const char *words)
{
	char want[512], raw[512], got[512];

	snprintf(want, sizeof(want), "%s", words);
	for (const char *p = from; p && *p;) {
		size_t n = strcspn(p, "\n"), k = 0;
		char *save = NULL, *tok;

		snprintf(raw, sizeof(raw), "%.*s", (int)n, p);
		got[0] = '\0';
		/* squeeze runs of spaces so widths do not matter */
		for (tok = strtok_r(raw, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save))
			k += snprintf(got + k, sizeof(got) - k, "%s%s",
				      k ? " " : "", tok);
		if (!strncmp(got, want, strlen(want)))
			return p;
		p += n + (p[n] == '\n');
	}
	return NULL;
}

static const char *section(const char *title)
{
	const char *s = strstr(output(), title);

	cr_assert_not_null(s, "no '%s' in:\n%s", title, output());
	return s;
}

static void expect_line(const char *from, const char *words)
{
	cr_expect_not_null(line_with(from, words), "no line '%s' in:\n%s",
			   words, from);
}

/* ---- statistics --------------------------------------------------------- */

Test(report, stats_of_three_repetitions)
{
	const double v[] = { 10, 12, 14 };
	struct res_stats s;

	results_stats(v, 3, &s);
	cr_expect_eq(s.n, 3);
	cr_expect_float_eq(s.mean, 12, 1e-12);
	cr_expect_float_eq(s.sd, 2, 1e-12);
	/* for df 2, t(p) = (2p - 1) / sqrt(2p(1 - p)): 4.30265 at 0.975 */
	cr_expect_float_eq(s.ci, 0.95 / sqrt(2 * 0.975 * 0.025) * 2 / sqrt(3),
			   1e-9);
	cr_expect_float_eq(s.ci, 4.968, 1e-3);
	cr_expect_float_eq(s.hi, 14, 0);
	cr_expect_float_eq(s.lo, 10, 0);
	results_stats(v, 1, &s);
	cr_expect(isnan(s.sd) && isnan(s.ci), "one value has no spread");
}

Test(report, student_t_table)
{
	cr_expect_float_eq(results_t975(1), 12.7062, 1e-4);
	cr_expect_float_eq(results_t975(9), 2.2622, 1e-4);
	cr_expect_float_eq(results_t975(30), 2.0423, 1e-4);
	cr_expect_float_eq(results_t975(60), 2.0003, 1e-4);
	/* off the printed tables' points: t(50) = 2.0086 */
	cr_expect_float_eq(results_t975(50), 2.0086, 1e-4);
	cr_expect_float_eq(results_t975(100000), 1.96, 1e-3);
	for (int df = 1; df < 500; df++)
		cr_expect_geq(results_t975(df), results_t975(df + 1),
			      "t must fall as df grows (df %d)", df);
}

Test(report, which_way_is_better)
{
	cr_expect(rank_lower_is_better("seconds", "s"));
	cr_expect(rank_lower_is_better("write_lat_avg_ms", "ms"));
	cr_expect(rank_lower_is_better("put_block_latency_us", ""));
	cr_expect(rank_lower_is_better("cpu_pct", "%"));
	cr_expect(rank_lower_is_better("putc_cpu", ""));
	cr_expect(rank_lower_is_better("mkfs_s", "s"));
	cr_expect(rank_lower_is_better("commit", "ms"));
	cr_expect(rank_lower_is_better("fs_used_bytes", "bytes"));
	cr_expect(!rank_lower_is_better("rate_mbs", "MiB/s"));
	cr_expect(!rank_lower_is_better("read_iops", "ops/s"));
	cr_expect(!rank_lower_is_better("seq_create", "files/s"));
	cr_expect(!rank_lower_is_better("creates_per_s", ""));
	cr_expect(!rank_lower_is_better("tps", "transactions/s"));
	cr_expect(!rank_lower_is_better("cpu_eff", ""));
}

/* ---- reading results.csv ------------------------------------------------ */

Test(report, reader_handles_quotes_crlf_reruns_and_a_torn_row)
{
	struct results r;
	struct diag d = { 0 };
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/results.csv", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase,"
	      "phase_params,rep,metric,value,unit\r\n"
	      /* cut off by a crash before its status row... */
	      "t,a/p#1,a,ext4,,\"x,y\",p,,1,seconds,9,s\r\n"
	      "t,b/p#1,b,ext4,,,p,,1,status,failed,\"said \"\"no\"\"\n"
	      "twice\"\r\n"
	      /* ...and run again by --resume: the later rows win */
	      "t,a/p#1,a,ext4,,\"x,y\",p,,1,seconds,2,s\r\n"
	      "t,a/p#1,a,ext4,,\"x,y\",p,,1,status,ok,\r\n"
	      "t,c/p#1,c,ext4,,,p,,1,seconds,3", f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(results_load(&r, path, &d), 0, "%s", d.msg);
	cr_assert_eq(r.n_runs, 2, "the torn row is left out");
	cr_expect_eq(r.n_torn, 1);
	cr_expect_str_eq(r.runs[0].mount_opts, "x,y");
	cr_expect_str_eq(r.runs[0].base, "a/p");
	cr_expect_eq(r.runs[0].status, RES_OK);
	cr_assert_eq(r.runs[0].n_m, 1);
	cr_expect_float_eq(r.runs[0].m[0].v, 2, 0);
	cr_expect_eq(r.runs[1].status, RES_FAILED);
	cr_expect_str_eq(r.runs[1].reason, "said \"no\"\ntwice");
	results_free(&r);
}

/* An interrupted config made anew by --resume writes its mkfs_s, mount_s
 * and umount_s again: the newest set counts, in the reader (so report,
 * compare and merge alike), not the stale one nor both. */
Test(report, a_config_made_again_keeps_its_newest_figures)
{
	struct results r;
	struct diag d = { 0 };
	char path[512];
	double v;

	begin();
	/* the interrupted attempt: its phase run got no status row */
	row("ext4", "ext4", "", "", 0, "mkfs_s", "0.5", "s");
	row("ext4", "ext4", "", "", 0, "mount_s", "0.1", "s");
	row("ext4/p#1", "ext4", "p", "", 1, "seconds", "9", "s");
	row("ext4", "ext4", "", "", 0, "umount_s", "0.2", "s");
	/* the resume */
	row("ext4", "ext4", "", "", 0, "mkfs_s", "0.75", "s");
	row("ext4", "ext4", "", "", 0, "mount_s", "0.25", "s");
	row("ext4/p#1", "ext4", "p", "", 1, "seconds", "3", "s");
	row("ext4/p#1", "ext4", "p", "", 1, "status", "ok", "");
	row("ext4", "ext4", "", "", 0, "umount_s", "0.125", "s");
	write_results();
	snprintf(path, sizeof(path), "%s/results.csv", dir);
	cr_assert_eq(results_load(&r, path, &d), 0, "%s", d.msg);
	cr_assert_eq(r.n_runs, 2);
	cr_assert_str_eq(r.runs[0].phase, "");
	cr_expect_eq(r.runs[0].n_m, 3, "one set, not two");
	cr_expect(results_value(&r.runs[0], "mkfs_s", &v) && v == 0.75);
	cr_expect(results_value(&r.runs[0], "mount_s", &v) && v == 0.25);
	cr_expect(results_value(&r.runs[0], "umount_s", &v) && v == 0.125);
	results_free(&r);
	cr_assert_eq(report(NULL, NULL), 0);
	expect_line(section("== filesystem configs =="),
		    "ext4 ext4 - defaults 0.750 0.250 0.125");
}

/* order: rounds, and a stop rule ended xfs's after 2 of ext4's 3: the
 * header does not claim 3 for every config, the table says each one's. */
Test(report, rounds_are_counted_per_config)
{
	static const char *const label[] = { "ext4", "xfs" };
	char cell[64];

	begin();
	for (int k = 1; k <= 3; k++)
		for (int i = 0; i < 2 - (k == 3); i++) {
			snprintf(cell, sizeof(cell), "%s#%d", label[i], k);
			row(cell, label[i], "", "", k, "mkfs_s", "0.5", "s");
			snprintf(cell, sizeof(cell), "%s/p#%d", label[i], k);
			row(cell, label[i], "p", "", k, "seconds", "1", "s");
			row(cell, label[i], "p", "", k, "status", "ok", "");
		}
	write_results();
	cr_assert_eq(report(NULL, NULL), 0);
	expect_line(section("== filesystem configs (made once a round: means "
			    "over each config's rounds, up to 3) =="),
		    "ext4 ext4 - defaults 3 0.500");
	expect_line(section("== filesystem configs"),
		    "xfs xfs - defaults 2 0.500");
	cr_expect_null(strstr(output(), "over 3 rounds"), "%s", output());
}

Test(report, missing_results_and_bad_options_exit_2)
{
	cr_expect_eq(report(NULL, NULL), 2, "no results.csv yet");
	fixture();
	write_results();
	cr_expect_eq(report("--format", "html"), 0, "html writes the page");
	cr_expect_eq(report("--format", "xml"), 2);
	cr_expect_eq(report("--bogus", NULL), 2);
	snprintf(out, sizeof(out), "%s/results.csv", dir);
	cr_expect_eq(report(NULL, NULL), 2, "-o onto results.csv is refused");
	cr_expect(strstr(e2e_read(out), "run_id,cell,"), "and it is intact");
	snprintf(out, sizeof(out), "%s/out", dir);
	cr_expect_eq(e2e_fsplan((const char *[]){ "report", NULL }),
		     2, "RUNDIR is required");
	len = 0;
	add("cell,metric,value\n");
	write_results();
	cr_expect_eq(report(NULL, NULL), 2, "not a results.csv");
}

/* ---- text --------------------------------------------------------------- */

Test(report, metric_table_rows_best_first_with_stats)
{
	const char *t;

	fixture();
	write_results();
	cr_assert_eq(report("--all", NULL), 0);
	/* a table per parameter set, best first in each */
	t = section("rate_mbs: rate (MiB/s), for mode=seq_read threads=1, "
		    "higher is better");
	expect_line(t, "config n mean stdev 95% CI high low group");
	/* three ok repetitions; the failed fourth (1000) does not count */
	cr_expect_eq(line_with(t, "xfs::defaults 3 20.0 1.00 ±2.48 21.0 19.0 "
			       "a"), strstr(t, "\n--") + 1 + strcspn(
			       strstr(t, "\n--") + 1, "\n") + 1, "%s", t);
	expect_line(t, "ext4::defaults 3 12.0 2.00 ±4.97 14.0 10.0 b");
	t = section("rate_mbs: rate (MiB/s), for mode=seq_read threads=2, ");
	expect_line(t, "ext4::defaults 2 30.0 1.41 ±12.7 31.0 29.0 a");
	t = section("rate_mbs: rate (MiB/s), for mode=rand_write threads=1, ");
	expect_line(t, "ext4::defaults 1 5.00 - - 5.00 5.00 -");
	expect_line(t, "-: n < 2, no group");
	/* lower is better: CPU 50% first */
	t = section("cpu_pct: CPU (%), for mode=seq_read threads=1, lower is "
		    "better");
	cr_expect_lt(line_with(t, "ext4::defaults 3 50.0 0 ±0 50.0 50.0 a"),
		     line_with(t, "xfs::defaults 3 90.0 0 ±0 90.0 90.0 b"));
	/* shape figures get no table */
	cr_expect_null(strstr(output(), "\nthreads"));
	cr_expect_null(strstr(output(), "\nfile_size_mib"));
	cr_expect_null(strstr(output(), "\nbonnie_line"));
}

Test(report, metric_globs_pick_the_tables)
{
	fixture();
	write_results();
	cr_assert_eq(report("--metric", "*_lat_ms"), 0);
	cr_expect(strstr(output(), "\navg_lat_ms: average latency (ms), for "
			 "mode=seq_read threads=1, lower is better\n"));
	cr_expect(strstr(output(), "\nmax_lat_ms: max latency (ms), for "
			 "mode=seq_read threads=1, lower is better\n"));
	cr_expect_null(strstr(output(), "\nrate_mbs"));
	cr_expect_null(strstr(output(), "\nseconds"));
	cr_expect(strstr(output(), "\nSequential Reads\n"), "the seeds' "
		  "tables stay");
}

/* A --metric that matches nothing is a typo: an error naming it and the
 * nearest name, not the default tables under exit 0. */
Test(report, a_metric_glob_that_matches_nothing_is_an_error)
{
	fixture();
	write_results();
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", dir, "--metric",
				"*_lat_ms", "--metric", "rate_mb", NULL }), 2,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_err, "--metric 'rate_mb' matches no metric of "
			 "the run (did you mean 'rate_mbs'?)"), "%s", e2e_err);
	cr_expect_str_eq(e2e_out, "", "no tables");
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", dir, "--metric",
				"zzz*", NULL }), 2, "%s", e2e_err);
	cr_expect(strstr(e2e_err, "--metric 'zzz*' matches no metric"), "%s",
		  e2e_err);
	cr_expect_null(strstr(e2e_err, "did you mean"), "%s", e2e_err);
	/* a config's own metric is a metric of the run */
	cr_expect_eq(report("--metric", "mkfs_s"), 0);
}

Test(report, tiobench_sections)
{
	const char *t, *end;

	fixture();
	write_results();
	cr_assert_eq(report(NULL, NULL), 0);
	t = section("Sequential Reads\n================\n");
	expect_line(t, "File Blk Num Avg Maximum Lat% Lat% CPU");
	expect_line(t, "Identifier Size Size Thr Rate (CPU%) Latency Latency "
		    ">2s >10s Eff");
	/* means over the ok repetitions; CPU Eff = Rate / (CPU% / 100) */
	expect_line(t, "ext4::defaults 256 4096 1 12.00 50.00% 0.002 1.50 "
		    "0.00000 0.00000 24");
	expect_line(t, "ext4::defaults 256 4096 2 30.00 60.00% 0.002 1.50 "
		    "0.00000 0.00000 50");
	/* xfs: test_cpu_pct (40), not the whole run's cpu_pct (90) */
	expect_line(t, "xfs::defaults 256 4096 1 20.00 40.00% 0.002 1.50 "
		    "0.00000 0.00000 50");
	/* rows: config in order, then threads */
	cr_expect_lt(line_with(t, "ext4::defaults 256 4096 1"),
		     line_with(t, "ext4::defaults 256 4096 2"));
	cr_expect_lt(line_with(t, "ext4::defaults 256 4096 2"),
		     line_with(t, "xfs::defaults"));
	end = section("Random Writes\n=============\n");
	cr_expect_gt(end, t, "tiobench's order of sections");
	expect_line(end, "ext4::defaults 256 4096 1 5.00 25.00% 0.002 1.50 "
		    "0.00000 0.00000 20");
	cr_expect_null(strstr(output(), "Random Reads\n"), "no runs: no "
		       "section");
	cr_expect_null(strstr(output(), "Sequential Writes\n"));
}

Test(report, bonnie_blocks)
{
	char want[512];
	const char *t;

	fixture();
	write_results();
	cr_assert_eq(report(NULL, NULL), 0);
	t = section("------Sequential Output------ --Sequential Input- "
		    "--Random-");
	cr_expect(strstr(t, "\nName:Size etc                /sec %CP  /sec "
			 "%CP"), "%s", t);
	/* means of two runs: putc 550 K/s at 93%, block 410000 K/s = 400m,
	 * rewrite under 0.5 s, getc not run, block read 2050000 K/s = 2.0g,
	 * 1300 seeks/s at 4% from the one run that was not too fast;
	 * latencies as bonnie++ writes them */
	snprintf(want, sizeof(want), "\next4::defaults 256M::8192:5  550k  93"
		 "  400m  36 +++++ +++%12s2.0g   5  1300   4\n"
		 "Latency%21s45000us%15s681us%30s\n", "", "", "", "");
	cr_expect(strstr(t, want), "no\n%s\nin\n%s", want, t);
	t = section("------Sequential Create------ --------Random Create"
		    "--------");
	cr_expect(strstr(t, "\n      files:max:min  /sec %CP"), "%s", t);
	snprintf(want, sizeof(want), "\next4::defaults   16  2500  10%50s\n"
		 "Latency%15s150ms%50s\n", "", "", "");
	cr_expect(strstr(t, want), "no\n%s\nin\n%s", want, t);
}

/* A config skipped whole is one line, however many phases it has. */
Test(report, a_skipped_config_is_one_line)
{
	const char *t;

	fixture();
	row("jfs/other#1", "jfs", "other", "", 1, "status", "skipped",
	    "this kernel has no jfs filesystem");
	write_results();
	cr_assert_eq(report(NULL, NULL), 0);
	t = section("== phase runs: 11 ok, 1 failed, 2 skipped ==");
	expect_line(t, "skipped jfs (all) 2 runs this kernel has no jfs "
		    "filesystem");
	expect_line(t, "failed ext4::defaults tio 1 run exit status 1");
}

Test(report, footer_counts_what_did_not_count)
{
	const char *t;

	fixture();
	write_results();
	cr_assert_eq(report(NULL, NULL), 0);
	t = section("== phase runs: 11 ok, 1 failed, 1 skipped ==");
	expect_line(t, "failed ext4::defaults tio 1 run exit status 1");
	expect_line(t, "skipped jfs tio 1 run this kernel has no jfs "
		    "filesystem");
	expect_line(output(), "== phase tio: 9 of 11 phase runs ok ==");
	/* every config, in order, the skipped one too, with its times */
	t = section("== filesystem configs ==\n");
	{
		const char *head = line_with(t, "config type mkfs options "
					     "mount options mkfs (s) umount (s)");
		const char *a = line_with(t, "ext4::defaults ext4 - defaults "
					  "0.500 0.250");
		const char *b = line_with(t, "xfs::defaults xfs: - defaults "
					  "0.750 -");
		const char *c = line_with(t, "jfs jfs - defaults - -");

		cr_assert(head && a && b && c, "config rows missing:\n%s", t);
		cr_expect_eq(head, strchr(t, '\n') + 1);
		cr_expect(a < b && b < c && c < strstr(t, "\n== phase"),
			  "configs in order, before the phases:\n%s", t);
	}
	/* --all: the configs' own metrics as tables too, at the end */
	cr_assert_eq(report("--all", NULL), 0);
	t = section("== filesystem configs: mkfs, mount, umount ==");
	expect_line(t, "ext4::defaults 1 0.500 - - 0.500 0.500 -");
}

/* An interrupted run: the cells the manifest still lists as pending,
 * running or interrupted, with no rows, did not run, and the footer says
 * how many; one a stop rule made unneeded is named apart. */
Test(report, footer_counts_the_cells_that_did_not_run)
{
	static const char *const cells[][2] = {
		{ "ext4/p#1", "ok" }, { "ext4/p#2", "interrupted" },
		{ "ext4/p#3", "pending" }, { "xfs/p#1", "running" },
		{ "ext4/q#1", "ok" }, { "ext4/q#2", "pending" },
	};
	char path[512];
	FILE *f;

	begin();
	/* p#2 was cut off in the middle: rows, no status; q's stop rule
	 * was met after q#1 */
	for (int i = 0; i < 3; i++) {
		const char *cell = cells[i == 2 ? 4 : i][0];
		const char *phase = i < 2 ? "p" : "q";
		int rep = 1 + (i == 1);

		row(cell, "ext4", phase, "", rep, "seconds", "1", "s");
		if (i == 2)
			row(cell, "ext4", phase, "", rep, "stop_reason", "ci",
			    "");
		if (i != 1)
			row(cell, "ext4", phase, "", rep, "status", "ok", "");
	}
	write_results();
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("{\"run_id\": \"t\", \"status\": \"interrupted\", \"cells\": [",
	      f);
	for (int i = 0; i < 6; i++)
		fprintf(f, "%s{\"id\": \"%s\", \"rep\": %c, \"status\": "
			"\"%s\"}", i ? ", " : "", cells[i][0],
			cells[i][0][strlen(cells[i][0]) - 1], cells[i][1]);
	fputs("]}\n", f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(report(NULL, NULL), 0);
	section("== phase runs: 2 ok, 0 failed, 0 skipped, 1 incomplete, "
		"2 not run, 1 not needed (stop rules met) ==");
	cr_assert_eq(report("--format", "html"), 0);
	section("Phase runs: 2 ok, 0 failed, 0 skipped, 1 incomplete, 2 not "
		"run, 1 not needed (stop rules met)");
}

/* ---- the key metrics ---------------------------------------------------- */

static void write_manifest(const char *phases)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "{\"run_id\": \"t\", \"status\": \"complete\", "
		"\"phases\": %s}\n", phases);
	cr_assert_eq(fclose(f), 0);
}

/* The fixture's report under a manifest of these phases: tio's section. */
static const char *keyed_report(const char *phases)
{
	fixture();
	write_results();
	write_manifest(phases);
	cr_assert_eq(report(NULL, NULL), 0);
	return section("== phase tio: 9 of 11 phase runs ok ==");
}

Test(report, key_metrics_from_the_manifest)
{
	const char *t;

	/* tio's rate_mbs is in its tiobench sections; seconds is not */
	t = keyed_report("[{\"name\": \"tio\", \"key\": [\"rate_mbs\", "
			 "\"seconds\"]}, {\"name\": \"bon\", \"key\": "
			 "[\"put_block\", \"get_block\"]}]");
	cr_expect(strstr(t, "\nSequential Reads\n"));
	t = section("\nseconds: seconds (s), for mode=seq_read threads=1, "
		    "lower is better\n");
	expect_line(t, "ext4::defaults 3 1.50");
	cr_expect_null(strstr(output(), "\nrate_mbs"), "shown in the "
		       "sections, not again:\n%s", output());
	cr_expect_null(strstr(output(), "\ncpu_pct"));
	cr_expect_null(strstr(output(), "\navg_lat_ms"));
	/* bonnie's key is its blocks */
	cr_expect(strstr(output(), "------Sequential Output------"));
	cr_expect_null(strstr(output(), "\nput_block"));
	cr_expect_null(strstr(output(), "\nputc_latency_us"));
	cr_expect(strstr(output(), "(each phase's key metrics: --metric GLOB "
			 "for others, --all for every one)\n"));

	/* no key (an old run): the sections alone */
	write_manifest("[{\"name\": \"tio\"}, {\"name\": \"bon\"}]");
	cr_assert_eq(report(NULL, NULL), 0);
	cr_expect(strstr(output(), "\nSequential Reads\n"));
	cr_expect_null(strstr(output(), "\nseconds"), "%s", output());

	/* a key that no run reported: the fallback, and a word why */
	write_manifest("[{\"name\": \"tio\", \"key\": [\"nonesuch\"]}]");
	cr_assert_eq(report(NULL, NULL), 0);
	cr_expect(strstr(output(), "\n(no run reported its key metrics: its "
			 "seconds, _mbs and _iops figures instead)\n"));
	cr_expect(strstr(output(), "\nseconds: seconds (s), for "
			 "mode=seq_read threads=1, lower is better\n"));

	/* --metric: those instead of the key, in the order asked */
	cr_assert_eq(report("--metric", "seconds"), 0);
	cr_expect(strstr(output(), "\nseconds: "));
	cr_expect_null(strstr(output(), "(no run reported"));
	cr_expect_eq(report("--all", "--metric=seconds"), 2, "--all is all");
}

/* A key metric no run recorded (a typo in the module's key) is said in
 * its phase's section, not silently left out. */
Test(report, a_key_metric_without_rows_is_named)
{
	const char *t, *end, *l;

	t = keyed_report("[{\"name\": \"tio\", \"key\": [\"rate_mbs\", "
			 "\"seconds\", \"wr_mbs\"]}, {\"name\": \"bon\", "
			 "\"key\": [\"put_block\"]}]");
	end = section("== phase bon:");
	l = line_with(t, "wr_mbs: key metric of the phase with no rows (no "
		      "run recorded it: is the module's key = {...} spelled "
		      "as its metrics are?)");
	cr_expect(l && l < end, "in tio's section:\n%s", output());
	cr_expect(strstr(t, "\nseconds: seconds (s)"), "%s", output());
	cr_expect_null(strstr(end, "key metric"), "bon's key has rows:\n%s",
		       output());
	/* --metric shows what it names: no word on the key */
	cr_assert_eq(report("--metric", "seconds"), 0);
	cr_expect_null(strstr(output(), "key metric"), "%s", output());
}

/* A line count of the report. */
static int lines_of(const char *t)
{
	int n = 0;

	for (; *t; t++)
		n += *t == '\n';
	return n;
}

/* A phase module that declares its key, writing through one op tag. */
static const char keyed_lua[] =
"return {\n"
"  params = { size = '1M' },\n"
"  key = { 'io_mbs', 'io_lat_avg_ms' },\n"
"  worker = function(w, ctx)\n"
"    local f = assert(w:open('data' .. w.id, 'w'))\n"
"    f:stream{ op = 'write', block = '4k', tag = 'io',\n"
"              bytes = ctx.params.size }\n"
"    assert(f:fsync())\n"
"    f:close()\n"
"  end,\n"
"}\n";

Test(report, key_metrics_of_a_real_run, .timeout = 180)
{
	const char *tmp, *t;
	char rundir[256], path[512];
	json_t *m, *phases, *key;
	int rc, all;

	e2e_require_root();
	tmp = e2e_tmpdir();
	e2e_write(tmp, "keyed.lua", keyed_lua);
	snprintf(rundir, sizeof(rundir), "%s/run", tmp);
	rc = e2e_fsplan((const char *[]){ "run", e2e_write(tmp, "plan.yaml",
		"fsplan: 1\n"
		"name: keys\n"
		"target: {image: 64M}\n"
		"repeat: 2\n"
		"filesystems:\n"
		"  - {type: ext4, mount: [defaults, noatime]}\n"
		"phases:\n"
		"  - name: w\n"
		"    use: keyed.lua\n"
		"  - name: sh\n"
		"    exec: \"test ${n} -eq 1\"\n"
		"    matrix: {n: [1, 2]}\n"
		"  - name: sb\n"
		"    exec: 'printf \"Latency (ms):\\n    avg: 2.5\\n\"'\n"
		"    parse: sysbench\n"),
		"-o", rundir, "-q", NULL });
	cr_assert_eq(rc, 1, "fsplan run: exit %d (n=2 fails): %s", rc,
		     e2e_err);
	/* the manifest carries each phase's key */
	snprintf(path, sizeof(path), "%s/manifest.json", rundir);
	m = json_load_file(path, 0, NULL);
	cr_assert_not_null(m);
	phases = json_object_get(m, "phases");
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(
		json_array_get(phases, 0), "key"), 0)), "io_mbs");
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(
		json_array_get(phases, 0), "key"), 1)), "io_lat_avg_ms");
	cr_expect_eq(json_array_size(json_object_get(json_array_get(phases,
		0), "key")), 2);
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(
		json_array_get(phases, 1), "key"), 0)), "seconds");
	/* a parse: phase's: its parser's (lua/parse/sysbench.lua), then
	 * seconds */
	key = json_object_get(json_array_get(phases, 2), "key");
	cr_expect_str_eq(json_string_value(json_array_get(key, 0)),
			 "reads_per_s");
	cr_expect_str_eq(json_string_value(json_array_get(key, 4)),
			 "lat_avg_ms");
	cr_expect_str_eq(json_string_value(json_array_get(key, 5)),
			 "seconds");
	cr_expect_eq(json_array_size(key), 6);
	json_decref(m);

	snprintf(dir, sizeof(dir), "%s", rundir);
	snprintf(out, sizeof(out), "%s/all.txt", tmp);
	cr_assert_eq(report("--all", NULL), 0);
	all = lines_of(output());
	snprintf(out, sizeof(out), "%s/key.txt", tmp);
	cr_assert_eq(report(NULL, NULL), 0);
	t = output();
	/* what it shows: the configs, the key tables in the key's order,
	 * the exec phase's seconds, the failures with their reason */
	t = section("== filesystem configs ==\n");
	expect_line(t, "ext4::defaults ext4 - features=has_journal,ext_attr, "
		    "defaults ");
	/* the second ext4 made the same: said so, not listed again */
	expect_line(t, "ext4::noatime ext4 - as ext4::defaults noatime ");
	t = section("== phase w: 4 of 4 phase runs ok ==");
	cr_assert(strstr(t, "\nio_mbs: io (MiB/s), higher is better\n"), "%s",
		  t);
	cr_expect_lt(strstr(t, "\nio_mbs: "), strstr(t, "\nio_lat_avg_ms: "
						     "io average latency (ms), "
						     "lower is better\n"));
	expect_line(strstr(t, "\nio_mbs: "), "ext4::noatime 2 ");
	t = section("== phase sh: 4 of 8 phase runs ok ==");
	cr_expect(strstr(t, "\nseconds: seconds (s), for n=1, lower is "
			 "better\n"));
	expect_line(t, "ext4::defaults 2 ");
	t = section("== phase sb: 4 of 4 phase runs ok ==");
	cr_assert(strstr(t, "\nlat_avg_ms: average latency (ms), lower is "
			 "better\n"), "%s", t);
	expect_line(strstr(t, "\nlat_avg_ms: "), "ext4::defaults 2 2.50");
	cr_expect(strstr(t, "\nseconds: seconds (s), lower is better\n"));
	cr_expect_lt(strstr(t, "\nlat_avg_ms: "), strstr(t, "\nseconds: "));
	t = section("== phase runs: 12 ok, 4 failed, 0 skipped ==");
	expect_line(t, "failed ext4::defaults sh 2 runs exit status 1");
	expect_line(t, "failed ext4::noatime sh 2 runs exit status 1");
	/* what it leaves out */
	t = output();
	cr_expect_null(strstr(t, "_lat_p50_ms"), "%s", t);
	cr_expect_null(strstr(t, "\nfs_used_bytes"));
	cr_expect_null(strstr(t, "\ncpu_pct"));
	cr_expect_null(strstr(t, "\nio_ops"));
	cr_expect_null(strstr(t, "\nmkfs_s"));
	cr_expect_gt(strstr(t, "\nseconds: "), strstr(t, "== phase sh"),
		     "w's key has no seconds:\n%s", t);
	cr_expect_lt(lines_of(t), 90, "%d lines:\n%s", lines_of(t), t);
	cr_expect_gt(all, 3 * lines_of(t), "--all: %d lines", all);

	/* --all brings every metric back */
	snprintf(out, sizeof(out), "%s/all.txt", tmp);
	t = output();
	cr_expect(strstr(t, "\nio_lat_p50_ms: io p50 latency (ms), lower is "
			 "better\n"));
	cr_expect(strstr(t, "\nfs_used_bytes: fs used ("), "%s", t);
	cr_expect(strstr(t, "\ncpu_pct: CPU (%), lower is better\n"));
	cr_expect(strstr(t, "\nmkfs_s: mkfs (s), lower is better\n"));

	/* an old run directory, without keys: seconds, _mbs and _iops */
	snprintf(path, sizeof(path), "%s/manifest.json", rundir);
	cr_assert_eq(unlink(path), 0);
	snprintf(out, sizeof(out), "%s/old.txt", tmp);
	cr_assert_eq(report(NULL, NULL), 0);
	t = section("== phase w: 4 of 4 phase runs ok ==");
	cr_expect(strstr(t, "\nseconds: seconds (s), lower is better\n"));
	cr_expect(strstr(t, "\nio_mbs: io (MiB/s), higher is better\n"));
	cr_expect(strstr(t, "\nio_iops: io (ops/s), higher is better\n"));
	cr_expect_null(strstr(t, "\nio_lat_avg_ms"), "%s", t);
	cr_expect_null(strstr(output(), "_lat_p50_ms"));
}

/* `fsplan check` loads the modules: a bad key is an error naming the file. */
Test(report, a_bad_key_is_an_error_at_check)
{
	static const struct { const char *key, *want; } bad[] = {
		{ "{ 'rate_mbs', 'rate mbs' }",
		  "/bad.lua: key[2]: 'rate mbs' is not a metric name" },
		{ "{ 'rate_mbs', 7 }",
		  "/bad.lua: key[2]: a number is not a metric name" },
		{ "'rate_mbs'",
		  "/bad.lua: 'key' is a list of metric names" },
		{ "{}", "/bad.lua: 'key' names 1 to 16 metrics, not 0" },
		{ "{ 'a', 'a' }", "/bad.lua: key[2]: 'a' is already key[1]" },
		{ "{ 'a', x = 'b' }", "/bad.lua: 'key' is a list of metric "
		  "names, without other keys" },
	};
	const char *tmp = e2e_tmpdir(), *plan;
	char module[256];
	int rc;

	plan = e2e_write(tmp, "plan.yaml", "fsplan: 1\n"
		"name: bad-key\n"
		"filesystems: [{type: ext4}]\n"
		"phases:\n"
		"  - use: bad.lua\n");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(module, sizeof(module), "return { key = %s, worker = "
			 "function() end }\n", bad[i].key);
		e2e_write(tmp, "bad.lua", module);
		rc = e2e_fsplan((const char *[]){ "check", plan, NULL });
		cr_expect_eq(rc, 2, "key = %s: exit %d", bad[i].key, rc);
		cr_expect(strstr(e2e_err, bad[i].want), "key = %s: '%s' lacks "
			  "'%s'", bad[i].key, e2e_err, bad[i].want);
		cr_expect(strstr(e2e_err, "plan.yaml:5:10: "), "at the use: "
			  "%s", e2e_err);
	}
	e2e_write(tmp, "bad.lua", "return { key = { 'rate_mbs', 'g0.read_"
		  "iops' }, worker = function() end }\n");
	rc = e2e_fsplan((const char *[]){ "check", plan, NULL });
	cr_expect_eq(rc, 0, "a good key: exit %d: %s", rc, e2e_err);
}

/* ---- csv ---------------------------------------------------------------- */

Test(report, wide_csv_one_row_per_phase_run)
{
	const char *head = "cell,rep,fs_label,fs_type,mkfs_opts,mount_opts,"
		"phase,phase_params,status,reason,avg_lat_ms,block_bytes,"
		"bonnie_line,cpu_pct,file_size_mib,get_block,get_block_cpu,"
		"max_lat_ms,mkfs_s,num_files,over_10s_pct,over_2s_pct,"
		"put_block,put_block_cpu,putc,putc_cpu,putc_latency_us,"
		"rate_mbs,rewrite,rewrite_fast,rewrite_latency_us,seconds,"
		"seek_procs,seeks,seeks_count,seeks_cpu,seeks_fast,seq_create,"
		"seq_create_cpu,"
		"seq_create_latency_us,test_cpu_pct,threads,umount_s\n";
	const char *t;

	fixture();
	write_results();
	cr_assert_eq(report("--format", "csv"), 0);
	t = output();
	cr_expect(!strncmp(t, head, strlen(head)), "%.400s", t);
	cr_expect(strstr(t, "\n\"ext4::defaults/tio/mode=seq_read,threads=1#2"
			 "\",2,ext4::defaults,ext4,,defaults,tio,"
			 "mode=seq_read;threads=1,ok,,0.002,4096,,50,256,"),
		  "%s", t);
	cr_expect(strstr(t, "\n\"ext4::defaults/tio/mode=seq_read,threads=1#4"
			 "\",4,ext4::defaults,ext4,,defaults,tio,"
			 "mode=seq_read;threads=1,failed,exit status 1,"),
		  "%s", t);
	cr_expect(strstr(t, "\n\"jfs/tio/mode=seq_read,threads=1#1\",1,jfs,"
			 "jfs,,defaults,tio,mode=seq_read;threads=1,skipped,"
			 "this kernel has no jfs filesystem,,,"), "%s", t);
	/* 1 header, 2 config rows, 10 tio runs, 2 bonnie runs, 1 skipped */
	{
		int lines = 0;

		for (const char *p = t; *p; p++)
			lines += *p == '\n';
		cr_expect_eq(lines, 1 + 2 + 10 + 2 + 1, "%s", t);
	}
}

/* ---- a real run --------------------------------------------------------- */

/* A tiobench-shaped Lua phase: the real tiobench module is not needed
 * to check that the report reads what `fsplan run` writes. */
static const char tio_lua[] =
"return {\n"
"  params = { mode = 'seq_write', threads = 1, file_size = '2M' },\n"
"  setup = function(ctx, w)\n"
"    if ctx.params.mode:find('read') then\n"
"      local f = assert(w:open('data', 'w'))\n"
"      f:stream{ op = 'write', block = '64k', bytes = ctx.params.file_size }\n"
"      f:close()\n"
"    end\n"
"  end,\n"
"  worker = function(w, ctx)\n"
"    local p = ctx.params\n"
"    local wr = p.mode:find('write') ~= nil\n"
"    local f = assert(w:open('data', wr and 'w' or 'r'))\n"
"    f:stream{ op = wr and 'write' or 'read', block = '4k', tag = 'io',\n"
"              bytes = p.file_size }\n"
"    f:close()\n"
"  end,\n"
"  report = function(r, ctx)\n"
"    return { rate_mbs = r.io_mbs, avg_lat_ms = r.io_lat_avg_ms,\n"
"             max_lat_ms = r.io_lat_max_ms, over_2s_pct = 0,\n"
"             over_10s_pct = 0, block_bytes = 4096,\n"
"             file_size_mib = ctx.params.file_size / 1048576,\n"
"             threads = ctx.params.threads }\n"
"  end,\n"
"}\n";

static double csv_number(const char *rundir, const char *cell,
			 const char *metric)
{
	const char *v = e2e_metric(rundir, cell, metric);

	cr_assert_not_null(v, "no %s for %s", metric, cell);
	return strtod(v, NULL);
}

Test(report, a_real_run_with_repetitions, .timeout = 180)
{
	const char *tmp, *t;
	char rundir[256], cell[256], want[256];
	double rate, cpu;
	int rc;

	e2e_require_root();
	tmp = e2e_tmpdir();
	e2e_write(tmp, "tio.lua", tio_lua);
	snprintf(rundir, sizeof(rundir), "%s/run", tmp);
	rc = e2e_fsplan((const char *[]){ "run", e2e_write(tmp, "plan.yaml",
		"fsplan: 1\n"
		"name: rep\n"
		"target: {image: 64M}\n"
		"repeat: 2\n"
		"between: [sync]\n"
		"filesystems:\n"
		"  - {type: ext4, mount: [defaults, noatime]}\n"
		"phases:\n"
		"  - use: tio.lua\n"
		"    matrix: {mode: [seq_write, seq_read], threads: [1, 2]}\n"),
		"-o", rundir, "-q", NULL });
	cr_assert_eq(rc, 0, "fsplan run: exit %d: %s", rc, e2e_err);
	/* the row's Rate and CPU% are the means of the two repetitions
	 * (read first: e2e_metric and output() share one buffer) */
	rate = cpu = 0;
	for (int rep = 1; rep <= 2; rep++) {
		snprintf(cell, sizeof(cell), "ext4::noatime/tio/"
			 "mode=seq_write,threads=2#%d", rep);
		rate += csv_number(rundir, cell, "rate_mbs") / 2;
		cpu += csv_number(rundir, cell, "cpu_pct") / 2;
	}
	snprintf(want, sizeof(want), "ext4::noatime 2 4096 2 %.2f %.2f%%",
		 rate, cpu);
	snprintf(dir, sizeof(dir), "%s", rundir);
	cr_assert_eq(report(NULL, NULL), 0);
	t = output();
	expect_line(t, "== phase tio: 16 of 16 phase runs ok ==");
	expect_line(t, "== phase runs: 16 ok, 0 failed, 0 skipped ==");
	t = section("Sequential Writes\n=================\n");
	expect_line(t, want);
	cr_expect(strstr(output(), "Sequential Reads\n"));
	/* tio.lua declares no key: its tiobench sections are its view */
	cr_expect_null(strstr(output(), "\nrate_mbs"), "%s", output());
	/* --all: every metric's table, the configs' at the end */
	cr_assert_eq(report("--all", NULL), 0);
	t = section("\nrate_mbs: rate (MB/s), for mode=seq_read threads=1, "
		    "higher is better");
	expect_line(t, "ext4::defaults 2 ");
	cr_expect(strstr(output(), "\nmkfs_s: mkfs (s), lower is better\n"));
	/* the wide CSV: a header and 16 phase runs + 2 config rows */
	snprintf(out, sizeof(out), "%s/wide.csv", tmp);
	cr_assert_eq(report("--format", "csv"), 0);
	{
		int lines = 0;

		for (const char *p = output(); *p; p++)
			lines += *p == '\n';
		cr_expect_eq(lines, 1 + 16 + 2, "%s", output());
	}
}

/* A run the host's hypervisor took CPU from (steal_cores) is marked as a
 * busy neighbour's is, with both figures. */
Test(report, stolen_cpu_marks_a_run)
{
	const char *cells[] = { "ext4::defaults/n#1", "ext4::defaults/n#2" };
	const double steal[] = { 0.6, 0.01 };

	fixture();
	for (int i = 0; i < 2; i++) {
		num(cells[i], "ext4::defaults", "n", "", i + 1, "seconds", 2,
		    "s");
		num(cells[i], "ext4::defaults", "n", "", i + 1, "load_1m", 1.5,
		    "");
		num(cells[i], "ext4::defaults", "n", "", i + 1, "others_cores",
		    0.1, "");
		num(cells[i], "ext4::defaults", "n", "", i + 1, "steal_s",
		    2 * steal[i], "s");
		num(cells[i], "ext4::defaults", "n", "", i + 1, "steal_cores",
		    steal[i], "");
		row(cells[i], "ext4::defaults", "n", "", i + 1, "status", "ok",
		    "");
	}
	write_results();
	cr_assert_eq(report(NULL, NULL), 0);
	cr_expect(strstr(output(), "! 1 of 2 phase runs were disturbed") &&
		  strstr(output(), "ext4::defaults/n#1 (others 0.10, steal "
			 "0.60, load 1.50)"), "%s", output());
	cr_expect_null(strstr(output(), "n#2 (others"), "%s", output());
}

/* A RUNDIR longer than a path can be is said as such, not cut into
 * another path. */
Test(report, a_rundir_too_long_is_said)
{
	static char longdir[5000];
	size_t n = 0;

	n += (size_t)snprintf(longdir, sizeof(longdir), "/tmp");
	while (n + 250 < sizeof(longdir)) {
		longdir[n++] = '/';
		memset(longdir + n, 'd', 240);
		n += 240;
	}
	longdir[n] = '\0';
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", longdir, NULL }), 2);
	cr_expect(strstr(e2e_err, "fsplan report: RUNDIR of "),
		  "%.300s", e2e_err);
	cr_expect(strstr(e2e_err, "File name too long"), "%.300s", e2e_err);
}
