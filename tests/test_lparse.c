/* test_lparse: the `parse:` hook (phase/lparse.h) — the exec-phase parsers and
 * lua/json.lua, in the real sandbox, on real fio and sysbench output. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "host/child.h"
#include "e2e.h"
#include "luacount.h"
#include "phase/libsrc.h"
#include "phase/lparse.h"
#include "plan/plan.h"
#include "phase/sandbox.h"
#include "util/clock.h"
#include "luacall.h"

#define FIXTURES	"fixtures/parse"
#define MIB		1048576.0
#define NS_PER_MS	1e6

static struct sandbox_limits lim;
static lua_State *L;

static void setup(void)
{
	lim = (struct sandbox_limits){ 64u << 20, clock_now() + 30, NULL,
				       libsrc_dir(), NULL };
	L = sandbox_new(&lim);
	cr_assert(L, "sandbox_new failed");
}

static void teardown(void)
{
	sandbox_close(L);
}

TestSuite(lparse, .init = setup, .fini = teardown, .timeout = 60);

/* ---- helpers ------------------------------------------------------------- */

static char *read_fixture(const char *name, size_t *len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, name);
	return e2e_slurp(path, len);
}

/* A copy of text with ' for ", so JSON reads well in C. */
static char *dq(const char *text)
{
	char *s = strdup(text);

	cr_assert(s);
	for (char *p = s; *p; p++)
		if (*p == '\'')
			*p = '"';
	return s;
}

/*
 * Run lua/parse/<parser>.lua on out as lparse_body does: load it with
 * lparse_load, call its parse function with (out, "").
 * 0 with the result on the stack, or -1 with the message in err.
 */
static int parse_text(const char *parser, const char *out, size_t len,
		      char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct diag d = { 0 };

	snprintf(path, sizeof(path), "%s/parse/%s.lua", libsrc_dir(),
		 parser);
	cr_assert(!lparse_load(L, path, NULL, &d), "%s: %s", path, d.msg);
	lua_pushlstring(L, out, len);
	lua_pushliteral(L, "");
	return call_text(L, 2, 1, err, errlen);
}

/* Parse text that must give a table of metrics, left on the stack. */
static void parse_ok(const char *parser, const char *out, size_t len)
{
	char err[4096];

	cr_assert(!parse_text(parser, out, len, err, sizeof(err)),
		  "parse %s failed: %s", parser, err);
	cr_assert(lua_istable(L, -1), "parse %s gave a %s", parser,
		  luaL_typename(L, -1));
}

static void parse_fixture(const char *parser, const char *name)
{
	size_t len;
	char *text = read_fixture(name, &len);

	parse_ok(parser, text, len);
	free(text);
}

/* Parse text that must fail with want in the message (returned in err). */
static void parse_fails(const char *parser, const char *out, size_t len,
			const char *want, char *err, size_t errlen)
{
	cr_assert(parse_text(parser, out, len, err, errlen),
		  "parse %s succeeded", parser);
	cr_expect(strstr(err, want), "message \"%s\" lacks \"%s\"", err, want);
}

/* The metric name of the result table: 1 with value and unit, or 0. */
static int metric(const char *name, double *v, char *unit, size_t len)
{
	int found = 0;

	lua_getfield(L, -1, name);
	if (lua_istable(L, -1)) {
		lua_getfield(L, -1, "value");
		lua_getfield(L, -2, "unit");
		if (lua_type(L, -2) == LUA_TNUMBER) {
			*v = lua_tonumber(L, -2);
			snprintf(unit, len, "%s", lua_isstring(L, -1) ?
				 lua_tostring(L, -1) : "");
			found = 1;
		}
		lua_pop(L, 2);
	} else if (lua_type(L, -1) == LUA_TNUMBER) {
		*v = lua_tonumber(L, -1);
		snprintf(unit, len, "%s", "");
		found = 1;
	}
	lua_pop(L, 1);
	return found;
}

/* name = want (to 1e-9 relative; 0 exactly), in unit. */
static void expect_metric(const char *name, double want, const char *unit)
{
	char got_unit[64];
	double got;

	if (!metric(name, &got, got_unit, sizeof(got_unit))) {
		cr_expect_fail("metric %s is missing", name);
		return;
	}
	cr_expect(fabs(got - want) <= 1e-9 * fabs(want),
		  "%s = %.17g, expected %.17g", name, got, want);
	cr_expect_str_eq(got_unit, unit, "%s: unit '%s', expected '%s'",
			 name, got_unit, unit);
}

static void expect_absent(const char *name)
{
	char unit[64];
	double v = 0;

	cr_expect(!metric(name, &v, unit, sizeof(unit)),
		  "metric %s = %g should be absent", name, v);
}

/* ---- fio ----------------------------------------------------------------- */

