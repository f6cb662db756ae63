/* test_classic: tiobench's sections and bon_csv2txt's blocks, a row per config,
 * from a hand-made results set. */
#include "report/classic.h"
#include "report/study.h"
#include "report/view.h"
#include "e2e.h"
#include "resset.h"

TestSuite(classic, .fini = rs_free);

/* The phase's study tables as report prints them: the text of those of
 * study_list that have a table; want: whether the study named had one. */
static const char *study_with(const char *name, json_t *phases, int want)
{
	struct table_src in = { rs.run, rs.n, "tio", NULL, phases };
	size_t len;
	FILE *f = rs_stream(&len);
	int shown = study_text(f, &in, 0);

	cr_assert_geq(shown, 0);
	cr_assert_eq((shown & study_bit(name)) != 0, want, "%s", name);
	return rs_done(f);
}

static const char *tiobench(int want)
{
	return study_with("tiobench", NULL, want);
}

static const char *bonnie(int want)
{
	return study_with("bonnie", NULL, want);
}

/* A mask of the studies named. */
static unsigned bits(int tio, int bon, int db)
{
	return (tio ? study_bit("tiobench") : 0) |
	       (bon ? study_bit("bonnie") : 0) |
	       (db ? study_bit("dbench") : 0);
}

/* ---- tiobench ----------------------------------------------------------- */

/* One tiobench-like run; cpu < 0: no cpu_pct, test_cpu >= 0: its own. */
static void tio(const char *label, const char *params, int rep, double rate,
		double cpu, double test_cpu, double max_lat)
{
	rs_num(label, "tio", params, rep, "file_size_mib", 256, "MiB");
	rs_num(label, "tio", params, rep, "block_bytes", 4096, "bytes");
	rs_num(label, "tio", params, rep, "rate_mbs", rate, "MiB/s");
	if (cpu >= 0)
		rs_num(label, "tio", params, rep, "cpu_pct", cpu, "%");
	if (test_cpu >= 0)
		rs_num(label, "tio", params, rep, "test_cpu_pct", test_cpu, "");
	rs_num(label, "tio", params, rep, "avg_lat_ms", 0.25 * rep, "ms");
	rs_num(label, "tio", params, rep, "max_lat_ms", max_lat, "ms");
	rs_num(label, "tio", params, rep, "over_2s_pct", 0.5, "%");
	rs_num(label, "tio", params, rep, "over_10s_pct", 0, "%");
	rs_status(label, "tio", params, rep, "ok");
}

/* The section titled title: from its title to the next one or the end. */
static const char *section(const char *out, const char *title, char *buf,
			   size_t len)
{
	char head[128];
	const char *s, *end;

	snprintf(head, sizeof(head), "\n%s\n", title);
	s = strstr(out, head);
	cr_assert_not_null(s, "no section '%s' in:\n%s", title, out);
	end = strstr(s + strlen(head), "\n\n");
	snprintf(buf, len, "%.*s", end ? (int)(end - s) : (int)strlen(s), s);
	return buf;
}

/* A mode given in the phase's with: (not a matrix axis) is not in the
 * rows' phase_params: the caller passes it, from the manifest. */
static const char *tio_with_mode(const char *params, const char *mode)
{
	const char *out;
	json_t *phases;

	rs_begin();
	tio("ext4", params, 1, 2, 10, -1, 1);
	rs_load("tio");
	phases = json_pack("[{s:s, s:{s:s}}]", "name", "tio", "with",
			   "mode", mode);
	out = study_with("tiobench", phases, 1);
	json_decref(phases);
	return out;
}

Test(classic, tiobench_mode_from_the_phases_with)
{
	const char *out = tio_with_mode("threads=1", "rand_read");

	cr_expect(strstr(out, "\nRandom Reads\n============\n"), "%s", out);
	cr_expect_null(strstr(out, "(no mode)"), "%s", out);
	/* an axis says more than with: */
	out = tio_with_mode("mode=seq_write;threads=1", "rand_read");
	cr_expect(strstr(out, "\nSequential Writes\n"), "%s", out);
	cr_expect_null(strstr(out, "Random Reads"), "%s", out);
}

