/* test_rank: a metric's table — n, mean, stdev, 95% CI by Student's t, best
 * first, its direction and unit. */
#include <math.h>

#include "report/configs.h"
#include "report/rank.h"
#include "resset.h"

TestSuite(rank, .fini = rs_free);

/* rank_tables over the picked runs, with only (NULL: every metric). */
static const char *tables(const char *const *only)
{
	size_t len;
	FILE *f = rs_stream(&len);

	cr_assert_eq(rank_tables(f, rs.run, rs.n, only), 0);
	return rs_done(f);
}

static const char *configs(void)
{
	size_t len;
	FILE *f = rs_stream(&len);

	cr_assert_eq(configs_text(f, rs.run, rs.n, NULL), 0);
	return rs_done(f);
}

/* The table under title, up to the next blank line (a copy in buf). */
static const char *table(const char *out, const char *title, char *buf,
			 size_t len)
{
	const char *t = strstr(out, title), *end;

	cr_assert_not_null(t, "no '%s' in:\n%s", title, out);
	end = strstr(t, "\n\n");
	snprintf(buf, len, "%.*s", end ? (int)(end - t) : (int)strlen(t), t);
	return buf;
}

/* The rows come in this order, the first right under the rule. */
static void expect_order(const char *t, const char *const *rows)
{
	const char *rule = strstr(t, "\n--"), *prev = NULL;

	cr_assert_not_null(rule, "no rule in:\n%s", t);
	for (int i = 0; rows[i]; i++) {
		const char *p = rs_line(t, rows[i]);

		cr_assert_not_null(p, "no row '%s' in:\n%s", rows[i], t);
		if (!i)
			cr_expect_eq(p, strchr(rule + 1, '\n') + 1,
				     "'%s' is not first:\n%s", rows[i], t);
		else
			cr_expect_gt(p, prev, "'%s' before '%s':\n%s", rows[i],
				     rows[i - 1], t);
		prev = p;
	}
}

static void rate(const char *label, int rep, double v)
{
	rs_num(label, "p", "", rep, "rate_mbs", v, "MiB/s");
	rs_status(label, "p", "", rep, "ok");
}

Test(rank, statistics_by_hand)
{
	char buf[4096];
	const char *t;

	rs_begin();
	/* n = 3: mean 12, s = 2, t(0.975, 2) = 4.303: 4.303 * 2 / sqrt(3)
	 * = 4.969 */
	rate("ext4", 1, 10);
	rate("ext4", 2, 12);
	rate("ext4", 3, 14);
	/* n = 2: mean 30, s = sqrt(2) = 1.414, t(0.975, 1) = 12.706:
	 * 12.706 * 1.414 / sqrt(2) = 12.71 */
	rate("xfs", 1, 29);
	rate("xfs", 2, 31);
	/* n = 4: mean 2.5, s = sqrt(5/3) = 1.291, t(0.975, 3) = 3.182:
	 * 3.182 * 1.291 / 2 = 2.054 */
	rate("jfs", 1, 1);
	rate("jfs", 2, 2);
	rate("jfs", 3, 3);
	rate("jfs", 4, 4);
	/* n = 1: no spread */
	rate("btrfs", 1, 5);
	rs_load("p");
	t = table(tables(NULL), "\nrate_mbs: ", buf, sizeof(buf));
	cr_expect(rs_line(t, "rate_mbs: rate (MiB/s), higher is better"),
		  "%s", t);
	cr_expect(rs_line(t, "config n mean stdev 95% CI high low group"),
		  "no params column:\n%s", t);
	/* three significant figures each; btrfs (n = 1) is in no group */
	expect_order(t, (const char *[]){
		"xfs 2 30.0 1.41 ±12.7 31.0 29.0 a",
		"ext4 3 12.0 2.00 ±4.97 14.0 10.0 b",
		"btrfs 1 5.00 - - 5.00 5.00 -",
		"jfs 4 2.50 1.29 ±2.05 4.00 1.00 c",
		NULL });
	cr_expect(rs_line(t, "-: n < 2, no group (a config needs two "
			  "repetitions to be tested)"), "%s", t);
}

