/* main: fsplan's command line — the command table, dispatch, exit codes. */
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "util/diag.h"
#include "util/exitcode.h"

/* fsplan --help: what fsplan is, then the command table's synopses. */
static const char usage_head[] =
"usage: fsplan COMMAND [ARGS]\n"
"\n"
"Declarative, reproducible filesystem benchmarks: a YAML plan names a\n"
"matrix of filesystems, mkfs and mount options and workload parameters;\n"
"fsplan expands it into cells, makes and mounts each filesystem, and runs\n"
"the phases without privileges.\n"
"\n"
"commands:\n";

static const char usage_tail[] =
"\n"
"Every command takes --help. exit status: 0 success, 1 some phase runs\n"
"failed, 2 usage or plan error, 3 refused for safety, 130/143\n"
"interrupted.\n";

static const struct command commands[] = {
	{ &check_cmd, cmd_check },
	{ &expand_cmd, cmd_expand },
	{ &run_cmd, cmd_run },
	{ &report_cmd, cmd_report },
	{ &effects_cmd, cmd_effects },
	{ &compare_cmd, cmd_compare },
	{ &merge_cmd, cmd_merge },
	{ &history_cmd, cmd_history },
	{ &pack_cmd, cmd_pack },
	{ &rerun_cmd, cmd_rerun },
	{ &version_cmd, cmd_version },
	{ &help_cmd, cmd_help },
	{ NULL, NULL }
};

const struct command *main_command(const char *name)
{
	for (const struct command *c = commands; c->cmd; c++)
		if (!strcmp(c->cmd->name, name))
			return c;
	return NULL;
}

/* The overview: every command's synopsis, as its own help has it, and
 * its summary under it. */
void main_usage(FILE *f)
{
	fputs(usage_head, f);
	for (const struct command *c = commands; c->cmd; c++) {
		opts_synopsis(c->cmd, f, "  ", "  ", 6);
		fprintf(f, "%10s%s\n", "", c->cmd->summary);
	}
	fputs(usage_tail, f);
}

int main(int argc, char **argv)
{
	const struct command *c;
	const char *names[sizeof(commands) / sizeof(commands[0])];
	const char *hint;
	int n = 0;

	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv);
	if (!strcmp(argv[1], "--version"))
		return cmd_version(1, argv);
	c = main_command(argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	for (c = commands; c->cmd; c++)
		names[n++] = c->cmd->name;
	hint = diag_suggest(argv[1], names, n);
	fprintf(stderr, "fsplan: no command '%s'%s%s%s; see 'fsplan --help'\n",
		argv[1], hint ? " (did you mean '" : "", hint ? hint : "",
		hint ? "'?)" : "");
	return EXIT_USAGE;
}
