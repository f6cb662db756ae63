/* test_pack: fsplan pack and rerun on a small plan with its own module. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

/* A plan beside its own exec module, whose parameter nap is the time
 * each run takes (and reports as total_time_s, its key metric), run
 * three times with -D nap=0.05 (the plan says 0.1) into dir/run. */
static void study(const char *dir, char *rd, size_t len)
{
	char text[1024], path[600];
	char *plan;
	int rc;

	snprintf(path, sizeof(path), "%s/exec", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/t", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	e2e_write(dir, "mine.lua", "return { params = { nap = '0.1' }, "
		  "exec = 'nap.sh', parse = 'sysbench', "
		  "key = { 'total_time_s' } }\n");
	snprintf(path, sizeof(path), "%s/exec", dir);
	e2e_write(path, "nap.sh", "sleep \"$FSPLAN_P_nap\"\n"
		  "echo 'General statistics:'\n"
		  "echo \"    total time: ${FSPLAN_P_nap}s\"\n"
		  "echo '    total number of events: 10'\n");
	snprintf(text, sizeof(text), "fsplan: 1\nname: packed\n"
		 "params: {nap: '0.1'}\nrepeat: 3\ntarget: {dir: %s/t}\n"
		 "phases:\n  - {use: ./mine.lua, name: mine, "
		 "with: {nap: '${nap}'}}\n", dir);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, len, "%s/run", dir);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					  "-D", "nap=0.05", NULL });
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_assert_str_eq(e2e_metric(rd, "dir/mine#3", "total_time_s"),
			 "0.05", "%s", e2e_failed(rd));
}

static int pack(const char *rd, const char *out)
{
	return e2e_fsplan((const char *[]){ "pack", rd, "-o", out, NULL });
}

/* What tar lists of an archive (static). */
static const char *members(const char *dir, const char *tgz)
{
	char cmd[1400], list[700];

	snprintf(list, sizeof(list), "%s/members.txt", dir);
	snprintf(cmd, sizeof(cmd), "tar -tzf '%s' > '%s'", tgz, list);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	return e2e_read(list);
}

/* Packed, the study stands alone: rerun from the archive lays out the
 * plan and its module, runs them with the recorded -D, and reproduces. */
Test(pack, rerun_of_a_pack_reproduces_it, .fini = fini, .timeout = 120)
{
	const char *dir, *list;
	char rd[300], tgz[400], again[400], path[600];
	struct stat st;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	study(dir, rd, sizeof(rd));
	snprintf(tgz, sizeof(tgz), "%s/study.tar.gz", dir);
	rc = pack(rd, tgz);
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	list = members(dir, tgz);
	cr_expect(strstr(list, "files/plan/mine.lua\n"), "%s", list);
	cr_expect(strstr(list, "files/plan/exec/nap.sh\n"), "%s", list);
	cr_expect(strstr(list, "files/plan/plan.yaml\n"), "%s", list);
	cr_expect(strstr(list, "run/manifest.json\n"), "%s", list);
	cr_expect(strstr(list, "pack.json\n"), "%s", list);

	snprintf(again, sizeof(again), "%s/again", dir);
	rc = e2e_fsplan((const char *[]){ "rerun", tgz, "-o", again, NULL });
	cr_expect_eq(rc, 0, "exit %d: %s\n%s", rc, e2e_out, e2e_err);
	cr_expect(strstr(e2e_out, "reproduced: no key metric differs "
			 "significantly"), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "machines: the same"), "%s", e2e_out);
	snprintf(path, sizeof(path), "%s/plan/mine.lua", again);
	cr_expect_eq(stat(path, &st), 0, "%s", path);
	snprintf(path, sizeof(path), "%s/packed/run/manifest.json", again);
	cr_expect_eq(stat(path, &st), 0, "the original is not kept: %s",
		     path);
	snprintf(path, sizeof(path), "%s/run", again);
	cr_expect_str_eq(e2e_metric(path, "dir/mine#3", "total_time_s"),
			 "0.05");
}

/* From the run directory, a -D over the recorded one changes the rate:
 * the verdict says it differs, on which metric. */
Test(pack, rerun_with_another_rate_differs, .fini = fini, .timeout = 120)
{
	const char *dir;
	char rd[300], again[400];
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	study(dir, rd, sizeof(rd));
	snprintf(again, sizeof(again), "%s/slower", dir);
	rc = e2e_fsplan((const char *[]){ "rerun", rd, "-o", again,
					  "-D", "nap=0.2", NULL });
	cr_expect_eq(rc, 1, "exit %d: %s\n%s", rc, e2e_out, e2e_err);
	cr_expect(strstr(e2e_out, "differs on 1 of 1 metrics (0.05 for them "
			 "all, Holm's correction; compare marks 1 at 0.05 "
			 "each): dir/mine total_time_s (worse)\n"), "%s",
		  e2e_out);
}

/* A module edited inside the archive (unpacked, changed, packed again
 * with tar) is refused with its name, before anything runs. */