/* Every metric of a one-job read report: the values come from jobs[0]. */
struct fio_read {
	double iops, bw_bytes, io_bytes, lat_mean_ns, lat_max_ns;
	double p50_ns, p99_ns, p999_ns, usr_cpu, sys_cpu;
};

static void expect_fio_read(const struct fio_read *r)
{
	expect_metric("read_iops", r->iops, "ops/s");
	expect_metric("read_bw_mbs", r->bw_bytes / MIB, "MiB/s");
	expect_metric("read_bytes", r->io_bytes, "bytes");
	expect_metric("read_lat_mean_ms", r->lat_mean_ns / NS_PER_MS, "ms");
	expect_metric("read_lat_max_ms", r->lat_max_ns / NS_PER_MS, "ms");
	expect_metric("read_clat_p50_ms", r->p50_ns / NS_PER_MS, "ms");
	expect_metric("read_clat_p99_ms", r->p99_ns / NS_PER_MS, "ms");
	expect_metric("read_clat_p999_ms", r->p999_ns / NS_PER_MS, "ms");
	expect_metric("usr_cpu_pct", r->usr_cpu, "%");
	expect_metric("sys_cpu_pct", r->sys_cpu, "%");
	/* write and trim moved no bytes: no metrics, not zeros */
	expect_absent("write_iops");
	expect_absent("write_bytes");
	expect_absent("trim_iops");
	expect_absent("trim_lat_mean_ms");
	cr_expect_eq(lua_count_keys(L), 10, "%d metrics, expected 10", lua_count_keys(L));
}

/* fio_ext4_iouring_randread_direct1.json, jobs[0] */
static const struct fio_read direct1 = {
	.iops = 152552.244776,		/* read.iops */
	.bw_bytes = 624853994,		/* read.bw_bytes */
	.io_bytes = 6249164800,		/* read.io_bytes */
	.lat_mean_ns = 209475.763560,	/* read.lat_ns.mean */
	.lat_max_ns = 7306939,		/* read.lat_ns.max */
	.p50_ns = 183296,		/* read.clat_ns.percentile "50.000000" */
	.p99_ns = 354304,		/* "99.000000" */
	.p999_ns = 4112384,		/* "99.900000" */
	.usr_cpu = 15.550000,		/* usr_cpu */
	.sys_cpu = 45.670000,		/* sys_cpu */
};

Test(lparse, fio_direct1)
{
	parse_fixture("fio", "fio_ext4_iouring_randread_direct1.json");
	expect_fio_read(&direct1);
}

/* The figures a human took from the same run (reference/fio_summary.txt):
 * IOPS=152552.2 BW=610208 KiB/s mean_lat=209.5 us p99_clat=354.3 us. */
Test(lparse, fio_direct1_matches_the_summary)
{
	char unit[64];
	double v;

	parse_fixture("fio", "fio_ext4_iouring_randread_direct1.json");
	cr_assert(metric("read_iops", &v, unit, sizeof(unit)));
	cr_expect(fabs(v - 152552.2) < 0.05, "read_iops %f", v);
	cr_assert(metric("read_bw_mbs", &v, unit, sizeof(unit)));
	cr_expect(fabs(v * 1024 - 610208) < 1, "read_bw_mbs %f", v);
	cr_assert(metric("read_lat_mean_ms", &v, unit, sizeof(unit)));
	cr_expect(fabs(v * 1000 - 209.5) < 0.05, "read_lat_mean_ms %f", v);
	cr_assert(metric("read_clat_p99_ms", &v, unit, sizeof(unit)));
	cr_expect(fabs(v * 1000 - 354.3) < 0.05, "read_clat_p99_ms %f", v);
}

Test(lparse, fio_direct0)
{
	/* fio_ext4_iouring_randread_direct0.json, jobs[0] */
	const struct fio_read direct0 = {
		.iops = 112655.400000,		/* read.iops */
		.bw_bytes = 461436518,		/* read.bw_bytes */
		.io_bytes = 4614365184,		/* read.io_bytes */
		.lat_mean_ns = 283497.408398,	/* read.lat_ns.mean */
		.lat_max_ns = 19340553,		/* read.lat_ns.max */
		.p50_ns = 257024,		/* clat_ns.percentile 50 */
		.p99_ns = 651264,		/* 99 */
		.p999_ns = 4358144,		/* 99.9 */
		.usr_cpu = 11.410000,		/* usr_cpu */
		.sys_cpu = 53.190000,		/* sys_cpu */
	};

	parse_fixture("fio", "fio_ext4_iouring_randread_direct0.json");
	expect_fio_read(&direct0);
}

