/* test_series_host: root's side of the series — the sampler, the join of a
 * child's T lines, the key and steady rows, timeseries.csv written, resumed
 * and merged. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "host/proc.h"
#include "host/sampler.h"
#include "results/seriescsv.h"
#include "run/timeline.h"
#include "util/clock.h"

static void fini(void)
{
	e2e_cleanup();
}

/* root's points of two intervals: the device wrote, the CPU ran */
static void root_points(struct series *s)
{
	for (int i = 1; i <= 4; i++) {
		cr_assert_eq(series_add(s, i, "dev_write_mbs", 100, "MiB/s"),
			     0);
		cr_assert_eq(series_add(s, i, "dev_read_mbs", 5, "MiB/s"), 0);
		cr_assert_eq(series_add(s, i, "cpu_pct", 50, "%"), 0);
	}
}

Test(series_host, join_takes_the_child_s_t_lines)
{
	static const char report[] = "O write 4096 1 0 0\nT 1 write_mbs 10 "
		"MiB/s\nT 2 write_mbs 12 MiB/s\nP x 1\nT 1 read_mbs 3 "
		"MiB/s\nEND\n";
	static const char parsed[] = "P tput_mbs 9 MB/s\nT 1 tput_mbs 9 "
		"MB/s\n";
	struct series root = { 0 };
	struct timeline t;

	root_points(&root);
	cr_assert_eq(timeline_join(&t, &root, report, strlen(report), parsed,
				   strlen(parsed)), 0);
	cr_expect_str_empty(t.refused);
	cr_expect_eq(t.s.n, root.n + 4);
	cr_expect_str_eq(t.s.p[root.n].metric, "write_mbs");
	cr_expect_str_eq(t.s.p[t.s.n - 1].metric, "tput_mbs");
	timeline_free(&t);
	series_free(&root);
}

Test(series_host, a_hostile_child_s_series_is_refused_whole)
{
	static const char *const bad[] = {
		/* one malformed line among good ones */
		"T 1 write_mbs 10 MiB/s\nT 2 write_mbs 1e999\n",
		/* root's own names */
		"T 1 write_mbs 10\nT 1 dev_write_mbs 1000 MiB/s\n",
		"T 1 dirty_mib 5\n", "T 1 cpu_pct 5\n", "T 1 cgroup_mib 5\n",
		/* before the start */
		"T -1 write_mbs 10\n",
	};
	struct series root = { 0 };

	root_points(&root);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct timeline t;

		cr_assert_eq(timeline_join(&t, &root, bad[i], strlen(bad[i]),
					   NULL, 0), 0);
		cr_expect(strstr(t.refused, "left out"), "%s", bad[i]);
		/* root's points all there, none of the child's */
		cr_expect_eq(t.s.n, root.n, "%s", bad[i]);
		timeline_free(&t);
	}
	/* a parser's bad line leaves the phase's good ones */
	{
		struct timeline t;
		const char *ok = "T 1 write_mbs 10\n", *p = "T 1 x\n";

		cr_assert_eq(timeline_join(&t, &root, ok, strlen(ok), p,
					   strlen(p)), 0);
		cr_expect(strstr(t.refused, "parser"));
		cr_expect_eq(t.s.n, root.n + 1);
		timeline_free(&t);
	}
	series_free(&root);
}

Test(series_host, the_key_series)
{
	struct series s = { 0 };
	char key[64];

	root_points(&s);
	/* no op series: the device's, whichever moved more */
	timeline_key(&s, NULL, 1, NULL, key, sizeof(key));
	cr_expect_str_eq(key, "dev_write_mbs");
	for (int i = 1; i <= 4; i++) {
		series_add(&s, i, "read_mbs", 50, "MiB/s");
		series_add(&s, i, "write_mbs", 20, "MiB/s");
		series_add(&s, i, "stat_iops", 5000, "1/s");
	}
	/* a Lua phase: the op with the most bytes */
	timeline_key(&s, NULL, 1, NULL, key, sizeof(key));
	cr_expect_str_eq(key, "read_mbs");
	/* the rule's metric first */
	timeline_key(&s, "stat_iops", 1, NULL, key, sizeof(key));
	cr_expect_str_eq(key, "stat_iops");
	/* an exec phase: its module's key when a series has it */
	timeline_key(&s, "", 0, "write_mbs", key, sizeof(key));
	cr_expect_str_eq(key, "write_mbs");
	timeline_key(&s, "", 0, "rate", key, sizeof(key));
	cr_expect_str_eq(key, "dev_write_mbs");
	series_free(&s);
	/* no bytes: the op with the most ops */
	for (int i = 1; i <= 4; i++) {
		series_add(&s, i, "create_iops", 10, "1/s");
		series_add(&s, i, "stat_iops", 500, "1/s");
	}
	timeline_key(&s, NULL, 1, NULL, key, sizeof(key));
	cr_expect_str_eq(key, "stat_iops");
	series_free(&s);
}

