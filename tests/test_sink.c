/* test_sink: a phase run's rows, bonnie.csv line and status, also when memory
 * or the disk fails. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "helpers.h"
#include "run/sink.h"

static const char plan[] =
	"fsplan: 1\n"
	"target: {image: 300M}\n"
	"filesystems: [{type: ext4}]\n"
	"phases: [{name: p, exec: 'true'}]\n";

/* A P report as lua/parse/bonnie.lua sends it: enough for a line. */
static const char bonnie_report[] =
	"P bonnie_line 1\n"
	"P file_size_mib 8\n"
	"P putc 1000 K/sec\n"
	"P putc_cpu 90 %\n";

static struct expansion *e;
static struct csv *csv;
static struct manifest *man;
static struct sink s;
static char dir[512];

static const struct csv_key key = {
	.run_id = "r", .cell = "ext4/p#1", .fs_label = "ext4",
	.fs_type = "ext4", .mkfs_opts = "", .mount_opts = "", .phase = "p",
	.phase_params = "", .rep = 1,
};

static void setup(void)
{
	struct diag d = { 0 };
	char path[600];

	snprintf(dir, sizeof(dir), "%s", e2e_tmpdir());
	snprintf(path, sizeof(path), "%s/results.csv", dir);
	e = expand_text(plan, NULL, 0);
	cr_assert_eq(csv_open(&csv, path, &d), 0, "%s", d.msg);
	man = manifest_new(e, "r", 0, NULL, NULL, NULL);
	cr_assert_not_null(man);
	sink_init(&s, csv, man, dir);
}

static void teardown(void)
{
	sink_free(&s);
	manifest_free(man);
	csv_close(csv);
	free_expanded(e);
	e2e_cleanup();
}

TestSuite(sink, .init = setup, .fini = teardown);

/* An allocator that fails from its nth call on. */
static int calls, fail_from;

static void *failing(void *p, size_t n)
{
	if (++calls >= fail_from)
		return NULL;
	return realloc(p, n);
}

static const char *phase_run(const char *report, const char **reason)
{
	struct child_result res = { .ok = 1, .seconds = 2, .user_s = 0.5 };
	struct sink_outcome o = {
		.key = &key, .label = "ext4", .res = &res,
		.parsed = report, .parsed_len = strlen(report),
		.fs_used_bytes = 4096, .status = RES_OK,
	};

	sink_phase_run(&s, &o);
	*reason = o.reason;
	return results_status_name(o.status);
}

static const char *bonnie_csv(void)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/bonnie.csv", dir);
	return e2e_read(path);
}

Test(sink, a_run_gets_its_rows_status_and_bonnie_line)
{
	const char *reason = NULL;

	cr_assert_str_eq(phase_run(bonnie_report, &reason), "ok");
	cr_expect_str_eq(e2e_metric(dir, "ext4/p#1", "status"), "ok");
	cr_expect_str_eq(e2e_metric(dir, "ext4/p#1", "putc"), "1000");
	cr_expect_str_eq(e2e_metric(dir, "ext4/p#1", "cpu_pct"), "25.00");
	cr_expect_str_eq(e2e_metric(dir, "ext4/p#1", "fs_used_bytes"),
			 "4096");
	cr_expect(strstr(bonnie_csv(), ",ext4,"), "bonnie.csv: '%s'",
		  bonnie_csv());
	cr_expect_eq(s.write_errors, 0);
}

/* Each allocation the values take can fail: the first (the array), the
 * second (a name), one further on. None may pass as a short line. */
static void out_of_memory_at(int nth)
{
	const char *reason = NULL;

	calls = 0;
	fail_from = nth;
	s.grow = failing;
	cr_expect_str_eq(phase_run(bonnie_report, &reason), "failed",
			 "allocation %d", nth);
	cr_expect_str_eq(reason, "out of memory keeping metrics");
	cr_expect_str_eq(e2e_metric(dir, "ext4/p#1", "status"), "failed");
	cr_expect_str_eq(e2e_reason(dir, "ext4/p#1"),
			 "out of memory keeping metrics");
	cr_expect_str_eq(bonnie_csv(), "", "no bonnie.csv line: '%s'",
			 bonnie_csv());
	/* the rows themselves were written: they need no kept copy */
	cr_expect_str_eq(e2e_metric(dir, "ext4/p#1", "putc"), "1000");
}

