/* phasecheck: the plan's phases checked before anything runs — in a dropped
 * child when root. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/child.h"
#include "host/privdrop.h"
#include "phase/check.h"
#include "phase/libsrc.h"
#include "phase/phase.h"
#include "plan/plan.h"
#include "run/phasecheck.h"

/*
 * The child's reply on the report fd: a NUL (so that child_run, which
 * looks for a failure record among the report's lines, reads no
 * further), a kind, and the payload: 'K' and the n_phases phase_checked
 * structs, or 'D' and the diag, its position kept, as a failure record
 * (metrics_diag_send). Anything else is a broken child.
 */
#define REPLY_KEYS 'K'
#define REPLY_DIAG 'D'

struct check_job {
	const struct expansion *e;
	char **text;			/* per phase: the module's source */
	size_t *tlen;
	struct phase_checked *got;	/* room for every phase */
};

/* The child body (host/child.h): check here, send the reply. */
static int check_body(void *arg)
{
	const struct check_job *j = arg;
	struct diag d = { 0 };
	int rc = check_phases(j->e, j->text, j->tlen, NULL, j->got, &d);
	char head[2] = { '\0', rc ? REPLY_DIAG : REPLY_KEYS };
	size_t len = (size_t)j->e->plan->n_phases * sizeof(*j->got);

	if (write(CHILD_REPORT_FD, head, 2) != 2 ||
	    (rc ? metrics_diag_send(CHILD_REPORT_FD, &d) :
	     write(CHILD_REPORT_FD, j->got, len) != (ssize_t)len)) {
		diag_release(&d);
		return 2;
	}
	diag_release(&d);
	return rc ? 1 : 0;
}

static int no_memory(const struct expansion *e, struct diag *d)
{
	return diag_set(d, e->plan->file, NULL, (struct pos){ 0, 0 },
			"out of memory");
}

/* What the child said (res), into e->checked or d. */
static int take_reply(struct expansion *e, const struct child_result *res,
		      struct diag *d)
{
	size_t ksize = (size_t)e->plan->n_phases * sizeof(*e->checked);
	const char *p = res->report;
	size_t n = res->report_len;
	int sent = n >= 2 && p[0] == '\0';

	if (res->timed_out)
		return diag_set(d, e->plan->file, NULL, (struct pos){ 0, 0 },
				"checking the phases: still running after %d "
				"s, killed (does a module's or a parser's top "
				"level loop?)", PHASECHECK_TIMEOUT_S);
	if (sent && p[1] == REPLY_KEYS && n == 2 + ksize && res->ok) {
		struct phase_checked *got = malloc(ksize ? ksize : 1);

		if (!got)
			return no_memory(e, d);
		memcpy(got, p + 2, ksize);	/* aligned for the check */
		if (!check_sent_ok(got, e->plan->n_phases)) {
			free(got);
			sent = 0;
		} else {
			memcpy(e->checked, got, ksize);
			free(got);
			return 0;
		}
	} else if (sent && p[1] == REPLY_DIAG && !res->ok) {
		struct diag got = { 0 };

		if (metrics_diag_decode(p + 2, n - 2, &got) == 1) {
			*d = got;	/* its detail is d's now */
			return -1;
		}
	}
	if (res->ok)
		return diag_set(d, e->plan->file, NULL, (struct pos){ 0, 0 },
				"checking the phases: the check sent back "
				"nothing");
	return diag_set(d, e->plan->file, NULL, (struct pos){ 0, 0 },
			"checking the phases failed: %s", child_reason(res));
}

/* As root: the Lua runs in a child that holds nothing, on sources read
 * here (runas may not reach the plan's directory). */
static int check_dropped(struct expansion *e, const char *runas,
			 volatile sig_atomic_t *stop, struct diag *d)
{
	static const char *const no_env[] = { NULL };
	int np = e->plan->n_phases, rc;
	struct check_job cj = { .e = e };
	struct child_job job = { 0 };
	struct child_result res;
	struct runas who;

	if (privdrop_resolve(runas, &who, d))
		return -1;
	cj.got = calloc((size_t)np + 1, sizeof(*cj.got));
	cj.text = calloc((size_t)np + 1, sizeof(*cj.text));
	cj.tlen = calloc((size_t)np + 1, sizeof(*cj.tlen));
	if (!cj.got || !cj.text || !cj.tlen) {
		rc = no_memory(e, d);
		goto out;
	}
	for (int i = 0; i < np; i++)
		if (e->plan->phases[i].use.s)
			cj.text[i] = phase_read_source(
				e->plan->phases[i].module_path, &cj.tlen[i]);
	job.runas = &who;
	job.workdir = "/";
	job.out_fd = STDOUT_FILENO;
	job.err_fd = STDERR_FILENO;
	job.timeout_s = PHASECHECK_TIMEOUT_S;
	job.env = no_env;
	job.body = check_body;
	job.arg = &cj;
	if (child_run(&job, stop, &res)) {
		rc = diag_set(d, e->plan->file, NULL, (struct pos){ 0, 0 },
			      "cannot check the phases: %s", strerror(errno));
		goto out;
	}
	rc = take_reply(e, &res, d);
	child_result_free(&res);
out:
	for (int i = 0; cj.text && i < np; i++)
		free(cj.text[i]);
	free(cj.text);
	free(cj.tlen);
	free(cj.got);
	return rc;
}

/* An exec module's script beside it, read now as its module was (the
 * library's were, all of them): the runs run the text checked. Root
 * looks for it here when the child could not (check_exec_script). */
static int keep_script(const struct expansion *e, int i, struct diag *d)
{
	const struct phase_checked *chk = &e->checked[i];
	char *path;

	if (!chk->exec[0])
		return 0;
	if (check_exec_script(e->plan, i, chk->exec, d))
		return -1;
	path = libsrc_exec_path(e->plan->phases[i].module_path, chk->exec);
	if (path)
		(void)libsrc_keep(path);
	free(path);
	return 0;
}

int phasecheck_all(struct expansion *e, const char *runas,
		   volatile sig_atomic_t *stop, struct diag *d)
{
	int any = 0, rc;

	/* before any child: runas may not reach the library's directory */
	if (libsrc_load(libsrc_dir()))
		return diag_set(d, e->plan->file, NULL, (struct pos){ 0, 0 },
				"cannot read the phase library %s: %s",
				libsrc_dir(), strerror(errno));
	for (int i = 0; i < e->plan->n_phases; i++) {
		const struct plan_phase *ph = &e->plan->phases[i];

		any |= ph->use.s || ph->parse.s;
		/* read once: the run runs what it checked and recorded,
		 * however the file changes while it goes (unreadable by
		 * root, the phase reads it as runas) */
		if (ph->use.s && ph->module_path)
			(void)libsrc_keep(ph->module_path);
	}
	if (!any || geteuid() != 0)
		rc = check_phases(e, NULL, NULL, stop, e->checked, d);
	else
		rc = check_dropped(e, runas, stop, d);
	for (int i = 0; !rc && e->checked && i < e->plan->n_phases; i++)
		rc = keep_script(e, i, d);
	return rc;
}