Test(series_host, steady_over_the_last_half_by_default)
{
	struct plan_steady none = { 0 };
	struct series root = { 0 };
	struct timeline t;

	/* 20 s: a slow first half, a fast second */
	for (int i = 1; i <= 20; i++)
		series_add(&root, i, "dev_write_mbs", i <= 10 ? 10 : 100,
			   "MiB/s");
	cr_assert_eq(timeline_join(&t, &root, NULL, 0, NULL, 0), 0);
	timeline_steady(&t, &none, 0, 0, NULL);
	cr_assert_eq(t.tested, 1);
	cr_expect_eq(t.whole, 1);
	cr_expect_str_eq(t.key, "dev_write_mbs");
	cr_expect_str_eq(t.key_unit, "MiB/s");
	cr_expect_eq(t.o.steady, 1);
	/* only the last half is tested: it holds at its end */
	cr_expect_float_eq(t.o.at_s, 20, 1e-9);
	cr_expect_float_eq(t.o.mean, 100, 1e-9);
	timeline_free(&t);
	/* a rule of 5 s tests every window: the slow start is steady too,
	 * at 5 s, where the first whole window ends */
	{
		struct plan_steady r = { .window_s = 5, .range = 0.2,
					 .slope = 0.1 };

		cr_assert_eq(timeline_join(&t, &root, NULL, 0, NULL, 0), 0);
		timeline_steady(&t, &r, 0, 0, NULL);
		cr_expect_eq(t.o.steady, 1);
		cr_expect_float_eq(t.o.at_s, 5, 1e-9);
		cr_expect_float_eq(t.o.mean, 10, 1e-9);
		timeline_free(&t);
	}
	/* nothing sampled (interval 0, no devices): no key, no rows */
	{
		struct series none_pts = { 0 };

		cr_assert_eq(timeline_join(&t, &none_pts, NULL, 0, NULL, 0),
			     0);
		timeline_steady(&t, &none, 0, 0, NULL);
		cr_expect_eq(t.tested, 0);
		cr_expect_str_empty(t.key);
		timeline_free(&t);
	}
	/* a warm-up past every point: tested, never steady */
	cr_assert_eq(timeline_join(&t, &root, NULL, 0, NULL, 0), 0);
	timeline_steady(&t, &none, 30, 0, NULL);
	cr_expect_eq(t.tested, 1);
	cr_expect_eq(t.whole, 0);
	cr_expect_eq(t.o.steady, 0);
	timeline_free(&t);
	/* a ramp through the whole run is never steady */
	series_free(&root);
	for (int i = 1; i <= 20; i++)
		series_add(&root, i, "dev_write_mbs", 10 * i, "MiB/s");
	cr_assert_eq(timeline_join(&t, &root, NULL, 0, NULL, 0), 0);
	timeline_steady(&t, &none, 0, 0, NULL);
	cr_expect_eq(t.o.steady, 0);
	cr_expect_gt(t.o.slope_pct, 10);
	timeline_free(&t);
	series_free(&root);
}

Test(series_host, timeseries_csv_block_read_back, .fini = fini)
{
	const char *dir = e2e_tmpdir();
	char path[600];
	struct seriescsv *w;
	struct series s = { 0 };
	struct diag d = { 0 };
	const char *text;
	int fd;

	snprintf(path, sizeof(path), "%s/timeseries.csv", dir);
	cr_assert_eq(seriescsv_open(&w, path, &d), 0, "%s", d.msg);
	/* added out of time order: written interval by interval */
	series_add(&s, 2, "b", 2, "u");
	series_add(&s, 1, "a", 1.5, "MiB/s");
	series_add(&s, 1, "b", 1, "u");
	cr_assert_eq(seriescsv_block(w, "r", "ext4:a,b/p#1", &s), 0);
	cr_assert_eq(seriescsv_sync(w), 0);
	seriescsv_close(w);
	text = e2e_read(path);
	cr_expect_str_eq(text, SERIESCSV_HEADER "\n"
			 "r,\"ext4:a,b/p#1\",1.000,a,1.5,MiB/s\n"
			 "r,\"ext4:a,b/p#1\",1.000,b,1,u\n"
			 "r,\"ext4:a,b/p#1\",2.000,b,2,u\n");
	/* a torn last row (a crash) is cut when it is opened again */
	fd = open(path, O_WRONLY | O_APPEND);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "r,x,3.0,a,\"1", 12), 12);
	close(fd);
	cr_assert_eq(seriescsv_open(&w, path, &d), 0, "%s", d.msg);
	seriescsv_close(w);
	cr_expect_eq(strstr(e2e_read(path), "r,x"), NULL);
	/* not ours: refused */
	e2e_write(dir, "other.csv", "a,b\n1,2\n");
	snprintf(path, sizeof(path), "%s/other.csv", dir);
	cr_expect_eq(seriescsv_open(&w, path, &d), -1);
	series_free(&s);
}

