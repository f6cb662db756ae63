/* test_kills: the campaign's kills kept — SIGKILL then an immediate --resume,
 * signals in the first milliseconds, the manifest across resumes. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fnmatch.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

/* How many fsplan images are left in dir. */
static int images_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += !fnmatch("fsplan-*.img", de->d_name, 0);
	if (d)
		closedir(d);
	return n;
}

static int wait_for(const char *path, const char *text, double secs)
{
	for (double t = 0; t < secs; t += 0.02) {
		if (strstr(e2e_read(path), text))
			return 0;
		usleep(20000);
	}
	return -1;
}

static int exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* The phase sleeps ${t} seconds: long in the run that is killed, none
 * in the resume. Marked with the test's pid, as test_run's are. */
static char *kill_plan(const char *dir)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "fsplan: 1\n"
		 "params: {t: 0}\n"
		 "target: {image: 64M}\n"
		 "between: none\n"
		 "filesystems: [{type: ext4}, {type: ext2}]\n"
		 "phases:\n"
		 "  - {name: nap, exec: 'sleep ${t}.%05d'}\n",
		 (int)(getpid() % 100000));
	return e2e_write(dir, "plan.yaml", text);
}

/* SIGKILL while a config is mounted, then --resume at once: the dead
 * run's loop device is still going away when the resume starts; its
 * image must go all the same (the campaign: leaked 3 of 3). */
Test(kills, sigkill_then_an_immediate_resume_leaves_no_image, .fini = fini,
     .timeout = 120)
{
	const char *dir;
	char rd[256], log[300], *plan;
	int status, rc;
	pid_t pid;

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = kill_plan(dir);
	for (int round = 0; round < 3; round++) {
		snprintf(rd, sizeof(rd), "%s/run%d", dir, round);
		snprintf(log, sizeof(log), "%s/log.txt", rd);
		pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd,
			"-q", "--workdir", dir, "-D", "t=30", NULL });
		cr_assert_eq(wait_for(log, "nap#1: run:", 20), 0,
			     "the phase never started: %s", e2e_read(log));
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		cr_expect(WIFSIGNALED(status));
		rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd,
			"-q", "--workdir", dir, NULL });
		cr_expect_eq(rc, 0, "resume: %s", e2e_err);
		cr_expect_eq(e2e_count(rd, "status"), 2);
		cr_expect_eq(images_in(dir), 0, "round %d: the killed run's "
			     "image is still in %s", round, dir);
		cr_expect_eq(e2e_loops_under(dir), 0);
		cr_expect_eq(e2e_mounted_under(dir), 0);
	}
}

/* A signal at any point of the first 50 ms: the exit is fsplan's own
 * (143, nothing kept or what finished kept), never the default action
 * after a run directory exists, and whatever it left, --resume takes. */
Test(kills, a_signal_in_the_first_milliseconds, .fini = fini,
     .timeout = 240)
{
	static const int delay_ms[] = { 1, 3, 6, 10, 15, 20, 30, 40, 50 };
	const char *dir;
	char rd[256], *plan, path[300];
	int status, rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = kill_plan(dir);
	for (size_t i = 0; i < sizeof(delay_ms) / sizeof(delay_ms[0]); i++) {
		struct timespec ts = { 0, delay_ms[i] * 1000000L };
		pid_t pid;

		snprintf(rd, sizeof(rd), "%s/run%zu", dir, i);
		pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd,
			"-q", "--workdir", dir, NULL });
		nanosleep(&ts, NULL);
		kill(pid, i % 2 ? SIGINT : SIGTERM);
		waitpid(pid, &status, 0);
		snprintf(path, sizeof(path), "%s/manifest.json", rd);
		if (exists(rd)) {
			cr_expect(WIFEXITED(status), "%d ms: killed by signal "
				  "%d with a run directory", delay_ms[i],
				  WTERMSIG(status));
			cr_expect(exists(path), "%d ms: no manifest.json",
				  delay_ms[i]);
			rc = e2e_fsplan((const char *[]){ "run", plan,
				"--resume", rd, "-q", "--workdir", dir, NULL });
			cr_expect_eq(rc, 0, "%d ms: resume: %s", delay_ms[i],
				     e2e_err);
		} else if (WIFEXITED(status)) {
			/* stopped before anything was made, or done */
			cr_expect(WEXITSTATUS(status) == 130 ||
				  WEXITSTATUS(status) == 143 ||
				  WEXITSTATUS(status) == 0, "%d ms: exit %d",
				  delay_ms[i], WEXITSTATUS(status));
		}
		cr_expect_eq(images_in(dir), 0);
		cr_expect_eq(e2e_loops_under(dir), 0);
	}
}

