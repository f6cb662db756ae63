/* lparse: run a phase-library parser on an exec phase's output, in the dropped
 * child. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "phase/lfail.h"
#include "phase/lparse.h"
#include "results/metrics.h"
#include "results/series.h"
#include "phase/phase.h"
#include "phase/libsrc.h"
#include "plan/plan.h"
#include "phase/sandbox.h"
#include "util/clock.h"
#include "util/strbuf.h"

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

/* A point of the parser's series, while they are checked and sorted (the
 * name is held by the series table, on the stack). */
struct lparse_pt {
	double t;
	const char *metric;
	int i;
};

static int cmp_pt(const void *a, const void *b)
{
	const struct lparse_pt *x = a, *y = b;
	int c;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	c = strcmp(x->metric, y->metric);
	return c ? c : x->i - y->i;
}

/* A number field of the point on top, into *v: 0, or -1 with d. */
static int pt_number(lua_State *L, int i, const char *field, double *v,
		     struct diag *d)
{
	int t = phase_field(L, -1, field);

	*v = lua_tonumber(L, -1);
	lua_pop(L, 1);
	if (t != LUA_TNUMBER)
		return diag_fail(d, DIAG_PHASE, 0, "series[%d]: %s is a %s, "
				 "not a number", i, field, lua_typename(L, t));
	return 0;
}

/*
 * Check point i (on top): a table {t = seconds >= 0, metric = name,
 * value = finite number, unit = string or nothing}; its t and metric
 * into *p (the name stays held by the point). 0, or -1 with d.
 */
static int pt_check(lua_State *L, int i, struct lparse_pt *p,
		    struct diag *d)
{
	const char *m, *unit = NULL;
	size_t ml;
	double v;

	if (!lua_istable(L, -1))
		return diag_fail(d, DIAG_PHASE, 0, "series[%d] is a %s, not a "
				 "point {t = s, metric = name, value = v, "
				 "unit = u}", i, luaL_typename(L, -1));
	if (pt_number(L, i, "t", &p->t, d) || pt_number(L, i, "value", &v, d))
		return -1;
	if (phase_field(L, -1, "unit") == LUA_TSTRING)
		unit = lua_tostring(L, -1);
	lua_pop(L, 1);
	m = phase_field(L, -1, "metric") == LUA_TSTRING ?
	    lua_tolstring(L, -1, &ml) : NULL;
	lua_pop(L, 1);	/* the point still holds the name */
	if (!m || !metrics_metric_name_ok(m, ml))
		return diag_fail(d, DIAG_PHASE, 0, "series[%d]: metric is not "
				 "a metric name (letters, digits, '_', '.', "
				 "'-'; 1 to %d characters)", i,
				 METRICS_METRIC_LEN);
	if (!(p->t >= 0) || !isfinite(p->t)) {
		char t[32];

		snprintf(t, sizeof(t), isnan(p->t) ? "nan" : "%g", p->t);
		return diag_fail(d, DIAG_PHASE, 0, "series[%d] ('%s'): t is %s: "
				 "a point's t is seconds since the command "
				 "started, finite and not negative", i, m, t);
	}
	if (metrics_refuse(m, v, unit, d)) {
		char why[sizeof(d->msg)];

		memcpy(why, d->msg, sizeof(why));
		diag_release(d);
		return diag_fail(d, DIAG_PHASE, 0, "series[%d]: %s", i, why);
	}
	p->metric = m;
	return 0;
}

/* Check the series at idx (a list of points; nil: none) into *pts, a
 * userdata left on the stack, sorted by t then name: n, or -1 with d. */
static int series_check(lua_State *L, int idx, struct lparse_pt **pts,
			struct diag *d)
{
	lua_Unsigned n;

