/* cmd_help: fsplan help — the overview, or a command's help. */
#include <stddef.h>
#include <stdio.h>

#include "cli/cmd.h"
#include "util/exitcode.h"

/* help: a command's name, or none. */
struct word_opts {
	const char *word;
};

const struct opts_cmd help_cmd = {
	"help", "help [COMMAND]",
	"Show what fsplan does and its commands, or COMMAND's help (as\n"
	"'fsplan COMMAND --help' does).\n",
	NULL, "COMMAND", 1, offsetof(struct word_opts, word),
	"this text, or a command's"
};

int cmd_help(int argc, char **argv)
{
	struct word_opts o = { NULL };
	const struct command *c;
	int rc = opts_parse(&help_cmd, argc, argv, &o);

	if (rc != OPTS_GO)
		return rc;
	if (!o.word) {
		main_usage(stdout);
		return EXIT_OK;
	}
	c = main_command(o.word);
	if (!c)
		return opts_usage("help", "no command '%s'", o.word);
	opts_help(c->cmd);
	return EXIT_OK;
}
