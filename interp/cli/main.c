/* main: fsplan's command line — parse it, dispatch, and map outcomes to exit codes. */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "host/execpath.h"
#include "host/fs.h"
#include "cells/expand.h"
#include "phase/libsrc.h"
#include "phase/phase.h"
#include "run/phasecheck.h"
#include "plan/plan.h"
#include "report/compare.h"
#include "report/merge.h"
#include "report/report.h"
#include "run/resolve.h"
#include "run/run.h"
#include "cells/cellopts.h"
#include "cells/select.h"
#include "util/exitcode.h"
#include "util/opts.h"
#include "util/units.h"

#ifndef FSPLAN_VERSION
#define FSPLAN_VERSION "0.0.0"
#endif

/* check and expand: a plan, its parameters and the filters. */
struct plan_opts {
	struct cell_opts cells;
	const char *plan;
};

struct command {
	const struct opts_cmd *cmd;
	int (*fn)(int argc, char **argv);
};

/* fsplan --help: what fsplan is, then the command table's synopses. */
static const char usage_head[] =
"usage: fsplan COMMAND [ARGS]\n"
"\n"
"Declarative, reproducible filesystem benchmarks: a YAML plan names a\n"
"matrix of filesystems, mkfs and mount options and workload parameters;\n"
"fsplan expands it into cells, makes and mounts each filesystem, and runs\n"
"the phases without privileges.\n"
"\n"
"commands:\n";

static const char usage_tail[] =
"\n"
"Every command takes --help. exit status: 0 success, 1 some phase runs\n"
"failed, 2 usage or plan error, 3 refused for safety, 130/143\n"
"interrupted.\n";

static const struct opt check_opts[] = {
	CELLOPTS_DEFINE(struct plan_opts, cells),
	OPT_END
};

static const struct opt expand_opts[] = {
	CELLOPTS(struct plan_opts, cells),
	OPT_END
};

static const struct opts_cmd check_cmd = {
	"check", "check PLAN [-D name=value]...",
	"Load PLAN, check every key, value, ${...} reference and exclude\n"
	"rule, and expand it; print nothing when it is good. Errors name\n"
	"the place: file:line:col, the line and a caret. Exit 2 on error.\n"
	"\n"
	"  -D name=value   override a parameter of the plan's params (each\n"
	"                  name once)\n",
	check_opts, "PLAN file", 0, offsetof(struct plan_opts, plan),
	"validate a plan; silent when it is good"
};

static const struct opts_cmd expand_cmd = {
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

/* version and help: an operand at most. */
struct word_opts {
	const char *word;
};

static const struct opts_cmd version_cmd = {
	"version", "version", "Print fsplan's version.\n", NULL, NULL, 0, 0,
	"print the version"
};

static const struct opts_cmd help_cmd = {
	"help", "help [COMMAND]",
	"Show what fsplan does and its commands, or COMMAND's help (as\n"
	"'fsplan COMMAND --help' does).\n",
	NULL, "COMMAND", 1, offsetof(struct word_opts, word),
	"this text, or a command's"
};

static const struct command commands[];
static const struct command *find_command(const char *name);

/* The overview: every command's synopsis, as its own help has it, and
 * its summary under it. */
static void usage_main(FILE *f)
{
	fputs(usage_head, f);
	for (const struct command *c = commands; c->cmd; c++) {
		opts_synopsis(c->cmd, f, "  ", "  ", 6);
		fprintf(f, "%10s%s\n", "", c->cmd->summary);
	}
	fputs(usage_tail, f);
}

static volatile sig_atomic_t stopped;

static void on_stop(int sig)
{
	stopped = sig;
}

static int load(struct plan_opts *o, struct plan **p, struct expansion **e)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct diag d = { 0 };
	struct runas who;

	/* Ctrl-C stops a module's Lua (its checking child, as root) */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (plan_load(p, o->plan, o->cells.defs, o->cells.n_defs, &d) ||
	    resolve_plan(*p, &d) || expand_plan(*p, e, &d) ||
	    resolve_devices(*e, &d) ||
	    phasecheck_all(*e, (*p)->runas, &stopped, &d) ||
	    privdrop_resolve((*p)->runas, &who, &d) ||
	    execpath_syntax(*e, &who, &d)) {
		expansion_free(*e);
		*e = NULL;
		if (!stopped)
			diag_print(&d);
		plan_free(*p);
		*p = NULL;
		return stopped ? EXIT_INTERRUPTED(stopped) : EXIT_USAGE;
	}
	execpath_warn(*e, &who);
	expand_warn(*e);
	return 0;
}

