/* test_small32: what a newcomer hit — 0/1 booleans, --only label=, fio. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cells/select.h"
#include "e2e.h"
#include "scaleoutrun.h"
#include "helpers.h"

static void fini(void)
{
	e2e_cleanup();
}

/* A module whose check says which value its boolean flag reached Lua as. */
static const char flag_module[] =
	"return { params = { flag = false, want = 'x' },\n"
	"  check = function(ctx)\n"
	"    if tostring(ctx.params.flag) ~= ctx.params.want then\n"
	"      error('flag is ' .. tostring(ctx.params.flag), 0)\n"
	"    end\n"
	"  end,\n"
	"  worker = function(w, ctx) end,\n"
	"  report = function(r, ctx) return {} end }\n";

static int check_flag(const char *dir, const char *flag, const char *want)
{
	char text[512], *plan;

	snprintf(text, sizeof(text), "fsplan: 1\nname: b\n"
		 "target: {dir: %s}\nphases:\n  - use: flag.lua\n"
		 "    with: {flag: %s, want: %s}\n", dir, flag, want);
	plan = e2e_write(dir, "plan.yaml", text);
	return e2e_fsplan((const char *[]){ "check", plan, NULL });
}

/* ffsb's profiles write write_random=1: 0 and 1 are booleans as
 * true/false are, and reach the module as Lua's false and true. */
Test(small32, booleans_take_0_and_1, .fini = fini)
{
	const char *dir = e2e_tmpdir();

	e2e_write(dir, "flag.lua", flag_module);
	cr_expect_eq(check_flag(dir, "1", "'true'"), 0, "%s", e2e_err);
	cr_expect_eq(check_flag(dir, "'1'", "'true'"), 0, "%s", e2e_err);
	cr_expect_eq(check_flag(dir, "0", "'false'"), 0, "%s", e2e_err);
	cr_expect_eq(check_flag(dir, "yes", "'true'"), 0, "%s", e2e_err);
	cr_expect_eq(check_flag(dir, "false", "'false'"), 0, "%s", e2e_err);
	/* the module sees what was written, not always true */
	cr_expect_eq(check_flag(dir, "0", "'true'"), 2);
	cr_expect(strstr(e2e_err, "flag is false"), "%s", e2e_err);
	/* anything else is still an error, which says what is taken */
	cr_expect_eq(check_flag(dir, "2", "'true'"), 2);
	cr_expect(strstr(e2e_err, "'flag' is a boolean, not '2' (true/false, "
			 "yes/no, on/off or 1/0)"), "%s", e2e_err);
	cr_expect_eq(check_flag(dir, "'01'", "'true'"), 2, "%s", e2e_err);
	/* the library's ffsb, as its own profiles write it */
	cr_expect_eq(e2e_check_phase("[{type: ext4}]", "ffsb",
				     "write_random: 1, read_random: 0, "
				     "num_files: 4, write_weight: 1"), 0,
		     "%s", e2e_err);
}

static const char alternatives[] =
	"fsplan: 1\nname: alt\ntarget: {image: 30G}\n"
	"filesystems:\n"
	"  - type: ext4\n"
	"    mkfs: ['-I 256', '-I 512']\n"
	"    mount: [defaults, noatime]\n"
	"  - type: xfs\n"
	"phases:\n  - use: tree\n";

static int only(struct expansion *e, const char *filter, struct diag *d)
{
	const char *v[] = { filter };

	memset(d, 0, sizeof(*d));
	return select_cells(e, v, 1, 0, 0, d);
}

/* An entry of mkfs and mount alternatives labels each config
 * type:mkfs:mount: --only label=ext4 matches none of them, and the
 * error names the labels there are. */
Test(small32, only_label_names_the_labels)
{
	struct expansion *e = expand_text(alternatives, NULL, 0);
	struct diag d;

	cr_assert_eq(only(e, "label=ext4", &d), -1);
	cr_expect(strstr(d.msg, "no cell has label 'ext4'"), "%s", d.msg);
	cr_expect(strstr(d.msg, "'ext4:-I 256:defaults', 'ext4:-I 256:"
			 "noatime', 'ext4:-I 512:defaults', 'ext4:-I 512:"
			 "noatime', 'xfs'"), "%s", d.msg);
	/* a label there is selects its cells */
	cr_assert_eq(only(e, "label=ext4:-I 512:noatime", &d), 0, "%s",
		     d.msg);
	cr_expect_eq(e->n_selected, 1);
	/* any coordinate: the values it takes */
	cr_assert_eq(only(e, "type=ext3", &d), -1);
	cr_expect(strstr(d.msg, "type is one of 'ext4', 'xfs'"), "%s", d.msg);
	/* values that exist but never together: no error here, no cell */
	cr_assert_eq(only(e, "type=xfs,mount=noatime", &d), 0, "%s", d.msg);
	cr_expect_eq(e->n_selected, 0);
	free_expanded(e);
}

