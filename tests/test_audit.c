/* test_audit: report's audit block and report --audit's exit status. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "csvtext.h"
#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

/* What each phase run of a synthetic run says. */
struct shape {
	int reps;		/* ok repetitions of each cell */
	double spread;		/* rate_mbs: 100 + spread * rep */
	const char *ram_limit, *loop_io;
	double others, cpu_pct;
	int steady;		/* -1: no steady row */
	const char *age;	/* the configs' age json, or "" */
	int tools;		/* the manifest records mkfs.ext4's version */
	double used_mib;	/* fs_used_bytes in MiB (< 0: no row) */
	double ram_mib;		/* the memory the run had */
	double read_mib, dev_read_mib;	/* read_bytes, dev_read_bytes
					 * (< 0: no row) */
};

static const struct shape good = {
	3, 1, "cgroup-v2", "direct", 0, 20, 1,
	", \"age\": {\"name\": \"80%\", \"fill\": 0.8}", 1,
	200, 64, -1, -1
};

/* One row of cell c (config l, rep k). */
#define ROW(l, k, metric, value, unit) \
	add("R,\"%s/w/bs=4#%d\",%s,ext4,,,w,bs=4,%d,%s,%s,%s\n", \
	    l, k, l, k, metric, value, unit)

static void phase_run(const char *l, int k, const struct shape *s)
{
	char v[64];

	snprintf(v, sizeof(v), "%g", 100 + s->spread * k);
	ROW(l, k, "rate_mbs", v, "MiB/s");
	ROW(l, k, "ram_limit", s->ram_limit, "");
	ROW(l, k, "loop_io", s->loop_io, "");
	snprintf(v, sizeof(v), "%g", s->others);
	ROW(l, k, "others_cores", v, "");
	ROW(l, k, "steal_cores", "0", "");
	snprintf(v, sizeof(v), "%g", s->cpu_pct);
	ROW(l, k, "cpu_pct", v, "%");
	if (s->used_mib >= 0) {
		snprintf(v, sizeof(v), "%.0f", s->used_mib * 1048576);
		ROW(l, k, "fs_used_bytes", v, "B");
	}
	snprintf(v, sizeof(v), "%g", s->ram_mib);
	ROW(l, k, "ram_mib", v, "MiB");
	if (s->read_mib >= 0) {
		snprintf(v, sizeof(v), "%.0f", s->read_mib * 1048576);
		ROW(l, k, "read_bytes", v, "bytes");
	}
	if (s->dev_read_mib >= 0) {
		snprintf(v, sizeof(v), "%.0f", s->dev_read_mib * 1048576);
		ROW(l, k, "dev_read_bytes", v, "bytes");
	}
	if (s->steady >= 0) {
		snprintf(v, sizeof(v), "%d", s->steady);
		ROW(l, k, "steady", v, "");
	}
	ROW(l, k, "status", "ok", "");
}

/* A run directory of two ext4 configs a and b shaped as s. */
static const char *rundir(const struct shape *s)
{
	const char *d = e2e_tmpdir();
	char man[2048];

	len = 0;
	add("run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase,"
	    "phase_params,rep,metric,value,unit\n");
	for (int k = 1; k <= s->reps; k++) {
		phase_run("a", k, s);
		phase_run("b", k, s);
	}
	e2e_write(d, "results.csv", csv);
	snprintf(man, sizeof(man),
		 "{\"run_id\": \"R\", \"plan\": {\"name\": \"t\"},"
		 " \"status\": \"complete\", \"system\": {\"tools\": {%s}},"
		 " \"phases\": [{\"name\": \"w\", \"key\": [\"rate_mbs\"]}],"
		 " \"configs\": [{\"label\": \"a\", \"type\": \"ext4\"%s},"
		 " {\"label\": \"b\", \"type\": \"ext4\"}]}\n",
		 s->tools ? "\"mkfs.ext4\": \"mke2fs 1.47.0\"" :
		 "\"mkfs.ext4\": null", s->age);
	e2e_write(d, "manifest.json", man);
	return d;
}

/* The audit line of check name in e2e_out (static), after --audit. */
static const char *line_of(const char *name)
{
	static char buf[1024];
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), "  %-11s  ", name);
	p = strstr(e2e_out, want);
	cr_assert(p && p - e2e_out >= 4, "no %s line:\n%s", name, e2e_out);
	p -= 4;
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

static int audit(const struct shape *s)
{
	return e2e_fsplan((const char *[]){ "report", rundir(s), "--audit",
			  NULL });
}

/* Whether check name's line begins with verdict and holds text. */
#define EXPECT(name, verdict, text) do { \
	const char *l_ = line_of(name); \
	cr_expect(!strncmp(l_, verdict, 4) && strstr(l_, text), \
		  "%s: want %s ... %s", l_, verdict, text); \
} while (0)

Test(audit, all_pass_exit_0, .fini = fini)
{
	cr_assert_eq(audit(&good), 0, "%s%s", e2e_out, e2e_err);
	/* 101, 102, 103: 4.30 * 1 / sqrt(3) of 102 */
	EXPECT("repetitions", "pass", "n>=3, widest 95% CI +-2.4%");
	EXPECT("cache", "pass", "6 phase runs (tmpfs aside): 0 without a "
	       "memory limit");
	EXPECT("data size", "pass", "all 6 phase runs had at least twice "
	       "their memory in data (least 3.1x, a/w/bs=4)");
	EXPECT("aged", "pass", "1 of 2 configs aged (fill a 80%)");
	EXPECT("steady", "pass", "all 6 phase runs");
	EXPECT("disturbed", "pass", "0 of 6 phase runs disturbed");
	EXPECT("cpu-bound", "pass", "0 of 6 phase runs");
	EXPECT("tools", "pass", "all 2 configs");
	cr_expect_null(strstr(e2e_out, "warn"), "%s", e2e_out);
}