Test(rank, lower_is_better_ranks_ascending)
{
	char buf[4096];
	const char *out, *t;

	rs_begin();
	for (int rep = 1; rep <= 2; rep++) {
		static const char *const label[] = { "ext4", "xfs", "btrfs" };
		static const double base[] = { 3, 1, 2 };

		for (int i = 0; i < 3; i++) {
			rs_num(label[i], "p", "", rep, "avg_lat_ms",
			       base[i] + rep, "ms");
			/* the same figures as a rate: the other way round */
			rs_num(label[i], "p", "", rep, "ops_per_s",
			       base[i] + rep, "");
			rs_status(label[i], "p", "", rep, "ok");
		}
	}
	rs_load("p");
	out = tables(NULL);
	t = table(out, "\navg_lat_ms: ", buf, sizeof(buf));
	cr_expect(rs_line(t, "avg_lat_ms: average latency (ms), lower is "
			  "better"), "%s", t);
	/* one apart with s = 0.707 over 2 each: not told apart */
	expect_order(t, (const char *[]){ "xfs 2 2.50 0.707 ±6.35 3.00 "
		"2.00 a", "btrfs 2 3.50 0.707 ±6.35 4.00 3.00 a",
		"ext4 2 4.50 0.707 ±6.35 5.00 4.00 a", NULL });
	t = table(out, "\nops_per_s: ", buf, sizeof(buf));
	cr_expect(rs_line(t, "ops_per_s: ops/s, higher is better"), "%s", t);
	expect_order(t, (const char *[]){ "ext4 2 4.50 0.707 ±6.35 5.00 "
		"4.00 a", "btrfs 2 3.50 0.707 ±6.35 4.00 3.00 a",
		"xfs 2 2.50 0.707 ±6.35 3.00 2.00 a", NULL });
}

/* The direction a table's title gives name with unit. */
static const char *direction(const char *name, const char *unit)
{
	static char buf[4096];
	char title[128];

	rs_begin();
	rs_num("ext4", "p", "", 1, name, 2, unit);
	rs_status("ext4", "p", "", 1, "ok");
	rs_num("xfs", "p", "", 1, name, 1, unit);
	rs_status("xfs", "p", "", 1, "ok");
	rs_load("p");
	snprintf(title, sizeof(title), "\n%s", name);
	table(tables(NULL), title, buf, sizeof(buf));
	/* and the rows agree with it */
	if (strstr(buf, "lower is better"))
		cr_expect_lt(strstr(buf, "\nxfs "), strstr(buf, "\next4 "),
			     "%s", buf);
	else
		cr_expect_lt(strstr(buf, "\next4 "), strstr(buf, "\nxfs "),
			     "%s", buf);
	return strstr(buf, "lower is better") ? "lower" :
	       strstr(buf, "higher is better") ? "higher" : "?";
}

