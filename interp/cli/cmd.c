/* cmd: what the plan's commands share — the plan's load and check chain. */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "util/diag.h"
#include "host/execpath.h"
#include "host/privdrop.h"
#include "cells/expand.h"
#include "run/phasecheck.h"
#include "plan/plan.h"
#include "run/resolve.h"
#include "util/exitcode.h"

static volatile sig_atomic_t stopped;

static void on_stop(int sig)
{
	stopped = sig;
}

int cmd_load(struct plan_opts *o, struct plan **p, struct expansion **e)
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

void cmd_notes(FILE *f, const char *name, const struct strbuf *notes)
{
	for (const char *p = notes->p, *nl; p && *p; p = *nl ? nl + 1 : nl) {
		nl = p + strcspn(p, "\n");
		fprintf(f, "fsplan %s: %.*s\n", name, (int)(nl - p), p);
	}
}

void cmd_fail(FILE *f, const char *name, const struct diag *d)
{
	fprintf(f, "fsplan %s: %s\n%s", name, d->msg,
		d->detail.p ? d->detail.p : "");
}