/* fio prints notes and warnings on stdout before its JSON. */
Test(lparse, fio_warning_lines_before_the_json)
{
	static const char warn[] =
		"note: both iodepth >= 1 and synchronous I/O engine are "
		"selected, queue depth will be capped at 1\n"
		"fio: this platform does not support process shared mutexes, "
		"forcing use of threads. {not json}\n";
	size_t len;
	char *json = read_fixture("fio_ext4_iouring_randread_direct1.json",
				  &len);
	char *text = malloc(sizeof(warn) + len);

	cr_assert(text);
	memcpy(text, warn, sizeof(warn) - 1);
	memcpy(text + sizeof(warn) - 1, json, len + 1);
	parse_ok("fio", text, sizeof(warn) - 1 + len);
	expect_fio_read(&direct1);
	free(text);
	free(json);
}

/*
 * Two jobs of one group (numjobs=2), json+ so with histograms, and the
 * normal report after the JSON. Merged as group_reporting would; every
 * figure below is from the fixture's two "jobs" entries.
 */
Test(lparse, fio_two_jobs_merged_like_group_reporting)
{
	const double bytes = 39624704.0 + 36974592.0;	/* read.io_bytes */
	const double ios = 9674.0 + 9027.0;		/* read.total_ios */
	const double runtime_ms = 1001;			/* max read.runtime */
	char unit[64];
	double v;

	parse_fixture("fio", "fio_psync_randread_2jobs_jsonplus_normal.txt");
	expect_metric("read_bytes", bytes, "bytes");
	expect_metric("read_iops", 1000 * ios / runtime_ms, "ops/s");
	expect_metric("read_bw_mbs", 1000 * bytes / runtime_ms / MIB,
		      "MiB/s");
	/* lat_ns.mean weighted by lat_ns.N; the larger lat_ns.max */
	expect_metric("read_lat_mean_ms",
		      (97987.680380 * 9674 + 108075.876482 * 9027) /
		      (9674 + 9027) / NS_PER_MS, "ms");
	expect_metric("read_lat_max_ms", 20737961 / NS_PER_MS, "ms");
	/* The two jobs' clat_ns.bins added up, then fio's rule (the first
	 * bin where the running count reaches p% of 18701), worked out
	 * offline; each lies between the jobs' own percentiles (48896 and
	 * 52480, 1466368 and 2179072, 8093696 and 11468800). */
	expect_metric("read_clat_p50_ms", 50432 / NS_PER_MS, "ms");
	expect_metric("read_clat_p99_ms", 1826816 / NS_PER_MS, "ms");
	expect_metric("read_clat_p999_ms", 10420224 / NS_PER_MS, "ms");
	/* usr_cpu, sys_cpu weighted by job_runtime (1000 and 1000) */
	expect_metric("usr_cpu_pct", (2.1 + 2.0) / 2, "%");
	expect_metric("sys_cpu_pct", (18.4 + 17.0) / 2, "%");
	expect_absent("write_iops");
	cr_expect_eq(lua_count_keys(L), 10);
	/* fio's own aggregate in the normal report: "READ: bw=73.0MiB/s" */
	cr_assert(metric("read_bw_mbs", &v, unit, sizeof(unit)));
	cr_expect(fabs(v - 73.0) < 0.05, "read_bw_mbs %f vs fio's 73.0", v);
}

/* Two jobs written small enough to check by hand; %s: each job's bins. */
static const char two_jobs[] =
	"{'fio version': 'fio-3.33', 'jobs': [\n"
	" {'jobname': 'a', 'groupid': %d, 'error': %d,\n"
	"  'job_runtime': 1000, 'usr_cpu': 1.0, 'sys_cpu': 3.0,\n"
	"  'read': {'io_bytes': 409600, 'bw_bytes': 409600, 'iops': 100.0,\n"
	"   'runtime': 1000, 'total_ios': 100,\n"
	"   'lat_ns': {'min': 1000, 'max': 5000, 'mean': 1080.0, 'N': 100},\n"
	"   'clat_ns': {'min': 1000, 'max': 5000, 'mean': 1080.0, 'N': 100,\n"
	"    'percentile': {'50.000000': 1000, '99.000000': 5000,\n"
	"                   '99.900000': 5000}%s}}},\n"
	" {'jobname': 'b', 'groupid': 0, 'error': 0,\n"
	"  'job_runtime': 2000, 'usr_cpu': 4.0, 'sys_cpu': 6.0,\n"
	"  'read': {'io_bytes': 409600, 'bw_bytes': 204800, 'iops': 50.0,\n"
	"   'runtime': 2000, 'total_ios': 100,\n"
	"   'lat_ns': {'min': 2000, 'max': 2000, 'mean': 2000.0, 'N': 100},\n"
	"   'clat_ns': {'min': 2000, 'max': 2000, 'mean': 2000.0, 'N': 100,\n"
	"    'percentile': {'50.000000': 2000, '99.000000': 2000,\n"
	"                   '99.900000': 2000}%s}}}\n"
	"]}\n";

