/* test_run: `fsplan run` end to end as root on loop images — lifecycle,
 * privileges, signals. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "util/clock.h"
#include "util/strbuf.h"

static void fini(void)
{
	e2e_cleanup();
}

/* Run a plan text into dir/run; returns the exit status. */
static int run_plan(const char *text, char *rundir, size_t len)
{
	const char *dir = e2e_tmpdir();
	char *plan = e2e_write(dir, "plan.yaml", text);

	snprintf(rundir, len, "%s/run", dir);
	return e2e_fsplan((const char *[]){ "run", plan, "-o", rundir, "-q",
					    NULL });
}

static void expect_clean(const char *dir)
{
	cr_expect_eq(e2e_mounted_under(dir), 0, "something is still mounted "
		     "under %s", dir);
	cr_expect_eq(e2e_loops_under(dir), 0, "a loop device is still backed "
		     "by an image under %s", dir);
}

Test(run, four_filesystems_end_to_end, .fini = fini, .timeout = 120)
{
	char rd[256], out[512];
	int rc;

	e2e_require_root();
	rc = run_plan("fsplan: 1\n"
		      "target: {image: 512M}\n"
		      "between: [sync, drop_caches]\n"
		      "filesystems:\n"
		      "  - {type: ext4, mkfs: -b 4096, mount: noatime}\n"
		      "  - {type: xfs}\n"
		      "  - {type: btrfs, mount: 'compress=zstd'}\n"
		      "  - {type: tmpfs, mount: size=64M}\n"
		      "phases:\n"
		      "  - name: write\n"
		      "    exec: dd if=/dev/zero of=f bs=64k count=16 "
		      "conv=fsync status=none && stat -f -c %T .\n"
		      "  - name: read\n"
		      "    exec: cmp -n 1048576 f /dev/zero\n", rd, sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	for (int i = 0; i < 4; i++) {
		const char *label = i == 0 ? "ext4:-b 4096:noatime" :
				    i == 2 ? "btrfs::compress=zstd" :
				    i == 3 ? "tmpfs::size=64M" : "xfs";
		char cell[128];

		snprintf(cell, sizeof(cell), "%s/write#1", label);
		cr_expect_str_eq(e2e_metric(rd, cell, "status"), "ok",
				 "%s: %s", cell, e2e_reason(rd, cell));
		snprintf(cell, sizeof(cell), "%s/read#1", label);
		cr_expect_str_eq(e2e_metric(rd, cell, "status"), "ok",
				 "%s: %s", cell, e2e_reason(rd, cell));
		cr_expect_not_null(e2e_metric(rd, cell, "seconds"));
		cr_expect_not_null(e2e_metric(rd, cell, "cpu_pct"));
		cr_expect_not_null(e2e_metric(rd, cell, "fs_used_bytes"));
		cr_expect_not_null(e2e_metric(rd, label, "mount_s"), "%s",
				   label);
		cr_expect_not_null(e2e_metric(rd, label, "umount_s"));
	}
	cr_expect_eq(e2e_count(rd, "mkfs_s"), 3, "tmpfs has no mkfs");
	cr_expect(strstr(e2e_read(strcat(strcpy(out, rd), "/manifest.json")),
			 "\"status\": \"complete\""));
	expect_clean(e2e_tmpdir());
}

Test(run, phases_see_their_filesystem_type, .fini = fini, .timeout = 120)
{
	static const char *const want[] = { "ext2/ext3", "xfs", "btrfs",
					    "tmpfs" };
	char rd[256], path[512];
	int rc;

	e2e_require_root();
	rc = run_plan("fsplan: 1\n"
		      "target: {image: 512M}\n"
		      "between: none\n"
		      "filesystems: [{type: ext4}, {type: xfs}, {type: btrfs},"
		      " {type: tmpfs}]\n"
		      "phases: [{name: fstype, exec: 'stat -f -c %T .'}]\n",
		      rd, sizeof(rd));
	cr_expect_eq(rc, 0, "%s", e2e_err);
	for (int i = 0; i < 4; i++) {
		static const char *const label[] = { "ext4", "xfs", "btrfs",
						     "tmpfs" };

		snprintf(path, sizeof(path), "%s/exec/%06d-%s_fstype_1.out", rd,
			 i + 1, label[i]);
		cr_expect(!strncmp(e2e_read(path), want[i], strlen(want[i])),
			  "%s: %s", path, e2e_read(path));
	}
	cr_expect(strstr(e2e_read(strcat(strcpy(path, rd), "/manifest.json")),
			 "\"mount_applied\": \"rw,relatime rw,inode64"),
		  "xfs's applied options are recorded");
}

Test(run, exec_phase_holds_no_privileges, .fini = fini, .timeout = 60)
{
	char rd[256], path[512];
	const char *out;
	int rc;

	e2e_require_root();
	rc = run_plan("fsplan: 1\n"
		      "target: {image: 64M}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - name: status\n"
		      "    exec: id -u; grep -E '^(Cap|NoNewPrivs|Groups)' "
		      "/proc/self/status\n"
		      "  - name: tryroot\n"
		      "    exec: >-\n"
		      "      for a in --reuid=0 --regid=0 --clear-groups; do\n"
		      "      setpriv $$a true 2>/dev/null && echo \"$$a WORKED\";"
		      " done; echo done\n",
		      rd, sizeof(rd));
	cr_expect_eq(rc, 0, "%s", e2e_err);
	snprintf(path, sizeof(path), "%s/exec/000001-ext4_status_1.out", rd);
	out = e2e_read(path);
	cr_expect(strncmp(out, "0\n", 2), "the phase ran as root:\n%s", out);
	cr_expect(strstr(out, "\nGroups:\t \n") || strstr(out, "\nGroups:\t\n"),
		  "supplementary groups remain:\n%s", out);
	for (int i = 0; i < 5; i++) {
		static const char *const caps[] = { "CapInh", "CapPrm",
						    "CapEff", "CapBnd",
						    "CapAmb" };
		char want[64];

		snprintf(want, sizeof(want), "%s:\t0000000000000000", caps[i]);
		cr_expect(strstr(out, want), "%s not zero:\n%s", caps[i], out);
	}
	cr_expect(strstr(out, "NoNewPrivs:\t1"), "%s", out);
	snprintf(path, sizeof(path), "%s/exec/000002-ext4_tryroot_1.out", rd);
	cr_expect_str_eq(e2e_read(path), "done\n");
}

Test(run, runas_root_is_refused, .fini = fini)
{
	char rd[256];

	e2e_require_root();
	cr_expect_eq(run_plan("fsplan: 1\nrunas: root\n"
			      "filesystems: [{type: ext4}]\n"
			      "phases: [{exec: 'true'}]\n", rd, sizeof(rd)), 2);
	cr_expect(strstr(e2e_err, "refused"), "%s", e2e_err);
	cr_expect(access(rd, F_OK), "a run directory was made");
}

Test(run, timeout_kills_the_phase_group, .fini = fini, .timeout = 60)
{
	char rd[256];
	const char *secs;
	int rc;

	e2e_require_root();
	rc = run_plan("fsplan: 1\n"
		      "target: {image: 64M}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - name: hang\n"
		      "    exec: trap '' TERM; sleep 60.17 & sleep 61.17\n"
		      "    timeout: 1s\n"
		      "  - name: after\n"
		      "    exec: 'true'\n", rd, sizeof(rd));
	cr_expect_eq(rc, 1, "a failed phase run exits 1, got %d", rc);
	cr_expect_str_eq(e2e_metric(rd, "ext4/hang#1", "status"), "failed");
	cr_expect(strstr(e2e_reason(rd, "ext4/hang#1"), "timeout"));
	secs = e2e_metric(rd, "ext4/hang#1", "seconds");
	cr_expect(secs && atof(secs) < 5, "took %s s", secs);
	cr_expect_str_eq(e2e_metric(rd, "ext4/after#1", "status"), "ok");
	/* tokens no other process on the machine is likely to carry */
	cr_expect_eq(e2e_processes_with("sleep 60.17"), 0, "a sleep survived");
	cr_expect_eq(e2e_processes_with("sleep 61.17"), 0, "a sleep survived");
	expect_clean(e2e_tmpdir());
}

/* The reason of cell starts with the plan's path, then want. */
static void expect_reason(const char *rd, const char *cell, const char *want)
{
	const char *why = e2e_reason(rd, cell);
	char start[600];

	snprintf(start, sizeof(start), "%s/%s", e2e_tmpdir(), want);
	cr_expect(why && !strncmp(why, start, strlen(start)),
		  "%s: '%s' does not start with '%s'", cell, why, start);
}

/* A phase that refuses a parameter names it; the status reason then
 * points at the value in the plan, for a with value and for the matrix
 * value of each cell. An error with a place of its own keeps it. */
Test(run, a_refusal_points_at_the_plan_value, .fini = fini, .timeout = 60)
{
	char rd[256], *reason;
	const char *why;
	int rc;

	e2e_require_root();
	/* a module's check refuses the plan at the value, before any mkfs */
	rc = run_plan("fsplan: 1\n"
		      "target: {image: 64M}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - name: modes\n"
		      "    use: tiobench\n"
		      "    with: {file_size: 16M, ram: 8M}\n"
		      "    matrix:\n"
		      "      mode: [seq_read, upwards]\n", rd, sizeof(rd));
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "plan.yaml:9:24: phase 'modes', cell "
			 "ext4/modes/mode=upwards#1: mode 'upwards'"), "%s",
		  e2e_err);
	cr_expect_eq(access(rd, F_OK), -1, "a refused plan made %s", rd);
	/* a module without a check refuses in its setup: a message that
	 * names a parameter points at its value; an error with a place of
	 * its own keeps it */
	e2e_write(e2e_tmpdir(), "placed.lua",
		  "return { params = { n = 1 },\n"
		  "  setup = function(ctx, w) error('n: not 2', 0) end,\n"
		  "  worker = function(w, ctx) end }\n");
	e2e_write(e2e_tmpdir(), "boom.lua",
		  "return { params = { n = 1 },\n"
		  "  setup = function(ctx, w) error('n is not welcome') end,\n"
		  "  worker = function(w, ctx) end }\n");
	rc = run_plan("fsplan: 1\n"
		      "target: {image: 64M}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - use: placed.lua\n"
		      "    with: {n: 2}\n"
		      "  - use: boom.lua\n"
		      "    with: {n: 2}\n", rd, sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d: %s", rc, e2e_err);
	expect_reason(rd, "ext4/placed#1", "plan.yaml:6:15: setup: n: not 2");
	why = e2e_reason(rd, "ext4/boom#1");
	reason = why ? strdup(why) : NULL;
	cr_expect(reason && strstr(reason, "setup: ") == reason &&
		  strstr(reason, "boom.lua:2: n is not welcome"), "%s", reason);
	free(reason);
}

