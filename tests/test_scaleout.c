/* test_scaleout: a plan as 3 shards under a real single-node Slurm and under
 * GNU parallel, merged, equals the one-machine run. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "e2e.h"
#include "scaleoutrun.h"
#include "runcmp.h"

/* tests/fixtures/shards.yaml: three tmpfs configs, ok and failed cells */
static const char plan[] = "fixtures/shards.yaml";

/* What a test killed on its timeout may have left: the daemons by the
 * pid files in its directory. */
static void fini(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "bash scaleout.sh stop '%s'", e2e_tmpdir());
	if (system(cmd))
		fprintf(stderr, "scaleout.sh stop failed\n");
	e2e_cleanup();
}

/* The one-machine run of the plan, dir/full. */
static const char *full_run(void)
{
	static char dir[512];
	int rc;

	snprintf(dir, sizeof(dir), "%s/full", e2e_tmpdir());
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", dir, "-q",
					  NULL });
	cr_assert_eq(rc, 1, "a phase of the plan fails: exit 1, not %d: %s",
		     rc, e2e_err);
	return dir;
}

static const char *merged(const char *how)
{
	static char dir[512];

	snprintf(dir, sizeof(dir), "%s/%s/merged", e2e_tmpdir(), how);
	return dir;
}

static const char *const daemons[] = { "munged", "slurmctld", "slurmd",
				       "slurmstepd", "slurmscriptd", NULL };

Test(scaleout, slurm_job_array_then_merge, .fini = fini, .timeout = 100)
{
	const char *full;
	int rc;

	e2e_require_root();
	for (int i = 0; daemons[i]; i++)
		if (e2e_processes_with(daemons[i]))
			cr_skip_test("a %s runs here already: not ours to use "
				     "or to stop", daemons[i]);
	full = full_run();
	rc = scaleout("slurm", plan);
	if (rc == 77)
		cr_skip_test("%s", strstr(log_text, "skipped: ") ?
			     strstr(log_text, "skipped: ") : log_text);
	cr_assert_eq(rc, 0, "scaleout.sh slurm: exit %d:\n%s", rc, log_text);
	runcmp_same_cells(full, merged("slurm"));
	/* three array tasks ran the shards; the merge job joined them */
	cr_expect(strstr(log_text, "fsplan merge: 3 shards"), "%s", log_text);
	for (int i = 0; daemons[i]; i++)
		cr_expect_eq(e2e_processes_with(daemons[i]), 0, "a %s is "
			     "still running", daemons[i]);
}

Test(scaleout, gnu_parallel_local_jobs_then_merge, .fini = fini,
     .timeout = 100)
{
	const char *full;
	int rc;

	e2e_require_root();
	full = full_run();
	rc = scaleout("parallel", plan);
	if (rc == 77)
		cr_skip_test("%s", log_text);
	cr_assert_eq(rc, 0, "scaleout.sh parallel: exit %d:\n%s", rc,
		     log_text);
	runcmp_same_cells(full, merged("parallel"));
	cr_expect(strstr(log_text, "fsplan merge: 3 shards"), "%s", log_text);
}

Test(scaleout, kubernetes_indexed_job_holds_together, .fini = fini)
{
	int rc = scaleout("k8s", plan);

	if (rc == 77)
		cr_skip_test("%s", log_text);
	cr_expect_eq(rc, 0, "examples/scale-out/k8s-indexed-job.yaml:\n%s",
		     log_text);
}
