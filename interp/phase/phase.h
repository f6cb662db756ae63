/* phase: a Lua phase module — its declared parameters, and the plan's values typed by them. */
#ifndef FSPLAN_PHASE_H
#define FSPLAN_PHASE_H

#include <lua.h>

#include "util/diag.h"
#include "cells/expand.h"

enum param_type { PARAM_NUMBER, PARAM_SIZE, PARAM_DURATION, PARAM_BOOL,
		  PARAM_STRING };

struct param_decl {
	char name[64];
	enum param_type type;
	char *dflt;		/* the default as text */
};

/* What a module declares. */
struct phase_decl {
	char *describe;
	struct param_decl *params;
	int n_params;
	int has_setup, has_teardown, has_report, has_check;
	struct phase_key key;	/* key = { "rate_mbs", ... }; n 0: none */
	/* An exec module: no Lua runs, its script (lua/exec/<exec>) does,
	 * with the typed values in its environment, and the parser
	 * lua/parse/<parse>.lua reads what it prints. "" in a Lua module. */
	char exec[64];
	char parse[64];
	int tolerate_errors;	/* tolerate_errors = true: I/O errors are
				 * counted, not a failure (a phase that
				 * fills the disk on purpose) */
};

/* A parameter's value for one cell, typed. */
struct param_val {
	const char *name;	/* borrowed from the decl */
	enum param_type type;
	double num;		/* number, size (bytes), duration (s), bool */
	char *str;		/* the text (always set) */
};

/*
 * Load the module in a fresh sandbox (L, already made by the caller) and
 * read what it declares: a table with a worker function and optional
 * params, setup, teardown, report, check, describe — or, for an exec
 * module (which may have check too),
 * exec and parse (names, checked here: the files by check_phases) in
 * place of the functions. The source is text (read
 * by the parent, which may reach files the runas user cannot), named
 * path in messages; NULL text reads path. Leaves the module table on the
 * stack. 0, or -1 with err.
 */
int phase_load(lua_State *L, const char *path, const char *text,
	       size_t text_len, struct phase_decl *decl, char *err,
	       size_t len);

/*
 * Push the field name of the table at index mod (a module, or a table
 * its code returned), read raw: its metatable cannot run code here,
 * outside a protected call, where a raise would abort the process.
 * Returns its type.
 */
int phase_field(lua_State *L, int mod, const char *name);

/*
 * The key list of the module table at index mod: nil gives none (n 0);
 * else an array of 1 to PHASE_KEY_MAX distinct metric names (the metric
 * name rule of metrics.h). Raw reads only: nothing here can raise. 0, or
 * -1 with err naming path.
 */
int phase_read_key(lua_State *L, int mod, struct phase_key *key,
		   const char *path, char *err, size_t len);

/* A module's source, read whole: the text libsrc holds for path, else
 * the file (NULL on error, errno set). */
char *phase_read_source(const char *path, size_t *len);
void phase_decl_free(struct phase_decl *decl);

/* The type a default value implies ("64M" size, "30s" duration, ...). */
enum param_type phase_param_type(lua_State *L, int idx);
const char *phase_type_name(enum param_type t);

/*
 * The values of a cell: each declared parameter from the phase's `with`
 * (or matrix) if set, else its default, parsed as its type. Unknown
 * `with` keys (other than workers and engine) and bad values are errors
 * at the plan's position. Fills vals[decl->n_params]; *workers and
 * engine from the common keys (defaults: params.workers or 1, "auto").
 */
int phase_values(const struct expansion *e, const struct cell *c,
		 const struct phase_decl *decl, struct param_val *vals,
		 int *workers, char *engine, size_t engine_len,
		 struct diag *d);
void phase_values_free(struct param_val *vals, int n);

/* Where the plan wrote a phase key: its with value, or the value of its
 * axis that this cell takes (its key's place in *kpos); NULL if the
 * plan leaves it to the default. */
const struct pstr *phase_place(const struct plan_phase *ph,
			       const struct cell *c, const char *key,
			       struct pos *kpos);

/* Set the cell's fields of the ctx table on top: fs (its config's
 * type, label, mkfs and mount: its sizes are the caller's to add),
 * ram_bytes, seed, rep, repeats (the phase's repetitions, a stop rule's
 * most), order ("configs" or "rounds"), phase and index. May raise:
 * call it protected. */
void phase_set_cell(lua_State *L, const struct expansion *e,
		    const struct cell *c, uint64_t ram_bytes);

/* Push ctx.params: a cell's typed values (integers where they are
 * whole), and workers. Allocates, so may raise: call it protected. */
void phase_push_params(lua_State *L, const struct param_val *vals, int n,
		       int workers);

#endif
