/* lparse: the `parse:` hook — a Lua parser turns an exec phase's output into
 * metrics. */
#ifndef FSPLAN_LPARSE_H
#define FSPLAN_LPARSE_H

#include <stddef.h>

#include <lua.h>

#include "util/diag.h"

struct lparse_job {
	const char *parser;		/* lua/parse/NAME.lua */
	const char *out, *err;		/* the command's stdout and stderr */
	size_t out_len, err_len;
};

struct phase_key;

/*
 * Load the parser at path in L (a sandbox) and leave its parse function
 * on the stack. A parser returns that function, or a table { parse =
 * function, key = { metric names } }; with key non-NULL, the key it
 * declares goes there (n 0 when none). 0, or -1 with d (the whole
 * message, and a traceback, in its detail: lfail_text).
 */
int lparse_load(lua_State *L, const char *path, struct phase_key *key,
		struct diag *d);

/*
 * A child body (child.h): load the parser in a sandbox; it returns a
 * function(stdout, stderr) giving a table of name = number or
 * name = {value = number, unit = string}. Each becomes a line
 * "P <name> <value> <unit>" on the report fd; an error a failure
 * record (lfail_send).
 */
int lparse_body(void *arg);

/* For each P line of a report: fn(ctx, name, value, unit). Names are
 * [A-Za-z0-9_.-]+; other lines are skipped. */
void lparse_rows(const char *report, size_t len,
		 void (*fn)(void *ctx, const char *name, double v,
			    const char *unit),
		 void *ctx);

#endif