/* A plan error the phase check finds crosses from the check's child to
 * the run with its place, its source line and its caret. */
Test(run, a_checked_value_keeps_its_place, .fini = fini, .timeout = 60)
{
	char rd[256];
	int rc;

	e2e_require_root();
	e2e_write(e2e_tmpdir(), "count.lua",
		  "return { params = { n = 1 },\n"
		  "  worker = function(w, ctx) end }\n");
	rc = run_plan("fsplan: 1\n"
		      "target: {image: 64M}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - use: count.lua\n"
		      "    with: {n: lots}\n", rd, sizeof(rd));
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "/plan.yaml:6:15: phase 'count': 'n' is a "),
		  "%s", e2e_err);
	cr_expect(strstr(e2e_err, "\n      with: {n: lots}\n"
				  "                ^"), "%s", e2e_err);
	cr_expect(access(rd, F_OK), "a run directory was made");
}

Test(run, missing_kernel_type_is_skipped, .fini = fini, .timeout = 60)
{
	char rd[256];
	int rc;

	e2e_require_root();
	rc = run_plan("fsplan: 1\n"
		      "target: {image: 64M}\n"
		      "filesystems: [{type: jfs}, {type: ext4}]\n"
		      "phases: [{exec: 'true'}]\n", rd, sizeof(rd));
	cr_expect_eq(rc, 0, "%s", e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "jfs/true#1", "status"), "skipped");
	cr_expect(strstr(e2e_reason(rd, "jfs/true#1"), "no jfs"), "%s",
		  e2e_reason(rd, "jfs/true#1"));
	cr_expect_str_eq(e2e_metric(rd, "ext4/true#1", "status"), "ok");
}

