/* params: a cell's values of a module's parameters, typed, and ctx's. */
#ifndef FSPLAN_PARAMS_H
#define FSPLAN_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "cells/expand.h"
#include "phase/phase.h"
#include "util/diag.h"

/*
 * The values of a cell: each declared parameter from the phase's `with`
 * (or matrix) if set, else its default, parsed as its type. Unknown
 * `with` keys (other than workers and engine) and bad values are errors
 * at the plan's position. Fills vals[decl->n_params]; *workers and
 * engine from the common keys (defaults: params.workers or 1, "auto").
 */
int params_read(const struct expansion *e, const struct cell *c,
		const struct phase_decl *decl, struct param_val *vals,
		int *workers, char *engine, size_t engine_len,
		struct diag *d);
void params_free(struct param_val *vals, int n);

/* Where the plan wrote a phase key: its with value, or the value of its
 * axis that this cell takes (its key's place in *kpos); NULL if the
 * plan leaves it to the default. */
const struct pstr *params_place(const struct plan_phase *ph,
				const struct cell *c, const char *key,
				struct pos *kpos);

/* Set the cell's fields of the ctx table on top: fs (its config's
 * type, label, mkfs and mount: its sizes are the caller's to add),
 * ram_bytes, seed, rep, repeats (the phase's repetitions, a stop rule's
 * most), order ("configs" or "rounds"), phase and index. May raise:
 * call it protected. */
void params_set_cell(lua_State *L, const struct expansion *e,
		     const struct cell *c, uint64_t ram_bytes);

/* Push ctx.params: a cell's typed values (integers where they are
 * whole), and workers. Allocates, so may raise: call it protected. */
void params_push(lua_State *L, const struct param_val *vals, int n,
		 int workers);

#endif
