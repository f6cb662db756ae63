/* main: fsplan's command line — parse it, dispatch, and map outcomes to exit codes. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "host/execpath.h"
#include "cells/expand.h"
#include "phase/libsrc.h"
#include "phase/phase.h"
#include "run/phasecheck.h"
#include "plan/plan.h"
#include "report/report.h"
#include "run/run.h"
#include "cells/select.h"

#ifndef FSPLAN_VERSION
#define FSPLAN_VERSION "0.0.0"
#endif

enum { EXIT_PLAN = 2 };

struct opts {
	const char *plan;
	struct plan_define *defs;
	int n_defs;
	const char **only;
	int n_only;
	int shard_k, shard_n;
};

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *help;
};

static const struct command *find_command(const char *name);

static const char usage_main[] =
"usage: fsplan COMMAND [ARGS]\n"
"\n"
"Declarative, reproducible filesystem benchmarks: a YAML plan names a\n"
"matrix of filesystems, mkfs and mount options and workload parameters;\n"
"fsplan expands it into cells, makes and mounts each filesystem, and runs\n"
"the phases without privileges.\n"
"\n"
"commands:\n"
"  check   PLAN [-D k=v]...        validate a plan; silent when it is good\n"
"  expand  PLAN [-D k=v]... [--only F]... [--shard K/N]\n"
"                                  print every cell: index, id, commands\n"
"  run     PLAN [-D k=v]... [-o DIR] [--only F]... [--shard K/N]\n"
"          [--resume DIR] [--workdir DIR] [--destroy DEVICE] [-q|-v]\n"
"                                  make, mount and measure every cell (root)\n"
"  report  RUNDIR [--format text|csv] [-o FILE] [--metric GLOB]...\n"
"                                  a run's tables: mean, spread, best first\n"
"  version                         print the version\n"
"  help    [COMMAND]               this text, or a command's\n"
"\n"
"exit status: 0 success, 1 some phase runs failed, 2 usage or plan\n"
"error, 3 refused for safety, 130/143 interrupted.\n";

static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "fsplan %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see 'fsplan help %s')\n", cmd);
	return EXIT_PLAN;
}

static int add_define(struct opts *o, char *arg, const char *cmd)
{
	char *eq = strchr(arg, '=');
	struct plan_define *nd;

	if (!eq || eq == arg)
		return usage_error(cmd, "-D takes name=value, not '%s'", arg);
	nd = realloc(o->defs, (o->n_defs + 1) * sizeof(*nd));
	if (!nd)
		return usage_error(cmd, "%s", "out of memory");
	o->defs = nd;
	*eq = '\0';
	for (int i = 0; i < o->n_defs; i++)
		if (!strcmp(o->defs[i].name, arg))
			return usage_error(cmd, "-D %s is given twice", arg);
	o->defs[o->n_defs].name = arg;
	o->defs[o->n_defs].value = eq + 1;
	o->n_defs++;
	return 0;
}

static int add_only(struct opts *o, char *arg, const char *cmd)
{
	const char **n = realloc(o->only, (o->n_only + 1) * sizeof(*n));

	if (!n)
		return usage_error(cmd, "%s", "out of memory");
	o->only = n;
	o->only[o->n_only++] = arg;
	return 0;
}

/* Options common to the commands that read a plan. */
static int parse_opts(int argc, char **argv, struct opts *o, int filters)
{
	static const struct option longs[] = {
		{ "define", required_argument, NULL, 'D' },
		{ "only", required_argument, NULL, 'O' },
		{ "shard", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cmd = argv[0];
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "D:h", longs, NULL)) != -1) {
		switch (c) {
		case 'D':
			if (add_define(o, optarg, cmd))
				return EXIT_PLAN;
			break;
		case 'O':
			if (!filters)
				return usage_error(cmd, "%s", "--only is not "
						   "an option of this command");
			if (add_only(o, optarg, cmd))
				return EXIT_PLAN;
			break;
		case 'S':
			if (!filters)
				return usage_error(cmd, "%s", "--shard is not "
						   "an option of this command");
			if (select_parse_shard(optarg, &o->shard_k,
					       &o->shard_n))
				return usage_error(cmd, "--shard takes K/N "
						   "with 1 <= K <= N, not '%s'",
						   optarg);
			break;
		case 'h':
			printf("usage: fsplan %s\n\n%s",
			       find_command(cmd)->usage,
			       find_command(cmd)->help);
			exit(0);
		default:
			return usage_error(cmd, "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error(cmd, "%s", optind == argc ?
				   "which plan? (a PLAN file is required)" :
				   "one PLAN file only");
	o->plan = argv[optind];
	return 0;
}

static void free_opts(struct opts *o)
{
	free(o->defs);
	free(o->only);
}

static int load(struct opts *o, struct plan **p, struct expansion **e)
{
	struct diag d = { 0 };
	struct runas who;

	if (plan_load(p, o->plan, o->defs, o->n_defs, &d) ||
	    expand_plan(*p, e, &d) || phasecheck_all(*e, (*p)->runas, &d) ||
	    privdrop_resolve((*p)->runas, &who, &d)) {
		expansion_free(*e);
		*e = NULL;
		diag_print(&d);
		plan_free(*p);
		*p = NULL;
		return EXIT_PLAN;
	}
	execpath_warn(*e, &who);
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	struct opts o;
	struct plan *p = NULL;
	struct expansion *e = NULL;
	int rc = parse_opts(argc, argv, &o, 0);

	if (!rc)
		rc = load(&o, &p, &e);
	expansion_free(e);
	plan_free(p);
	free_opts(&o);
	libsrc_free();
	return rc;
}

static int cmd_expand(int argc, char **argv)
{
	struct opts o;
	struct plan *p = NULL;
	struct expansion *e = NULL;
	struct diag d = { 0 };
	int rc = parse_opts(argc, argv, &o, 1);
	char mk[1024], mo[1024];

	if (!rc)
		rc = load(&o, &p, &e);
	if (!rc && select_cells(e, o.only, o.n_only, o.shard_k, o.shard_n,
				&d)) {
		diag_print(&d);
		rc = EXIT_PLAN;
	}
	for (size_t i = 0; !rc && i < e->n_cells; i++) {
		const struct cell *c = &e->cells[i];
		const struct fsconf *fc = &e->confs[c->conf];

		if (!c->selected)
			continue;
		fsconf_mkfs_cmd(p, fc, NULL, mk, sizeof(mk));
		fsconf_mount_cmd(p, fc, NULL, NULL, mo, sizeof(mo));
		printf("%zu\t%s\t%s\t%s", c->index, c->id, mk, mo);
		if (fc->setup)
			printf("\tsetup: %s", fc->setup);
		if (fc->teardown)
			printf("\tteardown: %s", fc->teardown);
		putchar('\n');
	}
	if (!rc && e->n_selected == 0)
		fprintf(stderr, "fsplan expand: no cell matches the filters "
			"(%zu cells in the plan)\n", e->n_cells);
	if (fflush(stdout) && !rc) {
		perror("fsplan expand: stdout");
		rc = 1;
	}
	expansion_free(e);
	plan_free(p);
	free_opts(&o);
	return rc;
}

static int cmd_version(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return usage_error("version", "%s", "takes no arguments");
	printf("fsplan %s\n", FSPLAN_VERSION);
	return 0;
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		fputs(usage_main, stdout);
		return 0;
	}
	c = find_command(argv[1]);
	if (!c)
		return usage_error("help", "no command '%s'", argv[1]);
	printf("usage: fsplan %s\n\n%s", c->usage, c->help);
	return 0;
}

