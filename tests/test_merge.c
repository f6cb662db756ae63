/* test_merge: `fsplan merge` — shards of a 3-config plan joined are the
 * unsharded run, and shards that do not match are refused. */
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
		/* the whole plan's: a resume of it is not shard 1's */
		cr_expect(json_is_null(json_object_get(json_object_get(j,
			  "selection"), "shard")), "selection: %s",
			  json_dumps(json_object_get(j, "selection"), 0));
		cr_expect_str_eq(json_string_value(json_object_get(
			json_object_get(json_array_get(json_object_get(j,
			"merged"), 1), "selection"), "shard")), "2/3");
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

/* Three tmpfs configs, a bonnie phase of file tests only: a bonnie.csv
 * line per config, in well under a second. */
static const char bonnie_plan[] =
	"filesystems:\n"
	"  - type: tmpfs\n"
	"    mount: [size=8M, size=16M, \"size=16M,noatime\"]\n"
	"phases:\n"
	"  - use: bonnie\n"
	"    with: {size: 0, files: 1}\n";

/* The bonnie plan into dir/name, as shard K/3 (NULL: all of it). */
static const char *bonnie_run(const char *name, const char *shard)
{
	static char path[8][512];
	static int slot;
	char *p = path[slot++ % 8], *plan_path;
	char text[512];
	int rc;

	snprintf(text, sizeof(text), "fsplan: 1\nname: bshards\n%s",
		 bonnie_plan);
	plan_path = e2e_write(e2e_tmpdir(), "bshards.yaml", text);
	snprintf(p, 512, "%s/%s", e2e_tmpdir(), name);
	rc = shard ? e2e_fsplan((const char *[]){ "run", plan_path, "-o", p,
				"-q", "--shard", shard, NULL }) :
		     e2e_fsplan((const char *[]){ "run", plan_path, "-o", p,
				"-q", NULL });
	cr_assert_eq(rc, 0, "%s", e2e_err);
	return p;
}

/* The name field of each line of dir/bonnie.csv, "|"-joined (static). */
static const char *bonnie_names(const char *dir)
{
	static char names[1024];
	char path[600];
	const char *p;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/bonnie.csv", dir);
	names[0] = '\0';
	for (p = e2e_read(path); *p; p += strcspn(p, "\n") + 1) {
		const char *f = strchr(strchr(p, ',') + 1, ',') + 1;

		n += snprintf(names + n, sizeof(names) - n, "%.*s|",
			      (int)strcspn(f, ","), f);
		if (!p[strcspn(p, "\n")])
			break;
	}
	return names;
}

Test(merge, bonnie_lines_target_and_a_missing_shard, .fini = fini,
     .timeout = 120)
{
	const char *full, *s1, *s2, *s3, *m = in("m"), *part = in("part");
	char path[600], cmd[1300];
	json_t *j, *t;

	e2e_require_root();
	full = bonnie_run("full", NULL);
	s1 = bonnie_run("s1", "1/3");
	s2 = bonnie_run("s2", "2/3");
	s3 = bonnie_run("s3", "3/3");

	/* bonnie.csv in plan order whatever the order of the shards */
	cr_assert_eq(merge(m, (const char *[]){ s3, s1, s2, NULL }), 0, "%s",
		     e2e_err);
	cr_expect_str_eq(bonnie_names(m), "tmpfs::size=8M|tmpfs::size=16M|"
			 "tmpfs::size=16M;noatime|");
	cr_expect_str_eq(bonnie_names(m), bonnie_names(full));

	/* the target facts every shard shares, not each one's workdir */
	snprintf(path, sizeof(path), "%s/manifest.json", m);
	j = json_load_file(path, 0, NULL);
	cr_assert_not_null(j);
	t = json_object_get(j, "target");
	cr_expect_str_eq(json_string_value(json_object_get(t, "kind")),
			 "image");
	cr_expect(json_is_integer(json_object_get(t, "image_bytes")));
	cr_expect_null(json_object_get(t, "workdir"), "per shard");
	cr_expect_str_eq(json_string_value(json_object_get(j, "status")),
			 "complete");
	json_decref(j);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", m, NULL }), 0);
	cr_expect(strstr(e2e_out, "\ntarget: loop images of 4096 MiB"), "%s",
		  e2e_out);
	cr_assert_eq(e2e_fsplan((const char *[]){ "compare", full, m, NULL }),
		     0, "%s", e2e_err);
	cr_expect_null(strstr(e2e_out, "the targets differ"), "%s", e2e_out);

	/* a shard left out: partial, in the manifest and report's header,
	 * and a regression for --fail-on-regression */
	cr_assert_eq(merge(part, (const char *[]){ s1, s3, NULL }), 0, "%s",
		     e2e_err);
	cr_expect(strstr(e2e_err, "the merged run is partial"), "%s", e2e_err);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", part, NULL }), 0);
	cr_expect(strstr(e2e_out, ", partial (2 of the plan's 3 cells), "),
		  "%s", e2e_out);
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", full, part,
				"--fail-on-regression", NULL }), 1);
	cr_expect(strstr(e2e_err, "1 cell ok in A has no result in B"), "%s",
		  e2e_err);
	cr_expect_eq(e2e_fsplan((const char *[]){ "compare", full, m,
				"--fail-on-regression", NULL }), 0, "%s",
		     e2e_err);

	/* one shard spelled twice, or a copy of it: refused */
	snprintf(path, sizeof(path), "%s/./", s1);
	cr_expect_eq(merge(in("twice"), (const char *[]){ s1, path, s2,
			   NULL }), 2);
	cr_expect(strstr(e2e_err, "are one shard, given twice: both are run "
			 "s1"), "%s", e2e_err);
	snprintf(cmd, sizeof(cmd), "cp -a '%s' '%s'", s1, in("copy"));
	cr_assert_eq(system(cmd), 0);
	cr_expect_eq(merge(in("twice"), (const char *[]){ s1, in("copy"), s2,
			   NULL }), 2);
	cr_expect(strstr(e2e_err, "given twice"), "%s", e2e_err);
	cr_expect_neq(access(in("twice"), F_OK), 0, "nothing written");
	/* two runs into directories of one name (-o /scratch/run on two
	 * hosts) are two shards */
	cr_expect_eq(merge(in("two"), (const char *[]){ run("h1/run", "1/3",
			   NULL), run("h2/run", "2/3", NULL), NULL }), 0,
		     "%s", e2e_err);
}

