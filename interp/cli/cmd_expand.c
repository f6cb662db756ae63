/* cmd_expand: fsplan expand — print every cell of a plan a run would take. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "util/diag.h"
#include "cells/expand.h"
#include "cells/design.h"
#include "cells/fsconf.h"
#include "cells/select.h"
#include "plan/plan.h"
#include "plan/secfactors.h"
#include "util/exitcode.h"
#include "util/units.h"

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
	"teardown hooks, and an aged config's age). LOOPDEV and\n"
	"MOUNTPOINT stand for what a run attaches and mounts. Before them,\n"
	"each filesystem with factors shows its design: the factors, the\n"
	"-/+ matrix in run order, the generators and the aliases.\n"
	"\n"
	"  -D name=value     override a parameter (each name once)\n"
	"  --only FILTER     keep cells whose coordinates match, e.g.\n"
	"                    type=xfs,threads=8 or age=80%x4 (comma = and;\n"
	"                    repeat = or)\n"
	"  --shard K/N       keep the filesystem configs whose index mod N\n"
	"                    is K-1 (a config's cells stay together)\n",
	expand_opts, "PLAN file", 0, offsetof(struct plan_opts, plan),
	"print every cell: index, id, commands"
};

/* A level's words: "mkfs '-I 256', mount 'lazytime'", or "(none)". */
static void level_words(const struct plan_factor *f, int l)
{
	const char *mk = f->mkfs[l].s, *mo = f->mount[l].s;

	if (!mk[0] && !mo[0])
		printf("(none)");
	if (mk[0])
		printf("mkfs '%s'%s", mk, mo[0] ? ", " : "");
	if (mo[0])
		printf("mount '%s'", mo);
}

static const char *roman(int r)
{
	static const char *const num[] = { "III", "IV", "V", "VI", "VII" };

	return r >= 3 && r <= 7 ? num[r - 3] : "?";
}

/* The label of the config of entry fs's design row (0-based). */
static const char *row_label(const struct expansion *e,
			     const struct plan_fs *fs, int row)
{
	for (int i = 0; i < e->n_confs; i++)
		if (e->confs[i].fs == fs && e->confs[i].design_row == row + 1)
			return e->confs[i].label;
	return "(excluded)";
}

/* Entry f's design: what it is, its factors, its matrix in run order,
 * its generators and aliases. */
static void expand_design(const struct expansion *e, int f)
{
	const struct plan_fs *fs = &e->plan->fs[f];
	const struct expdesign *ed = &e->designs[f];
	const struct design *d = &ed->d;
	struct strbuf al = { 0 };
	int w = 0;

	printf("%s: %s", fs->label.s ? fs->label.s : fs->type.s,
	       secfactors_kind_name(d->kind));
	if (d->kind == DESIGN_FULL)
		printf(" 2^%d", d->k);
	if (d->kind == DESIGN_FRACTIONAL)
		printf(" 2^(%d-%d), resolution %s", d->k, d->n_gen,
		       roman(d->resolution));
	printf(", %d runs\n", d->n);
	for (int j = 0; j < fs->n_factors; j++)
		if ((int)strlen(fs->factors[j].name) > w)
			w = (int)strlen(fs->factors[j].name);
	for (int j = 0; j < fs->n_factors; j++) {
		printf("  %c  %-*s  -: ", design_letter(j), w,
		       fs->factors[j].name);
		level_words(&fs->factors[j], 0);
		printf("  +: ");
		level_words(&fs->factors[j], 1);
		putchar('\n');
	}
	printf("  run  row ");
	for (int j = 0; j < d->k; j++)
		printf(" %c", design_letter(j));
	printf("  config\n");
	for (int r = 0; r < d->n; r++) {
		int row = ed->order[r];

		printf("  %3d  %3d ", r + 1, row + 1);
		for (int j = 0; j < d->k; j++)
			printf(" %c", d->x[row * d->k + j] > 0 ? '+' : '-');
		printf("  %s\n", row_label(e, fs, row));
	}
	for (int g = 0; g < d->n_gen; g++)
		printf("%s%s", g ? ", " : "  generators: ", d->gen[g]);
	if (d->n_gen)
		putchar('\n');
	if (!design_aliases(d, &al) && al.len) {
		printf("  aliases:\n");
		for (const char *l = al.p; *l; l += strcspn(l, "\n") + 1) {
			printf("    %.*s\n", (int)strcspn(l, "\n"), l);
			if (!l[strcspn(l, "\n")])
				break;
		}
	}
	free(al.p);
	putchar('\n');
}

/* An aged config's age: "age: 80%x4 (fill 80%, churn 4, seed 1)", the
 * sizes, dirs and reuse when not the defaults. */
static void expand_age(const struct plan_age *a)
{
	printf("\tage: %s (fill %.4g%%, churn %.4g, seed %llu", a->name,
	       a->fill * 100, a->churn, (unsigned long long)a->seed);
	for (int i = 0; i < a->n_sizes; i++) {
		char sz[32];

		units_fmt_size(a->sizes[i].upto, sz, sizeof(sz));
		printf("%s%s: %g", i ? ", " : ", sizes {", sz,
		       a->sizes[i].weight);
	}
	if (a->n_sizes)
		putchar('}');
	if (a->dirs)
		printf(", dirs %d", a->dirs);
	if (!a->reuse)
		printf(", reuse false");
	putchar(')');
}

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
	if (fc->age)
		expand_age(fc->age);
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
	for (int f = 0; !rc && f < p->n_fs; f++)
		if (p->fs[f].n_factors)
			expand_design(e, f);
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
