/* lreport: a Lua phase run's measurements, and its report()'s values, to the
 * parent over the wire. */
#ifndef FSPLAN_LREPORT_H
#define FSPLAN_LREPORT_H

#include <lua.h>

#include "results/metrics.h"
#include "util/diag.h"

/* The module's (index 1) thresholds = { ms, ... }: up to max into thr;
 * how many. */
int lreport_thresholds(lua_State *L, double *thr, int max);

/*
 * report(r, ctx) of the module at index 1 (ctx at index 2), if it has
 * one: r holds seconds and every automatic metric of total (with the
 * thresholds). Its value is left on the stack (nil without a report).
 * 0, or -1 with d: report() raised (its message and traceback, as
 * sandbox_call gives them), or returned what must not be a row
 * (metrics_refuse: a name fsplan writes itself, a value that is not
 * finite, a unit that could start a spreadsheet formula), or an op of
 * total makes one (metrics_op_refuse).
 */
int lreport_call(lua_State *L, const struct metrics *total,
		 const double *thr, int n_thr, struct diag *d);

/*
 * To the report fd, in one metrics_encode: m, an R value per threshold
 * share and per report() value (the table on top of L's stack, if any;
 * a name that is not a metric is left out, with a note on stderr). 0, or
 * -1 if the parent could not be told.
 */
int lreport_send(lua_State *L, const struct metrics *m,
		 const double *thr, int n_thr);

#endif