static void parse_two_jobs(int group_a, int error_a, const char *bins_a,
			   const char *bins_b)
{
	char text[4096];
	char *json;

	snprintf(text, sizeof(text), two_jobs, group_a, error_a, bins_a,
		 bins_b);
	json = dq(text);
	parse_ok("fio", json, strlen(json));
	free(json);
}

Test(lparse, fio_merged_histograms_by_hand)
{
	parse_two_jobs(0, 0, ", 'bins': {'1000': 98, '5000': 2}",
		       ", 'bins': {'2000': 100}");
	expect_metric("read_bytes", 819200, "bytes");
	/* 200 I/Os and 819200 bytes over the longer runtime, 2000 ms */
	expect_metric("read_iops", 100, "ops/s");
	expect_metric("read_bw_mbs", 409600 / MIB, "MiB/s");
	expect_metric("read_lat_mean_ms", 1540 / NS_PER_MS, "ms");
	expect_metric("read_lat_max_ms", 5000 / NS_PER_MS, "ms");
	/* 200 samples: 98 at 1000, 100 at 2000, 2 at 5000. The 100th and
	 * the 198th are at 2000, the 199.8th at 5000. */
	expect_metric("read_clat_p50_ms", 2000 / NS_PER_MS, "ms");
	expect_metric("read_clat_p99_ms", 2000 / NS_PER_MS, "ms");
	expect_metric("read_clat_p999_ms", 5000 / NS_PER_MS, "ms");
	/* (1 * 1000 + 4 * 2000) / 3000 and (3 * 1000 + 6 * 2000) / 3000 */
	expect_metric("usr_cpu_pct", 3, "%");
	expect_metric("sys_cpu_pct", 5, "%");
}

/* Plain json has no histograms: percentiles of two jobs cannot be
 * combined, so they are left out rather than made up. */
Test(lparse, fio_several_jobs_without_histograms)
{
	parse_two_jobs(0, 0, "", "");
	expect_metric("read_iops", 100, "ops/s");
	expect_metric("read_lat_mean_ms", 1540 / NS_PER_MS, "ms");
	expect_absent("read_clat_p50_ms");
	expect_absent("read_clat_p99_ms");
	expect_absent("read_clat_p999_ms");
	cr_expect_eq(lua_count_keys(L), 7);
}

/* Jobs in different groups (stonewall) are reported group by group. */
Test(lparse, fio_groups_are_prefixed)
{
	parse_two_jobs(1, 0, "", "");
	expect_absent("read_iops");
	expect_metric("g1.read_iops", 100, "ops/s");
	expect_metric("g1.read_clat_p50_ms", 1000 / NS_PER_MS, "ms");
	expect_metric("g1.usr_cpu_pct", 1, "%");
	expect_metric("g0.read_iops", 50, "ops/s");
	expect_metric("g0.read_bw_mbs", 204800 / MIB, "MiB/s");
	expect_metric("g0.read_clat_p99_ms", 2000 / NS_PER_MS, "ms");
	cr_expect_eq(lua_count_keys(L), 20);
}

Test(lparse, fio_failed_job)
{
	char text[4096], err[4096];
	char *json;

	snprintf(text, sizeof(text), two_jobs, 0, 5, "", "");
	json = dq(text);
	parse_fails("fio", json, strlen(json), "job 'a' ended with error 5",
		    err, sizeof(err));
	free(json);
}

/* A broken JSON report fails the parse, saying where. */
Test(lparse, fio_malformed_json)
{
	const char *key = "\"iops\" : 152552.244776,";
	char want[128], err[4096];
	size_t len, at, line = 1;
	char *text = read_fixture("fio_ext4_iouring_randread_direct1.json",
				  &len);
	char *p = strstr(text, key);

	cr_assert(p);
	at = (size_t)(p - text) + strlen(key);	/* 1-based: the ',' */
	text[at - 1] = ';';
	for (size_t i = 0; i < at - 1; i++)
		line += text[i] == '\n';
	snprintf(want, sizeof(want), "json: expected ',' or '}', found ';' "
		 "at byte %zu (line %zu)", at, line);
	parse_fails("fio", text, len, want, err, sizeof(err));

	/* cut short */
	parse_fails("fio", text, 3000, "at byte", err, sizeof(err));
	free(text);
}

Test(lparse, fio_without_json)
{
	static const char out[] = "fio: unrecognized option '--bogus=1'\n";
	char err[4096];

	parse_fails("fio", out, strlen(out), "no line starts with '{'", err,
		    sizeof(err));
	parse_fails("fio", "", 0, "no line starts with '{'", err,
		    sizeof(err));
}

/* ---- sysbench ------------------------------------------------------------ */

