/* compare: `fsplan compare` — which differences between two runs (or two configs) are real. */
#ifndef FSPLAN_COMPARE_H
#define FSPLAN_COMPARE_H

#include "util/opts.h"

/* Its name, help and options, for the command table in main.c. */
extern const struct opts_cmd compare_cmd;

/*
 * fsplan compare RUNDIR_A RUNDIR_B | RUNDIR --label A --label B [...];
 * argv[0] is "compare". Returns the exit status: 0; 1 with
 * --fail-on-regression when a key metric is significantly worse in B;
 * 2 on a usage error, runs that cannot be read or compared (different
 * phases, nothing in common), an unwritable output, --format html.
 */
int compare_command(int argc, char **argv);

#endif