Test(rank, direction_by_name_and_unit_as_report_help_says)
{
	/* times, latencies, percentages and CPU by the name's end */
	cr_expect_str_eq(direction("mkfs_s", ""), "lower");
	cr_expect_str_eq(direction("max_lat_ms", ""), "lower");
	cr_expect_str_eq(direction("lat_us", ""), "lower");
	cr_expect_str_eq(direction("seconds", ""), "lower");
	cr_expect_str_eq(direction("put_block_latency", ""), "lower");
	cr_expect_str_eq(direction("over_2s_pct", "%"), "lower");
	cr_expect_str_eq(direction("putc_cpu", ""), "lower");
	/* or by the unit alone */
	cr_expect_str_eq(direction("commit", "ms"), "lower");
	cr_expect_str_eq(direction("wait", "us"), "lower");
	cr_expect_str_eq(direction("elapsed", "s"), "lower");
	cr_expect_str_eq(direction("fs_used_bytes", "bytes"), "lower");
	/* a memory peak: less is better, whatever its unit */
	cr_expect_str_eq(direction("memory_peak_bytes", "bytes"), "lower");
	cr_expect_str_eq(direction("rss_peak_kib", ""), "lower");
	/* rates win over a time-like end */
	cr_expect_str_eq(direction("creates_per_s", ""), "higher");
	cr_expect_str_eq(direction("creates_per_sec", "s"), "higher");
	cr_expect_str_eq(direction("read_iops", "ms"), "higher");
	cr_expect_str_eq(direction("rate_mbs", ""), "higher");
	cr_expect_str_eq(direction("io_s", "ops/s"), "higher");
	/* and the rest: counts */
	cr_expect_str_eq(direction("files", ""), "higher");
	cr_expect_str_eq(direction("written_bytes", "bytes"), "higher");
}

Test(rank, a_table_per_parameter_set)
{
	char buf[4096];
	const char *out, *t;

	rs_begin();
	rs_num("ext4", "p", "mode=seq;threads=1", 1, "rate_mbs", 10, "MiB/s");
	rs_status("ext4", "p", "mode=seq;threads=1", 1, "ok");
	rs_num("ext4", "p", "mode=seq;threads=8", 1, "rate_mbs", 40, "MiB/s");
	rs_status("ext4", "p", "mode=seq;threads=8", 1, "ok");
	rs_num("ext4", "p", "mode=seq;threads=8", 2, "rate_mbs", 42, "MiB/s");
	rs_status("ext4", "p", "mode=seq;threads=8", 2, "ok");
	rs_num("xfs", "p", "mode=seq;threads=1", 1, "rate_mbs", 20, "MiB/s");
	rs_status("xfs", "p", "mode=seq;threads=1", 1, "ok");
	rs_load("p");
	/* a table per parameter set, the sets in the order they come */
	out = tables(NULL);
	t = table(out, "\nrate_mbs: rate (MiB/s), for mode=seq threads=1,",
		  buf, sizeof(buf));
	cr_expect(rs_line(t, "config n mean stdev 95% CI high low group"),
		  "%s", t);
	expect_order(t, (const char *[]){ "xfs 1 20.0 - - 20.0 20.0 -",
		"ext4 1 10.0 - - 10.0 10.0 -", NULL });
	cr_expect_null(strstr(t, "41.0"), "threads=8 apart:\n%s", t);
	t = table(out, "\nrate_mbs: rate (MiB/s), for mode=seq threads=8,",
		  buf, sizeof(buf));
	expect_order(t, (const char *[]){ "ext4 2 41.0 1.41 ±12.7 42.0 40.0 a",
		NULL });
	cr_expect_null(strstr(t, "xfs"), "%s", t);
	cr_expect_lt(strstr(out, "threads=1,"), strstr(out, "threads=8,"));
}

Test(rank, only_the_metrics_asked_in_their_order_each_once)
{
	const char *out, *a, *b, *c;

	rs_begin();
	rs_num("ext4", "p", "", 1, "b_mbs", 1, "");
	rs_num("ext4", "p", "", 1, "a_mbs", 1, "");
	rs_num("ext4", "p", "", 1, "c_ms", 1, "");
	rs_num("ext4", "p", "", 1, "d_ms", 1, "");
	rs_status("ext4", "p", "", 1, "ok");
	rs_load("p");

	/* every measurement, in name order */
	out = tables(NULL);
	a = strstr(out, "\na_mbs");
	b = strstr(out, "\nb_mbs");
	c = strstr(out, "\nc_ms");
	cr_assert(a && b && c && strstr(out, "\nd_ms"), "%s", out);
	cr_expect(a < b && b < c, "name order:\n%s", out);

	/* c first, then the rest by name: c once, d, then nothing more */
	out = tables((const char *[]){ "c*", "*_ms", "b*", NULL });
	cr_expect_eq(rs_count(out, "\nc_ms"), 1, "%s", out);
	cr_expect_null(strstr(out, "\na_mbs"), "a not asked for:\n%s", out);
	c = strstr(out, "\nc_ms");
	cr_assert(c && strstr(out, "\nd_ms") && strstr(out, "\nb_mbs"),
		  "%s", out);
	cr_expect(c < strstr(out, "\nd_ms") &&
		  strstr(out, "\nd_ms") < strstr(out, "\nb_mbs"),
		  "in the patterns' order:\n%s", out);

	/* a pattern that matches nothing prints nothing */
	out = tables((const char *[]){ "nonesuch", NULL });
	cr_expect_str_eq(out, "");
}