Test(pack, tampered_module_is_refused, .fini = fini, .timeout = 120)
{
	const char *dir;
	char rd[300], tgz[400], bad[400], cmd[2000], again[400];
	struct stat st;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	study(dir, rd, sizeof(rd));
	snprintf(tgz, sizeof(tgz), "%s/study.tar.gz", dir);
	cr_assert_eq(pack(rd, tgz), 0, "%s", e2e_err);
	snprintf(bad, sizeof(bad), "%s/bad.tar.gz", dir);
	snprintf(cmd, sizeof(cmd), "mkdir '%s/x' && tar -xzf '%s' -C '%s/x' "
		 "&& echo '-- changed' >> '%s/x/files/plan/mine.lua' && "
		 "tar -czf '%s' -C '%s/x' pack.json run files", dir, tgz, dir,
		 dir, bad, dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	snprintf(again, sizeof(again), "%s/again", dir);
	rc = e2e_fsplan((const char *[]){ "rerun", bad, "-o", again, NULL });
	cr_expect_eq(rc, 3, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "module ") && strstr(e2e_err, "/mine.lua "
		  "changed since the run"), "%s", e2e_err);
	cr_expect_neq(stat(again, &st), 0, "%s was left", again);
	cr_expect(!strstr(e2e_out, "reproduced"), "%s", e2e_out);
}

/* pack checks too: a module changed since the run is not packed. */
Test(pack, pack_refuses_a_file_changed_since_the_run, .fini = fini,
     .timeout = 120)
{
	const char *dir;
	char rd[300], tgz[400];
	struct stat st;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	study(dir, rd, sizeof(rd));
	e2e_write(dir, "mine.lua", "return { params = { nap = '0.3' }, "
		  "exec = 'nap.sh', parse = 'sysbench' }\n");
	snprintf(tgz, sizeof(tgz), "%s/study.tar.gz", dir);
	rc = pack(rd, tgz);
	cr_expect_eq(rc, 3, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "/mine.lua changed since the run"), "%s",
		  e2e_err);
	cr_expect_neq(stat(tgz, &st), 0, "an archive was written");
}

/* An archive with a member outside it, or a link, is not unpacked. */
Test(pack, archive_with_a_member_outside_is_refused, .fini = fini)
{
	const char *dir;
	char cmd[1400], tgz[400];
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	snprintf(tgz, sizeof(tgz), "%s/evil.tar.gz", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/e/files' && ln -s /etc "
		 "'%s/e/files/plan' && tar -czf '%s' -C '%s/e' files", dir,
		 dir, tgz, dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	rc = e2e_fsplan((const char *[]){ "rerun", tgz, "-o", "/nonexistent",
					  NULL });
	cr_expect_eq(rc, 3, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "not a file or a folder"), "%s", e2e_err);
	snprintf(cmd, sizeof(cmd), "tar -czf '%s' -P /etc/hostname", tgz);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	rc = e2e_fsplan((const char *[]){ "rerun", tgz, NULL });
	cr_expect_eq(rc, 3, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "a member outside it: /etc/hostname"), "%s",
		  e2e_err);
}

/* dir/study: plans/p.yaml using mods/mine.lua (and its exec/ script) as
 * use (its words), run 3 times with nap 0.05 into dir/run. */
static void study_tree(const char *dir, const char *use)
{
	char text[1024], path[600], rd[600];
	char *plan;
	int rc;

	snprintf(path, sizeof(path), "%s/study", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	strcat(path, "/plans");
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/study/mods", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	e2e_write(path, "mine.lua", "return { params = { nap = '0.05' }, "
		  "exec = 'nap.sh', parse = 'sysbench', "
		  "key = { 'total_time_s' } }\n");
	strcat(path, "/exec");
	cr_assert_eq(mkdir(path, 0755), 0);
	e2e_write(path, "nap.sh", "sleep \"$FSPLAN_P_nap\"\n"
		  "echo 'General statistics:'\n"
		  "echo \"    total time: ${FSPLAN_P_nap}s\"\n"
		  "echo '    total number of events: 10'\n");
	snprintf(path, sizeof(path), "%s/t", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(text, sizeof(text), "fsplan: 1\nname: tree\nrepeat: 3\n"
		 "target: {dir: %s/t}\nphases:\n  - {use: %s, name: mine}\n",
		 dir, use);
	snprintf(path, sizeof(path), "%s/study/plans", dir);
	plan = e2e_write(path, "p.yaml", text);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					  NULL });
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
}

/* A module beside the plans' folder (../mods/mine.lua) is packed in
 * the tree that holds both, laid out where the plan finds it: the
 * rerun reproduces with the study's own folder gone. */
