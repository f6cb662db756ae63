/* luaphase: one Lua phase run inside the unprivileged child — setup, workers, teardown, report. */
#ifndef FSPLAN_LRUN_H
#define FSPLAN_LRUN_H

#include <stddef.h>
#include <stdint.h>

#include "cells/expand.h"

/* A file the plan names, read by root for ctx.input. */
struct luaphase_input {
	char *path;
	char *text;
	size_t len;
};

#define LRUN_MAX_INPUTS 24
#define LRUN_MAX_INPUT (64 << 20)

struct luaphase_job {
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
	struct luaphase_input inputs[LRUN_MAX_INPUTS];
	int n_inputs;
};

/* In the root parent, before the fork: read every file that one of the
 * cell's `with` or phase-matrix values names — relative to the plan, or
 * absolute — for ctx.input: runas may not reach the plan's directory.
 * Only what the plan names: a module's own default is read as runas. */
void luaphase_preread(struct luaphase_job *j);
/* The source text and the inputs. */
void luaphase_job_free(struct luaphase_job *j);

/*
 * The child body (see child.h) of a Lua phase. In the work directory,
 * after the privilege drop: load the module, type the cell's values,
 * setup(ctx, w0), the workers — one thread each, each with its own Lua
 * state and its own engine, made in the thread — teardown(ctx, w0), and
 * report(r, ctx). Writes the measurements in the metrics wire format to
 * the report fd; an error is an "E file:line: message" line there, with
 * the traceback on stderr.
 */
int luaphase_body(void *arg);

#endif