/* Of many values, those that hold the word and a count of the rest. */
Test(small32, only_label_of_many_names_the_nearest)
{
	char text[1024];
	struct expansion *e;
	struct diag d;

	snprintf(text, sizeof(text), "fsplan: 1\nname: many\n"
		 "target: {image: 30G}\nfilesystems:\n"
		 "  - type: ext4\n"
		 "    mkfs: ['-I 256', '-I 512', '-I 1024']\n"
		 "    mount: [defaults, noatime, relatime, nodiratime]\n"
		 "  - {type: xfs, mount: [defaults, noatime]}\n"
		 "phases:\n  - use: tree\n");
	e = expand_text(text, NULL, 0);
	cr_assert_eq(only(e, "label=ext4:-I 1024", &d), -1);
	cr_expect(strstr(d.msg, "'ext4:-I 1024:defaults', 'ext4:-I 1024:"
			 "noatime', 'ext4:-I 1024:relatime', 'ext4:-I 1024:"
			 "nodiratime' and 10 more (fsplan expand lists them)"),
		  "%s", d.msg);
	free_expanded(e);
}

/* A write-only fio job has no read figures: the report says which
 * figures the tool did not give, not that the key is misspelt. */
Test(small32, fio_write_only_says_what_is_missing, .fini = fini)
{
	const char *dir, *out;
	char rd[300], body[800];
	int rc;

	e2e_require_root();
	if (access("/usr/bin/fio", X_OK))
		cr_skip_test("no fio here (/usr/bin/fio)");
	dir = e2e_tmpdir();
	snprintf(body, sizeof(body), "target: {dir: %s}\n"
		 "phases:\n  - name: fio\n    exec: >-\n"
		 "      fio --name=job --filename=data --size=4M --rw=write\n"
		 "      --bs=64k --ioengine=psync --output-format=json\n"
		 "    parse: fio\n", dir);
	rc = e2e_run_plan(dir, "fw", body, rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s %s", rc, e2e_err, e2e_failed(rd));
	cr_expect_gt(e2e_num(rd, "dir/fio#1", "write_bw_mbs"), 0);
	cr_expect_null(e2e_metric(rd, "dir/fio#1", "read_bw_mbs"));
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", rd, NULL }), 0,
		     "%s", e2e_err);
	out = e2e_out;
	cr_expect(strstr(out, "no read or mixed figures (read_bw_mbs, "
			 "read_iops, mixed_bw_mbs, mixed_iops): the runs "
			 "reported write only"), "%s", out);
	cr_expect_null(strstr(out, "spelled"), "%s", out);
}

/* ---- examples/scale-out/parallel.sh ------------------------------------ */

/* -D and --only reach every shard: the merged run holds the bs=4k cells
 * only, each with count=2; three local jobs on two cores are warned of. */
Test(small32, parallel_passes_defines_and_filters, .fini = fini,
     .timeout = 100)
{
	char rd[600], path[700];
	const char *man;
	int rc;

	e2e_require_root();
	rc = scaleout("filters", "fixtures/shards.yaml");
	if (rc == 77)
		cr_skip_test("%s", log_text);
	cr_assert_eq(rc, 0, "scaleout.sh filters: exit %d:\n%s", rc, log_text);
	snprintf(rd, sizeof(rd), "%s/filters/merged", e2e_tmpdir());
	cr_expect_eq(e2e_count(rd, "status"), 6, "3 configs x bs=4k x 2 "
		     "repeats, not bs=64k nor bad:\n%s", log_text);
	cr_expect_str_eq(e2e_metric(rd, "tmpfs::size=8M/write/bs=4k#2",
				    "status"), "ok");
	cr_expect_null(e2e_metric(rd, "tmpfs::size=8M/write/bs=64k#1",
				  "status"));
	snprintf(path, sizeof(path), "%s/manifest.json", rd);
	man = e2e_read(path);
	cr_expect(strstr(man, "count=2"), "-D count=2 is not in:\n%s", man);
	/* a filter that leaves shards empty: they are not run */
	snprintf(rd, sizeof(rd), "%s/filters/one/merged", e2e_tmpdir());
	cr_expect_eq(e2e_count(rd, "status"), 5, "size=8M: 2 bs x 2 repeats "
		     "and bad:\n%s", log_text);
	cr_expect(strstr(log_text, "shard 3/3 holds no cell the filters keep"),
		  "%s", log_text);
	cr_expect(strstr(log_text, "fsplan merge: 1 shard,"), "%s", log_text);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 3)
		cr_expect(strstr(log_text, "warning: 3 local jobs on"), "%s",
			  log_text);
	else
		cr_expect_null(strstr(log_text, "warning: 3 local jobs on"),
			       "%s", log_text);
}