Test(series_host, sampler_interval_0_samples_nothing)
{
	struct sampler sm;

	sampler_init(&sm, 0, NULL);
	sampler_start(&sm);
	usleep(20000);
	sampler_tick(&sm);
	sampler_end(&sm, 1);
	cr_expect_eq(sm.s.n, 0);
	cr_expect_eq(sm.t0, 0);
	sampler_free(&sm);
}

/* A child that burns one core for secs. */
static pid_t burner(double secs)
{
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0) {
		struct timespec a, b;
		volatile unsigned long x = 0;

		clock_gettime(CLOCK_MONOTONIC, &a);
		do {
			for (int i = 0; i < 100000; i++)
				x += (unsigned long)i;
			clock_gettime(CLOCK_MONOTONIC, &b);
		} while (b.tv_sec - a.tv_sec + (b.tv_nsec - a.tv_nsec) / 1e9 <
			 secs);
		_exit(0);
	}
	return pid;
}

Test(series_host, sampler_sees_the_child_s_cpu_and_the_machine)
{
	struct sampler sm;
	struct rusage ru;
	double *t, *v, sum = 0, cpu;
	int n, st;

	sampler_init(&sm, 0.2, NULL);
	sm.pid = burner(0.5);
	sampler_start(&sm);
	for (int i = 0; i < 3; i++) {
		usleep(200000);
		sampler_tick(&sm);
	}
	/* it ended within the third interval (a zombie's times are
	 * there until it is reaped) */
	cr_assert_eq(wait4(sm.pid, &st, 0, &ru), sm.pid);
	cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	cr_assert_eq(series_of(&sm.s, "cpu_pct", &t, &v, &n), 0);
	cr_assert_eq(n, 3);
	for (int i = 0; i < n; i++) {
		/* an interval ends when it is due, not before */
		cr_expect_geq(t[i], 0.2 * (i + 1) - 0.003, "point at %g", t[i]);
		cr_expect(v[i] >= 0 && v[i] <= 200, "cpu_pct %g", v[i]);
		sum += v[i] / 100 * (t[i] - (i ? t[i - 1] : 0));
	}
	/* the intervals' CPU adds up to the child's, to clock ticks */
	cr_expect(fabs(sum - cpu) <= 0.03 && cpu > 0.05,
		  "sampled %.3f s of CPU, the child used %.3f s", sum, cpu);
	free(t);
	free(v);
	cr_assert_eq(series_of(&sm.s, "dirty_mib", &t, &v, &n), 0);
	cr_expect_eq(n, 3);
	cr_expect(n && v[0] >= 0);
	free(t);
	free(v);
	sampler_free(&sm);
}

/* The rows of metric for cell in rundir/timeseries.csv: t and v. */
struct pts {
	const char *cell, *metric;
	double t[4096], v[4096];
	int n, rows, blocks;
	char last_cell[256], last_t[32];
	char run_id[256];
};

static int pick(void *ctx, const char *const *f, int line)
{
	struct pts *p = ctx;
	const char *prev[SERIESCSV_FIELDS] = { "", p->last_cell, p->last_t };

	(void)line;
	if (!f)
		return -1;
	if (seriescsv_block_starts(p->rows ? prev : NULL, f) &&
	    !strcmp(f[SERIESCSV_CELL], p->cell))
		p->blocks++;
	p->rows++;
	snprintf(p->last_cell, sizeof(p->last_cell), "%s",
		 f[SERIESCSV_CELL]);
	snprintf(p->last_t, sizeof(p->last_t), "%s", f[SERIESCSV_T]);
	snprintf(p->run_id, sizeof(p->run_id), "%s", f[SERIESCSV_RUN_ID]);
	if (strcmp(f[SERIESCSV_CELL], p->cell) ||
	    strcmp(f[SERIESCSV_METRIC], p->metric) || p->n >= 4096)
		return 0;
	p->t[p->n] = strtod(f[SERIESCSV_T], NULL);
	p->v[p->n++] = strtod(f[SERIESCSV_VALUE], NULL);
	return 0;
}

