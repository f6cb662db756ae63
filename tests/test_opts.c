/* test_opts: the one option parser — a table in, the same rules for every
 * command. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/exitcode.h"
#include "util/opts.h"

struct t_opts {
	int flag;
	const char *str, *operand;
	struct opt_list list;
	int calls;
};

static int count_call(const char *arg, void *slot, struct diag *d)
{
	int *n = slot;

	if (!strcmp(arg, "bad"))
		return diag_fail(d, DIAG_INPUT, 0, "--call refuses '%s'", arg);
	++*n;
	return 0;
}

/* Marks the count released, so the test sees opts_free call it. */
static void note_release(void *slot)
{
	*(int *)slot = -1;
}

static const struct opt t_table[] = {
	OPT_FLAG_OF("flag", 'f', struct t_opts, flag),
	OPT_STRING_OF("str", 's', struct t_opts, str),
	OPT_LIST_OF("list", 0, struct t_opts, list),
	{ "call", 'c', OPT_CALL, offsetof(struct t_opts, calls), count_call,
	  1, note_release },
	OPT_END
};

static const struct opts_cmd t_cmd = {
	"tcmd", "tcmd THING [-f] [-s S] [--list L]... [-c C]...",
	"A command of the tests.\n", t_table, "THING", 0,
	offsetof(struct t_opts, operand), "a command of the tests"
};

/* Parse a NULL-ended argv (after "tcmd") into o; the status. */
static int parse(struct t_opts *o, const char *const *args)
{
	char *argv[16];
	int argc = 0;

	memset(o, 0, sizeof(*o));
	argv[argc++] = (char *)"tcmd";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	return opts_parse(&t_cmd, argc, argv, o);
}

static struct t_opts o;

Test(opts, every_kind_lands_where_its_table_says)
{
	cr_assert_eq(parse(&o, (const char *[]){ "--list", "a", "-f", "thing",
			   "-s", "x", "--list=b", "-c", "1", "--call", "2",
			   NULL }), OPTS_GO);
	cr_expect_eq(o.flag, 1);
	cr_expect_str_eq(o.str, "x");
	cr_expect_str_eq(o.operand, "thing", "the operand anywhere");
	cr_assert_eq(o.list.n, 2);
	cr_expect_str_eq(o.list.v[0], "a");
	cr_expect_str_eq(o.list.v[1], "b");
	cr_expect_null(o.list.v[2], "NULL-ended");
	cr_expect_eq(o.calls, 2);
	opts_free(&t_cmd, &o);
	cr_expect_null(o.list.v);
	cr_expect_eq(o.calls, -1, "an OPT_CALL entry's release runs");
}

Test(opts, a_single_value_twice_is_an_error_a_flag_twice_is_not,
     .init = cr_redirect_stderr)
{
	cr_expect_eq(parse(&o, (const char *[]){ "t", "-s", "x", "--str",
			   "y", NULL }), EXIT_USAGE);
	opts_free(&t_cmd, &o);
	cr_expect_eq(parse(&o, (const char *[]){ "t", "-f", "--flag", NULL }),
		     OPTS_GO);
	opts_free(&t_cmd, &o);
}

Test(opts, usage_errors_exit_2, .init = cr_redirect_stderr)
{
	cr_expect_eq(parse(&o, (const char *[]){ NULL }), EXIT_USAGE,
		     "the operand is required");
	cr_expect_eq(parse(&o, (const char *[]){ "t", "u", NULL }), EXIT_USAGE);
	cr_expect_eq(parse(&o, (const char *[]){ "t", "--nope", NULL }),
		     EXIT_USAGE);
	cr_expect_eq(parse(&o, (const char *[]){ "t", "-s", NULL }),
		     EXIT_USAGE);
	cr_expect_eq(parse(&o, (const char *[]){ "t", "-c", "bad", NULL }),
		     EXIT_USAGE);
	opts_free(&t_cmd, &o);
	fflush(stderr);
	cr_expect_stderr_eq_str(
		"fsplan tcmd: a THING is required\n"
		"(see 'fsplan help tcmd')\n"
		"fsplan tcmd: one THING only, not also 'u'\n"
		"(see 'fsplan help tcmd')\n"
		"fsplan tcmd: unknown option '--nope'\n"
		"(see 'fsplan help tcmd')\n"
		"fsplan tcmd: '-s' needs a value\n"
		"(see 'fsplan help tcmd')\n"
		"fsplan tcmd: --call refuses 'bad'\n"
		"(see 'fsplan help tcmd')\n");
}

Test(opts, help_prints_and_ends_with_0, .init = cr_redirect_stdout)
{
	cr_expect_eq(parse(&o, (const char *[]){ "--help", NULL }), EXIT_OK,
		     "no operand needed for --help");
	fflush(stdout);
	cr_expect_stdout_eq_str("usage: fsplan tcmd THING [-f] [-s S] "
				"[--list L]... [-c C]...\n\n"
				"A command of the tests.\n");
}

Test(opts, double_dash_ends_the_options_and_parsing_starts_afresh)
{
	cr_expect_eq(parse(&o, (const char *[]){ "-f", "--", "-s", NULL }),
		     OPTS_GO);
	cr_expect_str_eq(o.operand, "-s");
	cr_expect_null(o.str);
	opts_free(&t_cmd, &o);
	cr_expect_eq(parse(&o, (const char *[]){ "t", NULL }), OPTS_GO);
	cr_expect_eq(o.flag, 0, "nothing left of the last parse");
	opts_free(&t_cmd, &o);
}

/* A command of several operands (fsplan merge RUNDIR...). */
struct m_opts {
	struct opt_list dirs;
	const char *out;
};

static const struct opt m_table[] = {
	OPT_STRING_OF("output", 'o', struct m_opts, out),
	OPT_END
};

static const struct opts_cmd m_cmd = {
	"mcmd", "mcmd DIR... -o OUT", "Several operands.\n", m_table, "DIR",
	OPERANDS_MANY, offsetof(struct m_opts, dirs), "several operands"
};

static int parse_many(struct m_opts *mo, const char *const *args)
{
	char *argv[16];
	int argc = 0;

	memset(mo, 0, sizeof(*mo));
	argv[argc++] = (char *)"mcmd";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	return opts_parse(&m_cmd, argc, argv, mo);
}

Test(opts, several_operands_in_order_around_the_options,
     .init = cr_redirect_stderr)
{
	struct m_opts mo;

	cr_assert_eq(parse_many(&mo, (const char *[]){ "a", "-o", "x", "b",
				"c", NULL }), OPTS_GO);
	cr_assert_eq(mo.dirs.n, 3);
	cr_expect_str_eq(mo.dirs.v[0], "a");
	cr_expect_str_eq(mo.dirs.v[1], "b");
	cr_expect_str_eq(mo.dirs.v[2], "c");
	cr_expect_null(mo.dirs.v[3]);
	cr_expect_str_eq(mo.out, "x");
	opts_free(&m_cmd, &mo);
	cr_expect_null(mo.dirs.v);
	cr_expect_eq(mo.dirs.n, 0);
	cr_expect_eq(parse_many(&mo, (const char *[]){ "-o", "x", NULL }),
		     EXIT_USAGE, "one operand at least");
	opts_free(&m_cmd, &mo);
	cr_expect_eq(parse_many(&mo, (const char *[]){ "a", "--", "-b", NULL }),
		     OPTS_GO);
	cr_expect_eq(mo.dirs.n, 2);
	cr_expect_str_eq(mo.dirs.v[1], "-b", "after --, an operand");
	opts_free(&m_cmd, &mo);
}
