/* merge: `fsplan merge` — the run directories of one plan's shards joined into one run. */
#ifndef FSPLAN_MERGE_H
#define FSPLAN_MERGE_H

#include "util/opts.h"

/* Its name, help and options, for the command table in main.c. */
extern const struct opts_cmd merge_cmd;

/*
 * fsplan merge RUNDIR... -o OUT; argv[0] is "merge". Returns the exit
 * status: 0, or 2 when the shards are not of one plan run alike (plan
 * sha256, parameters, phases), a cell differs between two of them, OUT
 * exists and is not empty, or OUT cannot be written (nothing is left in
 * it then).
 */
int merge_command(int argc, char **argv);

#endif