Test(audit, one_repetition_fails_exit_1, .fini = fini)
{
	struct shape s = good;

	s.reps = 1;
	cr_assert_eq(audit(&s), 1, "%s%s", e2e_out, e2e_err);
	EXPECT("repetitions", "fail", "n=1: some of the 2 cells");
}

Test(audit, wide_ci_warns_exit_0, .fini = fini)
{
	struct shape s = good;

	s.spread = 20;	/* 120, 140, 160: +-49.7 of 140 */
	cr_assert_eq(audit(&s), 0, "%s%s", e2e_out, e2e_err);
	EXPECT("repetitions", "warn", "widest 95% CI +-35.5%");
}

Test(audit, cache_warns_without_limit_or_direct_io, .fini = fini)
{
	struct shape s = good;

	s.ram_limit = "none";
	s.loop_io = "buffered";
	cr_assert_eq(audit(&s), 0, "%s%s", e2e_out, e2e_err);
	EXPECT("cache", "warn", "6 of 6 phase runs had no memory limit");
	s.loop_io = "direct";
	audit(&s);
	EXPECT("cache", "pass", "6 without a memory limit, 0 without direct");
}

/* 100 MiB used under a 64 MiB limit: under twice; no fs_used_bytes
 * row (an older run): no line */
Test(audit, data_under_twice_the_memory_warns, .fini = fini)
{
	struct shape s = good;

	s.used_mib = 100;
	cr_assert_eq(audit(&s), 0, "%s%s", e2e_out, e2e_err);
	EXPECT("data size", "warn", "6 of 6 phase runs had less data than "
	       "twice their memory and the device did not see their I/O "
	       "(least: a/w/bs=4, 100 MiB against 64.0 MiB)");
	/* reads the cache served half of: still a warning */
	s.read_mib = 1000;
	s.dev_read_mib = 500;
	audit(&s);
	EXPECT("data size", "warn", "6 of 6 phase runs had less data");
	/* the device saw them all (O_DIRECT, say): not the cache's */
	s.dev_read_mib = 1000;
	audit(&s);
	EXPECT("data size", "pass", "the device saw the reads and writes of "
	       "all 6 phase runs");
	s.read_mib = s.dev_read_mib = -1;
	s.used_mib = -1;
	audit(&s);
	cr_expect_null(strstr(e2e_out, "data size"), "%s", e2e_out);
}

Test(audit, fresh_configs_warn, .fini = fini)
{
	struct shape s = good;

	s.age = "";
	audit(&s);
	EXPECT("aged", "warn", "0 of 2 configs aged");
}

Test(audit, never_steady_warns, .fini = fini)
{
	struct shape s = good;

	s.steady = 0;
	audit(&s);
	EXPECT("steady", "warn", "6 of 6 phase runs judged for a steady state");
	s.steady = -1;	/* no rule: no line */
	audit(&s);
	cr_expect_null(strstr(e2e_out, "steady"), "%s", e2e_out);
}

Test(audit, disturbed_fails_over_a_third, .fini = fini)
{
	struct shape s = good;

	s.others = 0.5;
	cr_assert_eq(audit(&s), 1, "%s%s", e2e_out, e2e_err);
	EXPECT("disturbed", "fail", "6 of 6 phase runs disturbed");
}

Test(audit, cpu_bound_warns, .fini = fini)
{
	struct shape s = good;

	s.cpu_pct = 95;
	audit(&s);
	EXPECT("cpu-bound", "warn", "6 of 6 phase runs used >= 0.9");
}

Test(audit, missing_tool_version_warns, .fini = fini)
{
	struct shape s = good;

	s.tools = 0;
	audit(&s);
	EXPECT("tools", "warn", "1 tool versions missing from the manifest "
	       "(mkfs.ext4)");
}

Test(audit, text_and_html_reports_have_it, .fini = fini)
{
	const char *d = rundir(&good), *a, *c;

	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, NULL }), 0,
		     "%s", e2e_err);
	a = strstr(e2e_out, "== audit ==");
	c = strstr(e2e_out, "== filesystem configs");
	cr_expect(a && c && a < c, "%s", e2e_out);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, "--format",
				"html", NULL }), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "<h2 id=\"audit\">audit</h2>"), "%s",
		  e2e_out);
	cr_expect(strstr(e2e_out, "<td>pass</td><td>repetitions</td>"),
		  "%s", e2e_out);
}

Test(audit, real_tmpfs_run, .fini = fini)
{
	const char *dir;
	char rd[4096];
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	rc = e2e_run_plan(dir, "audit", "repeat: 2\n"
			  "filesystems: [{type: tmpfs, mount: [size=8M]}]\n"
			  "phases: [{exec: 'true'}]\n", rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	rc = e2e_fsplan((const char *[]){ "report", rd, "--audit", NULL });
	cr_expect(rc == 0 || rc == 1, "exit %d: %s", rc, e2e_err);
	/* two ok runs of one cell: a CI, however wide */
	cr_expect(strstr(line_of("repetitions"), "n>=2, widest 95% CI"),
		  "%s", e2e_out);
	cr_expect_eq(rc, strstr(e2e_out, "\nfail ") ? 1 : 0, "%s", e2e_out);
	/* tmpfs is memory: no page cache in between */
	EXPECT("cache", "pass", "0 phase runs (tmpfs aside)");
	EXPECT("tools", "pass", "all 0 configs");
	cr_expect_null(strstr(e2e_out, "data size"), "tmpfs: %s", e2e_out);
	line_of("disturbed");
	line_of("cpu-bound");
}