Test(rank, status_shape_and_text_get_no_table)
{
	static const char *const shape[] = { "threads", "file_size_mib",
		"block_bytes", "bonnie_line", "rewrite_fast", "exit_status",
		"seeks_count", NULL };
	const char **names;
	const char *out;
	size_t n;

	rs_begin();
	for (int i = 0; shape[i]; i++)
		rs_num("ext4", "p", "", 1, shape[i], 4, "");
	rs_row("ext4", "p", "", 1, "note", "hello", "");
	rs_num("ext4", "p", "", 1, "seconds", 1.5, "s");
	rs_status("ext4", "p", "", 1, "ok");
	rs_num("xfs", "p", "", 1, "seconds", 2.5, "s");
	rs_status("xfs", "p", "", 1, "ok");
	rs_load("p");
	out = tables(NULL);
	cr_expect(strstr(out, "\nseconds: seconds (s), lower is better\n"),
		  "%s", out);
	cr_expect_eq(rs_count(out, "is better"), 1, "one table:\n%s", out);

	/* the measurements only, sorted, each once */
	names = rank_metric_names(rs.run, rs.n, 1, &n);
	cr_assert_not_null(names);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(names[0], "seconds");
	free(names);
	/* every name, sorted, each once (status is the run's, not a
	 * metric) */
	names = rank_metric_names(rs.run, rs.n, 0, &n);
	cr_assert_not_null(names);
	cr_assert_eq(n, 9, "%zu names", n);
	for (size_t i = 1; i < n; i++)
		cr_expect_lt(strcmp(names[i - 1], names[i]), 0, "%s, %s",
			     names[i - 1], names[i]);
	cr_expect_str_eq(names[4], "note");
	cr_expect_str_eq(names[0], "block_bytes");
	cr_expect_str_eq(names[n - 1], "threads");
	free(names);
}

Test(rank, bytes_in_binary_units)
{
	char buf[4096];
	const char *out, *t;

	rs_begin();
	/* under 10 GiB: MiB; past it: GiB */
	rs_num("ext4", "p", "", 1, "fs_used_bytes", 5.0 * (1 << 30), "bytes");
	rs_num("ext4", "p", "", 1, "written_bytes", 20.0 * (1 << 30), "");
	rs_num("ext4", "p", "", 1, "tiny_bytes", 512, "");
	rs_status("ext4", "p", "", 1, "ok");
	rs_num("xfs", "p", "", 1, "fs_used_bytes", 6.0 * (1 << 30), "bytes");
	rs_status("xfs", "p", "", 1, "ok");
	rs_load("p");
	out = tables(NULL);
	t = table(out, "\nfs_used_bytes: ", buf, sizeof(buf));
	cr_expect(rs_line(t, "fs_used_bytes: fs used (MiB), lower is better"),
		  "%s", t);
	expect_order(t, (const char *[]){ "ext4 1 5120 - - 5120 5120 -",
		"xfs 1 6140 - - 6140 6140 -", NULL });
	t = table(out, "\nwritten_bytes: ", buf, sizeof(buf));
	cr_expect(rs_line(t, "written_bytes: written (GiB), higher is better"),
		  "%s", t);
	cr_expect(rs_line(t, "ext4 1 20.0 - - 20.0 20.0 -"), "%s", t);
	t = table(out, "\ntiny_bytes: ", buf, sizeof(buf));
	cr_expect(rs_line(t, "tiny_bytes: tiny (bytes), higher is better"),
		  "%s", t);
	cr_expect(rs_line(t, "ext4 1 512 - - 512 512 -"), "%s", t);
}