Test(pack, module_beside_the_plans_folder_stands_alone, .fini = fini,
     .timeout = 120)
{
	const char *dir, *list;
	char rd[300], tgz[400], again[400], from[400], to[400];
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	study_tree(dir, "../mods/mine.lua");
	snprintf(rd, sizeof(rd), "%s/run", dir);
	snprintf(tgz, sizeof(tgz), "%s/study.tar.gz", dir);
	cr_assert_eq(pack(rd, tgz), 0, "%s", e2e_err);
	list = members(dir, tgz);
	cr_expect(strstr(list, "files/plan/plans/p.yaml\n"), "%s", list);
	cr_expect(strstr(list, "files/plan/mods/mine.lua\n"), "%s", list);
	cr_expect(strstr(list, "files/plan/mods/exec/nap.sh\n"), "%s", list);
	snprintf(from, sizeof(from), "%s/study", dir);
	snprintf(to, sizeof(to), "%s/gone", dir);
	cr_assert_eq(rename(from, to), 0);
	snprintf(again, sizeof(again), "%s/again", dir);
	rc = e2e_fsplan((const char *[]){ "rerun", tgz, "-o", again, NULL });
	cr_expect_eq(rc, 0, "exit %d: %s\n%s", rc, e2e_out, e2e_err);
	cr_expect(strstr(e2e_out, "reproduced: no key metric differs"),
		  "%s", e2e_out);
}

/* A module the plan names by its absolute path is read from there on
 * the rerun: changed since, the rerun says so and gives no verdict. */
Test(pack, module_by_absolute_path_changed_cannot_tell, .fini = fini,
     .timeout = 120)
{
	const char *dir;
	char rd[300], tgz[400], again[400], use[400];
	FILE *f;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	snprintf(use, sizeof(use), "%s/study/mods/mine.lua", dir);
	study_tree(dir, use);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	snprintf(tgz, sizeof(tgz), "%s/study.tar.gz", dir);
	cr_assert_eq(pack(rd, tgz), 0, "%s", e2e_err);
	cr_assert_not_null(f = fopen(use, "a"));
	fputs("-- changed after the study\n", f);
	fclose(f);
	snprintf(again, sizeof(again), "%s/again", dir);
	rc = e2e_fsplan((const char *[]){ "rerun", tgz, "-o", again, NULL });
	cr_expect_eq(rc, 1, "exit %d: %s\n%s", rc, e2e_out, e2e_err);
	cr_expect(strstr(e2e_out, "the new run read ") &&
		  strstr(e2e_out, "/study/mods/mine.lua (sha256 "), "%s",
		  e2e_out);
	cr_expect(strstr(e2e_out, "cannot tell: the new run did not read "
			 "the code the original did"), "%s", e2e_out);
	cr_expect_null(strstr(e2e_out, "reproduced"), "%s", e2e_out);
}

/* A run of one repetition gives compare nothing to test: rerun says it
 * cannot tell, never "reproduced". */
Test(pack, one_repetition_cannot_be_told_reproduced, .fini = fini,
     .timeout = 120)
{
	const char *dir;
	char text[512], rd[300], again[400], path[400];
	char *plan;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	snprintf(path, sizeof(path), "%s/t", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(text, sizeof(text), "fsplan: 1\nname: once\n"
		 "target: {dir: %s/t}\nphases:\n  - {name: p, exec: 'true'}\n",
		 dir);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q", NULL });
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	snprintf(again, sizeof(again), "%s/again", dir);
	rc = e2e_fsplan((const char *[]){ "rerun", rd, "-o", again, NULL });
	cr_expect_eq(rc, 1, "exit %d: %s\n%s", rc, e2e_out, e2e_err);
	cr_expect(strstr(e2e_out, "cannot tell: none of the 1 key metrics"),
		  "%s", e2e_out);
	cr_expect_null(strstr(e2e_out, "reproduced"), "%s", e2e_out);
}

/* The archive goes to a file and nowhere else: -o naming a device is
 * refused before anything is written, and a name with a colon is a
 * local file (not tar's host:path). */
Test(pack, writes_only_a_regular_file, .fini = fini, .timeout = 120)
{
	const char *dir;
	char text[512], rd[300], out[400], path[400];
	struct stat st;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	snprintf(path, sizeof(path), "%s/t", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(text, sizeof(text), "fsplan: 1\nname: out\n"
		 "target: {dir: %s/t}\nphases:\n  - {name: p, exec: 'true'}\n",
		 dir);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	rc = e2e_fsplan((const char *[]){ "run", e2e_write(dir, "plan.yaml",
					  text), "-o", rd, "-q", NULL });
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	rc = pack(rd, "/dev/null");
	cr_expect_eq(rc, 3, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "/dev/null is not a regular file"), "%s",
		  e2e_err);
	cr_expect_eq(stat("/dev/null", &st), 0);
	cr_expect(S_ISCHR(st.st_mode), "/dev/null replaced");
	/* relative, so that only --force-local keeps tar from rsh */
	cr_assert_eq(chdir(dir), 0);
	snprintf(out, sizeof(out), "%s/host:study.tar.gz", dir);
	rc = pack(rd, "host:study.tar.gz");
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_eq(stat(out, &st), 0, "no local %s", out);
	cr_expect(S_ISREG(st.st_mode) && st.st_size > 0);
}
