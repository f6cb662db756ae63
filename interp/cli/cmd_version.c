/* cmd_version: fsplan version — print the version. */
#include <stdio.h>

#include "cli/cmd.h"
#include "util/exitcode.h"

#ifndef FSPLAN_VERSION
#define FSPLAN_VERSION "0.0.0"
#endif

const struct opts_cmd version_cmd = {
	"version", "version", "Print fsplan's version.\n", NULL, NULL, 0, 0,
	"print the version"
};


int cmd_version(int argc, char **argv)
{
	int rc = opts_parse(&version_cmd, argc, argv, NULL);

	if (rc != OPTS_GO)
		return rc;
	printf("fsplan %s\n", FSPLAN_VERSION);
	return EXIT_OK;
}