static void points(const char *rd, const char *cell, const char *metric,
		   struct pts *p)
{
	char path[600];
	struct csv_read seen;
	struct diag d = { 0 };

	memset(p, 0, sizeof(*p));
	p->cell = cell;
	p->metric = metric;
	snprintf(path, sizeof(path), "%s/timeseries.csv", rd);
	cr_assert_eq(seriescsv_read(path, pick, p, &seen, &d), 0, "%s", d.msg);
}

static const char buffered[] =
	"target: {image: 4G}\n"
	"filesystems:\n  - type: ext4\n"
	"phases:\n"
	"  - use: tiobench\n"
	"    with: {mode: seq_write, file_size: 3G, block: 1M, ram: 256M}\n"
	"  - name: dd\n"
	"    interval: 100ms\n"	/* a window's worth of intervals */
	"    exec: \"dd if=/dev/zero of=f bs=1M count=300 conv=fsync "
	"status=none; sleep 0.5\"\n";

Test(series_host, buffered_writes_over_a_memory_limit, .fini = fini,
     .timeout = 300)
{
	const char *dir;
	const char *cell = "ext4/tiobench#1";
	char rd[512];
	static struct pts p, q;
	double secs, first_dirty = -1;

	e2e_require_root();
	dir = e2e_tmpdir();
	cr_assert_eq(e2e_run_plan(dir, "buffered", buffered, rd, sizeof(rd)),
		     0, "%s%s", e2e_err, e2e_failed(rd));
	secs = e2e_num(rd, cell, "seconds");
	/* an interval's rows each second, the last one short */
	points(rd, cell, "dev_write_mbs", &p);
	cr_assert_geq(p.n, 2, "%d points over %g s", p.n, secs);
	for (int i = 0; i < p.n; i++) {
		/* due at i + 1 s; a busy machine's poll wakes a little
		 * late */
		if (i + 1 < p.n)
			cr_expect(p.t[i] >= i + 1 - 0.003 &&
				  p.t[i] <= i + 1 + 0.25, "point %d at %g", i,
				  p.t[i]);
		cr_expect_geq(p.v[i], 0);
	}
	cr_expect(p.t[p.n - 1] >= secs - 0.2 && p.t[p.n - 1] <= secs + 1.5,
		  "last point %g, seconds %g", p.t[p.n - 1], secs);
	/* the intervals' writes add up to the phase run's: the same
	 * counters, from the same start to the same end */
	{
		double sum = 0, dev = e2e_num(rd, cell, "dev_write_bytes");

		for (int i = 0; i < p.n; i++)
			sum += p.v[i] * 1048576 * (p.t[i] - (i ? p.t[i - 1]
							   : 0));
		cr_expect_gt(dev, 1e9);
		cr_expect(fabs(sum - dev) <= 0.02 * dev, "the series wrote "
			  "%.0f bytes, the phase run %.0f", sum, dev);
	}
	/* dirty pages first, writeback then */
	points(rd, cell, "dirty_mib", &p);
	points(rd, cell, "writeback_mib", &q);
	cr_assert_eq(p.n, q.n);
	/* root's points sit at the intervals' nominal ends, as the
	 * child's do (all but the last, short one) */
	for (int i = 0; i + 1 < p.n; i++)
		cr_expect(fabs(p.t[i] - (i + 1)) < 1e-6, "dirty_mib at %g, "
			  "not %d s", p.t[i], i + 1);
	for (int i = 0; i < p.n && first_dirty < 0; i++)
		if (p.v[i] > 0)
			first_dirty = p.t[i];
	cr_expect_geq(first_dirty, 0, "Dirty never rose");
	{
		int wb = 0;

		for (int i = 0; i < q.n; i++)
			wb |= q.v[i] > 0 && q.t[i] >= first_dirty;
		cr_expect(wb, "no Writeback once Dirty rose");
	}
	points(rd, cell, "cpu_pct", &p);
	cr_expect_geq(p.n, 1);
	for (int i = 0; i < p.n; i++)
		cr_expect(p.v[i] >= 0 && p.v[i] <= 200, "cpu_pct %g", p.v[i]);
	points(rd, cell, "cgroup_mib", &p);
	cr_expect_geq(p.n, 1, "no cgroup_mib with ram:");
	for (int i = 0; i < p.n; i++)
		cr_expect_leq(p.v[i], 256 + 1, "cgroup_mib %g", p.v[i]);
	/* the steady rows, of the key series: the Lua phase's busiest op
	 * (tiobench records its writes as "tio"), not the device's */
	cr_expect_str_eq(e2e_unit(rd, cell, "steady"), "tio_mbs");
	points(rd, cell, "tio_mbs", &p);
	cr_expect_geq(p.n, 1, "no tio_mbs series from the child");
	cr_expect(e2e_num(rd, cell, "steady") == 0 ||
		  e2e_num(rd, cell, "steady") == 1);
	e2e_num(rd, cell, "steady_range_pct");
	e2e_num(rd, cell, "steady_slope_pct");
	cr_expect_gt(e2e_num(rd, cell, "tio_mbs_steady"), 0);
	/* the exec phase too; no ram: no cgroup_mib */
	points(rd, "ext4/dd#1", "cpu_pct", &p);
	cr_expect_geq(p.n, 1);
	points(rd, "ext4/dd#1", "cgroup_mib", &p);
	cr_expect_eq(p.n, 0);
	cr_expect_str_eq(e2e_unit(rd, "ext4/dd#1", "steady"),
			 "dev_write_mbs");
	/* the manifest says the interval */
	cr_expect(strstr(e2e_read(strcat(rd, "/manifest.json")),
			 "\"interval_s\""));
}