/* A plan that leaves mode at tiobench's default ran seq_write: the
 * manifest records no mode, and the section is Sequential Writes. */
Test(classic, tiobench_default_mode_is_the_module_s)
{
	json_t *phases = json_loads("[{\"name\": \"tio\", \"use\": "
		"\"tiobench\"}, {\"name\": \"t2\", \"use\": "
		"\"/usr/share/fsplan/lua/tiobench.lua\", \"with\": {\"mode\": "
		"\"rand_read\"}}, {\"name\": \"axis\", \"use\": \"tiobench\", "
		"\"with\": {\"mode\": \"${m}\"}}, {\"name\": \"mine\", "
		"\"use\": \"mine.lua\"}]", 0, NULL);
	const char *root = getenv("FSPLAN_ROOT"), *out;
	char path[4096];

	cr_assert_not_null(phases);
	cr_expect_str_eq(classic_tio_mode(phases, "tio"), "seq_write");
	cr_expect_str_eq(classic_tio_mode(phases, "t2"), "rand_read");
	/* a ${name}: the cells' rows say it, not the default */
	cr_expect_null(classic_tio_mode(phases, "axis"));
	cr_expect_null(classic_tio_mode(phases, "mine"));
	out = tio_with_mode("threads=1", classic_tio_mode(phases, "tio"));
	cr_expect(strstr(out, "\nSequential Writes\n"), "%s", out);
	cr_expect_null(strstr(out, "(no mode)"), "%s", out);
	json_decref(phases);
	/* and the module's default is still the one the report assumes */
	cr_assert_not_null(root, "FSPLAN_ROOT is not set (run through make)");
	snprintf(path, sizeof(path), "%s/lua/tiobench.lua", root);
	cr_expect(strstr(e2e_read(path), "mode = \"seq_write\""),
		  "%s: params.mode is no longer seq_write: change "
		  "classic_tio_mode", path);
}

Test(classic, tiobench_sections_rows_and_columns)
{
	char buf[4096];
	const char *out, *t;

	rs_begin();
	/* written in another order than tiobench prints them */
	tio("ext4", "mode=seq_read;threads=16", 1, 80, 50, -1, 2);
	tio("ext4", "mode=seq_read;threads=8", 1, 40, 50, -1, 2);
	tio("ext4", "mode=seq_read;threads=8", 2, 60, 30, -1, 4);
	tio("xfs", "mode=rand_write;threads=1", 1, 5, 25, -1, 3);
	tio("xfs", "mode=seq_read;threads=8", 1, 20, 90, 40, 1);
	tio("ext4", "mode=rand_read;threads=1", 1, 2, 0, -1, 1);
	rs_load("tio");
	out = tiobench(1);
	cr_expect(strstr(out, "\ntiobench: means over the repetitions\n"),
		  "%s", out);

	/* the sections in tiobench's order; no seq_write runs, no section */
	cr_assert(strstr(out, "\nSequential Reads\n================\n") &&
		  strstr(out, "\nRandom Reads\n============\n") &&
		  strstr(out, "\nRandom Writes\n=============\n"), "%s", out);
	cr_expect_null(strstr(out, "Sequential Writes"), "%s", out);
	cr_expect(strstr(out, "\nSequential Reads\n") <
		  strstr(out, "\nRandom Reads\n") &&
		  strstr(out, "\nRandom Reads\n") <
		  strstr(out, "\nRandom Writes\n"), "%s", out);

	t = section(out, "Sequential Reads", buf, sizeof(buf));
	rs_expect_line(t, "File Blk Num Avg Maximum Lat% Lat% CPU");
	rs_expect_line(t, "Identifier Size Size Thr Rate (CPU%) Latency "
		       "Latency >2s >10s Eff");
	/* means over the repetitions: rate 50, CPU 40%, avg latency
	 * 0.375, max 3; CPU Eff = 50 / 0.40 = 125 */
	{
		const char *a = rs_expect_line(t, "ext4 256 4096 8 50.00 "
			"40.00% 0.375 3.00 0.50000 0.00000 125");
		const char *b = rs_expect_line(t, "ext4 256 4096 16 80.00 "
			"50.00% 0.250 2.00 0.50000 0.00000 160");
		/* xfs: the test's own CPU (40), not the run's (90) */
		const char *c = rs_expect_line(t, "xfs 256 4096 8 20.00 "
			"40.00% 0.250 1.00 0.50000 0.00000 50");

		/* configs in order of appearance, then threads as numbers */
		cr_expect(a && b && c && a < b && b < c, "%s", t);
	}
	t = section(out, "Random Reads", buf, sizeof(buf));
	/* no CPU: no efficiency */
	rs_expect_line(t, "ext4 256 4096 1 2.00 0.00% 0.250 1.00 0.50000 "
		       "0.00000 -");
	t = section(out, "Random Writes", buf, sizeof(buf));
	rs_expect_line(t, "xfs 256 4096 1 5.00 25.00% 0.250 3.00 0.50000 "
		       "0.00000 20");
	cr_expect_null(strstr(t, "ext4"), "%s", t);
}

