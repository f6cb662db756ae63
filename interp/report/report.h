/* report: `fsplan report` — a run directory as the classic studies' tables. */
#ifndef FSPLAN_REPORT_H
#define FSPLAN_REPORT_H

#include "report/outfmt.h"
#include "util/diag.h"
#include "util/opts.h"
#include "util/strbuf.h"

/* fsplan report's operand and options (cli/cmd_report.c parses them). */
struct report_opts {
	enum out_format fmt;
	const char *out, *rundir;
	struct opt_list metric;		/* --metric GLOB, in order */
	int all;			/* not with metric */
	struct opt_list where;		/* --where k=v: the runs kept */
	const char *by;			/* --by AXIS: the pivot, or NULL */
	int audit;			/* --audit: only the audit */
	int *audit_failed;		/* set to 1 when a check fails */
};

/*
 * The report of o->rundir as o asks, to standard output or o->out.
 * Returns 0, or -1 with d filled (no readable RUNDIR/results.csv, a
 * --metric that matches no metric of the run, a --where or --by key
 * that is no run's coordinate, -o over the run's own
 * record, an output that cannot be written, out of memory; d's detail
 * holds more lines to print under its message). notes gets lines the
 * user must see either way (results.csv rows left out).
 */
int report_run(const struct report_opts *o, struct strbuf *notes,
	       struct diag *d);

#endif
