/* test_resolve: what the pure loader leaves to this machine is checked after
 * it, at the plan's place. */
#include <criterion/criterion.h>
#include <string.h>

#include "plan/plan.h"
#include "run/resolve.h"

/* Load text as t.yaml (the pure loader must take it), then resolve it. */
static int load_and_resolve(const char *text, struct plan **p,
			    struct diag *d)
{
	cr_assert_eq(plan_load_text(p, "fixtures/t.yaml", text, strlen(text),
				    NULL, 0, d), 0,
		     "the pure loader refused it: %s", d->msg);
	return resolve_plan(*p, d);
}

/* The same, which must resolve. */
static struct plan *resolved(const char *text)
{
	struct plan *p = NULL;
	struct diag d = { 0 };

	cr_assert_eq(load_and_resolve(text, &p, &d), 0, "%s", d.msg);
	return p;
}

static void expect_refused(const char *text, int line, int col,
			   const char *msg)
{
	struct plan *p = NULL;
	struct diag d = { 0 };

	cr_expect_eq(load_and_resolve(text, &p, &d), -1, "resolved; "
		     "expected '%s'", msg);
	cr_expect_str_eq(d.file, "fixtures/t.yaml");
	cr_expect_eq(d.pos.line, line, "line %d, expected %d (%s)",
		     d.pos.line, line, d.msg);
	cr_expect_eq(d.pos.col, col, "col %d, expected %d (%s)", d.pos.col,
		     col, d.msg);
	cr_expect(strstr(d.msg, msg), "message '%s' lacks '%s'", d.msg, msg);
	cr_expect(d.srcline[0], "no source line for the caret");
	plan_free(p);
}

Test(resolve, a_kernel_nodev_type_takes_no_mkfs)
{
	/* proc is nodev in /proc/filesystems; its name alone says nothing */
	expect_refused("fsplan: 1\n"
		       "filesystems:\n"
		       "  - type: proc\n"
		       "    mkfs: [-a, -b]\n"
		       "phases: [{exec: 'true'}]\n",
		       4, 11, "proc has no device to make");
}

Test(resolve, a_kernel_nodev_type_is_marked_nodev)
{
	struct plan *p = resolved("fsplan: 1\n"
				  "filesystems: [{type: proc}, {type: ext4}]\n"
				  "phases: [{exec: 'true'}]\n");

	cr_expect(p->fs[0].nodev);
	cr_expect(!p->fs[1].nodev);
	plan_free(p);
}

Test(resolve, an_unknown_runas_is_refused_at_runas)
{
	expect_refused("fsplan: 1\n"
		       "runas: no-such-user-xyz\n"
		       "filesystems: [{type: ext4}]\n"
		       "phases: [{exec: 'true'}]\n",
		       2, 8, "unknown user 'no-such-user-xyz'");
}

Test(resolve, missing_modules_and_parsers_are_refused_at_use)
{
	expect_refused("fsplan: 1\n"
		       "filesystems: [{type: ext4}]\n"
		       "phases:\n"
		       "  - use: noop.lua\n"
		       "  - use: missing.lua\n",
		       5, 10, "phase module 'missing.lua' not found (looked "
		       "for fixtures/missing.lua)");
	expect_refused("fsplan: 1\n"
		       "filesystems: [{type: ext4}]\n"
		       "phases:\n"
		       "  - use: no_such_module\n",
		       4, 10, "no phase module 'no_such_module' in the "
		       "library");
	expect_refused("fsplan: 1\n"
		       "filesystems: [{type: ext4}]\n"
		       "phases:\n"
		       "  - exec: fio --output-format=json\n"
		       "    parse: no_such_parser\n",
		       5, 12, "no parser 'no_such_parser' in the library");
}

Test(resolve, modules_and_the_plan_dir_become_absolute)
{
	struct plan *p = resolved("fsplan: 1\n"
				  "filesystems: [{type: ext4}]\n"
				  "phases: [{use: noop.lua}, {use: bonnie}]\n");

	cr_expect(p->dir[0] == '/' && strstr(p->dir, "/tests/fixtures"),
		  "%s", p->dir);
	cr_expect(strstr(p->phases[0].module_path, "/tests/fixtures/noop.lua"),
		  "%s", p->phases[0].module_path);
	cr_expect(p->phases[1].module_path[0] == '/' &&
		  strstr(p->phases[1].module_path, "/bonnie.lua"),
		  "%s", p->phases[1].module_path);
	plan_free(p);
}