Test(lparse, sysbench_seqwr)
{
	/* sysbench_fileio_ext4_seqwr.txt, the run's report */
	parse_fixture("sysbench", "sysbench_fileio_ext4_seqwr.txt");
	expect_metric("reads_per_s", 0.00, "ops/s");	/* reads/s */
	expect_metric("writes_per_s", 7469.45, "ops/s");/* writes/s */
	expect_metric("fsyncs_per_s", 9566.49, "ops/s");/* fsyncs/s */
	expect_metric("read_mibs", 0.00, "MiB/s");	/* read, MiB/s */
	expect_metric("written_mibs", 116.71, "MiB/s");	/* written, MiB/s */
	expect_metric("total_time_s", 10.0120, "s");	/* total time */
	expect_metric("events", 170472, "events");	/* total number of events */
	expect_metric("lat_min_ms", 0.00, "ms");	/* Latency (ms): min */
	expect_metric("lat_avg_ms", 0.06, "ms");	/* avg */
	expect_metric("lat_max_ms", 23.80, "ms");	/* max */
	expect_metric("lat_p95_ms", 0.10, "ms");	/* 95th percentile */
	cr_expect_eq(lua_count_keys(L), 11);
}

Test(lparse, sysbench_rndrw)
{
	/* sysbench_fileio_ext4_rndrw.txt, the run's report */
	parse_fixture("sysbench", "sysbench_fileio_ext4_rndrw.txt");
	expect_metric("reads_per_s", 2983.12, "ops/s");
	expect_metric("writes_per_s", 1988.75, "ops/s");
	expect_metric("fsyncs_per_s", 6368.79, "ops/s");
	expect_metric("read_mibs", 46.61, "MiB/s");
	expect_metric("written_mibs", 31.07, "MiB/s");
	expect_metric("total_time_s", 10.0146, "s");
	expect_metric("events", 113464, "events");
	expect_metric("lat_min_ms", 0.00, "ms");
	expect_metric("lat_avg_ms", 0.09, "ms");
	expect_metric("lat_max_ms", 13.61, "ms");
	expect_metric("lat_p95_ms", 0.32, "ms");
	cr_expect_eq(lua_count_keys(L), 11);
}

Test(lparse, sysbench_oltp)
{
	/* sysbench_oltp_rw_ext4.txt: oltp_read_write against MariaDB */
	parse_fixture("sysbench", "sysbench_oltp_rw_ext4.txt");
	expect_metric("reads", 38962, "queries");	/* read: */
	expect_metric("writes", 11095, "queries");	/* write: */
	expect_metric("other", 5551, "queries");	/* other: */
	expect_metric("queries", 55608, "queries");	/* total:, queries: */
	expect_metric("transactions", 2768, "transactions");
	expect_metric("transactions_per_s", 921.09, "transactions/s");
	expect_metric("requests_per_s", 18504.36, "queries/s");
	expect_metric("ignored_errors", 15, "errors");
	expect_metric("ignored_errors_per_s", 4.99, "errors/s");
	expect_metric("reconnects", 0, "reconnects");
	expect_metric("reconnects_per_s", 0.00, "reconnects/s");
	expect_metric("total_time_s", 3.0036, "s");
	expect_metric("events", 2768, "events");
	expect_metric("lat_min_ms", 0.85, "ms");
	expect_metric("lat_avg_ms", 4.34, "ms");
	expect_metric("lat_max_ms", 43.81, "ms");
	expect_metric("lat_p95_ms", 9.91, "ms");
	/* other / total time, the study's other/s */
	expect_metric("other_per_s", 5551 / 3.0036, "queries/s");
	cr_expect_eq(lua_count_keys(L), 18);
}

/* The rndrw report with one section cut out: from its header to the
 * blank line after it. */
static char *without_section(const char *header, size_t *len)
{
	char *text = read_fixture("sysbench_fileio_ext4_rndrw.txt", len);
	char *from = strstr(text, header);
	char *to = from ? strstr(from, "\n\n") : NULL;

	cr_assert(to, "no section %s", header);
	to += 2;
	memmove(from, to, strlen(to) + 1);
	*len = strlen(text);
	return text;
}

Test(lparse, sysbench_without_latency)
{
	size_t len;
	char *text = without_section("Latency (ms):\n", &len);

	cr_assert(!strstr(text, "percentile"));
	parse_ok("sysbench", text, len);
	expect_absent("lat_min_ms");
	expect_absent("lat_avg_ms");
	expect_absent("lat_max_ms");
	expect_absent("lat_p95_ms");
	expect_metric("reads_per_s", 2983.12, "ops/s");
	expect_metric("written_mibs", 31.07, "MiB/s");
	expect_metric("events", 113464, "events");
	cr_expect_eq(lua_count_keys(L), 7);
	free(text);
}