/* Four machines for three configs: shard 4/4 holds none, exits 0 with a
 * run directory of no cells, and merges with the others into the whole
 * run (the scale-out scripts run one shard a machine). */
Test(merge, a_shard_past_the_plans_configs_is_empty_and_merges,
     .fini = fini, .timeout = 120)
{
	const char *shards[5], *m = in("merged");
	char name[16], path[600];
	int rc;

	e2e_require_root();
	for (int k = 1; k <= 3; k++) {
		snprintf(name, sizeof(name), "%d/4", k);
		snprintf(path, sizeof(path), "s%d", k);
		shards[k - 1] = run(path, name, NULL);
	}
	shards[3] = in("s4");
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", shards[3],
					  "--shard", "4/4", NULL });
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "shard 4/4 holds none of the plan's 3 "
			 "filesystem configs"), "%s", e2e_err);
	cr_expect_eq(e2e_fsplan((const char *[]){ "report", shards[3], NULL }),
		     0, "%s", e2e_err);
	cr_expect(strstr(e2e_out, "\nrun s4: plan shards"), "%s", e2e_out);
	shards[4] = NULL;
	cr_assert_eq(merge(m, shards), 0, "%s", e2e_err);
	snprintf(path, sizeof(path), "%s/manifest.json", m);
	cr_expect(strstr(e2e_read(path), "\"status\": \"complete\""), "%s",
		  e2e_read(path));
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", in("none"),
					  "--only", "type=xfs", NULL });
	cr_expect_eq(rc, 2, "a filter that matches nothing: exit %d", rc);
}

/* A module beside the plan that differs between shards: the advice is
 * to give every host the same file (a library module's: the same
 * fsplan). */
Test(merge, a_module_that_differs_names_its_file, .fini = fini,
     .timeout = 60)
{
	const char *dir = e2e_tmpdir(), *p;
	char a[512], b[512];

	e2e_require_root();
	p = e2e_write(dir, "plan.yaml", "fsplan: 1\n"
		      "filesystems: [{type: tmpfs, mount: [size=8M, "
		      "size=16M]}]\n"
		      "phases: [{use: m.lua}]\n");
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	e2e_write(dir, "m.lua", "return { worker = function(w, ctx) end }\n");
	cr_assert_eq(e2e_fsplan((const char *[]){ "run", p, "-o", a, "-q",
				"--shard", "1/2", NULL }), 0, "%s", e2e_err);
	e2e_write(dir, "m.lua", "return { worker = function(w) end }\n");
	cr_assert_eq(e2e_fsplan((const char *[]){ "run", p, "-o", b, "-q",
				"--shard", "2/2", NULL }), 0, "%s", e2e_err);
	cr_expect_eq(merge(in("m"), (const char *[]){ a, b, NULL }), 2);
	cr_expect(strstr(e2e_err, "module_sha256") &&
		  strstr(e2e_err, "(give every host the same module file)"),
		  "%s", e2e_err);
}

/* Shards run on unlike hosts: the report's system line says the hosts
 * differ and gives each one's, where it printed "?, 0 cores". */
Test(merge, the_report_of_unlike_hosts_names_each, .fini = fini,
     .timeout = 60)
{
	const char *s1, *s2, *m = in("merged");
	char path[600];
	json_t *j, *sys;

	e2e_require_root();
	s1 = run("s1", "1/2", NULL);
	s2 = run("s2", "2/2", NULL);
	/* s2 as another host would have written it */
	snprintf(path, sizeof(path), "%s/manifest.json", s2);
	j = json_load_file(path, 0, NULL);
	cr_assert_not_null(j);
	sys = json_object_get(j, "system");
	json_object_set_new(sys, "hostname", json_string("bignode"));
	json_object_set_new(sys, "cpu_model", json_string("Big CPU"));
	json_object_set_new(sys, "cores", json_integer(64));
	cr_assert_eq(json_dump_file(j, path, JSON_INDENT(1)), 0);
	json_decref(j);
	cr_assert_eq(merge(m, (const char *[]){ s1, s2, NULL }), 0, "%s",
		     e2e_err);
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", m, NULL }), 0,
		     "%s", e2e_err);
	cr_expect(strstr(e2e_out, "; the hosts differ:\n") &&
		  strstr(e2e_out, "\n  host bignode: ") &&
		  strstr(e2e_out, "Big CPU, 64 cores\n"), "%s", e2e_out);
	cr_expect_null(strstr(e2e_out, "?, 0 cores"), "%s", e2e_out);
	/* two of its configs compared: measured on two machines */
	e2e_fsplan((const char *[]){ "compare", m, "--label",
				     "tmpfs::size=8M", "--label",
				     "tmpfs::size=16M", NULL });
	cr_expect(strstr(e2e_out, ", B on host bignode: the difference is "
			 "the hosts' as well as the configs'"), "%s\n%s",
		  e2e_err, e2e_out);
}
