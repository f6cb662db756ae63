/* test_tiobench: the tiobench phase end to end — op counts, rate, latency and
 * CPU figures recomputed from results.csv. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

static int run_plan(const char *body, char *rd, size_t len)
{
	const char *dir = e2e_tmpdir();
	char text[4096];
	char *plan;

	snprintf(text, sizeof(text), "fsplan: 1\nname: tio\n%s", body);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, len, "%s/run", dir);
	return e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					    NULL });
}

static int near(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fmax(fabs(a), fabs(b));
}

/*
 * What a reader of a tiobench table checks of one phase run: it ran, it
 * did the ops tiobench.pl would have it do, and every column follows from
 * the run's own rows by tiobench's definitions.
 */
static void check_cell(const char *rd, const char *cell, double ops,
		       int threads)
{
	double secs, bytes, rate, avg, max, cpu;

	cr_assert_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s: %s",
			 cell, e2e_reason(rd, cell));
	cr_expect_eq(e2e_num(rd, cell, "tio_ops"), ops, "%s: %.0f ops, want %.0f",
		     cell, e2e_num(rd, cell, "tio_ops"), ops);
	bytes = e2e_num(rd, cell, "tio_bytes");
	cr_expect_eq(bytes, ops * 4096, "%s: %.0f bytes", cell, bytes);
	cr_expect_eq(e2e_num(rd, cell, "threads"), threads, "%s", cell);
	cr_expect_eq(e2e_num(rd, cell, "block_bytes"), 4096, "%s", cell);

	/* Rate: MiB over the wall time from all started to all joined;
	 * seconds is written to the microsecond */
	secs = e2e_num(rd, cell, "seconds");
	rate = e2e_num(rd, cell, "rate_mbs");
	cr_assert_gt(secs, 0, "%s", cell);
	cr_expect(near(rate, bytes / 1048576 / secs, 1e-6 / secs + 1e-9),
		  "%s: rate_mbs %.9g, bytes/2^20/seconds %.9g", cell, rate,
		  bytes / 1048576 / secs);
	/* the units tiobench's own columns are in */
	cr_expect_str_eq(e2e_unit(rd, cell, "rate_mbs"), "MiB/s", "%s", cell);
	cr_expect_str_eq(e2e_unit(rd, cell, "max_lat_ms"), "ms", "%s", cell);
	cr_expect_str_eq(e2e_unit(rd, cell, "test_cpu_pct"), "%", "%s", cell);

	/* Latency: the run's own histogram, per op, avg never above max */
	avg = e2e_num(rd, cell, "avg_lat_ms");
	max = e2e_num(rd, cell, "max_lat_ms");
	cr_expect(avg > 0 && avg <= max, "%s: avg %g max %g", cell, avg, max);
	cr_expect(near(avg, e2e_num(rd, cell, "tio_lat_avg_ms"), 1e-8), "%s",
		  cell);
	cr_expect(near(max, e2e_num(rd, cell, "tio_lat_max_ms"), 1e-8), "%s",
		  cell);
	/* Lat% >2s and >10s: shares of the ops, the second within the
	 * first. Not 0 for certain: the loop image is read and written by
	 * direct I/O, and a write in a 32 MiB memory cgroup can wait
	 * seconds for writeback when the other tests load the disk. */
	{
		double o2 = e2e_num(rd, cell, "tio_over_2000ms_pct");
		double o10 = e2e_num(rd, cell, "tio_over_10000ms_pct");

		cr_expect(o2 >= 0 && o2 <= 100 && o10 >= 0 && o10 <= o2,
			  "%s: Lat%% >2s %g, >10s %g", cell, o2, o10);
		cr_expect(max < 2000 ? o2 == 0 : o2 > 0,
			  "%s: max %g ms, Lat%% >2s %g", cell, max, o2);
	}
	if (e2e_metric(rd, cell, "over_2s_pct"))
		cr_expect_eq(e2e_num(rd, cell, "over_2s_pct"),
			     e2e_num(rd, cell, "tio_over_2000ms_pct"), "%s", cell);

	/* CPU% over the test itself, and CPU Eff = Rate / (CPU% / 100) */
	cpu = e2e_num(rd, cell, "test_cpu_pct");
	cr_expect(cpu > 0 && cpu <= 110 * sysconf(_SC_NPROCESSORS_ONLN),
		  "%s: CPU%% %g", cell, cpu);
	cr_expect(near(e2e_num(rd, cell, "cpu_eff"), rate / (cpu / 100), 1e-12),
		  "%s: cpu_eff %g", cell, e2e_num(rd, cell, "cpu_eff"));
}

