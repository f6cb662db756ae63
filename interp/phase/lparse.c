/* lparse: run a phase-library parser on an exec phase's output, in the dropped
 * child. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "phase/lfail.h"
#include "phase/lparse.h"
#include "results/metrics.h"
#include "phase/phase.h"
#include "phase/libsrc.h"
#include "plan/plan.h"
#include "phase/sandbox.h"
#include "util/clock.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One P line of the parser's value for name (on top), exact (%.17g);
 * -1 with why in d for a value that must not be a row
 * (metrics_refuse). */
static int emit(lua_State *L, const char *name, struct diag *d)
{
	const char *unit = "";
	double v;

	if (lua_istable(L, -1)) {
		phase_field(L, -1, "unit");
		if (lua_type(L, -1) == LUA_TSTRING)
			unit = lua_tostring(L, -1);
		phase_field(L, -2, "value");
		if (lua_type(L, -1) != LUA_TNUMBER) {
			lua_pop(L, 2);
			return 0;
		}
		v = lua_tonumber(L, -1);
		lua_pop(L, 2);	/* the table still holds unit */
	} else if (lua_type(L, -1) == LUA_TNUMBER) {
		v = lua_tonumber(L, -1);
	} else {
		return 0;
	}
	if (metrics_refuse(name, v, unit, d))
		return -1;
	/* units are words: what the wire carries, else none */
	if (!metrics_unit_ok(unit, strlen(unit)))
		unit = "";
	dprintf(METRICS_REPORT_FD, "P %s %.17g%s%s\n", name, v,
		*unit ? " " : "", unit);
	return 0;
}

int lparse_load(lua_State *L, const char *path, struct phase_key *key,
		struct diag *d)
{
	struct phase_key none;

	sandbox_strict(L, 0);
	if (sandbox_dofile(L, path, d))
		return -1;
	sandbox_strict(L, 1);
	if (lua_istable(L, -1)) {
		if (phase_read_key(L, lua_gettop(L), key ? key : &none, path,
				   d))
			return -1;
		phase_field(L, -1, "parse");
	} else if (key) {
		memset(key, 0, sizeof(*key));
	}
	if (!lua_isfunction(L, -1))
		return diag_fail(d, DIAG_INPUT, 0, "%s: a parser returns a "
				 "function (or a table with parse)", path);
	return 0;
}

int lparse_body(void *arg)
{
	const struct lparse_job *job = arg;
	struct sandbox_limits lim = { 256u << 20, clock_now() + 60, NULL,
				      libsrc_dir(), NULL };
	lua_State *L = sandbox_new(&lim);
	const char **names;
	struct diag d = { 0 };
	int n, res, keys;

	if (!L) {
		diag_fail(&d, DIAG_SYSTEM, 0, "cannot make a Lua state");
		lfail_send(&d);
		return 1;
	}
	if (lparse_load(L, job->parser, NULL, &d))
		goto fail;
	lua_pushlstring(L, job->out, job->out_len);
	lua_pushlstring(L, job->err, job->err_len);
	if (sandbox_call(L, 2, 1, &d))
		goto fail;
	if (!lua_istable(L, -1)) {
		diag_fail(&d, DIAG_PHASE, 0, "%s: the parser returned a %s, "
			  "not a table of metrics", job->parser,
			  luaL_typename(L, -1));
		goto fail;
	}
	/* in name order: the rows of a run come out the same every time */
	res = lua_gettop(L);
	lua_newtable(L);
	keys = lua_gettop(L);
	n = 0;
	lua_pushnil(L);
	while (lua_next(L, res)) {
		size_t kl;
		const char *k = lua_type(L, -2) == LUA_TSTRING ?
				lua_tolstring(L, -2, &kl) : NULL;

		lua_pop(L, 1);
		if (k && metrics_metric_name_ok(k, kl)) {
			lua_pushvalue(L, -1);
			lua_rawseti(L, keys, ++n);
		}
	}
	/* Lua's memory, not malloc's: nothing to leak if a push raises */
	names = lua_newuserdatauv(L, (n + 1) * sizeof(*names), 0);
	for (int i = 0; i < n; i++) {
		lua_rawgeti(L, keys, i + 1);
		names[i] = lua_tostring(L, -1);
		lua_pop(L, 1);	/* still held by the table of names */
	}
	qsort(names, n, sizeof(*names), cmp_str);
	for (int i = 0; i < n; i++) {
		phase_field(L, res, names[i]);
		if (emit(L, names[i], &d))
			goto fail;
		lua_pop(L, 1);
	}
	sandbox_close(L);
	return 0;
fail:
	/* the parent says which parser: "parse NAME: " and d's line */
	lfail_send(&d);
	diag_release(&d);
	sandbox_close(L);
	return 1;
}

void lparse_rows(const char *report, size_t len,
		 void (*fn)(void *ctx, const char *name, double v,
			    const char *unit),
		 void *ctx)
{
	const char *p = report, *end = report + len;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', end - p);
		char line[256], name[METRICS_METRIC_LEN + 1], unit[32] = "";
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), wl;
		double v;
		char *e;

		if (n < sizeof(line) && n > 2 && p[0] == 'P' && p[1] == ' ') {
			memcpy(line, p + 2, n - 2);
			line[n - 2] = '\0';
			/* the whole first word, or nothing: a longer name
			 * must not pass cut to the rule's length */
			wl = strcspn(line, " ");
			if (metrics_metric_name_ok(line, wl)) {
				memcpy(name, line, wl);
				name[wl] = '\0';
				v = strtod(line + wl, &e);
				if (e != line + wl) {
					sscanf(e, "%31s", unit);
					fn(ctx, name, v, unit);
				}
			}
		}
		p = nl ? nl + 1 : NULL;
	}
}
