/* test_hometree: the home tree study's table of a real run on loop images. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

#define STEP(s) "  - {name: " s ", use: tree, with: {step: " s \
		", size: 8M, reflink: \"${reflink}\"}}\n"

/* The words of the row of step in the text section that starts at sect
 * (up to its blank line), into w (at most 12); how many, 0 none. */
static int row_words(const char *sect, const char *step, char w[][32])
{
	const char *end = strstr(sect, "\n\n");
	char pat[32], line[256];
	const char *p;
	int n = 0, at = 0, len;

	snprintf(pat, sizeof(pat), "\n  %s ", step);
	p = strstr(sect, pat);
	if (!p || (end && p > end))
		return 0;
	len = (int)strcspn(p + 1, "\n");
	snprintf(line, sizeof(line), "%.*s", len, p + 1);
	while (n < 12 && sscanf(line + at, "%31s%n", w[n], &len) == 1) {
		at += len;
		n++;
	}
	return n;
}

/* Whether word is a number. */
static int is_num(const char *word)
{
	char *end;

	strtod(word, &end);
	return end != word && !*end;
}

/* A section of the table: its steps' CPU columns are figures, create and
 * copy have a MiB/s, a move (a rename) and an rm none. */
static void expect_section(const char *sect)
{
	static const char *const moves[] = { "create", "copy" };
	static const char *const none[] = { "move", "rm1", "rm2" };
	char w[12][32];

	for (int i = 0; i < 2; i++) {
		cr_assert_eq(row_words(sect, moves[i], w), 9, "%s", sect);
		cr_expect(is_num(w[2]) && is_num(w[3]) && is_num(w[4]),
			  "user, system, CPU%%: %s", sect);
		cr_expect(is_num(w[6]) && atof(w[6]) > 0, "%s MiB/s: %s",
			  moves[i], sect);
	}
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(row_words(sect, none[i], w), 9, "%s", sect);
		cr_expect(is_num(w[4]), "CPU%%: %s", sect);
		cr_expect_str_eq(w[6], "-", "%s moves no data: %s", none[i],
				 sect);
	}
}

/* A run of the steps with reflink as a top-level axis: a section per
 * value with the mkfs and mount seconds of each volume; the runs of a
 * move or an rm record no rate. */
Test(hometree, a_real_run_as_the_study_printed_it, .fini = fini,
     .timeout = 240)
{
	const char *dir, *plan, *s, *never, *aut;
	char rd[256];
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	plan = e2e_write(dir, "plan.yaml",
		"fsplan: 1\n"
		"seed: 3\n"
		"matrix: {reflink: [never, auto]}\n"
		"target: {image: 64M, volumes: [source, target]}\n"
		"between: [sync, remount, drop_caches]\n"
		"filesystems: [{type: ext4}]\n"
		"phases:\n"
		STEP("prepare") STEP("create") STEP("copy") STEP("move")
		STEP("rm1") STEP("rm2"));
	snprintf(rd, sizeof(rd), "%s/run", dir);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					  "--workdir", dir, NULL });
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_not_null(e2e_metric(rd, "ext4/copy/reflink=never#1",
				      "rate_mbs"));
	cr_expect_null(e2e_metric(rd, "ext4/move/reflink=never#1",
				  "rate_mbs"), "a rename moves no data");
	cr_expect_null(e2e_metric(rd, "ext4/rm1/reflink=auto#1", "rate_mbs"));
	cr_assert_eq(e2e_fsplan((const char *[]){ "report", rd, NULL }), 0,
		     "%s", e2e_err);
	s = strstr(e2e_out, "== the home tree");
	cr_assert_not_null(s, "%s", e2e_out);
	never = strstr(s, "\next4 reflink=never   mkfs source ");
	aut = strstr(s, "\next4 reflink=auto   mkfs source ");
	cr_assert(never && aut && never < aut, "%s", s);
	cr_expect(strstr(never, ", target ") < strstr(never, "   mount source ")
		  && strstr(never, "   mount source ") < aut,
		  "mkfs and mount per volume: %s", never);
	cr_expect_not_null(strstr(s, "  step        seconds  user s system s  "
				  "CPU%   files/s    MiB/s source MiB target "
				  "MiB\n"), "%s", s);
	expect_section(never);
	expect_section(aut);
	cr_expect_eq(e2e_mounted_under(dir), 0);
	cr_expect_eq(e2e_loops_under(dir), 0);
}