Test(sink, out_of_memory_for_the_values_fails_the_run) { out_of_memory_at(1); }
Test(sink, out_of_memory_for_a_name_fails_the_run) { out_of_memory_at(2); }
Test(sink, out_of_memory_later_fails_the_run) { out_of_memory_at(5); }

Test(sink, the_next_run_starts_afresh_after_out_of_memory)
{
	const char *reason = NULL;

	calls = 0;
	fail_from = 1;
	s.grow = failing;
	cr_assert_str_eq(phase_run(bonnie_report, &reason), "failed");
	s.grow = NULL;
	cr_expect_str_eq(phase_run(bonnie_report, &reason), "ok", "%s",
			 reason);
	cr_expect(strstr(bonnie_csv(), ",ext4,"), "bonnie.csv: '%s'",
		  bonnie_csv());
}

Test(sink, a_malformed_lua_report_fails_the_run)
{
	struct child_result res = { .ok = 1, .report = (char *)"M seconds x\n",
				    .report_len = 12 };
	struct sink_outcome o = { .key = &key, .label = "ext4", .lua = 1,
				  .res = &res, .fs_used_bytes = -1,
				  .status = RES_OK };

	sink_phase_run(&s, &o);
	cr_expect_eq(o.status, RES_FAILED);
	cr_expect_str_eq(e2e_reason(dir, "ext4/p#1"),
			 "the phase's report was malformed");
}

Test(sink, a_line_that_cannot_be_written_is_counted)
{
	const char *reason = NULL;

	s.dir = "/nonexistent/fsplan-sink";
	cr_expect_str_eq(phase_run(bonnie_report, &reason), "ok");
	cr_expect_eq(s.write_errors, 1, "bonnie.csv could not be opened");
	cr_expect_eq(s.first_error, ENOENT);
	s.dir = dir;
}

Test(sink, a_config_figure_is_a_synced_row)
{
	sink_conf_metric(&s, &(struct csv_key){ .run_id = "r", .cell = "ext4",
						 .fs_label = "ext4" },
			 0, "mkfs_s", 1.5);
	cr_expect_str_eq(e2e_metric(dir, "ext4", "mkfs_s"), "1.500000");
	cr_expect_eq(s.n_kept, 0, "a config's figure is no phase run's");
}

Test(sink, a_manifest_that_cannot_be_written_is_counted)
{
	char path[600];

	sink_save(&s);
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	cr_expect(strstr(e2e_read(path), "\"run_id\": \"r\""), "%s",
		  e2e_read(path));
	cr_expect_eq(s.write_errors, 0);
	s.dir = "/nonexistent/fsplan-sink";
	sink_save(&s);
	cr_expect_eq(s.write_errors, 1);
	/* a rewrite under a second after the last is left for later */
	sink_save_soon(&s);
	cr_expect_eq(s.write_errors, 1, "saved again within the second");
	s.dir = dir;
}

/* A Lua phase run's report as the child sends it, through the sink. */
static const char *lua_run(const char *report, const char **reason)
{
	struct child_result res = { .ok = 1, .report = (char *)report,
				    .report_len = strlen(report) };
	struct sink_outcome o = { .key = &key, .label = "ext4", .lua = 1,
				  .res = &res, .fs_used_bytes = -1,
				  .status = RES_OK };

	sink_phase_run(&s, &o);
	*reason = o.reason;
	return results_status_name(o.status);
}

/* The child refuses them (metrics_refuse); one forged past it is left
 * out and fails the run, named — never a row of fsplan's own. */
