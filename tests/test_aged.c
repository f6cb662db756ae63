/* test_aged: configs aged after their mount, as a run does it, end to end. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

static void expect_clean(const char *dir)
{
	cr_expect_eq(e2e_mounted_under(dir), 0, "something is still mounted "
		     "under %s", dir);
	cr_expect_eq(e2e_loops_under(dir), 0, "a loop device is still backed "
		     "by an image under %s", dir);
}

/* The n-th (from 1) 64-digit sha256 after "what" in text, into sha. */
static int sha_after(const char *text, const char *what, int n, char *sha)
{
	const char *p = text;

	for (int k = 0; k < n; k++) {
		p = strstr(p, what);
		if (!p)
			return -1;
		p += strlen(what);
	}
	if (strspn(p, "0123456789abcdef") < 64)
		return -1;
	memcpy(sha, p, 64);
	sha[64] = '\0';
	return 0;
}

/* A plan of ext4 fresh and aged, rounds rounds, the phase a check of
 * what the aging left beside the work directory. */
static char *write_plan(const char *dir, const char *age, int rounds)
{
	char text[1024];

	snprintf(text, sizeof(text), "fsplan: 1\nname: aged\n"
		 "target: {image: 256M}\n"
		 "order: rounds\nrepeat: %d\n"
		 "filesystems:\n  - type: ext4\n    age: [none, %s]\n"
		 "phases:\n  - {name: p, exec: 'ls .. > seen'}\n", rounds, age);
	return e2e_write(dir, "plan.yaml", text);
}

/*
 * Aged once, then every round starts from the kept image: the second
 * round is made from it (no mkfs, the same sha256 as kept), measures the
 * same aged state (files, layout, free extents), and the kept images go
 * when the run completes. The fresh config has no age rows.
 */
Test(aged, aged_once_and_every_round_from_the_kept_image, .fini = fini,
     .timeout = 240)
{
	const char *dir, *aged = "ext4@age=50%x1s3";
	char *plan, rd[300], path[400], kept[65], made[65], cell[2][96];
	const char *log, *man;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = write_plan(dir, "{fill: 50%, churn: 1, seed: 3}", 2);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					  "--workdir", dir, NULL });
	cr_assert_eq(rc, 0, "exit %d: %s\n%s", rc, e2e_err, e2e_failed(rd));
	for (int k = 0; k < 2; k++)
		snprintf(cell[k], sizeof(cell[k]), "%s#%d", aged, k + 1);
	cr_expect_str_eq(e2e_metric(rd, "ext4/p#1", "status"), "ok");
	cr_expect_str_eq(e2e_metric(rd, "ext4@age=50%x1s3/p#2", "status"),
			 "ok");
	/* filled to half, then churned: a lot of files, a layout */
	cr_expect(e2e_num(rd, cell[0], "age_fill_pct") > 40 &&
		  e2e_num(rd, cell[0], "age_fill_pct") < 70, "fill %g",
		  e2e_num(rd, cell[0], "age_fill_pct"));
	cr_expect_gt(e2e_num(rd, cell[0], "age_files"), 100);
	cr_expect_gt(e2e_num(rd, cell[0], "age_bytes_written"),
		     1.5 * 0.5 * 200e6);
	/* round 2: from the kept image, the same state measured */
	cr_expect(!isnan(e2e_num(rd, cell[0], "mkfs_s")));
	cr_expect_null(e2e_metric(rd, cell[1], "mkfs_s"), "round 2 made anew");
	cr_expect_not_null(e2e_metric(rd, cell[1], "age_restore_s"));
	for (int m = 0; m < 4; m++) {
		static const char *const same[] = { "age_files",
			"age_fill_pct", "age_layout_score",
			"age_extents_per_file" };

		cr_expect_eq(e2e_num(rd, cell[0], same[m]),
			     e2e_num(rd, cell[1], same[m]), "%s", same[m]);
	}
	cr_expect_null(e2e_metric(rd, "ext4#1", "age_fill_pct"),
		       "the fresh config aged");
	/* measured again after the phases: their file "seen" is one more */
	cr_expect_eq(e2e_num(rd, cell[1], "age_end_files"),
		     e2e_num(rd, cell[1], "age_files") + 1);
	/* the sha256 kept is the one round 2 was made from */
	snprintf(path, sizeof(path), "%s/manifest.json", rd);
	man = e2e_read(path);
	cr_assert_not_null(strstr(man, "\"age_kept\""), "%s", man);
	cr_assert_eq(sha_after(strstr(man, "\"age_kept\""), "\"sha256\": \"",
			       1, kept), 0, "%s", man);
	snprintf(path, sizeof(path), "%s/log.txt", rd);
	log = e2e_read(path);
	cr_assert(strstr(log, "from the kept aged image "), "%s", log);
	made[0] = '\0';
	{
		const char *p = strstr(log, "from the kept aged image ");
		const char *s = p ? strstr(p, "(sha256 ") : NULL;

		if (s && strspn(s + 8, "0123456789abcdef") >= 64)
			snprintf(made, sizeof(made), "%.64s", s + 8);
	}
	cr_expect_str_eq(made, kept, "round 2 not made from the kept image");
	cr_expect(strstr(log, "the kept aged images removed"), "%s", log);
	snprintf(path, sizeof(path), "%s/aged", rd);
	cr_expect_neq(access(path, F_OK), 0, "aged/ left after completion");
	/* the phase ran beside what the aging made */
	expect_clean(dir);
}