Test(classic, tiobench_columns_line_up)
{
	const char *out, *head, *row;
	size_t hl, rl;

	rs_begin();
	tio("a-config-label-longer-than-28-chars", "mode=seq_write;threads=4",
	    1, 123.456, 12.5, -1, 1234.5);
	rs_load("tio");
	out = tiobench(1);
	head = strstr(out, "Identifier");
	row = strstr(out, "a-config-label");
	cr_assert(head && row, "%s", out);
	hl = strcspn(head, "\n");
	rl = strcspn(row, "\n");
	/* the identifier column widens; every figure ends under its head */
	cr_expect_eq(hl, rl, "head and row widths differ:\n%s", out);
	cr_expect(!strncmp(row + rl - 3, "988", 3), "CPU Eff 123.456 / "
		  "0.125 = 988 last:\n%.*s", (int)rl, row);
	cr_expect(strstr(row, " 123.46 ") && strstr(row, " 1234.50 "),
		  "%.*s", (int)rl, row);
}

Test(classic, tiobench_modes_threads_and_identifiers)
{
	char buf[4096];
	const char *out, *t;

	rs_begin();
	/* the identifier keeps parameters other than mode and threads;
	 * threads from workers= when the run has no threads figure */
	tio("ext4", "mode=seq_write;size=1G;workers=4", 1, 10, 50, -1, 1);
	/* a mode of its own: after tiobench's four, under its name */
	tio("ext4", "mode=append;threads=2", 1, 7, 70, -1, 1);
	/* no mode at all */
	tio("ext4", "", 1, 9, 90, -1, 1);
	/* a run without rate_mbs is not tiobench's */
	rs_num("btrfs", "tio", "mode=seq_write;threads=1", 1, "seconds", 1,
	       "s");
	rs_status("btrfs", "tio", "mode=seq_write;threads=1", 1, "ok");
	/* nor one with rate_mbs but no block (the tree study's) */
	rs_num("xfs", "tio", "mode=seq_write;threads=1", 1, "rate_mbs", 5,
	       "MiB/s");
	rs_status("xfs", "tio", "mode=seq_write;threads=1", 1, "ok");
	rs_load("tio");
	out = tiobench(1);
	t = section(out, "Sequential Writes", buf, sizeof(buf));
	rs_expect_line(t, "ext4 size=1G 256 4096 4 10.00 50.00% 0.250 1.00 "
		       "0.50000 0.00000 20");
	cr_expect_null(strstr(out, "btrfs"), "%s", out);
	cr_expect_null(strstr(out, "xfs"), "%s", out);
	t = section(out, "append", buf, sizeof(buf));
	rs_expect_line(t, "ext4 256 4096 2 7.00 70.00% 0.250 1.00 0.50000 "
		       "0.00000 10");
	t = section(out, "(no mode)", buf, sizeof(buf));
	rs_expect_line(t, "ext4 256 4096 - 9.00 90.00% 0.250 1.00 0.50000 "
		       "0.00000 10");
	cr_expect(strstr(out, "\nSequential Writes\n") <
		  strstr(out, "\nappend\n"), "%s", out);
}

