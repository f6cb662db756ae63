/* test_resume_dir: fsplan run --resume DIR alone takes the plan its
 * manifest names, and refuses, saying why, when that file changed or is
 * gone. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

static const char plan_text[] =
	"fsplan: 1\nname: resumedir\nbetween: none\n"
	"filesystems: [{type: tmpfs, mount: size=16M}]\n"
	"phases:\n"
	"  - {name: nap, exec: 'sleep ${t}', matrix: {t: [0.1, 2.5]}}\n";

/* A run of plan_text (as plan.yaml, named relative to its directory)
 * stopped in its second cell: rd holds one recorded cell. */
static void stopped_run(const char *dir, char *rd, size_t len)
{
	int status, tries = 0;
	pid_t pid;

	e2e_write(dir, "plan.yaml", plan_text);
	snprintf(rd, len, "%s/run", dir);
	cr_assert_eq(chdir(dir), 0);
	pid = e2e_fsplan_bg((const char *[]){ "run", "plan.yaml", "-o", rd,
					      "-q", NULL });
	cr_assert_gt(pid, 0);
	while (e2e_count(rd, "status") < 1 && tries++ < 400)
		usleep(50000);
	cr_assert_lt(tries, 400, "the first cell never ended");
	usleep(300000);		/* into the 2.5 s nap */
	kill(pid, SIGTERM);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert_eq(WEXITSTATUS(status), 143);
	cr_assert_eq(e2e_count(rd, "status"), 1);
	/* the resume starts elsewhere: the manifest's path was relative */
	cr_assert_eq(chdir("/"), 0);
}

Test(resumedir, takes_the_manifests_plan, .fini = fini, .timeout = 60)
{
	char rd[256];
	int rc;

	e2e_require_root();
	stopped_run(e2e_tmpdir(), rd, sizeof(rd));
	rc = e2e_fsplan((const char *[]){ "run", "--resume", rd, "-q",
					  NULL });
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_eq(e2e_count(rd, "status"), 2, "%s", e2e_failed(rd));
	cr_expect_str_eq(e2e_failed(rd), "");
}

Test(resumedir, refuses_a_changed_plan, .fini = fini, .timeout = 60)
{
	const char *dir = e2e_tmpdir();
	char rd[256], plan[512];
	int rc;

	e2e_require_root();
	stopped_run(dir, rd, sizeof(rd));
	snprintf(plan, sizeof(plan), "%s", e2e_write(dir, "plan.yaml",
		 "fsplan: 1\nname: resumedir\nbetween: none\n"
		 "filesystems: [{type: tmpfs, mount: size=16M}]\n"
		 "phases:\n"
		 "  - {name: nap, exec: 'sleep ${t}', matrix: {t: [0.1, 2]}}\n"));
	rc = e2e_fsplan((const char *[]){ "run", "--resume", rd, "-q",
					  NULL });
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, plan) && strstr(e2e_err, "changed since "
		  "the run started: sha256 "), "%s", e2e_err);
	cr_expect(strstr(e2e_err, "plan.text"), "%s", e2e_err);
	cr_expect_eq(e2e_count(rd, "status"), 1, "the refusal ran cells");
	/* the old form, with the plan, refuses it too */
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
					  NULL });
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	/* written back as it was, it resumes: the old form works */
	e2e_write(dir, "plan.yaml", plan_text);
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
					  NULL });
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_eq(e2e_count(rd, "status"), 2);
}

Test(resumedir, refuses_a_plan_that_is_gone, .fini = fini, .timeout = 60)
{
	const char *dir = e2e_tmpdir();
	char rd[256], plan[512], want[600];
	int rc;

	e2e_require_root();
	stopped_run(dir, rd, sizeof(rd));
	snprintf(plan, sizeof(plan), "%s/plan.yaml", dir);
	cr_assert_eq(unlink(plan), 0);
	rc = e2e_fsplan((const char *[]){ "run", "--resume", rd, "-q",
					  NULL });
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	snprintf(want, sizeof(want), "the run's plan %s is gone", plan);
	cr_expect(strstr(e2e_err, want), "%s", e2e_err);
	snprintf(want, sizeof(want), "%s/manifest.json, plan.text", rd);
	cr_expect(strstr(e2e_err, want), "%s", e2e_err);
	cr_expect_eq(e2e_count(rd, "status"), 1);
}

Test(resumedir, needs_a_plan_or_resume, .timeout = 10)
{
	int rc = e2e_fsplan((const char *[]){ "run", "-q", NULL });

	cr_expect_eq(rc, 2);
	cr_expect(strstr(e2e_err, "a PLAN file is required"), "%s", e2e_err);
}
