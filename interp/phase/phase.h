/* phase: a Lua phase module and what it declares: parameters, key, hooks. */
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
 * stack. 0, or -1 with d: DIAG_INPUT for what the module declares
 * wrong or a syntax error, DIAG_PHASE for an error its code raised.
 */
int phase_load(lua_State *L, const char *path, const char *text,
	       size_t text_len, struct phase_decl *decl, struct diag *d);

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
 * -1 with d (DIAG_INPUT) naming path.
 */
int phase_read_key(lua_State *L, int mod, struct phase_key *key,
		   const char *path, struct diag *d);

/* A module's source, read whole: the text libsrc holds for path, else
 * the file (NULL on error, errno set). */
char *phase_read_source(const char *path, size_t *len);
void phase_decl_free(struct phase_decl *decl);

/* The type a default value implies ("64M" size, "30s" duration, ...). */
enum param_type phase_param_type(lua_State *L, int idx);
const char *phase_type_name(enum param_type t);

#endif