/* A run directory that a SIGKILL left without its manifest, nothing
 * finished in it: --resume adopts it (the campaign: neither --resume
 * nor -o took it). */
Test(kills, resume_adopts_a_run_killed_before_its_manifest, .fini = fini,
     .timeout = 60)
{
	const char *dir;
	char rd[256], *plan;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = kill_plan(dir);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	cr_assert_eq(mkdir(rd, 0755), 0);
	e2e_write(rd, "results.csv", "run_id,cell,fs_label,fs_type,mkfs_opts,"
		  "mount_opts,phase,phase_params,rep,metric,value,unit\n");
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
					  "--workdir", dir, NULL });
	cr_expect_eq(rc, 0, "%s", e2e_err);
	cr_expect_eq(e2e_count(rd, "status"), 2);
	/* but not one where something finished: its plan is unknown */
	snprintf(rd, sizeof(rd), "%s/run2", dir);
	cr_assert_eq(mkdir(rd, 0755), 0);
	e2e_write(rd, "results.csv", "run_id,cell,fs_label,fs_type,mkfs_opts,"
		  "mount_opts,phase,phase_params,rep,metric,value,unit\n"
		  "r,ext4/nap#1,ext4,ext4,,,nap,,1,status,ok,\n");
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
					  "--workdir", dir, NULL });
	cr_expect_eq(rc, 2, "%s", e2e_err);
	cr_expect(strstr(e2e_err, "no manifest.json"), "%s", e2e_err);
}

/* The manifest after --resume: the first start kept, each run's start,
 * end and status in "runs", the first run's finished cells still so. */
Test(kills, the_manifest_keeps_every_run_of_a_resumed_run, .fini = fini,
     .timeout = 90)
{
	const char *dir;
	char rd[256], path[300], *plan;
	json_t *m, *runs, *first = NULL;
	json_error_t err;
	int status, rc;
	pid_t pid;

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = kill_plan(dir);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
		"--workdir", dir, "--only", "type=ext4", NULL });
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && !WEXITSTATUS(status));
	snprintf(path, sizeof(path), "%s/manifest.json", rd);
	m = json_load_file(path, 0, &err);
	cr_assert(m, "%s", err.text);
	first = json_deep_copy(json_object_get(m, "started"));
	json_decref(m);
	sleep(1);	/* the second run starts in another second */
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
					  "--workdir", dir, NULL });
	cr_expect_eq(rc, 0, "%s", e2e_err);
	m = json_load_file(path, 0, &err);
	cr_assert(m, "%s", err.text);
	cr_expect(json_equal(json_object_get(m, "started"), first),
		  "the start time is the resume's, not the run's");
	runs = json_object_get(m, "runs");
	cr_assert_eq(json_array_size(runs), 2, "runs: %s",
		     json_dumps(runs, 0));
	for (size_t i = 0; i < 2; i++) {
		json_t *r = json_array_get(runs, i);

		cr_expect(json_is_string(json_object_get(r, "started")));
		cr_expect(json_is_string(json_object_get(r, "ended")));
		cr_expect_str_eq(json_string_value(json_object_get(r,
				 "status")), "complete");
	}
	cr_expect(json_equal(json_object_get(json_array_get(runs, 0),
					     "started"), first));
	cr_expect(!json_equal(json_object_get(json_array_get(runs, 1),
					      "started"), first));
	for (size_t i = 0; i < json_array_size(json_object_get(m, "cells"));
	     i++)
		cr_expect_str_eq(json_string_value(json_object_get(
			json_array_get(json_object_get(m, "cells"), i),
			"status")), "ok", "cell %zu", i);
	json_decref(first);
	json_decref(m);
}

