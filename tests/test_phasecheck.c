/* test_phasecheck: the plan's phases checked as root in a dropped child — its
 * findings, its errors, its timeout. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

/* `fsplan check` of a plan whose one phase uses module (its source). */
static int check_module(const char *module, const char *with)
{
	const char *dir = e2e_tmpdir();
	char text[1024];

	e2e_write(dir, "m.lua", module);
	snprintf(text, sizeof(text), "fsplan: 1\nfilesystems: [{type: ext4}]\n"
		 "phases:\n  - {use: m.lua, name: m%s}\n", with);
	return e2e_fsplan((const char *[]){ "check",
					    e2e_write(dir, "plan.yaml", text),
					    NULL });
}

Test(phasecheck, a_bad_value_is_an_error_at_its_place_in_the_plan,
     .fini = fini, .timeout = 60)
{
	int rc;

	e2e_require_root();
	rc = check_module("return { params = { size = '1M' },\n"
			  "  worker = function(w) end }\n",
			  ", with: {size: lots}");
	cr_expect_neq(rc, 0);
	/* found in the dropped child, its position kept across the pipe */
	cr_expect(strstr(e2e_err, "plan.yaml:4:"), "%s", e2e_err);
	cr_expect(strstr(e2e_err, "'size' is a size, not 'lots'"), "%s",
		  e2e_err);
}

Test(phasecheck, what_a_module_declares_comes_back_to_root, .fini = fini,
     .timeout = 60)
{
	const char *dir;
	char scratch[400], text[1024], rd[400], *man;
	int rc;

	e2e_require_root();
	dir = e2e_tmpdir();
	snprintf(scratch, sizeof(scratch), "%s/scratch", dir);
	e2e_write(dir, "m.lua", "return { key = { 'rate_mbs', 'seen' },\n"
		  "  worker = function(w) w:count('seen', 1) end }\n");
	snprintf(text, sizeof(text), "fsplan: 1\ntarget: {dir: %s}\n"
		 "phases:\n  - {use: m.lua, name: m}\n", scratch);
	cr_assert_eq(mkdir(scratch, 0700), 0);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	rc = e2e_fsplan((const char *[]){ "run",
					  e2e_write(dir, "plan.yaml", text),
					  "-o", rd, "-q", NULL });
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	snprintf(text, sizeof(text), "%s/manifest.json", rd);
	man = e2e_slurp(text, NULL);
	cr_expect(strstr(man, "\"rate_mbs\"") && strstr(man, "\"seen\""),
		  "%s", man);
	free(man);
}

Test(phasecheck, a_module_that_hangs_in_c_is_killed_after_the_timeout,
     .fini = fini, .timeout = 120)
{
	int rc;

	e2e_require_root();
	/* backtracking in string.find: C, where the sandbox's instruction
	 * hook never runs; only the runner's timeout ends it */
	rc = check_module("string.find(string.rep('a', 100000), "
			  "'.-.-.-.-.-.-b')\n"
			  "return { worker = function(w) end }\n", "");
	cr_expect_neq(rc, 0);
	cr_expect(strstr(e2e_err, "still running after 60 s, killed"), "%s",
		  e2e_err);
}
