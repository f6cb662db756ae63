/* report: `fsplan report` — a run directory as the classic studies' tables. */
#ifndef FSPLAN_REPORT_H
#define FSPLAN_REPORT_H

#include "util/opts.h"

/* Its name, help and options, for the command table in main.c. */
extern const struct opts_cmd report_cmd;

/*
 * fsplan report RUNDIR [--format text|csv|html] [-o FILE]; argv[0] is
 * "report". Returns the exit status: 0, or 2 (usage error, no readable
 * RUNDIR/results.csv, output not writable).
 */
int report_command(int argc, char **argv);

#endif