/*
 * Warn of a config whose mkfs refuses the plan's image size or its mkfs
 * options, by the tool's own dry run (ext2/3/4 and xfs have one), before
 * a run fails every cell of it: xfs below 300 MB, an unknown -O feature.
 * Each type and option string once.
 */
static void mkfs_warn(const struct expansion *e)
{
	const struct plan *p = e->plan;
	char why[256], size[32];

	if (p->target.kind != TARGET_IMAGE)
		return;
	units_fmt_size(p->target.image_bytes, size, sizeof(size));
	for (int i = 0; i < e->n_confs; i++) {
		const struct fsconf *fc = &e->confs[i];
		struct diag d = { 0 };
		int seen = 0;

		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(e->confs[j].fs->type.s,
				       fc->fs->type.s) &&
			       !strcmp(e->confs[j].mkfs, fc->mkfs);
		if (seen || fc->fs->nodev ||
		    fs_mkfs_dry(fc->fs->type.s, fc->mkfs,
				p->target.image_bytes, why, sizeof(why)) != 1)
			continue;
		diag_set(&d, p->file, p->text, fc->fs->type.pos,
			 "warning: %s: a dry run of 'mkfs.%s%s%s' on a %s "
			 "image fails, so every cell of it would: %s",
			 fc->label, fc->fs->type.s, *fc->mkfs ? " " : "",
			 fc->mkfs, size, why);
		diag_print(&d);
	}
}

static int cmd_check(int argc, char **argv)
{
	struct plan_opts o = { 0 };
	struct plan *p = NULL;
	struct expansion *e = NULL;
	int rc = opts_parse(&check_cmd, argc, argv, &o);

	if (rc == OPTS_GO)
		rc = load(&o, &p, &e);
	if (!rc && e)
		mkfs_warn(e);
	expansion_free(e);
	plan_free(p);
	opts_free(&check_cmd, &o);
	libsrc_free();
	return rc;
}

/* One line of expand: the cell, its config's commands. */
static void expand_line(const struct plan *p, const struct expansion *e,
			const struct cell *c)
{
	const struct fsconf *fc = &e->confs[c->conf];
	char mk[1024], mo[1024];

	fsconf_mkfs_cmd(p, fc, NULL, mk, sizeof(mk));
	fsconf_mount_cmd(p, fc, NULL, NULL, mo, sizeof(mo));
	printf("%zu\t%s\t%s\t%s", c->index, c->id, mk, mo);
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

static int cmd_expand(int argc, char **argv)
{
	struct plan_opts o = { 0 };
	struct plan *p = NULL;
	struct expansion *e = NULL;
	struct diag d = { 0 };
	int rc = opts_parse(&expand_cmd, argc, argv, &o);

	if (rc != OPTS_GO)
		goto out;
	rc = load(&o, &p, &e);
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

static int cmd_version(int argc, char **argv)
{
	int rc = opts_parse(&version_cmd, argc, argv, NULL);

	if (rc != OPTS_GO)
		return rc;
	printf("fsplan %s\n", FSPLAN_VERSION);
	return EXIT_OK;
}

static int cmd_help(int argc, char **argv)
{
	struct word_opts o = { NULL };
	const struct command *c;
	int rc = opts_parse(&help_cmd, argc, argv, &o);

	if (rc != OPTS_GO)
		return rc;
	if (!o.word) {
		usage_main(stdout);
		return EXIT_OK;
	}
	c = find_command(o.word);
	if (!c)
		return opts_usage("help", "no command '%s'", o.word);
	opts_help(c->cmd);
	return EXIT_OK;
}

static const struct command commands[] = {
	{ &check_cmd, cmd_check },
	{ &expand_cmd, cmd_expand },
	{ &run_cmd, run_command },
	{ &report_cmd, report_command },
	{ &compare_cmd, compare_command },
	{ &merge_cmd, merge_command },
	{ &version_cmd, cmd_version },
	{ &help_cmd, cmd_help },
	{ NULL, NULL }
};

static const struct command *find_command(const char *name)
{
	for (const struct command *c = commands; c->cmd; c++)
		if (!strcmp(c->cmd->name, name))
			return c;
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *c;
	const char *names[8];
	const char *hint;
	int n = 0;

	if (argc < 2) {
		usage_main(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv);
	if (!strcmp(argv[1], "--version"))
		return cmd_version(1, argv);
	c = find_command(argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	for (c = commands; c->cmd; c++)
		names[n++] = c->cmd->name;
	hint = diag_suggest(argv[1], names, n);
	fprintf(stderr, "fsplan: no command '%s'%s%s%s; see 'fsplan --help'\n",
		argv[1], hint ? " (did you mean '" : "", hint ? hint : "",
		hint ? "'?)" : "");
	return EXIT_USAGE;
}