static int wait_for_file(const char *path, double secs)
{
	for (double t = 0; t < secs; t += 0.05) {
		if (e2e_read(path)[0])
			return 0;
		usleep(50000);
	}
	return -1;
}

/* Each signal's test has its own sleep, marked with the test process's
 * pid as well, so parallel tests — and another suite on the machine —
 * cannot mistake one another's processes for survivors. */
static const char stubborn_plan[] =
	"fsplan: 1\n"
	"target: {image: 64M}\n"
	"between: none\n"
	"repeat: 2\n"
	"filesystems: [{type: ext4, mount: [defaults, noatime]}]\n"
	"phases:\n"
	"  - name: stubborn\n"
	"    exec: trap '' TERM INT; echo started; sleep 3.0%d%05d & wait\n";

static void interrupt_then_resume(int sig)
{
	const char *dir = e2e_tmpdir();
	char text[sizeof(stubborn_plan) + 32], token[48], rd[256], first[512];
	char *plan;
	int status, rc, mark = (int)(getpid() % 100000);
	pid_t pid;

	snprintf(text, sizeof(text), stubborn_plan, sig, mark);
	snprintf(token, sizeof(token), "sleep 3.0%d%05d", sig, mark);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	snprintf(first, sizeof(first), "%s/exec/000001-ext4__defaults_"
		 "stubborn_1.out", rd);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
					      "--workdir", dir, NULL });
	cr_assert_eq(wait_for_file(first, 20), 0, "the phase never started");
	kill(pid, sig);
	waitpid(pid, &status, 0);
	if (sig == SIGKILL)
		cr_expect(WIFSIGNALED(status));
	else
		cr_expect_eq(WEXITSTATUS(status), 128 + sig);
	/* within seconds: nothing mounted, attached or running */
	for (int i = 0; i < 40 && (e2e_mounted_under(dir) ||
				   e2e_loops_under(dir) ||
				   e2e_processes_with(token)); i++)
		usleep(100000);
	expect_clean(dir);
	cr_expect_eq(e2e_processes_with(token), 0, "the phase survived");
	cr_expect_null(e2e_metric(rd, "ext4::defaults/stubborn#1", "status"),
		       "an unfinished phase run was recorded");
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
					  "--workdir", dir, NULL });
	cr_expect_eq(rc, 0, "resume: %s", e2e_err);
	cr_expect_eq(e2e_count(rd, "status"), 4);
	cr_expect_str_eq(e2e_metric(rd, "ext4::noatime/stubborn#2", "status"),
			 "ok");
	if (sig == SIGKILL)
		cr_expect(strstr(e2e_read(strcat(rd, "/log.txt")),
				 "removed stale images"),
			  "the next run did not clear the killed run's image");
	expect_clean(dir);
}

