/* lfail: the phase child's one way to fail — a struct diag, sent to the parent
 * as one record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phase/lfail.h"
#include "phase/params.h"
#include "plan/plan.h"
#include "results/metrics.h"
#include "util/clock.h"
#include "util/units.h"

int lfail_text(struct diag *d, enum diag_kind kind, const char *what,
	       const char *text)
{
	const char *sep = what ? ": " : "";
	size_t first = strcspn(text, "\n");

	if (!what)
		what = "";
	diag_fail(d, kind, 0, "%s%s%.*s", what, sep, (int)first, text);
	if (text[first] || strlen(what) + strlen(sep) + first >=
			   sizeof(d->msg)) {
		strbuf_printf(&d->detail, "%s%s%s", what, sep, text);
		/* out of memory: msg, which marks its cut, is what there is */
		if (d->detail.oom) {
			free(d->detail.p);
			memset(&d->detail, 0, sizeof(d->detail));
		}
	}
	return -1;
}

const char *lfail_whole(const struct diag *d)
{
	return d->detail.len ? d->detail.p : d->msg;
}

int lfail_send(const struct diag *d)
{
	int rc = metrics_diag_send(METRICS_REPORT_FD, d);

	/* stderr is the last way out: nothing to do if it fails too */
	(void)fprintf(stderr, "%s%s\n", lfail_whole(d), rc ?
		      " (and the report pipe to the parent is gone)" : "");
	return rc;
}

/*
 * A refusal that names a parameter first, after the step ("setup: n:
 * not 2"; lua/fsplan.lua's rule, the library's refusals) is about the
 * value the plan wrote: d then points at it, as every error found late
 * should (STYLE.md). An error with a place of its own (a Lua error's
 * "mod.lua:4:") starts with no parameter's name and stays as it is.
 */
static void place(const struct luajob *job, struct diag *d)
{
	const char *msg = strstr(d->msg, ": ");
	const struct pstr *v;
	struct pos kpos;
	char *key;
	size_t n;

	if (!msg)
		return;
	msg += 2;
	n = strspn(msg, "abcdefghijklmnopqrstuvwxyz0123456789_");
	if (!n || (msg[n] && msg[n] != ':' && msg[n] != ' '))
		return;
	key = strndup(msg, n);
	v = key ? params_place(&job->e->plan->phases[job->c->phase], job->c,
			       key, &kpos) : NULL;
	free(key);
	if (!v || v->pos.line < 1)
		return;
	snprintf(d->file, sizeof(d->file), "%s", job->e->plan->file);
	d->pos = v->pos;
}

void lfail_phase(const struct luajob *job, double deadline,
		 const char *what, const struct diag *d)
{
	const char *text = lfail_whole(d);
	struct strbuf head = { 0 }, hint = { 0 };
	enum diag_kind kind = d->kind;
	struct diag out = { 0 };
	char size[32];

	if (kind == DIAG_PHASE && strstr(text, "not enough memory")) {
		units_fmt_size(job->mem_bytes, size, sizeof(size));
		strbuf_printf(&hint, "%.*s (the phase's memory: %s, its Lua "
			      "states and their C buffers and op tables all "
			      "together; memory: in the plan sets it)%s",
			      (int)strcspn(text, "\n"), text, size,
			      text + strcspn(text, "\n"));
		text = hint.oom ? text : hint.p;
	}
	if (kind == DIAG_PHASE && what && deadline > 0 &&
	    clock_now() >= deadline) {
		strbuf_printf(&head, "timeout: %s", what);
		what = head.oom ? what : head.p;
		kind = DIAG_LIMIT;
	}
	lfail_text(&out, kind, what, text);
	out.err = d->err;
	if (d->file[0]) {
		memcpy(out.file, d->file, sizeof(out.file));
		out.pos = d->pos;
	} else {
		place(job, &out);
	}
	lfail_send(&out);
	diag_release(&out);
	free(head.p);
	free(hint.p);
}

void lfail_io_error(struct diag *d, const struct worker_errors *e)
{
	const char *name = strerrorname_np(e->first_err);
	const char *text = lfail_whole(d);
	size_t line = strcspn(text, "\n");
	struct strbuf b = { 0 };
	enum diag_kind kind = d->kind;
	int err = d->err;

	if (!e->n)
		return;
	strbuf_printf(&b, "%.*s; first I/O error: %s in %s (%s)%s", (int)line,
		      text, name ? name : "?", e->first_op, e->first_what,
		      text + line);
	if (!b.oom) {
		diag_release(d);
		lfail_text(d, kind, NULL, b.p);
		d->err = err;
	}
	free(b.p);
}