Test(lparse, sysbench_without_throughput)
{
	size_t len;
	char *text = without_section("Throughput:\n", &len);

	parse_ok("sysbench", text, len);
	expect_absent("read_mibs");
	expect_absent("written_mibs");
	expect_metric("lat_p95_ms", 0.32, "ms");
	cr_expect_eq(lua_count_keys(L), 9);
	free(text);
}

/* --percentile=99 prints "99th percentile". */
Test(lparse, sysbench_other_percentile)
{
	size_t len;
	char *text = read_fixture("sysbench_fileio_ext4_rndrw.txt", &len);
	char *p = strstr(text, "95th percentile");

	cr_assert(p);
	memcpy(p, "99", 2);
	parse_ok("sysbench", text, len);
	expect_absent("lat_p95_ms");
	expect_metric("lat_p99_ms", 0.32, "ms");
	free(text);
}

Test(lparse, sysbench_without_report)
{
	static const char out[] = "sysbench 1.0.20 (using system LuaJIT "
				  "2.1.0-beta3)\n\nFATAL: Missing required "
				  "argument: --file-test-mode\n";
	char err[4096];

	parse_fails("sysbench", out, strlen(out), "no report", err,
		    sizeof(err));
}

/* ---- through lparse_body, as fsplan runs a parser ----------------------- */

struct rows {
	int n;
	double bw;
	char bw_unit[32], cpu_unit[32];
};

static void collect(void *ctx, const char *name, double v, const char *unit)
{
	struct rows *r = ctx;

	r->n++;
	if (!strcmp(name, "read_bw_mbs")) {
		r->bw = v;
		snprintf(r->bw_unit, sizeof(r->bw_unit), "%s", unit);
	}
	if (!strcmp(name, "usr_cpu_pct"))
		snprintf(r->cpu_unit, sizeof(r->cpu_unit), "%s", unit);
}

Test(lparse, report_lines_from_lparse_body)
{
	char parser[PATH_MAX], report[65536];
	struct lparse_job job = { 0 };
	struct rows rows = { 0 };
	size_t len, got = 0;
	ssize_t n;
	int fds[2], status;
	char *text = read_fixture("fio_ext4_iouring_randread_direct1.json",
				  &len);
	pid_t pid;

	snprintf(parser, sizeof(parser), "%s/parse/fio.lua",
		 libsrc_dir());
	job.parser = parser;
	job.out = text;
	job.out_len = len;
	job.err = "";
	cr_assert(!pipe(fds));
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		if (fds[1] != CHILD_REPORT_FD &&
		    dup2(fds[1], CHILD_REPORT_FD) < 0)
			_exit(99);
		_exit(lparse_body(&job));
	}
	close(fds[1]);
	while ((n = read(fds[0], report + got, sizeof(report) - got)) > 0)
		got += (size_t)n;
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "lparse_body failed: %.*s", (int)got, report);
	lparse_rows(report, got, collect, &rows);
	cr_expect_eq(rows.n, 10, "%d rows in:\n%.*s", rows.n, (int)got,
		     report);
	/* the report line carries 12 significant digits */
	cr_expect(fabs(rows.bw / (624853994 / MIB) - 1) < 1e-11,
		  "read_bw_mbs %.17g", rows.bw);
	cr_expect_str_eq(rows.bw_unit, "MiB/s");
	cr_expect_str_eq(rows.cpu_unit, "%");
	free(text);
}

/* ---- json.lua ------------------------------------------------------------ */

/* json.<fn>(text) in the sandbox: 0 with nres results, or -1 and err. */
static int json_call(const char *fn, const char *text, size_t len, int nres,
		     char *err, size_t errlen)
{
	static const char chunk[] =
		"local fn, text = ...\n"
		"return require('json')[fn](text)\n";

	cr_assert(!luaL_loadbufferx(L, chunk, strlen(chunk), "=test", "t"));
	lua_pushstring(L, fn);
	lua_pushlstring(L, text, len);
	return call_text(L, 2, nres, err, errlen);
}

/* Decode text that must be valid; its value is left on the stack. */
static void decode_ok(const char *text)
{
	char err[4096];

	cr_assert(!json_call("decode", text, strlen(text), 1, err,
			     sizeof(err)), "decode %s: %s", text, err);
}

/* Decode text that must be refused with want in the message. */
static void decode_fails(const char *text, const char *want)
{
	char err[4096];
	int top = lua_gettop(L);

	cr_assert(json_call("decode", text, strlen(text), 1, err,
			    sizeof(err)), "decode %s succeeded", text);
	cr_expect(strstr(err, want), "decode %s: \"%s\" lacks \"%s\"", text,
		  err, want);
	cr_expect(strstr(err, "at byte "), "decode %s: no position in %s",
		  text, err);
	cr_expect_eq(lua_gettop(L), top);
}