Test(run, sigint_cleans_up_and_resume_completes, .fini = fini,
     .timeout = 90)
{
	e2e_require_root();
	interrupt_then_resume(SIGINT);
}

Test(run, sigterm_cleans_up_and_resume_completes, .fini = fini,
     .timeout = 90)
{
	e2e_require_root();
	interrupt_then_resume(SIGTERM);
}

Test(run, sigkill_leaves_nothing_and_resume_completes, .fini = fini,
     .timeout = 90)
{
	e2e_require_root();
	interrupt_then_resume(SIGKILL);
}

/*
 * A stop during a config's setup hook stops the hook (a second's grace,
 * then SIGKILL) instead of waiting out its hour, and fails nothing: the
 * config is interrupted, and the resume makes it. The hook sleeps only
 * the first time.
 */
Test(run, a_stop_cuts_a_setup_hook_short_and_fails_nothing, .fini = fini,
     .timeout = 90)
{
	const char *dir = e2e_tmpdir();
	char text[512], rd[300], log[320], token[48];
	const char *plan;
	double t;
	int status, tries = 0, mark = (int)(getpid() % 100000);
	pid_t pid;

	e2e_require_root();
	snprintf(token, sizeof(token), "sleep 60.%05d", mark);
	snprintf(text, sizeof(text),
		 "fsplan: 1\n"
		 "target: {image: 64M}\n"
		 "filesystems:\n"
		 "  - type: ext4\n"
		 "    setup: test -e %s/slept || { touch %s/slept; %s; }\n"
		 "phases: [{name: t, exec: 'true'}]\n", dir, dir, token);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	snprintf(log, sizeof(log), "%s/log.txt", rd);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
					      NULL });
	cr_assert_gt(pid, 0);
	while (!e2e_processes_with(token) && tries++ < 400)
		usleep(50000);
	cr_assert(tries < 400, "the hook never ran:\n%s", e2e_read(log));
	t = clock_now();
	kill(pid, SIGTERM);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	t = clock_now() - t;
	cr_expect_eq(WEXITSTATUS(status), 143);
	cr_expect_lt(t, 10, "the stop waited %.1f s for the hook", t);
	cr_expect_eq(e2e_processes_with(token), 0, "the hook survived");
	cr_expect_null(e2e_metric(rd, "ext4/t#1", "status"),
		       "the stop recorded the cell:\n%s", e2e_read(log));
	snprintf(text, sizeof(text), "%s/manifest.json", rd);
	cr_expect(strstr(e2e_read(text), "\"interrupted\""), "%s",
		  e2e_read(text));
	cr_expect(strstr(e2e_read(log), "0 ok, 0 failed, 0 skipped "
			 "(interrupted: 1 not run; --resume continues)"), "%s",
		  e2e_read(log));
	cr_assert_eq(e2e_fsplan((const char *[]){ "run", plan, "--resume", rd,
						  "-q", NULL }), 0, "%s",
		     e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "ext4/t#1", "status"), "ok");
	expect_clean(dir);
}

/*
 * A resume selects what the run did: its --shard and its -D, without
 * their being given again; given otherwise, the resume is refused. The
 * phase prints ${secs}: what the resumed cell ran with.
 */
Test(run, a_resume_keeps_the_runs_shard_and_defines, .fini = fini,
     .timeout = 90)
{
	const char *dir = e2e_tmpdir(), *plan;
	char rd[300], log[320], out[400];
	int status, rc, tries = 0;
	pid_t pid;

	e2e_require_root();
	plan = e2e_write(dir, "plan.yaml",
			 "fsplan: 1\n"
			 "params: {secs: 9}\n"
			 "target: {image: 64M}\n"
			 "repeat: 2\n"
			 "filesystems: [{type: ext4, mount: [defaults, noatime, "
			 "relatime]}]\n"
			 "phases: [{name: nap, exec: 'echo ${secs}; sleep 1'}]\n");
	snprintf(rd, sizeof(rd), "%s/run", dir);
	snprintf(log, sizeof(log), "%s/log.txt", rd);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
					      "--shard", "2/2", "-D",
					      "secs=0.25", NULL });
	cr_assert_gt(pid, 0);
	while (!strstr(e2e_read(log), "ext4::noatime/nap#1: run") &&
	       tries++ < 400)
		usleep(50000);
	kill(pid, SIGTERM);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(tries < 400, "the phase never ran:\n%s", e2e_read(log));
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
					  "-D", "secs=1", NULL });
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "the run was started with -D secs=0.25 "
			 "--shard 2/2, not -D secs=1"), "%s", e2e_err);
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
					  NULL });
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_eq(e2e_count(rd, "status"), 2, "only the shard's cells");
	cr_expect_str_eq(e2e_metric(rd, "ext4::noatime/nap#2", "status"), "ok");
	cr_expect_null(e2e_metric(rd, "ext4::defaults/nap#1", "status"));
	snprintf(out, sizeof(out), "%s/exec/000004-ext4__noatime_nap_2.out",
		 rd);
	cr_expect_str_eq(e2e_read(out), "0.25\n", "the resume ran with "
			 "secs %s", e2e_read(out));
	expect_clean(dir);
}