static const struct command commands[] = {
	{ "check", cmd_check, "check PLAN [-D name=value]...",
	  "Load PLAN, check every key, value, ${...} reference and exclude\n"
	  "rule, and expand it; print nothing when it is good. Errors name\n"
	  "the place: file:line:col, the line and a caret. Exit 2 on error.\n"
	  "\n"
	  "  -D name=value   override a parameter of the plan's params\n" },
	{ "expand", cmd_expand,
	  "expand PLAN [-D name=value]... [--only FILTER]... [--shard K/N]",
	  "Print every cell the plan runs, one per line, tab-separated:\n"
	  "index, id, the mkfs command and the mount command (plus setup and\n"
	  "teardown hooks). LOOPDEV and MOUNTPOINT stand for what a run\n"
	  "attaches and mounts.\n"
	  "\n"
	  "  -D name=value     override a parameter\n"
	  "  --only FILTER     keep cells whose coordinates match, e.g.\n"
	  "                    type=xfs,threads=8 (comma = and; repeat = or)\n"
	  "  --shard K/N       keep the filesystem configs whose index mod N\n"
	  "                    is K-1 (a config's cells stay together)\n" },
	{ "run", run_command,
	  "run PLAN [-D name=value]... [-o DIR] [--only FILTER]... "
	  "[--shard K/N]\n"
	  "           [--resume DIR] [--workdir DIR] [--destroy DEVICE] "
	  "[-q|-v]",
	  "Run every cell: for each filesystem config, attach the target\n"
	  "(a sparse loop image by default), mkfs, mount, run the phases as\n"
	  "the plan's runas user without privileges, unmount, release.\n"
	  "Everything happens in a private mount and PID namespace, so\n"
	  "nothing stays mounted or attached after any exit. Must be root.\n"
	  "\n"
	  "  -D name=value     override a parameter\n"
	  "  -o DIR            the run directory (default\n"
	  "                    results/NAME-YYYYmmdd-HHMMSS)\n"
	  "  --only FILTER     keep matching cells (see 'fsplan help expand')\n"
	  "  --shard K/N       keep filesystem configs whose index mod N is K-1\n"
	  "  --resume DIR      continue a run: skip cells that have a status\n"
	  "                    row in DIR/results.csv, append the rest\n"
	  "  --workdir DIR     where loop images go (default: the run dir)\n"
	  "  --destroy DEVICE  repeat target.device's path: consent to\n"
	  "                    destroy what is on it\n"
	  "  -q, -v            quiet; verbose (log lines and progress)\n"
	  "\n"
	  "Writes results.csv, manifest.json, log.txt and exec/ in the run\n"
	  "directory. Exit 0 all ran, 1 some failed, 2 usage or plan error,\n"
	  "3 refused for safety, 130/143 interrupted (--resume continues).\n" },
	{ "report", report_command, report_usage, report_help },
	{ "version", cmd_version, "version", "Print fsplan's version.\n" },
	{ "help", cmd_help, "help [COMMAND]", "Show help.\n" },
	{ NULL, NULL, NULL, NULL }
};

static const struct command *find_command(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
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
		fputs(usage_main, stderr);
		return EXIT_PLAN;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv);
	if (!strcmp(argv[1], "--version"))
		return cmd_version(1, argv);
	c = find_command(argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	for (c = commands; c->name; c++)
		names[n++] = c->name;
	hint = diag_suggest(argv[1], names, n);
	fprintf(stderr, "fsplan: no command '%s'%s%s%s; see 'fsplan --help'\n",
		argv[1], hint ? " (did you mean '" : "", hint ? hint : "",
		hint ? "'?)" : "");
	return EXIT_PLAN;
}
