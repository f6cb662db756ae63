/* luaphase: one Lua phase run inside the unprivileged child — setup, workers,
 * teardown, report. */
#ifndef FSPLAN_LUAPHASE_H
#define FSPLAN_LUAPHASE_H

#include "phase/luajob.h"

/*
 * The child body (see child.h) of a Lua phase. In the work directory,
 * after the privilege drop: load the module, type the cell's values,
 * setup(ctx, w0), the workers — one thread each, each with its own Lua
 * state and its own engine, made in the thread — teardown(ctx, w0), and
 * report(r, ctx). arg is the struct luajob. Writes the measurements in
 * the metrics wire format to the report fd; a failure is one record
 * there (a struct diag: metrics_diag_send), placed in the plan when it
 * is about a value the plan wrote, its whole text on stderr too.
 */
int luaphase_body(void *arg);

#endif