/* The same seed ages the same way: reuse: false ages each round anew,
 * with the same operations (their digest) and a layout within a few
 * hundredths. */
Test(aged, the_same_seed_ages_the_same_way, .fini = fini, .timeout = 240)
{
	const char *dir;
	char *plan, rd[300], path[400], a[65], b[65], cell[2][96];
	const char *log;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = write_plan(dir, "{fill: 40%, churn: 1, reuse: false}", 2);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					  "--workdir", dir, NULL });
	cr_assert_eq(rc, 0, "exit %d: %s\n%s", rc, e2e_err, e2e_failed(rd));
	snprintf(path, sizeof(path), "%s/log.txt", rd);
	log = e2e_read(path);
	cr_assert_eq(sha_after(log, "trace sha256 ", 1, a), 0, "%s", log);
	cr_assert_eq(sha_after(log, "trace sha256 ", 2, b), 0, "aged once:"
		     "\n%s", log);
	cr_expect_str_eq(a, b, "the same seed, other operations");
	for (int k = 0; k < 2; k++)
		snprintf(cell[k], sizeof(cell[k]), "ext4@age=40%%x1#%d", k + 1);
	cr_expect(!isnan(e2e_num(rd, cell[1], "mkfs_s")), "made anew");
	cr_expect_lt(fabs(e2e_num(rd, cell[0], "age_layout_score") -
			  e2e_num(rd, cell[1], "age_layout_score")), 0.05);
	cr_expect_eq(e2e_num(rd, cell[0], "age_files"),
		     e2e_num(rd, cell[1], "age_files"));
	expect_clean(dir);
}

/* Killed while it ages: nothing left mounted or attached, no kept image
 * half written; the resume ages again and completes. */
Test(aged, killed_while_aging_resumes_and_ages_again, .fini = fini,
     .timeout = 300)
{
	const char *dir;
	char *plan, rd[300], path[400];
	const char *log;
	int status, rc;
	pid_t pid;

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = write_plan(dir, "{fill: 80%, churn: 6}", 1);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	snprintf(path, sizeof(path), "%s/log.txt", rd);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
					      "--workdir", dir, NULL });
	for (int i = 0; i < 600 && !strstr(e2e_read(path), ": aging:"); i++)
		usleep(50000);
	cr_assert(strstr(e2e_read(path), ": aging:"), "never aged:\n%s",
		  e2e_read(path));
	usleep(300000);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	cr_expect(WIFSIGNALED(status));
	for (int i = 0; i < 40 && (e2e_mounted_under(dir) ||
				   e2e_loops_under(dir)); i++)
		usleep(100000);
	expect_clean(dir);
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
					  "--workdir", dir, NULL });
	cr_assert_eq(rc, 0, "resume: %s\n%s", e2e_err, e2e_failed(rd));
	log = e2e_read(path);
	log = strstr(log, "(resumed)");
	cr_assert_not_null(log, "no resume in the log");
	cr_expect(strstr(log, ": aging:"), "the resume did not age:\n%s", log);
	cr_expect_str_eq(e2e_metric(rd, "ext4@age=80%x6/p#1", "status"),
			 "ok");
	expect_clean(dir);
}