/* results.csv without its last status row and what follows it: a run
 * killed before that phase run was recorded. */
static void unrecord_last(const char *rd)
{
	char path[600];
	char *text, *at;
	FILE *f;

	snprintf(path, sizeof(path), "%s/results.csv", rd);
	text = e2e_slurp(path, NULL);
	at = strstr(text, ",status,ok");
	cr_assert(at);
	at = strstr(at + 1, ",status,ok");
	cr_assert(at, "two phase runs");
	while (at > text && at[-1] != '\n')
		at--;
	f = fopen(path, "w");
	cr_assert(f);
	fwrite(text, 1, (size_t)(at - text), f);
	fclose(f);
	free(text);
}

static const char two[] =
	"target: {image: 256M}\n"
	"filesystems:\n  - type: ext4\n    mount: [defaults, noatime]\n"
	"phases:\n"
	"  - name: w\n"
	"    exec: \"dd if=/dev/zero of=f bs=1M count=64 conv=fsync "
	"status=none; sleep 1.2\"\n";

Test(series_host, resume_and_merge_keep_the_series, .fini = fini,
     .timeout = 300)
{
	const char *dir, *a = "ext4::defaults/w#1",
		   *b = "ext4::noatime/w#1";
	char rd[512], plan[512], out[600], s1[600], s2[600];
	static struct pts p;
	int blocks_a, rows_a;

	e2e_require_root();
	dir = e2e_tmpdir();
	cr_assert_eq(e2e_run_plan(dir, "two", two, rd, sizeof(rd)), 0, "%s",
		     e2e_err);
	points(rd, a, "dev_write_mbs", &p);
	cr_assert_geq(p.n, 2);
	points(rd, b, "dev_write_mbs", &p);
	cr_assert_geq(p.n, 2);
	cr_expect_eq(p.blocks, 1);
	/* the second phase run unrecorded: the resume runs it again, its
	 * new block after the first; the first's block stays alone */
	unrecord_last(rd);
	snprintf(plan, sizeof(plan), "%s/plan.yaml", dir);
	cr_assert_eq(e2e_fsplan((const char *[]){ "run", plan, "--resume",
				rd, "-q", NULL }), 0, "%s", e2e_err);
	points(rd, a, "dev_write_mbs", &p);
	blocks_a = p.blocks;
	rows_a = p.n;
	cr_expect_eq(blocks_a, 1);
	points(rd, b, "dev_write_mbs", &p);
	cr_expect_eq(p.blocks, 2, "the re-run's block, after the first");
	/* merge: the shards of --shard 1/2 and 2/2, and the resumed run */
	snprintf(s1, sizeof(s1), "%s/s1", dir);
	snprintf(s2, sizeof(s2), "%s/s2", dir);
	cr_assert_eq(e2e_fsplan((const char *[]){ "run", plan, "--shard",
				"1/2", "-o", s1, "-q", NULL }), 0, "%s",
		     e2e_err);
	cr_assert_eq(e2e_fsplan((const char *[]){ "run", plan, "--shard",
				"2/2", "-o", s2, "-q", NULL }), 0, "%s",
		     e2e_err);
	snprintf(out, sizeof(out), "%s/merged", dir);
	cr_assert_eq(e2e_fsplan((const char *[]){ "merge", s1, s2, "-o", out,
				NULL }), 0, "%s", e2e_err);
	points(out, a, "dev_write_mbs", &p);
	cr_expect_geq(p.n, 2);
	cr_expect_str_eq(p.run_id, "merged");
	points(out, b, "dev_write_mbs", &p);
	cr_expect_geq(p.n, 2);
	cr_expect_eq(p.blocks, 1);
	/* a merge of the resumed run keeps each cell's last block */
	snprintf(out, sizeof(out), "%s/merged1", dir);
	cr_assert_eq(e2e_fsplan((const char *[]){ "merge", rd, "-o", out,
				NULL }), 0, "%s", e2e_err);
	points(out, a, "dev_write_mbs", &p);
	cr_expect_eq(p.n, rows_a);
	points(out, b, "dev_write_mbs", &p);
	cr_expect_eq(p.blocks, 1);
	cr_expect_geq(p.n, 2);
}