Test(classic, tiobench_nothing_to_print)
{
	rs_begin();
	rs_num("ext4", "tio", "", 1, "seconds", 1, "s");
	rs_status("ext4", "tio", "", 1, "ok");
	rs_load("tio");
	cr_expect_str_eq(tiobench(0), "");
	rs.n = 0;
	cr_expect_str_eq(tiobench(0), "");
}

/* ---- bonnie++ ----------------------------------------------------------- */

/* bonnie++'s head over six tests: a rate and its %CP each. */
#define BON_SEC "  /sec %%CP  /sec %%CP  /sec %%CP  /sec %%CP  /sec %%CP" \
		"  /sec %%CP\n"

/* The lines of fmt (a printf format: %%CP, %44s for spaces) are in out. */
static void expect_block(const char *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void expect_block(const char *out, const char *fmt, ...)
{
	char want[4096];
	va_list ap;

	want[0] = '\n';
	va_start(ap, fmt);
	vsnprintf(want + 1, sizeof(want) - 1, fmt, ap);
	va_end(ap);
	cr_expect(strstr(out, want), "no\n%s\nin\n%s", want + 1, out);
}

/* A bonnie-like run; fast: rewrite ran under 0.5 s. */
static void bon(const char *label, int rep, double k, int fast, int files)
{
	static const char *const io[] = { "putc", "putc_cpu",
		"putc_latency_us", "put_block", "put_block_cpu",
		"put_block_latency_us", "get_block", "get_block_cpu",
		"get_block_latency_us", "seeks", "seeks_cpu",
		"seeks_latency_us", NULL };
	const double v[] = { 500 + 100 * k, 90 + 6 * k, 40000 + 10000 * k,
		400000 + 20000 * k, 36, 9000, 2000000 + 100000 * k, 5, 700,
		1200 + 100 * k, 3 + k, 2500 };

	rs_num(label, "bon", "", rep, "bonnie_line", 1, "");
	rs_num(label, "bon", "", rep, "file_size_mib", 256, "MiB");
	rs_num(label, "bon", "", rep, "seeks_count", 8192, "");
	rs_num(label, "bon", "", rep, "seek_procs", 5, "");
	for (int i = 0; io[i]; i++)
		rs_num(label, "bon", "", rep, io[i], v[i], "");
	if (fast) {
		rs_num(label, "bon", "", rep, "rewrite", 999999, "");
		rs_num(label, "bon", "", rep, "rewrite_fast", 1, "");
	} else {
		rs_num(label, "bon", "", rep, "rewrite", 100000, "");
		rs_num(label, "bon", "", rep, "rewrite_cpu", 20, "");
		rs_num(label, "bon", "", rep, "rewrite_fast", 0, "");
	}
	if (files) {
		rs_num(label, "bon", "", rep, "num_files", 16, "");
		rs_num(label, "bon", "", rep, "max_size", 4096, "");
		rs_num(label, "bon", "", rep, "min_size", 1024, "");
		rs_num(label, "bon", "", rep, "num_dirs", 4, "");
		rs_num(label, "bon", "", rep, "seq_create", 2000 + 1000 * k,
		       "");
		rs_num(label, "bon", "", rep, "seq_create_cpu", 10, "");
		rs_num(label, "bon", "", rep, "seq_create_latency_us", 150000,
		       "");
		rs_num(label, "bon", "", rep, "ran_del", 800, "");
		rs_num(label, "bon", "", rep, "ran_del_cpu", 4, "");
	}
	rs_status(label, "bon", "", rep, "ok");
}

Test(classic, bonnie_blocks)
{
	const char *out;

	rs_begin();
	bon("ext4", 1, 0, 1, 1);
	bon("ext4", 2, 1, 1, 1);
	bon("xfs", 1, 10, 0, 1);
	rs_load("bon");
	out = bonnie(1);
	cr_expect(strstr(out, "\nbonnie++: means over the repetitions "
			 "(K/sec, seeks/sec, files/sec; %CP; the longest "
			 "op)\n"), "%s", out);
	/* ext4, the means of two runs: putc 550 K/s at 93%, block 410000
	 * K/s = 400m, rewrite under 0.5 s both times, no getc, block read
	 * 2050000 K/s = 2.0g, 1250 seeks/s at 3.5% (truncated, as bonnie++
	 * writes %CPU); latencies under 0.1 s in us.
	 * xfs, one run: 586m, a rewrite of 100000 K/s = 97.7m, 140 ms. */
	expect_block(out,
		"fsplan bonnie       ------Sequential Output------ "
		"--Sequential Input- --Random-\n"
		"                    -Per Chr- --Block-- -Rewrite- -Per Chr- "
		"--Block-- --Seeks--\n"
		"Name:Size etc      " BON_SEC
		"ext4   256M::8192:5  550k  93  400m  36 +++++ +++            "
		"2.0g   5  1250   3\n"
		"Latency             45000us    9000us                         "
		"700us    2500us\n"
		"xfs    256M::8192:5 1500k 150  586m  36 97.7m  20            "
		"2.9g   5  2200  13\n"
		"Latency               140ms    9000us                         "
		"700us    2500us\n");
	/* the files block: 16 files of 1024 to 4096 bytes in 4 dirs */
	expect_block(out,
		"                    ------Sequential Create------ "
		"--------Random Create--------\n"
		"                    -Create-- --Read--- -Delete-- -Create-- "
		"--Read--- -Delete--\n"
		"      files:max:min" BON_SEC
		"ext4 16:4096:1024/4  2500  10%43s800   4\n"
		"Latency               150ms%50s\n"
		"xfs  16:4096:1024/4 12000  10%43s800   4\n", "", "", "");
	cr_expect_lt(strstr(out, "Sequential Output"),
		     strstr(out, "Sequential Create"), "%s", out);
}

/*
 * bonnie++ writes whole numbers, truncated, and bon_csv2txt prints them:
 * 2347.8 K/s at 99.6% is "2347k  99", a longest op of 112999.6 us
 * "112ms". One run reads as bon_csv2txt reads its line; a mean over runs
 * is truncated alike.
 */
Test(classic, bonnie_figures_truncate_as_bonnie_does)
{
	static const char *const name[] = { "put_block", "put_block_cpu",
		"put_block_latency_us", "get_block", "get_block_cpu",
		"get_block_latency_us", "seq_create", "seq_create_cpu", NULL };
	const double one[] = { 2347.8, 99.6, 112999.6, 1766.9, 99.7, 99999.9,
			       4321.9, 12.9 };
	const double two[] = { 153087.9, 20.9, 1999.9, 300.5, 1.5, 15.5,
			       10.5, 1.5 };
	const char *out;
	char label[8];

	rs_begin();
	for (int r = 0; r < 3; r++) {
		snprintf(label, sizeof(label), "%s", r ? "xfs" : "ext4");
		rs_num(label, "bon", "", r, "bonnie_line", 1, "");
		rs_num(label, "bon", "", r, "file_size_mib", 256, "MiB");
		rs_num(label, "bon", "", r, "num_files", 16, "");
		for (int i = 0; name[i]; i++)
			rs_num(label, "bon", "", r, name[i],
			       r ? two[i] + (r == 2) : one[i], "");
		rs_status(label, "bon", "", r, "ok");
	}
	rs_load("bon");
	out = bonnie(1);
	/* ext4 as bon_csv2txt shows "...,2347,99,,,1766,99,...,112ms,...";
	 * xfs, the means of two: 153088.4 K/s = 149.5m, int(m + 0.5) = 150m
	 * at 21.4%, 301 K/s at 2%, 2000.4 us, 16 us */
	rs_expect_line(out, "ext4 256M 2347k 99 1766k 99");
	rs_expect_line(out, "Latency 112ms 99999us");
	rs_expect_line(out, "xfs 256M 150m 21 301k 2");
	rs_expect_line(out, "Latency 2000us 16us");
	rs_expect_line(out, "ext4 16 4321 12");
	rs_expect_line(out, "xfs 16 11 2");
}

Test(classic, bonnie_io_block_alone)
{
	const char *out;

	rs_begin();
	/* 1024 MiB is 1G; no seeks shape; no latencies: no Latency line */
	rs_num("ext4", "bon", "", 1, "bonnie_line", 1, "");
	rs_num("ext4", "bon", "", 1, "file_size_mib", 1024, "MiB");
	rs_num("ext4", "bon", "", 1, "put_block", 5000, "");
	rs_num("ext4", "bon", "", 1, "put_block_cpu", 2, "");
	rs_num("ext4", "bon", "", 1, "seeks", 99.25, "");
	rs_status("ext4", "bon", "", 1, "ok");
	rs_load("bon");
	out = bonnie(1);
	expect_block(out,
		"Name:Size etc      " BON_SEC
		"ext4%13s1G%10s 5000k   2%30s  99.2    \n", "", "", "");
	cr_expect_null(strstr(out, "Latency"), "%s", out);
	cr_expect_null(strstr(out, "Sequential Create"), "%s", out);
	cr_expect_null(strstr(out, "files:max:min"), "%s", out);
}

Test(classic, bonnie_nothing_to_print)
{
	rs_begin();
	rs_num("ext4", "bon", "", 1, "putc", 100, "");
	rs_status("ext4", "bon", "", 1, "ok");
	rs_load("bon");
	cr_expect_str_eq(bonnie(0), "", "no bonnie_line: not bonnie++'s");
}

/* ---- what the tables show ----------------------------------------------- */

Test(classic, shows_what_the_tables_print)
{
	static const char *const tio_names[] = { "rate_mbs", "cpu_pct",
		"test_cpu_pct", "cpu_eff", "avg_lat_ms", "max_lat_ms",
		"over_2s_pct", "over_10s_pct", "file_size_mib", "block_bytes",
		"threads", NULL };
	static const char *const bon_names[] = { "putc", "putc_cpu",
		"putc_latency_us", "rewrite_fast", "seeks", "seq_create",
		"ran_del_latency_us", "seq_stat_cpu", NULL };

	for (int i = 0; tio_names[i]; i++) {
		cr_expect(view_shown(tio_names[i], bits(1, 0, 0)), "%s",
			  tio_names[i]);
		cr_expect_not(view_shown(tio_names[i], bits(0, 1, 1)), "%s",
			      tio_names[i]);
	}
	for (int i = 0; bon_names[i]; i++) {
		cr_expect(view_shown(bon_names[i], bits(0, 1, 0)), "%s",
			  bon_names[i]);
		cr_expect_not(view_shown(bon_names[i], bits(1, 0, 1)), "%s",
			      bon_names[i]);
	}
	/* neither shows a figure of its own */
	cr_expect_not(view_shown("seconds", bits(1, 1, 1)));
	cr_expect_not(view_shown("putc_latency_ms", bits(1, 1, 1)));
	cr_expect_not(view_shown("rate_mbs", bits(0, 0, 0)));
	cr_expect(view_shown("throughput_mbs", bits(0, 0, 1)));
	cr_expect_not(view_shown("throughput_mbs", bits(1, 1, 0)));
}

/* ---- dbench ------------------------------------------------------------- */

static const char *dbench(int want)
{
	return study_with("dbench", NULL, want);
}

static void db(const char *label, const char *params, int rep, double n,
	       double mbs)
{
	rs_num(label, "db", params, rep, "throughput_mbs", mbs, "MB/s");
	rs_num(label, "db", params, rep, "clients", n, "");
	rs_status(label, "db", params, rep, "ok");
}

Test(classic, dbench_average_high_low_per_processes)
{
	const char *out, *a, *b, *x;

	rs_begin();
	/* the study's shape: 64 and 192 clients, repetitions, two configs */
	db("ext3", "workers=192", 1, 192, 20);
	db("ext3", "workers=64", 1, 64, 100);
	db("ext3", "workers=64", 2, 64, 110);
	db("ext3", "workers=64", 3, 64, 90);
	db("xfs-log", "workers=64", 1, 64, 50);
	db("xfs-log", "workers=64", 2, 64, 70);
	db("ext3", "workers=192", 2, 192, 30);
	rs_load("db");
	out = dbench(1);
	a = strstr(out, "\n  dbench 64 processes ");
	b = strstr(out, "\n  dbench 192 processes ");
	cr_assert(a && b && a < b, "64 before 192:\n%s", out);
	cr_expect(strstr(a, "Average       High        Low  Runs\n"), "%s",
		  out);
	/* the means, the highest and the lowest of the repetitions */
	x = strstr(a, "\n  ext3 ");
	cr_assert(x && x < b, "%s", out);
	cr_expect(!strncmp(strchr(x + 3, ' '),
			   "                         100.00     110.00      "
			   "90.00     3\n", 60), "%s", out);
	x = strstr(a, "\n  xfs-log ");
	cr_assert(x && x < b, "%s", out);
	cr_expect(strstr(x, " 60.00      70.00      50.00     2\n"), "%s",
		  out);
	x = strstr(b, "\n  ext3 ");
	cr_assert(x, "%s", out);
	cr_expect(strstr(x, " 25.00      30.00      20.00     2\n"), "%s",
		  out);
	/* workers is the heading, not part of a row's name */
	cr_expect_not(strstr(out, "workers=64"), "%s", out);
}

/* hron's study runs one client too: "1 process", not "1 processes". */
Test(classic, dbench_one_process_is_singular)
{
	const char *out;

	rs_begin();
	db("ext3", "workers=1", 1, 1, 20);
	db("ext3", "workers=4", 1, 4, 30);
	rs_load("db");
	out = dbench(1);
	cr_expect(strstr(out, "\n  dbench 1 process "), "%s", out);
	cr_expect_not(strstr(out, "1 processes"), "%s", out);
	cr_expect(strstr(out, "\n  dbench 4 processes "), "%s", out);
}

Test(classic, dbench_nothing_to_print)
{
	rs_begin();
	tio("ext4", "mode=seq_read;threads=8", 1, 40, 50, -1, 2);
	rs_load("db");
	cr_expect_str_eq(dbench(0), "");
}

/* ---- the tables as data, for html -------------------------------------- */

struct seen {
	const char *text;	/* the tables as text */
	int sections, rows;
	char titles[512];
};

/* Each section of the study's tables is a table of the html page, and
 * each of its rows a line of the text: the same figures, in order (blank
 * cells are the text's blank columns). Returns whether it had a table. */
static int in_text(const char *name, struct seen *s)
{
	struct table_src in = { rs.run, rs.n, "tio", NULL, NULL };
	struct tables ts = { 0 };

	cr_assert_eq(study_tables(name, &in, &ts), 0);
	for (size_t k = 0; k < ts.n; k++) {
		const struct table *t = ts.t[k];

		for (size_t i = 0; i < t->n_sect; i++) {
			s->sections++;
			snprintf(s->titles + strlen(s->titles),
				 sizeof(s->titles) - strlen(s->titles), "%s|",
				 t->sect[i].title);
		}
		for (size_t r = 0; r < t->n; r++) {
			char line[1024];
			size_t n = 0;

			for (int c = 0; c < t->ncol; c++) {
				const char *x = t->row[r].cell[c];

				if (*x)
					n += snprintf(line + n,
						      sizeof(line) - n, "%s%s",
						      n ? " " : "", x);
			}
			rs_expect_line(s->text, line);
			s->rows++;
		}
	}
	{
		int had = ts.n > 0;

		tables_free(&ts);
		return had;
	}
}

Test(classic, tiobench_tables_are_the_sections)
{
	struct seen s = { NULL, 0, 0, "" };

	rs_begin();
	tio("ext4", "mode=seq_read;threads=16", 1, 80, 50, -1, 2);
	tio("ext4", "mode=seq_read;threads=8", 1, 40, 50, -1, 2);
	tio("xfs", "mode=rand_write;threads=1", 1, 5, 25, -1, 3);
	tio("xfs", "mode=seq_read;threads=8", 1, 20, 90, 40, 1);
	rs_load("tio");
	s.text = tiobench(1);
	cr_assert_eq(in_text("tiobench", &s), 1);
	cr_expect_eq(s.sections, 2);
	cr_expect_eq(s.rows, 4);
	cr_expect_str_eq(s.titles, "Sequential Reads|Random Writes|");
	rs.n = 0;
	cr_expect_eq(in_text("tiobench", &s), 0);
}

Test(classic, bonnie_tables_are_the_blocks)
{
	struct seen s = { NULL, 0, 0, "" };

	rs_begin();
	bon("ext4", 1, 0, 1, 1);
	bon("ext4", 2, 1, 1, 1);
	bon("xfs", 1, 10, 0, 1);
	rs_load("bon");
	s.text = bonnie(1);
	cr_assert_eq(in_text("bonnie", &s), 1);
	cr_expect_eq(s.sections, 2, "the IO block and the files block");
	/* each block: two configs, each with its latency row */
	cr_expect_eq(s.rows, 4 + 4);
}

Test(classic, dbench_tables_are_per_client_count)
{
	struct seen s = { NULL, 0, 0, "" };

	rs_begin();
	db("ext3", "workers=192", 1, 192, 20);
	db("ext3", "workers=64", 1, 64, 100);
	db("ext3", "workers=64", 2, 64, 110);
	db("xfs-log", "workers=64", 1, 64, 50);
	rs_load("db");
	s.text = dbench(1);
	cr_assert_eq(in_text("dbench", &s), 1);
	cr_expect_eq(s.sections, 2);
	cr_expect_eq(s.rows, 3);
	cr_expect(strstr(s.titles, "dbench 64 processes") <
		  strstr(s.titles, "dbench 192 processes"), "%s", s.titles);
}

/* The same tables as CSV: a line per section title, the head with the
 * columns' units, the rows as the text has them. */
Test(classic, a_study_table_as_csv)
{
	struct table_src in = { NULL, 0, "tio", NULL, NULL };
	struct tables ts = { 0 };
	size_t len;
	FILE *f;
	const char *out;

	rs_begin();
	tio("ext4", "mode=seq_read;threads=8", 1, 40, 50, -1, 2);
	tio("xfs", "mode=rand_write;threads=1", 1, 5, 25, -1, 3);
	rs_load("tio");
	in.runs = rs.run;
	in.n = rs.n;
	cr_assert_eq(study_tables("tiobench", &in, &ts), 0);
	cr_assert_eq(ts.n, 1);
	f = rs_stream(&len);
	cr_assert_eq(table_csv(f, ts.t[0]), 0);
	out = rs_done(f);
	cr_expect(!strncmp(out, "Sequential Reads\nIdentifier,File Size (MiB),"
			   "Blk Size (bytes),Num Thr,Rate (MiB/s),CPU%,", 64),
		  "%s", out);
	cr_expect(strstr(out, "\next4,256,4096,8,40.00,50.00%,"), "%s", out);
	cr_expect(strstr(out, "\n\nRandom Writes\nIdentifier,"), "%s", out);
	cr_expect(strstr(out, "\nxfs,256,4096,1,5.00,25.00%,"), "%s", out);
	tables_free(&ts);
}