/* A refused run leaves no run directory behind: the same command, put
 * right, then runs. */
Test(run, a_refused_run_leaves_no_run_directory, .fini = fini)
{
	char rd[300];
	const char *plan = e2e_write(e2e_tmpdir(), "plan.yaml",
				     "fsplan: 1\n"
				     "filesystems: [{type: ext4}]\n"
				     "phases: [{exec: 'true'}]\n");
	int rc;

	e2e_require_root();
	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					  "--workdir", "/nonesuch/dir", NULL });
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "--workdir /nonesuch/dir: no such "
			 "directory"), "%s", e2e_err);
	cr_expect_eq(access(rd, F_OK), -1, "%s was made", rd);
}

/* A failed exec phase's reason: its stderr's first complaint and its
 * last line (a usage text or a summary after the cause), or the last
 * line alone when nothing reads as one. */
Test(run, an_exec_failure_names_the_complaint_and_the_last_line,
     .fini = fini, .timeout = 60)
{
	char rd[256];
	const char *why;
	int rc;

	e2e_require_root();
	rc = run_plan("fsplan: 1\n"
		      "target: {image: 64M}\n"
		      "filesystems: [{type: ext4}]\n"
		      "phases:\n"
		      "  - name: usage\n"
		      "    exec: \"echo 'size should be twice RAM' >&2; "
		      "echo 'usage: tool [-s size]' >&2; echo 'Version: 1' >&2; "
		      "exit 1\"\n"
		      "  - name: plain\n"
		      "    exec: \"echo working >&2; echo 'gave up' >&2; "
		      "exit 3\"\n", rd, sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d: %s", rc, e2e_err);
	why = e2e_reason(rd, "ext4/usage#1");
	cr_expect(why && !strcmp(why, "exit status 1: size should be twice "
				 "RAM; last: Version: 1"), "%s", why);
	why = e2e_reason(rd, "ext4/plain#1");
	cr_expect(why && !strcmp(why, "exit status 3: gave up"), "%s", why);
}

/* FSPLAN_SEED: from the plan's seed and the repetition, the same in a
 * re-run, another for another repetition or seed. */
Test(run, an_exec_phase_has_the_runs_seed, .fini = fini, .timeout = 60)
{
	char rd[256], out[2][3][400];
	const char *seeds[] = { "7", "7", "8" };

	e2e_require_root();
	for (int run = 0; run < 3; run++) {
		char text[256];

		snprintf(text, sizeof(text), "fsplan: 1\nseed: %s\n"
			 "target: {image: 64M}\nrepeat: 2\n"
			 "filesystems: [{type: ext4}]\n"
			 "phases: [{name: s, exec: 'echo $FSPLAN_SEED'}]\n",
			 seeds[run]);
		cr_assert_eq(run_plan(text, rd, sizeof(rd)), 0, "%s", e2e_err);
		for (int k = 0; k < 2; k++) {
			char path[300];

			snprintf(path, sizeof(path), "%s/exec/%06d-ext4_s_%d.out",
				 rd, k + 1, k + 1);
			snprintf(out[k][run], sizeof(out[k][run]), "%s",
				 e2e_read(path));
			cr_expect(atol(out[k][run]) > 0, "%s: '%s'", path,
				  out[k][run]);
		}
		e2e_cleanup();
	}
	cr_expect_str_eq(out[0][0], out[0][1], "a re-run has the same seed");
	cr_expect_str_neq(out[0][0], out[1][0], "repetitions differ");
	cr_expect_str_neq(out[0][0], out[0][2], "another plan seed differs");
}

Test(run, ten_cells_leave_the_system_as_found, .fini = fini, .timeout = 120)
{
	const char *dir;
	char rd[256], before[4096], after[4096], cmd[768];
	FILE *f;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	/* Other tests run beside this one in their own /tmp directories,
	 * so /tmp as a whole is no measure: mounts, loops, images anywhere
	 * under /tmp and /var/tmp, and what is beside the run directory. */
	snprintf(cmd, sizeof(cmd), "{ findmnt -rn -o TARGET,SOURCE; "
		 "losetup -a; find /tmp /var/tmp -maxdepth 3 -name "
		 "'fsplan-*.img'; } | "
		 "grep -v 'fsplan-e2e-\\|fsplan-test-\\|fsplan-cli-' | sort");
	f = popen(cmd, "r");
	before[fread(before, 1, sizeof(before) - 1, f)] = '\0';
	pclose(f);
	rc = run_plan("fsplan: 1\n"
		      "target: {image: 64M}\n"
		      "between: [sync, drop_caches, remount]\n"
		      "filesystems:\n"
		      "  - {type: ext4, mount: [defaults, noatime]}\n"
		      "  - {type: ext2}\n"
		      "  - {type: tmpfs}\n"
		      "phases:\n"
		      "  - {name: a, exec: 'echo x > f'}\n"
		      "  - {name: b, exec: 'cat f', repeat: 2}\n"
		      "exclude: [{type: tmpfs, phase: b}]\n", rd, sizeof(rd));
	cr_expect_eq(rc, 0, "%s", e2e_err);
	cr_expect_eq(e2e_count(rd, "status"), 10);
	f = popen(cmd, "r");
	after[fread(after, 1, sizeof(after) - 1, f)] = '\0';
	pclose(f);
	cr_expect_str_eq(after, before);
	expect_clean(dir);
	/* beside the run directory: the plan, nothing else (no images) */
	snprintf(cmd, sizeof(cmd), "ls -A %s | tr '\\n' ' '", dir);
	f = popen(cmd, "r");
	after[fread(after, 1, sizeof(after) - 1, f)] = '\0';
	pclose(f);
	cr_expect_str_eq(after, "plan.yaml run ");
	/* only the run's own files stay in the run directory */
	snprintf(cmd, sizeof(cmd), "ls -A %s | tr '\\n' ' '", rd);
	f = popen(cmd, "r");
	after[fread(after, 1, sizeof(after) - 1, f)] = '\0';
	pclose(f);
	cr_expect_str_eq(after, "exec histograms.csv log.txt manifest.json "
			 "results.csv timeseries.csv ");
}

Test(run, target_dir_runs_in_a_fresh_subdirectory, .fini = fini,
     .timeout = 60)
{
	char rd[256], scratch[300], text[1024], path[600];
	int rc;

	e2e_require_root();
	/* a directory runas can reach, so the subdirectory is made right
	 * there and `..` is the target's (firstrun has a private one) */
	snprintf(scratch, sizeof(scratch), "/tmp/fsplan-scratch-XXXXXX");
	cr_assert_not_null(mkdtemp(scratch));
	chmod(scratch, 0755);
	e2e_write(scratch, "keep.txt", "the user's file\n");
	snprintf(text, sizeof(text),
		 "fsplan: 1\n"
		 "target: {dir: %s}\n"
		 "between: [sync, remount]\n"
		 "phases:\n"
		 "  - {name: make, exec: 'mkdir -p a/b && echo x > a/b/f && "
		 "ln -s /etc/passwd link && pwd'}\n"
		 "  - {name: look, exec: 'ls ../keep.txt; cat a/b/f'}\n",
		 scratch);
	rc = run_plan(text, rd, sizeof(rd));
	cr_expect_eq(rc, 0, "%s", e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "dir/make#1", "status"), "ok");
	cr_expect_str_eq(e2e_metric(rd, "dir/look#1", "status"), "ok");
	snprintf(path, sizeof(path), "%s/exec/000002-dir_look_1.out", rd);
	cr_expect_str_eq(e2e_read(path), "../keep.txt\nx\n");
	/* the subdirectory is gone, the user's file and /etc/passwd stay */
	snprintf(path, sizeof(path), "ls -A %s", scratch);
	{
		FILE *f = popen(path, "r");
		char buf[256] = "";

		buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
		pclose(f);
		cr_expect_str_eq(buf, "keep.txt\n");
	}
	cr_expect_eq(access("/etc/passwd", F_OK), 0);
	snprintf(path, sizeof(path), "rm -rf '%s'", scratch);
	cr_expect_eq(system(path), 0);
}

