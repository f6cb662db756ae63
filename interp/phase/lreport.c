/* lreport: a Lua phase run's measurements, and its report()'s values, to the
 * parent over the wire. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "phase/lreport.h"
#include "phase/phase.h"
#include "phase/sandbox.h"
#include "util/grow.h"

int lreport_thresholds(lua_State *L, double *thr, int max)
{
	int n = 0;

	if (phase_field(L, 1, "thresholds") == LUA_TTABLE) {
		for (int i = 1; n < max; i++) {
			if (lua_rawgeti(L, -1, i) != LUA_TNUMBER) {
				lua_pop(L, 1);
				break;
			}
			thr[n++] = lua_tonumber(L, -1);
			lua_pop(L, 1);
		}
	}
	lua_pop(L, 1);
	return n;
}

/* The automatic metrics, made by the caller (it frees them, after the
 * protected call that reads them here). */
struct lreport_auto {
	const struct metrics *m;
	const struct metric_row *rows;
	int n;
};

/* r for report(r, ctx): seconds, and per op its automatic metrics (the
 * results at index 1); lua_pcall'd. */
static int push_results(lua_State *L)
{
	const struct lreport_auto *res = lua_touserdata(L, 1);

	lua_createtable(L, 0, res->n + 1);
	lua_pushnumber(L, res->m->seconds);
	lua_setfield(L, -2, "seconds");
	for (int i = 0; i < res->n; i++) {
		lua_pushnumber(L, res->rows[i].value);
		lua_setfield(L, -2, res->rows[i].name);
	}
	/* and, for report() only, what sysbench prints besides: the
	 * fastest op and the 95th percentile */
	for (int i = 0; i < res->m->n_ops; i++) {
		const struct op_stat *o = &res->m->ops[i];
		char name[METRICS_METRIC_LEN + 16];

		if (!o->lat.count)
			continue;
		snprintf(name, sizeof(name), "%.31s_lat_min_ms", o->name);
		lua_pushnumber(L, (double)o->lat.min / 1e6);
		lua_setfield(L, -2, name);
		snprintf(name, sizeof(name), "%.31s_lat_p95_ms", o->name);
		lua_pushnumber(L, (double)hist_quantile(&o->lat, 0.95) / 1e6);
		lua_setfield(L, -2, name);
	}
	return 1;
}

static int report_value(lua_State *L, int idx, double *v,
			const char **unit);

/* What report() returned (on top), refused as a whole for a row it must
 * not make (metrics_refuse): -1 with why in d, the phase run failing
 * with it, else 0. Read by lua_next alone: nothing here raises. */
static int refused(lua_State *L, struct diag *d)
{
	if (!lua_istable(L, -1))
		return 0;
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		const char *unit;
		double v;

		if (lua_type(L, -2) == LUA_TSTRING &&
		    report_value(L, lua_gettop(L), &v, &unit) &&
		    metrics_refuse(lua_tostring(L, -2), v, unit, d)) {
			lua_pop(L, 2);
			return -1;
		}
		lua_pop(L, 1);
	}
	return 0;
}

int lreport_call(lua_State *L, const struct metrics *total,
		 const double *thr, int n_thr, struct diag *d)
{
	struct lreport_auto res = { total, NULL, 0 };
	int rc;

	/* an op's name makes rows too: w:time("dev_read") would make
	 * dev_read_ops, as a forged report() value would */
	for (int i = 0; i < total->n_ops; i++)
		if (metrics_op_refuse(total->ops[i].name, d))
			return -1;
	if (phase_field(L, 1, "report") != LUA_TFUNCTION)
		return 0;	/* nil: phase_load allows nothing else */
	res.rows = metrics_rows(total, thr, n_thr, &res.n);
	if (!res.rows && (total->n_ops || total->n_counters)) {
		lua_pop(L, 1);
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	}
	rc = sandbox_cpcall(L, push_results, &res, 0, d);
	free((void *)res.rows);
	if (rc) {
		lua_pop(L, 1);
		return -1;
	}
	lua_pushvalue(L, 2);
	if (sandbox_call(L, 2, 1, d))
		return -1;
	return refused(L, d);
}

/* The R values sent with the metrics, grown as they come. */
struct lreport_values {
	struct metric_row *v;
	size_t n, cap;
};

/* One R value, if the name is a metric's (metrics_metric_name_ok, as the
 * wire format takes it); else a note on stderr (one bad name must not
 * cost the run its other metrics). -1 out of memory. */