/* Churn ages: on ext4 and xfs filled to 70%, the churned config's files
 * lie in more pieces than those of the fill alone (layout score lower,
 * more extents a file) and its free space is cut in more extents. */
Test(aged, churn_fragments_files_and_free_space, .fini = fini,
     .timeout = 240)
{
	static const char *const type[] = { "ext4", "xfs" };
	const char *dir;
	char *plan, rd[300], fill[64], churn[64];
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = e2e_write(dir, "plan.yaml", "fsplan: 1\nname: churn\n"
			 "target: {image: 512M}\n"
			 "filesystems: [{type: ext4}, {type: xfs}]\n"
			 "age: [{fill: 70%, churn: 0}, {fill: 70%, churn: 4}]\n"
			 "phases:\n  - {name: p, exec: 'true'}\n");
	snprintf(rd, sizeof(rd), "%s/run", dir);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					  "--workdir", dir, NULL });
	cr_assert_eq(rc, 0, "exit %d: %s\n%s", rc, e2e_err, e2e_failed(rd));
	for (int t = 0; t < 2; t++) {
		snprintf(fill, sizeof(fill), "%s@age=70%%x0", type[t]);
		snprintf(churn, sizeof(churn), "%s@age=70%%x4", type[t]);
		cr_expect_lt(e2e_num(rd, churn, "age_layout_score"),
			     e2e_num(rd, fill, "age_layout_score"), "%s",
			     type[t]);
		cr_expect_gt(e2e_num(rd, churn, "age_extents_per_file"),
			     e2e_num(rd, fill, "age_extents_per_file"), "%s",
			     type[t]);
		cr_expect_gt(e2e_num(rd, churn, "age_free_extents"),
			     2 * e2e_num(rd, fill, "age_free_extents"), "%s",
			     type[t]);
		cr_expect_gt(e2e_num(rd, churn, "age_bytes_written"),
			     4 * e2e_num(rd, fill, "age_bytes_written"), "%s",
			     type[t]);
	}
	expect_clean(dir);
}

/* A kept aged image that changed between its keeping and its use (a
 * byte flipped while the run was down) is refused with the reason, not
 * measured as the aged state. */
Test(aged, a_kept_image_that_changed_is_refused, .fini = fini,
     .timeout = 240)
{
	const char *dir;
	char *plan, rd[300], path[400], img[400];
	int status, rc, fd;
	pid_t pid;

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = e2e_write(dir, "plan.yaml", "fsplan: 1\nname: tamper\n"
			 "target: {image: 256M}\norder: rounds\nrepeat: 2\n"
			 "filesystems:\n  - {type: ext4, age: {fill: 30%}}\n"
			 "phases:\n  - {name: p, exec: 'sleep 30'}\n");
	snprintf(rd, sizeof(rd), "%s/run", dir);
	snprintf(path, sizeof(path), "%s/log.txt", rd);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
					      "--workdir", dir, NULL });
	for (int i = 0; i < 600 && !strstr(e2e_read(path), "image kept as");
	     i++)
		usleep(50000);
	cr_assert(strstr(e2e_read(path), "image kept as"), "%s",
		  e2e_read(path));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	for (int i = 0; i < 40 && (e2e_mounted_under(dir) ||
				   e2e_loops_under(dir)); i++)
		usleep(100000);
	snprintf(img, sizeof(img), "%s/aged/1.img", rd);
	fd = open(img, O_WRONLY);
	cr_assert_geq(fd, 0, "no kept image %s", img);
	cr_assert_eq(pwrite(fd, "x", 1, 4 << 20), 1);
	close(fd);
	rc = e2e_fsplan((const char *[]){ "run", plan, "--resume", rd, "-q",
					  "--workdir", dir, NULL });
	cr_expect_neq(rc, 0, "a changed aged image was used");
	cr_expect(strstr(e2e_failed(rd), "changed since it was made"), "%s",
		  e2e_failed(rd));
	expect_clean(dir);
}
