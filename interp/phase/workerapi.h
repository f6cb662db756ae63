/* workerapi: the `w` a phase's worker gets: its methods, every op measured. */
#ifndef FSPLAN_WAPI_H
#define FSPLAN_WAPI_H

#include <lua.h>

struct worker;

/*
 * Push the `w` object for this state (one worker per state): a table
 * with id, workers and params (the value at params_idx), whose methods
 * are those of DESIGN.md section 4 (w:open's files: fileapi).
 */
void workerapi_push(lua_State *L, struct worker *w, int params_idx);

#endif
