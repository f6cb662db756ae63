/* test_report_where: report --where and --by, and a merged run's header. */
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

/* A run of label (type, axis journal j) with phase w at workers=1 and 4:
 * rate base * workers (+ rep / 10), two repetitions. */
static void config(const char *label, const char *type, const char *j,
		   double base)
{
	static const int workers[] = { 1, 4 };

	for (int k = 0; k < 2; k++)
		for (int rep = 1; rep <= 2; rep++) {
			int w = workers[k];

			add("R,\"%s/w/workers=%d;journal=%s#%d\",%s,%s,,,w,"
			    "workers=%d;journal=%s,%d,rate_mbs,%g,MiB/s\n",
			    label, w, j, rep, label, type, w, j, rep,
			    base * w + rep / 10.0);
			add("R,\"%s/w/workers=%d;journal=%s#%d\",%s,%s,,,w,"
			    "workers=%d;journal=%s,%d,status,ok,\n", label, w,
			    j, rep, label, type, w, j, rep);
		}
}

/* A run directory: ext4 (journal 16) at 100 MiB/s per worker, xfs
 * (journal 64) at 200, with a manifest of the configs' axes and
 * merged shards. */
static const char *rundir(void)
{
	const char *d = e2e_tmpdir();

	len = 0;
	add("run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase,"
	    "phase_params,rep,metric,value,unit\n");
	config("ext4-j16", "ext4", "16", 100);
	config("xfs-j64", "xfs", "64", 200);
	e2e_write(d, "results.csv", csv);
	e2e_write(d, "manifest.json",
		  "{\"run_id\": \"R\", \"plan\": {\"name\": \"t\"},"
		  " \"status\": \"done\","
		  " \"phases\": [{\"name\": \"w\", \"key\": [\"rate_mbs\"]}],"
		  " \"configs\": [{\"label\": \"ext4-j16\", \"type\": \"ext4\","
		  "  \"axes\": {\"jmb\": \"16\"}},"
		  " {\"label\": \"xfs-j64\", \"type\": \"xfs\","
		  "  \"axes\": {\"jmb\": \"64\"}}],"
		  " \"merged\": [{\"host\": \"h1\"}, {\"host\": \"h2\"},"
		  "  {\"host\": \"h1\"}]}\n");
	return d;
}

Test(report_where, where_keeps_the_runs_that_match, .fini = fini)
{
	const char *d = rundir(), *phase;

	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, "--where",
				"workers=4", NULL }), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "for workers=4 journal=16,"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "for workers=4 journal=64,"), "%s", e2e_out);
	cr_expect_null(strstr(e2e_out, "workers=1"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "== phase w: 4 of 4 phase runs ok =="),
		  "%s", e2e_out);
	/* and two terms: both */
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, "--where",
				"workers=4", "--where", "type=xfs", NULL }), 0);
	cr_assert_not_null(phase = strstr(e2e_out, "== phase w"), "%s",
			   e2e_out);
	cr_expect(strstr(phase, "xfs-j64"), "%s", e2e_out);
	cr_expect_null(strstr(phase, "ext4-j16"), "%s", e2e_out);
	/* a matrix axis of the configs, from the manifest */
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, "--where",
				"jmb=16", NULL }), 0, "%s", e2e_err);
	cr_assert_not_null(phase = strstr(e2e_out, "== phase w"), "%s",
			   e2e_out);
	cr_expect(strstr(phase, "ext4-j16"), "%s", e2e_out);
	cr_expect_null(strstr(phase, "xfs-j64"), "%s", e2e_out);
	/* an unknown key names the nearest */
	cr_expect_eq(e2e_fsplan((const char *[]){ "report", d, "--where",
				 "worker=4", NULL }), 2);
	cr_expect(strstr(e2e_err, "'worker'") && strstr(e2e_err,
		  "did you mean 'workers'"), "%s", e2e_err);
	cr_expect_eq(e2e_fsplan((const char *[]){ "report", d, "--where",
				 "workers", NULL }), 2);
}