Test(sink, a_forged_row_on_the_wire_fails_the_run_by_name)
{
	static const struct { const char *report, *why; } cases[] = {
		{ "M seconds 1\nR status 7\nEND\n",
		  "report: 'status' is a row fsplan writes itself" },
		{ "M seconds 1\nR write_amp_a 0.1\nEND\n",
		  "report: 'write_amp_a' is a row fsplan writes itself" },
		{ "M seconds 1\nR read_path 1 ring\nEND\n",
		  "report: 'read_path' is a row fsplan writes itself" },
		{ "M seconds 1\nR x 1 =1+1\nEND\n",
		  "report: unit of 'x' ('=1+1') could start a spreadsheet "
		  "formula" },
		{ "M seconds 1\nC cpu_pct 5\nEND\n",
		  "counter: 'cpu_pct' is a row fsplan writes itself" },
		{ "M seconds 1\nO dev_read 4096\nH dev_read 1 5 5 5 5:1\nEND\n",
		  "op 'dev_read': its row 'dev_read_ops' is one fsplan "
		  "writes itself" },
	};
	const char *reason;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_expect_str_eq(lua_run(cases[i].report, &reason), "failed",
				 "%s", cases[i].report);
		cr_expect(reason && strstr(reason, cases[i].why), "%s: %s",
			  cases[i].report, reason);
	}
	/* one status row per run, each fsplan's */
	cr_expect_eq(e2e_count(dir, "status"), 6);
	cr_expect_eq(e2e_count(dir, "write_amp_a"), 0);
	cr_expect_eq(e2e_count(dir, "dev_read_ops"), 0);
}

Test(sink, a_parsers_forged_or_nan_row_fails_the_run_by_name)
{
	const char *reason;

	cr_expect_str_eq(phase_run("P steal_s 0\n", &reason), "failed");
	cr_expect_str_eq(reason, "parse: 'steal_s' is a row fsplan writes "
			 "itself");
	cr_expect_str_eq(phase_run("P x nan\n", &reason), "failed");
	cr_expect_str_eq(reason, "parse: value of 'x' is nan: a result must "
			 "be a finite number");
}

/* The child's own counters and a module's own names pass. */
Test(sink, legit_names_pass_and_integers_stay_integers)
{
	const char *reason;

	cr_assert_str_eq(lua_run("M seconds 2\nO write 10737418240\n"
				 "H write 1 5 5 5 5:1\nC rss_peak_kib 2048\n"
				 "R ops_per_s 12345 ops/s\nR big 12345678901234\n"
				 "R tenth 0.1\nR third 0.33333333333333331\n"
				 "R neg -3\nEND\n", &reason), "ok", "%s", reason);
	cr_expect_str_eq(e2e_metric(dir, "ext4/p#1", "ops_per_s"), "12345");
	cr_expect_str_eq(e2e_unit(dir, "ext4/p#1", "ops_per_s"), "ops/s");
	cr_expect_str_eq(e2e_metric(dir, "ext4/p#1", "big"),
			 "12345678901234");
	cr_expect_str_eq(e2e_metric(dir, "ext4/p#1", "tenth"), "0.1");
	cr_expect_str_eq(e2e_metric(dir, "ext4/p#1", "third"),
			 "0.3333333333333333");
	cr_expect_str_eq(e2e_metric(dir, "ext4/p#1", "neg"), "-3");
	cr_expect_str_eq(e2e_metric(dir, "ext4/p#1", "write_bytes"),
			 "10737418240");
	cr_expect_str_eq(e2e_metric(dir, "ext4/p#1", "write_ops"), "1");
	cr_expect_str_eq(e2e_metric(dir, "ext4/p#1", "rss_peak_kib"), "2048");
}

/* A reason is free text, a module's error among others: never a
 * formula in a spreadsheet. */
Test(sink, a_reason_that_looks_like_a_formula_is_quoted)
{
	struct sink_outcome o = { .key = &key, .label = "ext4",
				  .fs_used_bytes = -1, .status = RES_FAILED,
				  .reason = "=HYPERLINK(\"http://x\",\"y\")" };

	sink_phase_run(&s, &o);
	cr_expect_str_eq(e2e_reason(dir, "ext4/p#1"),
			 "'=HYPERLINK(\"http://x\",\"y\")");
}
