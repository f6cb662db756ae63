/* test_merge: `fsplan merge` — shards of a 3-config plan joined are the unsharded run, and shards that do not match are refused. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"
#include "runcmp.h"

/* The plan: tests/fixtures/shards.yaml (three tmpfs configs). */
static const char plan[] = "fixtures/shards.yaml";

static void fini(void)
{
	e2e_cleanup();
}

/* dir/name; with shard "K/3" a shard of the plan, else all of it. */
static const char *run(const char *name, const char *shard,
		       const char *define)
{
	static char path[8][512];
	static int slot;
	char *p = path[slot++ % 8];
	int rc;

	snprintf(p, 512, "%s/%s", e2e_tmpdir(), name);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", p, "-q",
			shard ? "--shard" : "-D", shard ? shard : define ?
			define : "count=4", NULL });
	cr_assert_eq(rc, 1, "the plan has a failing phase: exit 1, not %d: "
		     "%s", rc, e2e_err);
	return p;
}

static const char *in(const char *name)
{
	static char path[4][512];
	static int slot;
	char *p = path[slot++ % 4];

	snprintf(p, 512, "%s/%s", e2e_tmpdir(), name);
	return p;
}

static int merge(const char *out, const char *const *dirs)
{
	const char *args[16] = { "merge" };
	int n = 1;

	for (; *dirs; dirs++)
		args[n++] = *dirs;
	args[n++] = "-o";
	args[n++] = out;
	args[n] = NULL;
	return e2e_fsplan(args);
}

Test(merge, shards_merged_are_the_unsharded_run, .fini = fini,
     .timeout = 120)
{
	const char *full, *s1, *s2, *s3, *m;
	char a[512], b[512];

	e2e_require_root();
	full = run("full", NULL, NULL);
	s1 = run("s1", "1/3", NULL);
	s2 = run("s2", "2/3", NULL);
	s3 = run("s3", "3/3", NULL);
	m = in("merged");
	cr_assert_eq(merge(m, (const char *[]){ s1, s2, s3, NULL }), 0, "%s",
		     e2e_err);
	runcmp_same_cells(full, m);
	cr_expect_str_eq(e2e_metric(m, "tmpfs::size=16M,noatime/bad#1",
				    "status"), "failed");
	cr_expect(strstr(e2e_reason(m, "tmpfs::size=16M,noatime/bad#1"), "3"),
		  "the reason names exit status 3: %s",
		  e2e_reason(m, "tmpfs::size=16M,noatime/bad#1"));

	/* the order of the shards does not matter: plan order */
	cr_assert_eq(merge(in("merged2"), (const char *[]){ s3, s1, s2, NULL }),
		     0, "%s", e2e_err);
	snprintf(a, sizeof(a), "%s/results.csv", m);
	snprintf(b, sizeof(b), "%s/results.csv", in("merged2"));
	{
		char *x = e2e_slurp(a, NULL), *y = e2e_slurp(b, NULL);

		/* the run id column says which directory: the rest is equal */
		for (char *p = y; (p = strstr(p, "\nmerged2,")); p++)
			memmove(p + 7, p + 8, strlen(p + 8) + 1);
		cr_expect_str_eq(x, y);
		free(x);
		free(y);
	}

	/* the manifest: each config's host and shard, and the log's */
	snprintf(a, sizeof(a), "%s/manifest.json", m);
	{
		json_t *j = json_load_file(a, 0, NULL), *c;
		size_t i;

		cr_assert_not_null(j);
		cr_expect_str_eq(json_string_value(json_object_get(j, "run_id")),
				 "merged");
		cr_expect_eq(json_array_size(json_object_get(j, "merged")), 3);
		json_array_foreach(json_object_get(j, "configs"), i, c) {
			cr_expect_str_eq(json_string_value(json_object_get(c,
					 "shard")), i == 0 ? "s1" : i == 1 ?
					 "s2" : "s3");
			cr_expect(json_is_string(json_object_get(c, "host")));
			cr_expect(json_is_object(json_object_get(c, "system")));
			cr_expect_str_eq(json_string_value(json_object_get(c,
					 "status")), "done");
		}
		json_decref(j);
	}
	snprintf(a, sizeof(a), "%s/log.txt", m);
	cr_expect(strstr(e2e_read(a), ": shard s2 ("), "%s", e2e_read(a));
	snprintf(a, sizeof(a), "%s/exec/000006-tmpfs__size_16M_write_bs_4k_1"
		 ".out", m);
	cr_expect_eq(access(a, F_OK), 0, "exec/ files are copied: %s", a);

	/* report and compare read it as one run */
	cr_expect_eq(e2e_fsplan((const char *[]){ "report", m, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_out, "== phase write: 12 of 12 phase runs ok =="),
		  "%s", e2e_out);
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", full, m, NULL }),
		     0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "6 comparisons"), "3 configs x 2 bs:\n%s",
		  e2e_out);
}

