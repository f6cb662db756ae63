/* luajob: a Lua phase run's job — what root reads for it before the fork — and
 * the ctx its functions get. */
#ifndef FSPLAN_LUAJOB_H
#define FSPLAN_LUAJOB_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "cells/expand.h"
#include "phase/optable.h"
#include "phase/phase.h"

/* A file the plan names, read by root for ctx.input. */
struct luajob_input {
	char *path;
	char *text;
	size_t len;
};

#define LUAJOB_MAX_INPUTS 24
#define LUAJOB_MAX_INPUT (64 << 20)

struct luajob {
	const struct expansion *e;
	const struct cell *c;
	const char *module;		/* the module's file */
	const char *text;		/* its source, read by the parent */
	size_t text_len;
	uint64_t fs_size_bytes;
	uint64_t fs_block_size;
	uint64_t ram_bytes;
	double timeout_s;
	size_t mem_bytes;		/* allocator cap per Lua state */
	struct luajob_input inputs[LUAJOB_MAX_INPUTS];
	int n_inputs;
	/* DESIGN.md section 8: the phase's interval (0: no series), its
	 * warmup and steady rule */
	double interval_s;
	double warmup_s;
	struct plan_steady steady;
};


/* What ctx is made of, fixed once the module's values are typed. */
struct luajob_ctx {
	const struct luajob *job;
	const struct param_val *vals;
	int n_params;
	int workers;
	struct optable_slot *tab;	/* ctx.share's table */
};

/* ctx for the struct luajob_ctx given as a light userdata at index 1: a
 * lua_CFunction for a protected call (sandbox_cpcall), as it allocates. */
int luajob_push_ctx(lua_State *L);

/* In the root parent, before the fork: read every file that one of the
 * cell's `with` or phase-matrix values names — relative to the plan, or
 * absolute — for ctx.input: runas may not reach the plan's directory.
 * Only what the plan names: a module's own default is read as runas. */
void luajob_preread(struct luajob *j);
/* The source text and the inputs. */
void luajob_free(struct luajob *j);

#endif
