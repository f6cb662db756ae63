/* lfail: the phase child's one way to fail — a struct diag, sent to the parent as one record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phase/lfail.h"
#include "phase/sandbox.h"
#include "results/metrics.h"

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

void lfail_buf_open(struct lfail_buf *b)
{
	b->p = malloc(LFAIL_TEXT_MAX);
	b->len = b->p ? LFAIL_TEXT_MAX : sizeof(b->small);
	if (!b->p)
		b->p = b->small;
	b->p[0] = '\0';
}

int lfail_buf_close(struct lfail_buf *b, int rc, enum diag_kind kind,
		    struct diag *d)
{
	struct strbuf marked = { 0 };

	/* a text that filled the room is marked as cut, never passed on
	 * as whole */
	if (rc && strlen(b->p) >= b->len - 1)
		strbuf_printf(&marked, "%s [... the rest, past %zu bytes, is "
			      "left out ...]", b->p, b->len - 1);
	if (rc)
		lfail_text(d, kind, NULL, marked.p ? marked.p : b->p);
	free(marked.p);
	if (b->p != b->small)
		free(b->p);
	return rc ? -1 : 0;
}

int lfail_call(lua_State *L, int nargs, int nres, struct diag *d)
{
	struct lfail_buf b;

	lfail_buf_open(&b);
	return lfail_buf_close(&b, sandbox_call(L, nargs, nres, b.p, b.len),
			       DIAG_PHASE, d);
}

int lfail_cpcall(lua_State *L, lua_CFunction fn, void *arg, int idx,
		 struct diag *d)
{
	struct lfail_buf b;

	lfail_buf_open(&b);
	return lfail_buf_close(&b, sandbox_cpcall(L, fn, arg, idx, b.p,
						  b.len), DIAG_PHASE, d);
}

int lfail_send(const struct diag *d)
{
	int rc = metrics_diag_send(METRICS_REPORT_FD, d);

	/* stderr is the last way out: nothing to do if it fails too */
	(void)fprintf(stderr, "%s%s\n", lfail_whole(d), rc ?
		      " (and the report pipe to the parent is gone)" : "");
	return rc;
}