	if (lua_isnoneornil(L, idx))
		return 0;
	if (!lua_istable(L, idx))
		return diag_fail(d, DIAG_PHASE, 0, "the parser's second value "
				 "is a %s, not a list of points",
				 luaL_typename(L, idx));
	n = lua_rawlen(L, idx);
	if (n > LPARSE_SERIES_MAX)
		return diag_fail(d, DIAG_PHASE, 0, "the parser returned %llu "
				 "points: a series holds at most %d",
				 (unsigned long long)n, LPARSE_SERIES_MAX);
	if (!n) {
		lua_pushnil(L);
		if (lua_next(L, idx))
			return diag_fail(d, DIAG_PHASE, 0, "the parser's second "
					 "value is a table that is no list of "
					 "points");
	}
	*pts = lua_newuserdatauv(L, (n + 1) * sizeof(**pts), 0);
	for (lua_Unsigned i = 1; i <= n; i++) {
		lua_rawgeti(L, idx, (lua_Integer)i);
		if (pt_check(L, (int)i, &(*pts)[i - 1], d))
			return -1;
		(*pts)[i - 1].i = (int)i;
		lua_pop(L, 1);
	}
	qsort(*pts, n, sizeof(**pts), cmp_pt);
	for (lua_Unsigned i = 1; i < n; i++)
		if ((*pts)[i].t == (*pts)[i - 1].t &&
		    !strcmp((*pts)[i].metric, (*pts)[i - 1].metric))
			return diag_fail(d, DIAG_PHASE, 0, "series: two points "
					 "of '%s' at t %g", (*pts)[i].metric,
					 (*pts)[i].t);
	return (int)n;
}

/* The checked points as T lines on the report fd, in time order. */
static int series_send(lua_State *L, int idx, const struct lparse_pt *pts,
		       int n, struct diag *d)
{
	struct strbuf b = { 0 };
	int rc = 0;

	for (int k = 0; k < n && !rc; k++) {
		const char *unit = "";
		size_t ul;

		lua_rawgeti(L, idx, pts[k].i);
		if (phase_field(L, -1, "unit") == LUA_TSTRING) {
			unit = lua_tolstring(L, -1, &ul);
			/* units are words: what the wire carries, else none */
			if (!metrics_unit_ok(unit, ul))
				unit = "";
		}
		phase_field(L, -2, "value");
		rc = series_encode(&b, pts[k].t, pts[k].metric,
				   lua_tonumber(L, -1), unit);
		lua_pop(L, 3);
		if (!rc && (b.len > 65536 || k == n - 1)) {
			dprintf(METRICS_REPORT_FD, "%s", b.p);
			b.len = 0;
		}
	}
	free(b.p);
	if (rc)
		return diag_fail(d, DIAG_SYSTEM, 0, "cannot encode the "
				 "parser's series (%s)", rc == -1 ?
				 "out of memory" : "a value the wire cannot "
				 "carry");
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

/* The metrics table at res as P lines, in name order: the rows of a run
 * come out the same every time. 0, or -1 with d. */
static int send_metrics(lua_State *L, int res, struct diag *d)
{
	const char **names;
	int n = 0, keys;

	lua_newtable(L);
	keys = lua_gettop(L);
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
		if (emit(L, names[i], d))
			return -1;
		lua_pop(L, 1);
	}
	lua_pop(L, 2);
	return 0;
}

int lparse_body(void *arg)
{
	const struct lparse_job *job = arg;
	struct sandbox_limits lim = { 256u << 20, clock_now() + 60, NULL,
				      libsrc_dir(), NULL };
	lua_State *L = sandbox_new(&lim);
	struct lparse_pt *pts = NULL;
	struct diag d = { 0 };
	int n;

	if (!L) {
		diag_fail(&d, DIAG_SYSTEM, 0, "cannot make a Lua state");
		lfail_send(&d);
		return 1;
	}
	if (lparse_load(L, job->parser, NULL, &d))
		goto fail;
	lua_pushlstring(L, job->out, job->out_len);
	lua_pushlstring(L, job->err, job->err_len);
	if (sandbox_call(L, 2, 2, &d))
		goto fail;
	if (!lua_istable(L, -2)) {
		diag_fail(&d, DIAG_PHASE, 0, "%s: the parser returned a %s, "
			  "not a table of metrics", job->parser,
			  luaL_typename(L, -2));
		goto fail;
	}
	/* all checked before a line is sent: a refused point fails the
	 * parse, and the parent keeps nothing of a failed one */
	n = series_check(L, lua_gettop(L), &pts, &d);
	if (n < 0 || send_metrics(L, lua_gettop(L) - 1 - !!pts, &d) ||
	    series_send(L, lua_gettop(L) - !!pts, pts, n, &d))
		goto fail;
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