/* ssh mode ships what the plan uses: a module by path outside the
 * plan's directory and the exec/ script beside it, which the hosts run
 * (an ssh of the test's own: the hosts are directories here). */
Test(small32, parallel_ssh_ships_the_modules, .fini = fini, .timeout = 100)
{
	const char *dir;
	char path[600], rd[600];
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	snprintf(path, sizeof(path), "%s/mods", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	strcat(path, "/exec");
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/plans", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	e2e_write(dir, "mods/mine.lua", "return { params = { events = 7 }, "
		  "exec = 'mine.sh', parse = 'sysbench', "
		  "key = { 'events' } }\n");
	e2e_write(dir, "mods/exec/mine.sh", "echo 'General statistics:'\n"
		  "echo \"    total time: 1.5s\"\n"
		  "echo \"    total number of events: $FSPLAN_P_events\"\n");
	e2e_write(path, "p.yaml", "fsplan: 1\nname: p\n"
		  "filesystems:\n"
		  "  - {type: tmpfs, mount: [size=8M, size=16M]}\n"
		  "phases:\n  - {use: ../mods/mine.lua, name: mine, "
		  "with: {events: 12}}\n");
	strcat(path, "/p.yaml");
	rc = scaleout("ssh", path);
	if (rc == 77)
		cr_skip_test("%s", log_text);
	cr_assert_eq(rc, 0, "scaleout.sh ssh: exit %d:\n%s", rc, log_text);
	snprintf(rd, sizeof(rd), "%s/ssh/merged", dir);
	cr_expect_eq(e2e_num(rd, "tmpfs::size=8M/mine#1", "events"), 12);
	cr_expect_eq(e2e_num(rd, "tmpfs::size=16M/mine#1", "events"), 12);
	cr_expect(strstr(log_text, "fsplan merge: 2 shards"), "%s", log_text);
}

/* What ssh mode ships, as --files lists it: the plan, a module by path
 * with its exec/ script, a phase's files: and a file beside the plan
 * that an exec names; not a library module nor a word that is no file. */
Test(small32, parallel_files_lists_what_the_plan_uses, .fini = fini)
{
	const char *dir = e2e_tmpdir();
	char path[600], cmd[800];
	size_t n = 0;
	FILE *p;

	snprintf(path, sizeof(path), "%s/exec", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	e2e_write(dir, "mine.lua", "return { exec = \"mine.sh\", "
		  "parse = 'sysbench' }\n");
	e2e_write(dir, "exec/mine.sh", "true\n");
	e2e_write(dir, "job.fio", "[job]\n");
	e2e_write(dir, "words.txt", "a\n");
	snprintf(path, sizeof(path), "%s", e2e_write(dir, "p.yaml",
		 "fsplan: 1\nname: p\nphases:\n"
		 "  - use: ./mine.lua\n  - use: bonnie\n"
		 "  - name: f\n    exec: fio job.fio --rw=${rw} output\n"
		 "    parse: fio\n    files: [words.txt]\n"
		 "    matrix: {rw: [read]}\n"));
	snprintf(cmd, sizeof(cmd), "bash ../examples/scale-out/parallel.sh "
		 "--files '%s' 2>&1", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (n + 1 < sizeof(log_text) &&
	       fgets(log_text + n, (int)(sizeof(log_text) - n), p))
		n += strlen(log_text + n);
	cr_assert_eq(pclose(p), 0, "%s", log_text);
	cr_expect_str_eq(log_text, "p.yaml\nmine.lua\nexec/mine.sh\n"
			 "words.txt\njob.fio\n");
}
