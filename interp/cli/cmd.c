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
#include "cells/select.h"
#include "run/phasecheck.h"
#include "run/phfiles.h"
#include "plan/plan.h"
#include "run/resolve.h"
#include "util/exitcode.h"

static volatile sig_atomic_t stopped;

static void on_stop(int sig)
{
	stopped = sig;
}

/* A failed step: the plan and its cells freed, the error printed unless
 * a signal stopped it (an interrupt, not a plan error); the status. */
static int load_failed(struct plan **p, struct expansion **e,
		       const struct diag *d, volatile sig_atomic_t *stop)
{
	expansion_free(*e);
	*e = NULL;
	plan_free(*p);
	*p = NULL;
	if (stop && *stop)
		return EXIT_INTERRUPTED(*stop);
	diag_print(d);
	return EXIT_USAGE;
}

int cmd_load_plan(struct plan_opts *o, int select,
		  volatile sig_atomic_t *stop, struct plan **p,
		  struct expansion **e)
{
	struct sigaction sa = { .sa_handler = on_stop };
	const struct cell_opts *co = &o->cells;
	struct diag d = { 0 };

	/* Ctrl-C stops a module's Lua (its checking child, as root) */
	if (!stop) {
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		stop = &stopped;
	}
	if (plan_load(p, o->plan, co->defs, co->n_defs, &d) ||
	    resolve_plan(*p, &d) || expand_plan(*p, e, &d) ||
	    resolve_devices(*e, &d) ||
	    (select && select_cells(*e, co->only.v, co->only.n, co->shard_k,
				    co->shard_n, &d)) ||
	    phasecheck_all(*e, (*p)->runas, stop, &d))
		return load_failed(p, e, &d, stop);
	return 0;
}

int cmd_load_user(struct plan **p, struct expansion **e, struct runas *who,
		  volatile sig_atomic_t *stop)
{
	struct diag d = { 0 };

	if (privdrop_resolve((*p)->runas, who, &d) ||
	    execpath_syntax(*e, who, &d))
		return load_failed(p, e, &d, stop);
	execpath_warn(*e, who);
	expand_warn(*e);
	phfiles_warn(*p);
	return 0;
}

int cmd_load(struct plan_opts *o, struct plan **p, struct expansion **e)
{
	struct runas who;
	int rc = cmd_load_plan(o, 0, NULL, p, e);

	if (!rc)
		rc = cmd_load_user(p, e, &who, &stopped);
	return rc;
}

int cmd_fail(struct diag *d)
{
	enum diag_kind kind = d->kind;

	diag_print(d);
	diag_release(d);
	if (kind == DIAG_INPUT)
		return EXIT_USAGE;
	return kind == DIAG_REFUSED ? EXIT_REFUSED : EXIT_FAILED;
}

void cmd_notes(FILE *f, const char *name, const struct strbuf *notes)
{
	for (const char *p = notes->p, *nl; p && *p; p = *nl ? nl + 1 : nl) {
		nl = p + strcspn(p, "\n");
		fprintf(f, "fsplan %s: %.*s\n", name, (int)(nl - p), p);
	}
}

void cmd_fail_named(FILE *f, const char *name, const struct diag *d)
{
	fprintf(f, "fsplan %s: %s\n%s", name, d->msg,
		d->detail.p ? d->detail.p : "");
}
