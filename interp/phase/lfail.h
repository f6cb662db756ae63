/* lfail: how the phase child fails — Lua's error text into a struct diag, and the diag to the parent. */
#ifndef FSPLAN_LFAIL_H
#define FSPLAN_LFAIL_H

#include <lua.h>

#include "util/diag.h"

/*
 * d (empty: zeroed or released) from text: kind, msg "what: " (what may
 * be NULL) and the text's first line, cut in the middle with a mark when
 * it does not fit; when the text says more than msg holds (more lines,
 * or a cut), detail is "what: " and the whole text, as the wire's
 * records want (results/metrics.h). Returns -1.
 */
int lfail_text(struct diag *d, enum diag_kind kind, const char *what,
	       const char *text);
/* d's whole text: its detail, or its message. */
const char *lfail_whole(const struct diag *d);

/*
 * Room for the text of a char *err interface (sandbox.c's, phase.c's,
 * worker.c's, until they fill a struct diag themselves): open, pass p
 * and len, close with the call's rc (0: nothing to take), which puts a
 * failure's text into d as lfail_text makes it, marked as cut if it
 * filled the room. close returns 0, or -1 (rc != 0).
 */
#define LFAIL_TEXT_MAX	(1u << 20)
struct lfail_buf {
	char small[256], *p;	/* small when LFAIL_TEXT_MAX is not had */
	size_t len;
};
void lfail_buf_open(struct lfail_buf *b);
int lfail_buf_close(struct lfail_buf *b, int rc, enum diag_kind kind,
		    struct diag *d);

/* sandbox_call and sandbox_cpcall (sandbox.h) with the error, its
 * message and traceback, into d (kind DIAG_PHASE). 0, or -1. */
int lfail_call(lua_State *L, int nargs, int nres, struct diag *d);
int lfail_cpcall(lua_State *L, lua_CFunction fn, void *arg, int idx,
		 struct diag *d);

/* d to the parent, the report fd's one failure record, and its whole
 * text to stderr (the phase's exec/ file). 0, or -1 if the parent could
 * not be told. */
int lfail_send(const struct diag *d);

#endif
