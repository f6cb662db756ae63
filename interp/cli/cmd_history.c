/* cmd_history: fsplan history — options, help; report/history.c keeps it. */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "report/history.h"
#include "util/exitcode.h"

static const char history_help[] =
"Keep runs in an SQLite database and follow them over time.\n"
"\n"
"  add RUNDIR...   add each run (its results.csv and manifest.json), one\n"
"                  transaction a run; a run_id already there is refused\n"
"  list            one line a run: run_id, plan, started, kernel, cells\n"
"  show --plan NAME\n"
"                  per cell and key metric (each phase's first key), each\n"
"                  run's mean over its repetitions, in order of start\n"
"                  time, with the run's kernel and the change against the\n"
"                  first\n"
"  check RUNDIR    each key metric of each cell of RUNDIR against the same\n"
"                  plan, config and cell in the last N runs of the\n"
"                  database (not RUNDIR's own): Welch's t-test of RUNDIR's\n"
"                  repetitions against the history's values pooled, and\n"
"                  compare's verdict (better, worse, no significant\n"
"                  difference at 0.05, cannot tell); a verdict says when\n"
"                  the plan sha256, params or kernel differ from the\n"
"                  history's\n"
"\n"
"  --db FILE       the database (default $XDG_DATA_HOME/fsplan/history.db,\n"
"                  else ~/.local/share/fsplan/history.db, made 0700)\n"
"  --plan NAME     show: the plan\n"
"  --metric GLOB   show: the metrics whose name matches GLOB instead\n"
"  --config LABEL  show: only the config LABEL\n"
"  --format text|csv|html\n"
"                  show: a table per cell and metric (default), one CSV\n"
"                  row per run, cell and metric, or a page with a trend\n"
"                  chart per cell and metric (a line per config)\n"
"  --last N        check: against the last N runs (default 5)\n"
"\n"
"Exit 0; 1 when check finds a metric significantly worse; 2 on a usage\n"
"error, an unreadable run or database; 3 when add refuses a run that\n"
"is there already, or --db is not a regular file (a device, a FIFO).\n";

struct history_opts {
	struct opt_list args;
	const char *db, *plan, *metric, *config, *format, *last;
};

static const struct opt history_opts_table[] = {
	OPT_STRING_OF("db", 0, struct history_opts, db),
	OPT_STRING_OF("plan", 0, struct history_opts, plan),
	OPT_STRING_OF("metric", 0, struct history_opts, metric),
	OPT_STRING_OF("config", 0, struct history_opts, config),
	OPT_STRING_OF("format", 0, struct history_opts, format),
	OPT_STRING_OF("last", 0, struct history_opts, last),
	OPT_END
};

const struct opts_cmd history_cmd = {
	"history",
	"history add RUNDIR... [--db FILE]\n"
	"history list [--db FILE]\n"
	"history show --plan NAME [--metric GLOB] [--config LABEL]\n"
	"[--format text|csv|html] [--db FILE]\n"
	"history check RUNDIR [--last N] [--db FILE]",
	history_help, history_opts_table, "add, list, show or check",
	OPERANDS_MANY, offsetof(struct history_opts, args),
	"runs in an SQLite database: add, list, trends, check a new run"
};

static int add(struct history *h, const struct history_opts *o,
	       struct diag *d)
{
	char id[256];
	long n = 0;

	if (o->args.n < 2)
		return opts_usage("history", "add takes one or more RUNDIRs");
	for (int i = 1; i < o->args.n; i++) {
		if (history_add(h, o->args.v[i], id, sizeof(id), &n, d))
			return -1;
		printf("added run %s (%ld values)\n", id, n);
	}
	return EXIT_OK;
}

static int show(struct history *h, const struct history_opts *o,
		struct diag *d)
{
	struct history_show s = { o->plan, o->metric, o->config,
				  HISTORY_TEXT };

	if (o->args.n != 1 || !o->plan)
		return opts_usage("history", "show takes --plan NAME and no "
				  "operand");
	if (o->format && !strcmp(o->format, "csv"))
		s.format = HISTORY_CSV;
	else if (o->format && !strcmp(o->format, "html"))
		s.format = HISTORY_HTML;
	else if (o->format && strcmp(o->format, "text"))
		return opts_usage("history", "--format takes text, csv or "
				  "html, not '%s'", o->format);
	return history_show(h, &s, stdout, d) ? -1 : EXIT_OK;
}

static int check(struct history *h, const struct history_opts *o,
		 struct diag *d)
{
	char *end;
	long last = 5;
	int rc;

	if (o->args.n != 2)
		return opts_usage("history", "check takes one RUNDIR");
	if (o->last) {
		last = strtol(o->last, &end, 10);
		if (end == o->last || *end || last < 1 || last > INT_MAX)
			return opts_usage("history", "--last takes a count of "
					  "runs, 1 or more, not '%s'", o->last);
	}
	rc = history_check(h, o->args.v[1], (int)last, stdout, d);
	return rc < 0 ? -1 : rc ? EXIT_FAILED : EXIT_OK;
}

static int dispatch(struct history *h, const struct history_opts *o,
		    struct diag *d)
{
	const char *what = o->args.v[0];

	if (!strcmp(what, "add"))
		return add(h, o, d);
	if (!strcmp(what, "show"))
		return show(h, o, d);
	if (!strcmp(what, "check"))
		return check(h, o, d);
	if (o->args.n != 1)
		return opts_usage("history", "list takes no operand");
	return history_list(h, stdout, d) ? -1 : EXIT_OK;
}

int cmd_history(int argc, char **argv)
{
	struct history_opts o = { 0 };
	struct history *h = NULL;
	struct diag d = { 0 };
	char path[PATH_MAX];
	int rc = opts_parse(&history_cmd, argc, argv, &o);
	static const char *const subs[] = { "add", "list", "show", "check",
					    NULL };
	int known = 0;

	for (int i = 0; rc == OPTS_GO && subs[i]; i++)
		known |= !strcmp(o.args.v[0], subs[i]);
	if (rc == OPTS_GO && !known)
		rc = opts_usage("history", "add, list, show or check, not '%s'",
				o.args.v[0]);
	if (rc == OPTS_GO && !o.db && !history_default_path(path,
							    sizeof(path), &d))
		o.db = path;
	if (rc == OPTS_GO && o.db)
		h = history_open(o.db, &d);
	if (rc == OPTS_GO) {
		rc = h ? dispatch(h, &o, &d) : -1;
		if (rc < 0) {
			cmd_fail_named(stderr, "history", &d);
			rc = d.kind == DIAG_REFUSED ? EXIT_REFUSED : EXIT_USAGE;
		}
	}
	history_close(h);
	diag_release(&d);
	opts_free(&history_cmd, &o);
	return rc;
}
