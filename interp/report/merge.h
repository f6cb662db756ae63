/* merge: `fsplan merge` — the run directories of one plan's shards joined into
 * one run. */
#ifndef FSPLAN_MERGE_H
#define FSPLAN_MERGE_H

#include "util/diag.h"
#include "util/opts.h"
#include "util/strbuf.h"

/* fsplan merge's operands and options (cli/cmd_merge.c parses them). */
struct merge_opts {
	struct opt_list dirs;	/* the shards' run directories */
	const char *out;	/* -o: the merged run directory */
};

/*
 * fsplan merge RUNDIR... -o OUT, parsed into o; argc and argv, whose
 * argv[0] is "merge", go into the manifest. Returns 0, or -1 with d
 * filled when the shards are not of one plan run alike (plan sha256,
 * parameters, phases), a cell differs between two of them, OUT exists
 * and is not empty, or OUT cannot be written (nothing is left in it
 * then). notes gets the warnings and notes the user must see either way,
 * a line each.
 */
int merge_run(const struct merge_opts *o, int argc, char **argv,
	      struct strbuf *notes, struct diag *d);

#endif