Test(run, setup_and_teardown_hooks_run_as_root, .fini = fini,
     .timeout = 60)
{
	const char *dir;
	char rd[256], text[1024], path[600];
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	snprintf(text, sizeof(text),
		 "fsplan: 1\n"
		 "target: {image: 64M}\n"
		 "filesystems:\n"
		 "  - type: ext4\n"
		 "    setup: id -u > %s/setup.txt; echo $FSPLAN_DEV >> "
		 "%s/setup.txt\n"
		 "    teardown: echo $FSPLAN_TYPE > %s/teardown.txt\n"
		 "phases: [{exec: 'true'}]\n", dir, dir, dir);
	rc = run_plan(text, rd, sizeof(rd));
	cr_expect_eq(rc, 0, "%s", e2e_err);
	snprintf(path, sizeof(path), "%s/setup.txt", dir);
	cr_expect(!strncmp(e2e_read(path), "0\n/dev/loop", 11), "%s",
		  e2e_read(path));
	snprintf(path, sizeof(path), "%s/teardown.txt", dir);
	cr_expect_str_eq(e2e_read(path), "ext4\n");
}

/* How many times needle is in hay. */
/* The position of the first line of log holding s, or -1. */
static long log_at(const char *log, const char *s)
{
	const char *p = strstr(log, s);

	return p ? p - log : -1;
}