Test(series_host, a_failed_phase_run_has_its_block_and_no_steady_rows,
     .fini = fini, .timeout = 120)
{
	static const char plan[] =
		"target: {image: 256M}\n"
		"filesystems:\n  - type: ext4\n"
		"phases:\n"
		"  - name: w\n"
		"    exec: \"dd if=/dev/zero of=f bs=1M count=64 conv=fsync "
		"status=none; sleep 1.1; exit 3\"\n";
	const char *dir, *cell = "ext4/w#1";
	char rd[512];
	static struct pts p;

	e2e_require_root();
	dir = e2e_tmpdir();
	cr_assert_eq(e2e_run_plan(dir, "failed", plan, rd, sizeof(rd)), 1,
		     "%s", e2e_err);
	cr_expect_str_eq(e2e_metric(rd, cell, "status"), "failed");
	points(rd, cell, "dev_write_mbs", &p);
	cr_expect_geq(p.n, 2);
	cr_expect_eq(p.blocks, 1);
	cr_expect_eq(e2e_metric(rd, cell, "steady"), NULL);
	cr_expect_eq(e2e_count(rd, "dev_write_mbs_steady"), 0);
}

/* The ticks a proc_run made: when, and the timed start they count from
 * (set at the first, as a Lua child's setup_done sets it). */
struct ticks {
	double at[64], from;
	int n;
};

static void note_tick(void *ctx)
{
	struct ticks *tk = ctx;

	if (!tk->n)
		tk->from = clock_now() - 0.05;
	if (tk->n < 64)
		tk->at[tk->n++] = clock_now();
}

static int sleeps_a_while(void *arg)
{
	(void)arg;
	usleep(700000);
	return 0;
}

Test(series_host, ticks_at_the_interval_from_the_timed_start)
{
	static struct ticks tk;
	struct proc_job job = {
		.body = sleeps_a_while, .pipe_at = 3, .timeout_s = 60,
		.tick = note_tick, .tick_ctx = &tk, .tick_s = 0.1,
		.tick_from = &tk.from, .log_fd = -1,
	};
	struct proc_result res;
	pid_t pid = 0;
	int on_time = 0;

	job.pid_out = &pid;
	job.out_fd = job.err_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	cr_assert_eq(proc_run(&job, &res), 0);
	close(job.out_fd);
	cr_expect_gt(pid, 0);
	cr_assert_geq(tk.n, 4, "%d ticks in 0.7 s at 0.1 s", tk.n);
	/* after the first: on the slots of the timed start, never early */
	for (int i = 1; i < tk.n; i++) {
		double k = (tk.at[i] - tk.from) / 0.1;

		cr_expect_geq(k, i - 0.01, "tick %d at %.3f slots", i, k);
		on_time += k - floor(k + 0.01) < 0.2;
	}
	/* a busy machine wakes some late; most are within 20 ms */
	cr_expect_geq(on_time, (tk.n - 1) / 2, "%d of %d ticks on time",
		      on_time, tk.n - 1);
	proc_result_free(&res);
}