Test(report_where, by_pivots_an_axis, .fini = fini)
{
	const char *d = rundir();

	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, "--by",
				"workers", NULL }), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "== phase w: rate_mbs (MiB/s), mean by "
			 "workers =="), "%s", e2e_out);
	/* 100.15 and 400.15; 200.15 and 800.15 */
	cr_expect(strstr(e2e_out, "config                 1    4\n"), "%s",
		  e2e_out);
	cr_expect(strstr(e2e_out, "ext4-j16 journal=16  100  400\n"), "%s",
		  e2e_out);
	cr_expect(strstr(e2e_out, "xfs-j64 journal=64   200  800\n"), "%s",
		  e2e_out);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, "--by",
				"workers", "--format", "csv", NULL }), 0);
	cr_expect(strstr(e2e_out, "config,1,4\n"), "%s", e2e_out);
	/* csv keeps every digit: 100.15 */
	cr_expect(strstr(e2e_out, "ext4-j16 journal=16,100.15,400.15\n"), "%s",
		  e2e_out);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, "--by",
				"workers", "--format", "html", NULL }), 0);
	cr_expect(strstr(e2e_out, "<td class=\"num\">800</td>"), "%s",
		  e2e_out);
	cr_expect_eq(e2e_fsplan((const char *[]){ "report", d, "--by",
				 "threads", NULL }), 2);
	cr_expect(strstr(e2e_err, "--by"), "%s", e2e_err);
}

/* A phase whose module names no key: --by pivots its rate, not the
 * seconds every run has. */
Test(report_where, by_a_phase_without_a_key_pivots_its_rate, .fini = fini)
{
	const char *d = rundir();

	for (int w = 1; w <= 4; w *= 4)
		add("R,\"ext4-j16/w/workers=%d;journal=16#1\",ext4-j16,ext4,,,"
		    "w,workers=%d;journal=16,1,seconds,30,s\n", w, w);
	e2e_write(d, "results.csv", csv);
	e2e_write(d, "manifest.json",
		  "{\"run_id\": \"R\", \"plan\": {\"name\": \"t\"},"
		  " \"status\": \"done\", \"phases\": [{\"name\": \"w\"}]}\n");
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, "--by",
				"workers", NULL }), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "== phase w: rate_mbs (MiB/s), mean by "
			 "workers =="), "%s", e2e_out);
}

/* --by mount: the configs by their type, the mount options as columns
 * (not a config per row with one column filled). */
Test(report_where, by_mount_rows_are_the_types, .fini = fini)
{
	static const char *const type[] = { "ext4", "xfs" };
	static const char *const mount[] = { "defaults", "noatime" };
	const char *d = e2e_tmpdir();

	len = 0;
	add("run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts,phase,"
	    "phase_params,rep,metric,value,unit\n");
	for (int t = 0; t < 2; t++)
		for (int m = 0; m < 2; m++)
			for (int rep = 1; rep <= 2; rep++) {
				add("R,%s::%s/w#%d,%s::%s,%s,,%s,w,,%d,rate_mbs,"
				    "%d,MiB/s\n", type[t], mount[m], rep,
				    type[t], mount[m], type[t], mount[m], rep,
				    100 * (t + 1) + 10 * m);
				add("R,%s::%s/w#%d,%s::%s,%s,,%s,w,,%d,status,"
				    "ok,\n", type[t], mount[m], rep, type[t],
				    mount[m], type[t], mount[m], rep);
			}
	e2e_write(d, "results.csv", csv);
	e2e_write(d, "manifest.json", "{\"run_id\": \"R\", \"plan\": "
		  "{\"name\": \"t\"}, \"status\": \"done\", \"phases\": "
		  "[{\"name\": \"w\", \"key\": [\"rate_mbs\"]}]}\n");
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, "--by",
				"mount", NULL }), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "config  defaults  noatime\n"), "%s",
		  e2e_out);
	cr_expect(strstr(e2e_out, "ext4         100      110\n"), "%s",
		  e2e_out);
	cr_expect(strstr(e2e_out, "xfs          200      210\n"), "%s",
		  e2e_out);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, "--by",
				"type", NULL }), 0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "mount=noatime    110  210\n"), "%s",
		  e2e_out);
}

Test(report_where, a_merged_run_says_its_shards_and_hosts, .fini = fini)
{
	const char *d = rundir();

	cr_assert_eq(e2e_fsplan((const char *[]){ "report", d, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_out, "merged: 3 shards from 2 hosts (h1, h2)\n"),
		  "%s", e2e_out);
}
