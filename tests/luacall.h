/* luacall: sandbox calls in tests, their failure as one text to match. */
#ifndef FSPLAN_TEST_LUACALL_H
#define FSPLAN_TEST_LUACALL_H

#include <stddef.h>

#include "phase/sandbox.h"

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
