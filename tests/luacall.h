/* luacall: sandbox calls in tests, their failure as one text to match. */
#ifndef FSPLAN_TEST_LUACALL_H
#define FSPLAN_TEST_LUACALL_H

#include <stddef.h>
#include <stdio.h>

#include "phase/sandbox.h"

/* d's whole text (its detail, else its msg) into err, d released; -1. */
static inline int sandbox_diag_text(struct diag *d, char *err, size_t len)
{
	if (len)
		snprintf(err, len, "%s", d->detail.len ? d->detail.p : d->msg);
	diag_release(d);
	return -1;
}

/* sandbox_call, with the message and traceback (the whole text Lua
 * made: sandbox_diag_text) in err. */
static inline int call_text(lua_State *L, int nargs, int nres, char *err,
			    size_t len)
{
	struct diag d = { 0 };

	if (sandbox_call(L, nargs, nres, &d))
		return sandbox_diag_text(&d, err, len);
	return 0;
}

/* sandbox_dofile, the same way. */
static inline int dofile_text(lua_State *L, const char *path, char *err,
			      size_t len)
{
	struct diag d = { 0 };

	if (sandbox_dofile(L, path, &d))
		return sandbox_diag_text(&d, err, len);
	return 0;
}

#endif
