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
 * The most points a parser's series may hold: an hour of 55 series at
 * 1 s, a day of two. More is a runaway parser, not a measurement.
 */
#define LPARSE_SERIES_MAX 200000

/*
 * A child body (child.h): load the parser in a sandbox; it returns a
 * function(stdout, stderr) giving a table of name = number or
 * name = {value = number, unit = string}, and optionally a list of
 * points {t = seconds, metric = name, value = number, unit = string}.
 * Each metric becomes a line "P <name> <value> <unit>" on the report
 * fd, each point a T line (series_encode), in t then name order; an
 * error, a refused metric or a refused point (t negative or not finite,
 * a reserved or malformed name, a value not finite, two points of a
 * metric at one t, more than LPARSE_SERIES_MAX) a failure record
 * (lfail_send) and nothing else that the parent keeps.
 */
int lparse_body(void *arg);

/* For each P line of a report: fn(ctx, name, value, unit). Names are
 * [A-Za-z0-9_.-]+; other lines are skipped. */
void lparse_rows(const char *report, size_t len,
		 void (*fn)(void *ctx, const char *name, double v,
			    const char *unit),
		 void *ctx);

#endif
