/* cmd_expand: fsplan expand — print every cell of a plan a run would take. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cmd.h"
#include "util/diag.h"
#include "cells/expand.h"
#include "cells/fsconf.h"
#include "cells/select.h"
#include "plan/plan.h"
#include "util/exitcode.h"

static const struct opt expand_opts[] = {
	CELLOPTS(struct plan_opts, cells),
	OPT_END
};

const struct opts_cmd expand_cmd = {
	"expand",
	"expand PLAN [-D name=value]... [--only FILTER]...\n"
	"[--shard K/N]",
	"Print every cell the plan runs, one per line, in the order a run\n"
	"takes them (order: rounds: round by round), tab-separated: index,\n"
	"id, the mkfs command and the mount command (plus setup and\n"
	"teardown hooks). LOOPDEV and MOUNTPOINT stand for what a run\n"
	"attaches and mounts.\n"
	"\n"
	"  -D name=value     override a parameter (each name once)\n"
	"  --only FILTER     keep cells whose coordinates match, e.g.\n"
	"                    type=xfs,threads=8 (comma = and; repeat = or)\n"
	"  --shard K/N       keep the filesystem configs whose index mod N\n"
	"                    is K-1 (a config's cells stay together)\n",
	expand_opts, "PLAN file", 0, offsetof(struct plan_opts, plan),
	"print every cell: index, id, commands"
};

/* One line of expand: the cell, its config's commands. */
static void expand_line(const struct plan *p, const struct expansion *e,
			const struct cell *c)
{
	const struct fsconf *fc = &e->confs[c->conf];
	struct strbuf mk = { 0 }, mo = { 0 };

	fsconf_mkfs_cmd(p, fc, NULL, &mk);
	fsconf_mount_cmd(p, fc, NULL, NULL, &mo);
	/* out of memory, a command is left empty */
	printf("%zu\t%s\t%s\t%s", c->index, c->id, mk.oom ? "" : mk.p,
	       mo.oom ? "" : mo.p);
	free(mk.p);
	free(mo.p);
	if (fc->setup)
		printf("\tsetup: %s", fc->setup);
	if (fc->teardown)
		printf("\tteardown: %s", fc->teardown);
	putchar('\n');
}

/* The selected cells in the order a run takes them: by config, or
 * (order: rounds) round by round, as run/runner.c's run_rounds. */
static void expand_lines(const struct plan *p, const struct expansion *e)
{
	int rounds;

	if (!p->rounds) {
		for (size_t i = 0; i < e->n_cells; i++)
			if (e->cells[i].selected)
				expand_line(p, e, &e->cells[i]);
		return;
	}
	rounds = expansion_rounds(e);
	for (int k = 1; k <= rounds; k++)
		for (int j = 0; j < e->n_confs; j++) {
			const struct fsconf *fc =
				expansion_round_conf(e, k, j);

			for (size_t i = 0; i < fc->n_cells; i++) {
				const struct cell *c =
					&e->cells[fc->first_cell + i];

				if (c->selected && c->rep == k)
					expand_line(p, e, c);
			}
		}
}

int cmd_expand(int argc, char **argv)
{
	struct plan_opts o = { 0 };
	struct plan *p = NULL;
	struct expansion *e = NULL;
	struct diag d = { 0 };
	int rc = opts_parse(&expand_cmd, argc, argv, &o);

	if (rc != OPTS_GO)
		goto out;
	rc = cmd_load(&o, &p, &e);
	if (!rc && select_cells(e, o.cells.only.v, o.cells.only.n,
				o.cells.shard_k, o.cells.shard_n, &d)) {
		diag_print(&d);
		rc = EXIT_USAGE;
	}
	if (!rc)
		expand_lines(p, e);
	if (!rc && e->n_selected == 0)
		fprintf(stderr, "fsplan expand: no cell matches the filters "
			"(%zu cells in the plan)\n", e->n_cells);
	if (fflush(stdout) && !rc) {
		perror("fsplan expand: stdout");
		rc = EXIT_FAILED;
	}
out:
	expansion_free(e);
	plan_free(p);
	opts_free(&expand_cmd, &o);
	return rc;
}