static int add_value(struct lreport_values *rv, const char *name, double v,
		     const char *unit)
{
	struct metric_row *grown;

	/* units are words, as a parser's: what the wire carries, else none */
	if (!metrics_unit_ok(unit, strlen(unit)))
		unit = "";
	if (!metrics_metric_name_ok(name, strlen(name)) || !isfinite(v)) {
		fprintf(stderr, "report: '%s' is not usable as a metric (names "
			"are 1-%d of A-Z a-z 0-9 _ . -, not - first); left "
			"out\n", name, METRICS_METRIC_LEN);
		return 0;
	}
	grown = grow_array(rv->v, &rv->cap, rv->n + 1, sizeof(*rv->v), 16);
	if (!grown)
		return -1;
	rv->v = grown;
	snprintf(rv->v[rv->n].name, sizeof(rv->v[rv->n].name), "%s", name);
	rv->v[rv->n].value = v;
	rv->v[rv->n++].unit = unit;
	return 0;
}

/* A report() value at idx (absolute): a number, or {value = number,
 * unit = string} as a parser gives. Read by lua_next alone: this runs
 * unprotected, so nothing here may allocate. 1 if it is one. */
static int report_value(lua_State *L, int idx, double *v,
			const char **unit)
{
	int have = 0;

	*unit = "";
	if (lua_type(L, idx) == LUA_TNUMBER) {
		*v = lua_tonumber(L, idx);
		return 1;
	}
	if (!lua_istable(L, idx))
		return 0;
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		const char *k = lua_type(L, -2) == LUA_TSTRING ?
				lua_tostring(L, -2) : "";

		if (!strcmp(k, "value") && lua_type(L, -1) == LUA_TNUMBER) {
			*v = lua_tonumber(L, -1);
			have = 1;
		} else if (!strcmp(k, "unit") &&
			   lua_type(L, -1) == LUA_TSTRING) {
			*unit = lua_tostring(L, -1);	/* the table holds it */
		}
		lua_pop(L, 1);
	}
	return have;
}

/* A report() value, as the table holds it. */
struct lreport_value {
	const char *name, *unit;	/* the table's own strings */
	double v;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct lreport_value *)a)->name,
		      ((const struct lreport_value *)b)->name);
}

/*
 * report()'s values, the table on top: name = number or {value =,
 * unit =}, sent in the order of their names, so a run's rows come out
 * the same each time (a table's own order is its hash's). The names
 * and units stay the table's strings: it lives, and nothing here makes
 * a Lua object, so nothing is collected meanwhile.
 */
static int add_reported(lua_State *L, struct lreport_values *rv)
{
	struct lreport_value *r = NULL, *grown;
	size_t n = 0, cap = 0;
	int rc = 0;

	lua_pushnil(L);
	while (lua_next(L, -2)) {
		const char *unit;
		double v;

		if (lua_type(L, -2) == LUA_TSTRING &&
		    report_value(L, lua_gettop(L), &v, &unit)) {
			grown = grow_array(r, &cap, n + 1, sizeof(*r), 16);
			if (!grown) {
				lua_pop(L, 2);
				free(r);
				return -1;
			}
			r = grown;
			r[n++] = (struct lreport_value){ lua_tostring(L, -2),
							 unit, v };
		} else {
			fprintf(stderr, "report: a %s key with a %s value is "
				"not a metric; left out\n",
				luaL_typename(L, -2), luaL_typename(L, -1));
		}
		lua_pop(L, 1);
	}
	if (n)
		qsort(r, n, sizeof(*r), by_name);
	for (size_t i = 0; i < n; i++)
		if (add_value(rv, r[i].name, r[i].v, r[i].unit))
			rc = -1;
	free(r);
	return rc;
}

int lreport_send(lua_State *L, const struct metrics *m,
		 const double *thr, int n_thr)
{
	struct lreport_values rv = { 0 };
	size_t len;
	char *text = NULL;
	int rc = 0;

	for (int i = 0; i < m->n_ops && !rc; i++)
		for (int t = 0; t < n_thr && !rc; t++) {
			char name[METRICS_METRIC_LEN + 1];
			int n = snprintf(name, sizeof(name), "%s_over_%gms_pct",
					 m->ops[i].name, thr[t]);

			if (n < 0 || (size_t)n >= sizeof(name))
				name[0] = '\0';	/* not a metric: noted */
			rc = add_value(&rv, name, 100 * hist_share_above(
				&m->ops[i].lat, (uint64_t)(thr[t] * 1e6)), "%");
		}
	if (!rc && L && lua_istable(L, -1))
		rc = add_reported(L, &rv);
	/* the values' names and units are the table's: it is still there */
	if (!rc)
		text = metrics_encode(m, rv.v, (int)rv.n, &len);
	if (!text || write(METRICS_REPORT_FD, text, len) != (ssize_t)len)
		rc = -1;
	free(text);
	free(rv.v);
	return rc;
}
