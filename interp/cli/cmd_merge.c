/* cmd_merge: fsplan merge — options, help; report/merge.c joins the shards. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cmd.h"
#include "report/merge.h"
#include "util/exitcode.h"

static const char merge_help[] =
"Join the run directories of one plan's shards (fsplan run --shard K/N\n"
"on N machines: a Slurm job array, a Kubernetes indexed Job, GNU\n"
"parallel over ssh) into one run directory OUT, which report and compare\n"
"read as if one machine had run the plan.\n"
"\n"
"The shards must be runs of the same plan (manifest.json's plan sha256)\n"
"with the same parameters (-D) and the same phase modules, each given\n"
"once (two with one run id are one shard, or a copy); anything else is\n"
"refused with what differs. OUT gets:\n"
"\n"
"  results.csv    every shard's rows in the plan's cell order, with OUT's\n"
"                 run id; a cell in two shards is written once if its rows\n"
"                 are identical, and refused otherwise\n"
"  timeseries.csv every phase run's last block of points, in the plan's\n"
"                 cell order, with OUT's run id\n"
"  bonnie.csv     the shards' bonnie++ lines (each once), in plan order\n"
"  manifest.json  the plan, the union of the cells, each config as the\n"
"                 shard that ran it recorded it, with that host's machine\n"
"                 facts (system, target, host, shard); the system and\n"
"                 target facts every host shares at the top; the shards\n"
"                 under \"merged\"; status partial when the shards\n"
"                 together lack cells of the plan\n"
"  log.txt        the shards' logs one after another, each line under its\n"
"                 host name\n"
"  exec/          the shards' raw exec outputs: regular files of at most\n"
"                 1 GiB, never more than mode 0644; a link, FIFO, device\n"
"                 or larger file there is left out with a warning\n"
"\n"
"  -o, --output OUT  the merged run directory: new, or an empty directory\n"
"                    (not a symbolic link)\n"
"\n"
"Exit 0, or 2 on a usage error, shards that do not match, or when OUT\n"
"cannot be written (what was written to it is removed).\n";

static const struct opt merge_opts_table[] = {
	OPT_STRING_OF("output", 'o', struct merge_opts, out),
	OPT_END
};

const struct opts_cmd merge_cmd = {
	"merge", "merge RUNDIR... -o OUT", merge_help, merge_opts_table,
	"RUNDIR", OPERANDS_MANY, offsetof(struct merge_opts, dirs),
	"join the run directories of one plan's shards (--shard) into one"
};

int cmd_merge(int argc, char **argv)
{
	struct merge_opts o = { { NULL, 0 }, NULL };
	struct strbuf notes = { 0 };
	struct diag d = { 0 };
	int rc = opts_parse(&merge_cmd, argc, argv, &o);

	if (rc == OPTS_GO && !o.out)
		rc = opts_usage("merge", "%s", "-o OUT is required: the run "
				"directory to write");
	if (rc == OPTS_GO) {
		rc = merge_run(&o, argc, argv, &notes, &d) ? EXIT_USAGE :
		     EXIT_OK;
		cmd_notes(stderr, "merge", &notes);
		if (rc)
			cmd_fail_named(stderr, "merge", &d);
	}
	free(notes.p);
	diag_release(&d);
	opts_free(&merge_cmd, &o);
	return rc;
}
