/* test_badplans: what check must catch before anything runs — the campaign's
 * malformed plans that failed only at run time. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

static int check(const char *text)
{
	return e2e_fsplan((const char *[]){ "check",
		e2e_write(e2e_tmpdir(), "plan.yaml", text), NULL });
}

Test(badplans, mount_options_with_spaces_are_a_plan_error, .fini = fini)
{
	int rc = check("fsplan: 1\n"
		       "filesystems:\n"
		       "  - {type: ext4, mount: [noatime, \"noatime, "
		       "nodiratime\"]}\n"
		       "phases: [{name: a, exec: 'true'}]\n");

	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "plan.yaml:3:35: mount options are "
			 "separated by ',' with no spaces: 'noatime, "
			 "nodiratime'"), "%s", e2e_err);
}

Test(badplans, an_exec_the_shell_cannot_parse_is_a_plan_error, .fini = fini)
{
	int rc = check("fsplan: 1\n"
		       "filesystems: [{type: tmpfs}]\n"
		       "phases:\n"
		       "  - {name: ok, exec: 'echo ${n} | wc -c'}\n"
		       "  - {name: bad, exec: 'if [ -e x ]; then echo ${n}'}\n"
		       "params: {n: 1}\n");

	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "plan.yaml:5:23: exec: the shell cannot "
			 "parse this command: Syntax error: end of file "
			 "unexpected"), "%s", e2e_err);
}

Test(badplans, an_exclude_that_excludes_nothing_is_a_warning, .fini = fini)
{
	int rc = check("fsplan: 1\n"
		       "filesystems:\n"
		       "  - {type: ext4, mount: [noatime, relatime]}\n"
		       "  - {type: xfs}\n"
		       "exclude:\n"
		       "  - {mount: [noatme, relatime]}\n"
		       "  - {type: xfs, mount: noatime}\n"
		       "  - {type: ext4, mount: relatime}\n"
		       "phases: [{name: a, exec: 'true'}]\n");

	cr_expect_eq(rc, 0, "a warning, not an error: exit %d: %s", rc,
		     e2e_err);
	cr_expect(strstr(e2e_err, "plan.yaml:6:14: warning: exclude: no cell "
			 "has mount 'noatme': this value excludes nothing"),
		  "%s", e2e_err);
	cr_expect(strstr(e2e_err, "plan.yaml:7:5: warning: exclude: no cell "
			 "has all of this rule's values: it excludes "
			 "nothing"), "%s", e2e_err);
	/* relatime drops ext4:relatime (twice over): no word of it */
	cr_expect_null(strstr(e2e_err, ":8:"), "%s", e2e_err);
	cr_expect_null(strstr(e2e_err, "'relatime'"), "%s", e2e_err);
}

/* A module's `seconds` that is a plain number: -1 would make w:done()
 * never true, a run that only its timeout ends. */
Test(badplans, negative_seconds_are_a_plan_error, .fini = fini)
{
	int rc;

	e2e_write(e2e_tmpdir(), "sec.lua",
		  "return { params = { seconds = 5 },\n"
		  "  worker = function(w) while not w:done() do end end }\n");
	rc = check("fsplan: 1\n"
		   "filesystems: [{type: tmpfs}]\n"
		   "phases: [{use: sec.lua, with: {seconds: -1}}]\n");
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "plan.yaml:3:41: phase 'sec': 'seconds' "
			 "must not be negative"), "%s", e2e_err);
}