/*
 * order: rounds runs repetition k of every config in round k, each
 * filesystem made anew, the first config of round k the k-th: each
 * round's read finds its own write alone (a file a line longer per
 * repetition would say the filesystem was kept), and the log shows the
 * rotation. The cells are those of order: configs.
 */
/*
 * order: rounds with a stop rule: the rule sees a cell's repetitions so
 * far, round by round, and a cell it ended sits the later rounds out,
 * except as the unrecorded start of a later phase that needs its file
 * (each round's config is made anew).
 */
Test(run, order_rounds_takes_a_stop_rule, .fini = fini, .timeout = 120)
{
	char rd[256], path[300];
	const char *log;
	int rc;

	e2e_require_root();
	/* w's seconds vary by milliseconds, and by a tenth of a second when
	 * the machine is loaded: a 90% interval is still met at 2 */
	rc = run_plan("fsplan: 1\n"
		      "target: {image: 64M}\n"
		      "order: rounds\n"
		      "filesystems: [{type: ext4, mount: [defaults, "
		      "noatime]}]\n"
		      "phases:\n"
		      "  - {name: w, exec: 'sleep 1; echo x > f', "
		      "repeat: {min: 2, max: 4, ci: 90%}}\n"
		      "  - {name: r, exec: 'test -f f', repeat: 4}\n",
		      rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s\n%s", rc, e2e_err, e2e_failed(rd));
	for (int j = 0; j < 2; j++) {
		const char *conf = j ? "ext4::noatime" : "ext4::defaults";
		char cell[64];

		snprintf(cell, sizeof(cell), "%s/w#2", conf);
		cr_expect_str_eq(e2e_metric(rd, cell, "stop_reason"), "ci",
				 "%s", cell);
		snprintf(cell, sizeof(cell), "%s/w#3", conf);
		cr_expect_null(e2e_metric(rd, cell, "status"),
			       "%s was recorded after its rule was met", cell);
		for (int k = 1; k <= 4; k++) {
			snprintf(cell, sizeof(cell), "%s/r#%d", conf, k);
			cr_expect_str_eq(e2e_metric(rd, cell, "status"), "ok",
					 "%s: %s", cell, e2e_reason(rd, cell));
		}
	}
	snprintf(path, sizeof(path), "%s/log.txt", rd);
	log = e2e_read(path);
	cr_expect(strstr(log, "ext4::noatime/w#4: ran unrecorded (ok)"),
		  "%s", log);
	cr_expect(strstr(log, "4 ran unrecorded (for the later phases of "
			 "their round)"), "%s", log);
}

Test(run, order_rounds_rotates_and_makes_each_round_anew, .fini = fini,
     .timeout = 120)
{
	static const char *const want[] = {
		"config 1: ext4::defaults, round 1",
		"config 2: ext4::noatime, round 1",
		"config 2: ext4::noatime, round 2",
		"config 1: ext4::defaults, round 2",
		"config 1: ext4::defaults, round 3",
		"config 2: ext4::noatime, round 3",
	};
	char rd[256], path[300];
	const char *log;
	long at = -1;
	int rc;

	e2e_require_root();
	rc = run_plan("fsplan: 1\n"
		      "target: {image: 64M}\n"
		      "repeat: 3\n"
		      "order: rounds\n"
		      "filesystems: [{type: ext4, mount: [defaults, "
		      "noatime]}]\n"
		      "phases:\n"
		      "  - {name: w, exec: 'echo x >> f'}\n"
		      "  - {name: r, exec: 'test \"$(wc -l < f)\" = 1'}\n",
		      rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s\n%s", rc, e2e_err, e2e_failed(rd));
	snprintf(path, sizeof(path), "%s/log.txt", rd);
	log = e2e_read(path);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		long p = log_at(log, want[i]);

		cr_expect_gt(p, at, "'%s' not after the round before:\n%s",
			     want[i], log);
		at = p;
	}
	for (int k = 1; k <= 3; k++) {
		char cell[64];

		snprintf(cell, sizeof(cell), "ext4::noatime/r#%d", k);
		cr_expect_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s",
				 cell);
		/* each round's mkfs is a figure of its own, with its rep */
		snprintf(cell, sizeof(cell), "ext4::noatime#%d", k);
		cr_expect_not_null(e2e_metric(rd, cell, "mkfs_s"),
				   "no %s mkfs_s", cell);
	}
	snprintf(path, sizeof(path), "%s/results.csv", rd);
	cr_expect(strstr(e2e_read(path), ",ext4::noatime#3,ext4::noatime,"
			 "ext4,,noatime,,,3,mkfs_s,"), "%s", e2e_read(path));
	snprintf(path, sizeof(path), "%s/manifest.json", rd);
	cr_expect(strstr(e2e_read(path), "\"order\": \"rounds\""));
	/* the config's entry keeps each round's figures */
	cr_expect_eq(e2e_occurrences(e2e_read(path), "\"mkfs_s\""), 6, "%s",
		     e2e_read(path));
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", rd, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_out, "\norder: rounds (repetition k of every "
			 "config in round k"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "== filesystem configs (made once a round: "
			 "means over 3 rounds) =="), "%s", e2e_out);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", rd, "--format",
						  "html", NULL }), 0, "%s",
		     e2e_err);
	cr_expect(strstr(e2e_out, "umount times (means over 3 rounds, each "
			 "config made once a round)"), "no rounds in the "
		  "html's config table");
	/* expand lists the cells in the order the run took them */
	snprintf(path, sizeof(path), "%.*s/plan.yaml",
		 (int)(strrchr(rd, '/') - rd), rd);
	cr_assert_eq(e2e_fsplan((const char *[]){ "expand", path, NULL }), 0,
		     "%s", e2e_err);
	at = -1;
	for (int k = 1; k <= 3; k++)
		for (int j = 0; j < 2; j++) {
			static const char *const label[] = { "defaults",
							     "noatime" };
			char id[64];
			const char *p;

			/* round 2 starts at the second config */
			snprintf(id, sizeof(id), "\text4::%s/r#%d\t",
				 label[(j + k - 1) % 2], k);
			p = strstr(e2e_out, id);
			cr_expect(p && p - e2e_out > at, "'%s' out of order:\n%s",
				  id + 1, e2e_out);
			at = p ? p - e2e_out : at;
		}
	expect_clean(rd);
}