/* The memory cgroup's peak and the child's resident peak: their units,
 * and the smaller first. */
Test(rank, memory_peaks_are_lower_is_better)
{
	char buf[4096];
	const char *out, *t;

	rs_begin();
	rs_num("ext4", "p", "", 1, "memory_peak_bytes", 40.0 * (1 << 20),
	       "bytes");
	rs_num("ext4", "p", "", 1, "rss_peak_kib", 9000, "");
	rs_status("ext4", "p", "", 1, "ok");
	rs_num("xfs", "p", "", 1, "memory_peak_bytes", 30.0 * (1 << 20),
	       "bytes");
	rs_num("xfs", "p", "", 1, "rss_peak_kib", 8000, "");
	rs_status("xfs", "p", "", 1, "ok");
	rs_load("p");
	out = tables(NULL);
	t = table(out, "\nmemory_peak_bytes: ", buf, sizeof(buf));
	cr_expect(rs_line(t, "memory_peak_bytes: memory peak (MiB), lower is "
			  "better"), "%s", t);
	expect_order(t, (const char *[]){ "xfs 1 30.0 - - 30.0 30.0 -",
		"ext4 1 40.0 - - 40.0 40.0 -", NULL });
	t = table(out, "\nrss_peak_kib: ", buf, sizeof(buf));
	cr_expect(rs_line(t, "rss_peak_kib: rss peak (KiB), lower is better"),
		  "%s", t);
	expect_order(t, (const char *[]){ "xfs 1 8000 - - 8000 8000 -",
		"ext4 1 9000 - - 9000 9000 -", NULL });
}

/* A config's own rows in round k (order: rounds): cell label#k, rep k. */
static void conf_round(const char *label, int k, double mkfs)
{
	rs_add("t,\"%s#%d\",%s,ext4,,,,,%d,mkfs_s,%.17g,s\n", label, k, label,
	       k, mkfs);
}

/* order: rounds with a stop rule: each config says how many rounds made
 * it, a config made again in one round (a resumed run) counting once. */
Test(rank, configs_count_their_own_rounds)
{
	const char *out;

	rs_begin();
	for (int k = 1; k <= 3; k++)
		conf_round("ext4", k, 0.5);
	conf_round("ext4", 3, 0.5);
	conf_round("xfs", 1, 1);
	conf_round("xfs", 2, 2);
	rs_load(NULL);
	out = configs();
	rs_expect_line(out, "config type mkfs options mount options rounds "
		       "mkfs (s)");
	rs_expect_line(out, "ext4 ext4 - - 3 0.500");
	rs_expect_line(out, "xfs ext4 - - 2 1.50");
	cr_expect_eq(configs_rounds(rs.run, rs.n, "ext4"), 3);
	cr_expect_eq(configs_rounds(rs.run, rs.n, "xfs"), 2);
	/* made once (rep 0): no rounds column */
	rs_free();
	rs_begin();
	rs_conf("ext4", "mkfs_s", 0.5);
	rs_load(NULL);
	out = configs();
	cr_expect_null(strstr(out, "rounds"), "%s", out);
}