/* Run Lua code (json is a local) that must return one string. */
static void lua_returns(const char *code, const char *want)
{
	char chunk[4096], err[4096];

	snprintf(chunk, sizeof(chunk), "local json = require('json')\n%s",
		 code);
	cr_assert(!luaL_loadbufferx(L, chunk, strlen(chunk), "=test", "t"),
		  "%s", lua_tostring(L, -1));
	cr_assert(!call_text(L, 0, 1, err, sizeof(err)), "%s: %s", code,
		  err);
	cr_expect_str_eq(lua_tostring(L, -1), want, "%s", code);
	lua_pop(L, 1);
}

static void expect_string(const char *want, size_t want_len)
{
	size_t len;
	const char *s = lua_tolstring(L, -1, &len);

	cr_assert(lua_type(L, -1) == LUA_TSTRING, "a %s",
		  luaL_typename(L, -1));
	cr_expect_eq(len, want_len, "length %zu, expected %zu", len,
		     want_len);
	cr_expect(!memcmp(s, want, len < want_len ? len : want_len));
	lua_pop(L, 1);
}

Test(lparse, json_escapes)
{
	static const char want[] = "a\"b\\c/d\b\f\n\r\t";

	decode_ok("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"");
	expect_string(want, sizeof(want) - 1);
	decode_ok("\"\"");
	expect_string("", 0);
	decode_fails("\"\\x\"", "invalid escape \\x");
	decode_fails("\"\\'\"", "invalid escape");
	decode_fails("\"a\tb\"", "control character in a string");
	decode_fails("\"a\nb\"", "control character in a string");
	decode_fails("\"abc", "unterminated string");
}

Test(lparse, json_unicode)
{
	/* é € U+1F600 (a surrogate pair) NUL x */
	static const char want[] = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
				   "\0x";

	decode_ok("\"\\u00e9\\u20AC\\ud83d\\uDE00\\u0000x\"");
	expect_string(want, sizeof(want) - 1);
	decode_ok("\"\\u0041\\u007f\\u0080\\u07ff\\u0800\\uffff\"");
	expect_string("A\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf", 12);
	/* raw UTF-8 passes through */
	decode_ok("\"caf\xc3\xa9\"");
	expect_string("caf\xc3\xa9", 5);
	decode_fails("\"\\ud83d\"", "high surrogate without its low half");
	decode_fails("\"\\ud83dx\"", "high surrogate without its low half");
	decode_fails("\"\\ud83d\\u0041\"", "expected a low surrogate");
	decode_fails("\"\\ude00\"", "lone low surrogate");
	decode_fails("\"\\u12G4\"", "expected 4 hex digits");
	decode_fails("\"\\u12\"", "expected 4 hex digits");
}

Test(lparse, json_nested)
{
	lua_returns("local v = json.decode(' [1, [2, [3, []]], '\n"
		    "  .. '{\"a\": [null, true, false], \"b\": {}}, \"x\"] ')\n"
		    "return table.concat({ #v, v[1], #v[2], v[2][2][1],\n"
		    "  #v[2][2][2], tostring(v[3].a[1] == json.null),\n"
		    "  #v[3].a, tostring(v[3].a[2]), tostring(v[3].a[3]),\n"
		    "  tostring(next(v[3].b)), v[4] }, ',')",
		    "4,1,2,3,0,true,3,true,false,nil,x");
	/* objects: string keys, the last of repeated keys wins */
	lua_returns("local v = json.decode('{\"1\": \"one\", \"k\": 1, "
		    "\"k\": 2}')\n"
		    "return v['1'] .. tostring(v[1]) .. v.k",
		    "onenil2");
	lua_returns("return tostring(json.decode('null') == json.null) ..\n"
		    "  tostring(json.null)", "truenull");
	lua_returns("return tostring(json.decode(' \\t\\r\\n[true, false, "
		    "null]\\n ')[2])", "false");
}

Test(lparse, json_numbers)
{
	static const double want[] = { 0, -0.5, 1e3, 1e3, 2.5e-3, -1275,
				       6249164800.0, 152552.244776, 1e-7 };
	const int n = sizeof(want) / sizeof(want[0]);

	decode_ok("[0, -0.5, 1e3, 1E+3, 2.5e-3, -12.75E2, 6249164800, "
		  "152552.244776, 100e-9, 1e400]");
	cr_assert(lua_istable(L, -1));
	for (int i = 0; i < n; i++) {
		lua_geti(L, -1, i + 1);
		cr_expect(fabs(lua_tonumber(L, -1) - want[i]) <=
			  1e-15 * fabs(want[i]), "[%d] = %.17g, expected %.17g",
			  i + 1, lua_tonumber(L, -1), want[i]);
		lua_pop(L, 1);
	}
	lua_geti(L, -1, 7);
	cr_expect(lua_isinteger(L, -1), "6249164800 is an integer");
	lua_pop(L, 1);
	lua_geti(L, -1, n + 1);
	cr_expect(isinf(lua_tonumber(L, -1)), "1e400 overflows to inf");
	lua_pop(L, 2);

	decode_fails("01", "leading zero");
	decode_fails("-01", "leading zero");
	decode_fails("1.", "expected a digit after '.'");
	decode_fails("1.e5", "expected a digit after '.'");
	decode_fails(".5", "expected a value, found '.'");
	decode_fails("+1", "expected a value, found '+'");
	decode_fails("1e", "expected the exponent's digits");
	decode_fails("1e+", "expected the exponent's digits");
	decode_fails("-", "expected a digit, found end of input");
	decode_fails("--1", "expected a digit, found '-'");
	decode_fails("0x10", "text after the JSON value ('x')");
	decode_fails("NaN", "expected a value");
	decode_fails("-inf", "expected a digit");
}

Test(lparse, json_trailing_garbage_rejected)
{
	decode_fails("{\"a\": 1} x",
		     "text after the JSON value ('x') at byte 10 (line 1)");
	decode_fails("[1]]", "at byte 4");
	decode_fails("1 2", "at byte 3");
	decode_fails("{}\n{}", "at byte 4 (line 2)");
	decode_fails("true false", "at byte 6");
	decode_fails("[1] \x01", "byte 0x01");
}

Test(lparse, json_bad_structure)
{
	decode_fails("", "expected a value, found end of input at byte 1");
	decode_fails("   ", "found end of input at byte 4");
	decode_fails("[1,]", "expected a value, found ']' at byte 4");
	decode_fails("[1 2]", "expected ',' or ']', found '2'");
	decode_fails("{\"a\":1,}", "expected a string key, found '}'");
	decode_fails("{a:1}", "expected a string key, found 'a'");
	decode_fails("{\"a\" 1}", "expected ':', found '1'");
	decode_fails("{\"a\":1", "expected ',' or '}', found end of input");
	decode_fails("[", "expected a value, found end of input");
	decode_fails("nul", "expected a value");
	decode_fails("True", "expected a value");
	decode_fails("{\n  \"a\": [1,\n  2 3]\n}",
		     "expected ',' or ']', found '3' at byte 18 (line 3)");
}

Test(lparse, json_deep_nesting)
{
	char err[4096];
	size_t n = 10000;
	char *deep = malloc(2 * n + 1);

	cr_assert(deep);
	memset(deep, '[', n);
	deep[n] = '\0';
	decode_fails(deep, "nesting deeper than 200 at byte 201");
	for (size_t i = 0; i < n / 5; i++)
		memcpy(deep + 5 * i, "{\"a\":", 5);
	decode_fails(deep, "nesting deeper than 200");
	/* 200 levels are fine, 201 are not */
	memset(deep, '[', 200);
	memset(deep + 200, ']', 200);
	deep[400] = '\0';
	decode_ok(deep);
	lua_pop(L, 1);
	memset(deep, '[', 201);
	memset(deep + 201, ']', 201);
	deep[402] = '\0';
	decode_fails(deep, "nesting deeper than 200");
	free(deep);
	/* and the state is still good */
	cr_assert(!json_call("decode", "[1]", 3, 1, err, sizeof(err)), "%s",
		  err);
	lua_pop(L, 1);
}

Test(lparse, json_find_object)
{
	lua_returns("local text = 'note: x\\nfio: y {z}\\n{\"a\": {\"b\": 2}}"
		    "\\nRun status group 0'\n"
		    "local v, after = json.find_object(text)\n"
		    "return v.a.b .. ' ' .. after .. ' ' .. text:sub(after)",
		    "2 35 \nRun status group 0");
	lua_returns("return json.find_object('{\"a\": 1}').a", "1");
	lua_returns("return json.find_object('x\\r\\n{\"a\": \"\\\\u00e9\"}')"
		    ".a", "\xc3\xa9");
}

Test(lparse, json_find_object_errors)
{
	char err[4096];

	cr_assert(json_call("find_object", "x {\"a\": 1}", 10, 1, err,
			    sizeof(err)));
	cr_expect(strstr(err, "no line starts with '{' at byte 11"), "%s",
		  err);
	cr_assert(json_call("find_object", "x\n{\"a\": }", 9, 1, err,
			    sizeof(err)));
	cr_expect(strstr(err, "expected a value, found '}' at byte 9 "
			 "(line 2)"), "%s", err);
}

Test(lparse, json_wants_a_string)
{
	char err[4096];
	static const char chunk[] = "return require('json').decode(42)";

	cr_assert(!luaL_loadbufferx(L, chunk, strlen(chunk), "=test", "t"));
	cr_assert(call_text(L, 0, 1, err, sizeof(err)));
	cr_expect(strstr(err, "json.decode: expected a string, got number"),
		  "%s", err);
}