/* The whole of file name in run directory rd (malloc'd). */
static char *rd_slurp(const char *rd, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", rd, name);
	return e2e_slurp(path, NULL);
}

/* Whether a line of text holds both a and b. */
static int line_with(const char *text, const char *a, const char *b)
{
	for (const char *l = strstr(text, a); l; l = strstr(l + 1, a)) {
		const char *start = l, *end = strchr(l, '\n');
		const char *in;

		while (start > text && start[-1] != '\n')
			start--;
		in = strstr(start, b);
		if (in && (!end || in < end))
			return 1;
	}
	return 0;
}

/*
 * A cell id of 4 KiB, made of axis values as long as a plan may write
 * them, is kept whole: in results.csv (quoted: it holds commas),
 * manifest.json, log.txt and what report prints of it.
 */
Test(run, a_4k_cell_id_is_kept_whole, .fini = fini, .timeout = 120)
{
	static const struct { char ch; int n; } ax[] = {
		{ 'a', 1400 }, { 'b', 1400 }, { 'c', 1300 },
	};
	char *v[3], rd[256], *csv, *man, *log;
	struct strbuf id = { 0 }, quoted = { 0 }, text = { 0 }, conf = { 0 };

	e2e_require_root();
	for (int i = 0; i < 3; i++) {
		v[i] = malloc(ax[i].n + 1);
		cr_assert(v[i]);
		memset(v[i], ax[i].ch, ax[i].n);
		v[i][ax[i].n] = '\0';
	}
	strbuf_printf(&text, "target: {image: 64M}\n"
		      "filesystems: [{type: tmpfs}]\n"
		      "matrix:\n  one: [%s]\n  two: [%s]\n"
		      "phases:\n  - name: p\n    exec: 'true'\n"
		      "    matrix:\n      three: [%s]\n", v[0], v[1], v[2]);
	strbuf_printf(&id, "tmpfs/p/one=%s,two=%s,three=%s#1", v[0], v[1],
		      v[2]);
	strbuf_printf(&quoted, "\"%s\"", id.p);
	/* the config's own rows: label/axes */
	strbuf_printf(&conf, ",tmpfs/one=%s;two=%s,", v[0], v[1]);
	cr_assert(!text.oom && !id.oom && !quoted.oom && !conf.oom);
	cr_assert_gt(id.len, 4096);
	cr_assert_eq(e2e_run_plan(e2e_tmpdir(), "longid", text.p, rd,
				  sizeof(rd)), 0, "%s", e2e_err);
	csv = rd_slurp(rd, "results.csv");
	man = rd_slurp(rd, "manifest.json");
	log = rd_slurp(rd, "log.txt");
	cr_expect(line_with(csv, quoted.p, ",status,ok,"),
		  "results.csv lacks the whole id's status row");
	cr_expect(line_with(csv, conf.p, ",mount_s,"),
		  "results.csv lacks the config's whole id");
	cr_expect(strstr(man, quoted.p), "manifest.json lacks the whole id");
	cr_expect(!strstr(log, "cut short"), "a log line says so");
	cr_expect(line_with(log, id.p, ": ok"), "log.txt lacks the whole id");
	cr_expect_eq(e2e_fsplan((const char *[]){ "report", rd, "--format",
						  "csv", NULL }), 0, "%s",
		     e2e_err);
	cr_expect(strstr(e2e_out, id.p), "report lacks the whole id");
	for (int i = 0; i < 3; i++)
		free(v[i]);
	free(csv);
	free(man);
	free(log);
	free(id.p);
	free(quoted.p);
	free(conf.p);
	free(text.p);
	expect_clean(e2e_tmpdir());
}