Test(rank, configs_in_order_with_their_own_times)
{
	const char *out, *head, *a, *b, *c;

	rs_begin();
	rs_conf("ext4", "mkfs_s", 0.5);
	rs_num("ext4", "p", "", 1, "seconds", 1, "s");
	rs_status("ext4", "p", "", 1, "ok");
	rs_conf("ext4", "umount_s", 0.25);
	rs_conf("xfs", "mkfs_s", 0.75);
	/* a config whose every run was skipped has a row too */
	rs_row("jfs", "p", "", 1, "status", "skipped", "no jfs here");
	rs_load(NULL);
	out = configs();
	head = rs_expect_line(out, "config type mkfs options mount options "
			      "mkfs (s) umount (s)");
	a = rs_expect_line(out, "ext4 ext4 -O x noatime 0.500 0.250");
	b = rs_expect_line(out, "xfs xfs -O x noatime 0.750 -");
	c = rs_expect_line(out, "jfs jfs -O x noatime - -");
	cr_expect_eq(head, out, "the head first:\n%s", out);
	cr_expect(a && b && c && a < b && b < c, "first appearance:\n%s", out);
	cr_expect_null(strstr(out, "seconds"), "a phase's figure is not the "
		       "config's:\n%s", out);
}

/* With volumes, the totals: each volume's own times stay out. */
Test(rank, configs_show_the_volumes_totals)
{
	const char *out;

	rs_begin();
	rs_conf("ext4", "mkfs_s", 0.5);
	rs_conf("ext4", "mkfs_s_source", 0.2);
	rs_conf("ext4", "mkfs_s_target", 0.3);
	rs_num("ext4", "p", "", 1, "seconds", 1, "s");
	rs_status("ext4", "p", "", 1, "ok");
	rs_load(NULL);
	out = configs();
	rs_expect_line(out, "config type mkfs options mount options mkfs (s)");
	rs_expect_line(out, "ext4 ext4 -O x noatime 0.500");
	cr_expect_null(strstr(out, "source"), "%s", out);
}

/* bonnie++'s "+++++": a test timed too fast (name_fast = 1) gives no value. */
Test(rank, a_value_too_fast_to_time_does_not_count)
{
	char buf[4096];
	const char *t;

	rs_begin();
	rs_num("ext4", "bon", "", 1, "rewrite", 999999, "");
	rs_num("ext4", "bon", "", 1, "rewrite_fast", 1, "");
	rs_status("ext4", "bon", "", 1, "ok");
	rs_num("ext4", "bon", "", 2, "rewrite", 500, "");
	rs_num("ext4", "bon", "", 2, "rewrite_fast", 0, "");
	rs_status("ext4", "bon", "", 2, "ok");
	rs_num("xfs", "bon", "", 1, "rewrite", 888888, "");
	rs_num("xfs", "bon", "", 1, "rewrite_fast", 1, "");
	rs_status("xfs", "bon", "", 1, "ok");
	rs_load("bon");
	t = table(tables((const char *[]){ "rewrite", NULL }), "\nrewrite",
		  buf, sizeof(buf));
	cr_expect_not_null(rs_line(t, "ext4 1 500 - - 500 500 -"), "%s", t);
	cr_expect_null(strstr(t, "xfs"), "xfs was always too fast:\n%s", t);
	cr_expect_null(strstr(t, "999999"));
}

/* A metric's name and a config's label as long as results.csv holds are
 * titled and shown whole: the title is grown, not cut. */
Test(rank, a_long_name_is_titled_whole)
{
	char name[4096 + 8], label[1024], want[8300];
	const char *t;

	memset(name, 'x', 4096);
	strcpy(name + 4096, "_ms");
	memset(label, 'c', sizeof(label) - 1);
	label[sizeof(label) - 1] = '\0';
	rs_begin();
	rs_num(label, "p", "", 1, name, 2, "ms");
	rs_status(label, "p", "", 1, "ok");
	rs_num(label, "p", "", 2, name, 3, "ms");
	rs_status(label, "p", "", 2, "ok");
	rs_load("p");
	t = tables(NULL);
	snprintf(want, sizeof(want), "\n%s: %.4096s (ms), lower is better\n",
		 name, name);
	cr_expect(strstr(t, want), "no whole title in:\n%.300s", t);
	cr_expect(strstr(t, label), "no whole label");
}