Test(merge, shards_that_do_not_match_are_refused, .fini = fini,
     .timeout = 120)
{
	const char *s1, *s2, *again, *other, *m = in("out");
	char *text, *other_plan;
	struct stat st;

	e2e_require_root();
	s1 = run("s1", "1/3", NULL);
	s2 = run("s2", "2/3", NULL);

	/* another -D */
	other = in("d8");
	cr_assert_eq(e2e_fsplan((const char *[]){ "run", plan, "-o", other,
				"-q", "--shard", "2/3", "-D", "count=8",
				NULL }), 1);
	cr_expect_eq(merge(m, (const char *[]){ s1, other, NULL }), 2);
	cr_expect(strstr(e2e_err, "ran with parameters count=4 and"), "%s",
		  e2e_err);
	cr_expect(strstr(e2e_err, "with count=8"), "%s", e2e_err);
	cr_expect_neq(stat(m, &st), 0, "nothing is written on a refusal");

	/* another plan */
	text = e2e_slurp(plan, NULL);
	text = realloc(text, strlen(text) + 32);
	cr_assert_not_null(text);
	strcat(text, "# another plan\n");
	other_plan = e2e_write(e2e_tmpdir(), "other.yaml", text);
	free(text);
	other = in("other");
	cr_assert_eq(e2e_fsplan((const char *[]){ "run", other_plan, "-o",
				other, "-q", "--shard", "2/3", NULL }), 1);
	cr_expect_eq(merge(m, (const char *[]){ s1, other, NULL }), 2);
	cr_expect(strstr(e2e_err, "merge joins the shards of one plan"), "%s",
		  e2e_err);

	/* shard 2 run twice: its cells differ */
	again = run("again", "2/3", NULL);
	cr_expect_eq(merge(m, (const char *[]){ s1, s2, again, NULL }), 2);
	cr_expect(strstr(e2e_err, "with different results"), "%s", e2e_err);
	cr_expect_neq(stat(m, &st), 0, "nothing is written on a refusal");

	/* a shard not given: merged, and said */
	cr_expect_eq(merge(in("partial"), (const char *[]){ s1, s2, NULL }),
		     0, "%s", e2e_err);
	cr_expect(strstr(e2e_err, "note: 5 of the plan's 15 cells are in no "
			 "shard"), "%s", e2e_err);

	/* the same shard given twice */
	cr_expect_eq(merge(m, (const char *[]){ s1, s1, NULL }), 2);
	cr_expect(strstr(e2e_err, "given twice"), "%s", e2e_err);

	/* OUT holds something */
	cr_expect_eq(merge(s2, (const char *[]){ s1, NULL }), 2);
	cr_expect(strstr(e2e_err, "exists and is not empty"), "%s", e2e_err);

	/* not a run directory */
	cr_expect_eq(merge(m, (const char *[]){ s1, e2e_tmpdir(), NULL }), 2);
	cr_expect(strstr(e2e_err, "manifest.json"), "%s", e2e_err);
	cr_expect_eq(e2e_fsplan((const char *[]){ "merge", s1, s2, NULL }), 2);
	cr_expect(strstr(e2e_err, "-o OUT is required"), "%s", e2e_err);
}