Test(tiobench, four_modes_one_and_four_threads, .fini = fini,
     .timeout = 180)
{
	static const char *const modes[] = { "seq_write", "seq_read",
					     "rand_write", "rand_read" };
	static const int threads[] = { 1, 4 };
	char rd[300];
	int rc;

	e2e_require_root();
	/*
	 * 64 MiB a cell on a 160 MiB image: if teardown left its files
	 * behind, the third cell would already run out of space.
	 */
	rc = run_plan("target: {image: 160M}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - use: tiobench\n"
		      "    matrix: {workers: [1, 4], mode: [seq_write, "
		      "seq_read, rand_write, rand_read]}\n"
		      "    with: {file_size: 64M, ram: 32M}\n", rd, sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	for (int t = 0; t < 2; t++)
		for (int m = 0; m < 4; m++) {
			char cell[128];
			int n = threads[t];
			/* seq: the thread's 64M/n in 4k blocks; random:
			 * int(4000/n) a thread */
			double ops = m < 2 ? (64 << 20) / n / 4096 * n
					   : 4000 / n * n;

			snprintf(cell, sizeof(cell),
				 "ext4/tiobench/workers=%d,mode=%s#1", n,
				 modes[m]);
			check_cell(rd, cell, ops, n);
			cr_expect_eq(e2e_num(rd, cell, "file_size_mib"), 64);
			cr_expect_eq(e2e_num(rd, cell, "ram_mib"), 32);
			cr_expect_eq(e2e_num(rd, cell, "ram_given"), 1);
		}
}

/* tiobench's --numruns summed latencies and Lat% over the runs without
 * dividing: here every repetition is a phase run with its own rows. */
Test(tiobench, repetitions_report_their_own_values, .fini = fini,
     .timeout = 120)
{
	static const char *const cells[] = {
		"ext4/tiobench/mode=rand_read#1",
		"ext4/tiobench/mode=rand_read#2",
		"ext4/tiobench/mode=seq_write#1",
		"ext4/tiobench/mode=seq_write#2",
	};
	char rd[300];
	int rc;

	e2e_require_root();
	rc = run_plan("target: {image: 128M}\n"
		      "repeat: 2\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - use: tiobench\n"
		      "    matrix: {mode: [rand_read, seq_write]}\n"
		      "    with: {workers: 2, file_size: 32M, ram: 16M}\n",
		      rd, sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	for (int i = 0; i < 4; i++)
		check_cell(rd, cells[i], i < 2 ? 4000 : 8192, 2);
	/* two measurements, not one reported twice */
	for (int i = 0; i < 4; i += 2)
		cr_expect(e2e_num(rd, cells[i], "seconds") !=
			  e2e_num(rd, cells[i + 1], "seconds") ||
			  e2e_num(rd, cells[i], "tio_lat_avg_ms") !=
			  e2e_num(rd, cells[i + 1], "tio_lat_avg_ms"),
			  "%s and its repetition have the same figures",
			  cells[i]);
}

Test(tiobench, sizes_split_and_refusals, .fini = fini, .timeout = 120)
{
	static const struct { const char *with, *want; } refused[] = {
		/* smaller than twice this machine's RAM, and ram not given */
		{ "file_size: 64M, mode: seq_read", "less than twice the RAM" },
		{ "ram: 8M, mode: sequential", "mode 'sequential'" },
		{ "workers: 4, ram: 8M, mode: rand_read, random_ops: 3",
		  "random_ops 3 over 4 workers" },
	};
	char rd[300];
	int rc;

	/* the module's check refuses these at fsplan check */
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		rc = e2e_check_phase("[{type: ext4}]", "tiobench",
				     refused[i].with);
		cr_expect_eq(rc, 2, "%s: exit %d", refused[i].with, rc);
		cr_expect(strstr(e2e_err, refused[i].want), "%s: '%s' lacks "
			  "'%s'", refused[i].with, e2e_err, refused[i].want);
	}
	e2e_require_root();
	rc = run_plan("target: {image: 128M}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - {use: tiobench, name: auto,"
		      " with: {ram: 32M, mode: seq_read}}\n"
		      "  - {use: tiobench, name: thirds,"
		      " matrix: {mode: [seq_read, rand_read]},"
		      " with: {workers: 3, file_size: 64M, ram: 32M}}\n",
		      rd, sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);

	/* auto: twice the ram given (a limit the phase runs under: 32M
	 * leaves a sanitizer build room) */
	check_cell(rd, "ext4/auto#1", 64 << 8, 1);
	cr_expect_eq(e2e_num(rd, "ext4/auto#1", "file_size_mib"), 64);
	cr_expect_eq(e2e_num(rd, "ext4/auto#1", "ram_mib"), 32);

	/* tiobench.pl: int(64/3) = 21 MiB a thread, int(4000/3) ops */
	check_cell(rd, "ext4/thirds/mode=seq_read#1", 3 * 21 * 256, 3);
	check_cell(rd, "ext4/thirds/mode=rand_read#1", 3 * 1333, 3);
}

/* The harness starts `workers` threads; a plan that says threads (as
 * tiobench's --threads) would run one: it is refused before anything. */
Test(tiobench, plans_say_workers, .fini = fini)
{
	char *plan = e2e_write(e2e_tmpdir(), "plan.yaml",
			       "fsplan: 1\n"
			       "filesystems: [{type: ext4}]\n"
			       "phases:\n"
			       "  - use: tiobench\n"
			       "    matrix: {threads: [1, 8]}\n");
	int rc = e2e_fsplan((const char *[]){ "check", plan, NULL });

	cr_expect_eq(rc, 2, "exit %d", rc);
	cr_expect(strstr(e2e_err, "no parameter 'threads'"), "%s", e2e_err);
}