/* w:log goes to the run log, marked with the cell, as well as exec/. */
Test(kills, w_log_lines_reach_the_run_log_marked_with_the_cell,
     .fini = fini, .timeout = 60)
{
	const char *dir;
	char rd[256], path[300];
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	e2e_write(dir, "say.lua", "return { worker = function(w)\n"
		  "  w:log('hello from', w.id) end }\n");
	snprintf(rd, sizeof(rd), "%s/run", dir);
	rc = e2e_fsplan((const char *[]){ "run", e2e_write(dir, "plan.yaml",
		"fsplan: 1\nbetween: none\nfilesystems: [{type: tmpfs}]\n"
		"phases: [{use: say.lua, with: {workers: 2}}]\n"), "-o", rd,
		"-q", NULL });
	cr_expect_eq(rc, 0, "%s", e2e_err);
	snprintf(path, sizeof(path), "%s/log.txt", rd);
	cr_expect(strstr(e2e_read(path), "tmpfs/say#1: [worker 1] hello "
			 "from 1"), "%s", e2e_read(path));
	cr_expect(strstr(e2e_read(path), "tmpfs/say#1: [worker 2] hello "
			 "from 2"), "%s", e2e_read(path));
}

/* A kill between a config's phases: the resume makes the filesystem
 * anew, so it replays the earlier phases' runs that config recorded (not
 * recording them again) before the ones still to run, which find what
 * they left; the cells of the phase it stopped in are not replayed. */
Test(kills, a_resume_replays_what_the_later_phases_need, .fini = fini,
     .timeout = 90)
{
	const char *dir;
	char rd[256], log[300], text[512], *plan;
	int status, rc;
	pid_t pid;

	e2e_require_root();
	dir = e2e_tmpdir();
	snprintf(text, sizeof(text),
		 "fsplan: 1\n"
		 "params: {t: 0}\n"
		 "target: {image: 64M}\n"
		 "between: none\n"
		 "filesystems: [{type: ext4}]\n"
		 "phases:\n"
		 "  - {name: write, exec: 'echo data > f'}\n"
		 "  - name: read\n"
		 "    matrix: {k: [1, 2]}\n"
		 "    exec: 'test -f f && if [ ${k} = 2 ]; then sleep "
		 "${t}.%05d; fi'\n", (int)(getpid() % 100000));
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	snprintf(log, sizeof(log), "%s/log.txt", rd);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
		"--workdir", dir, "-D", "t=30", NULL });
	cr_assert_eq(wait_for(log, "read/k=2#1: run:", 20), 0,
		     "the read never started: %s", e2e_read(log));
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 143);
	cr_assert_eq(e2e_count(rd, "status"), 2, "the rows of the write and "
		     "of read k=1 are kept");
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
					  "--workdir", dir, NULL });
	cr_expect_eq(rc, 0, "resume: %s %s", e2e_err, e2e_read(log));
	cr_expect_str_eq(e2e_metric(rd, "ext4/read/k=2#1", "status"), "ok",
			 "%s", e2e_read(log));
	cr_expect_eq(e2e_count(rd, "status"), 3, "a replay is recorded "
		     "again");
	cr_expect(strstr(e2e_read(log), "ext4/write#1: replayed (ok)") &&
		  strstr(e2e_read(log), ", 1 replayed"), "%s",
		  e2e_read(log));
	cr_expect_null(strstr(e2e_read(log), "read/k=1#1: replay"), "%s",
		       e2e_read(log));
}
