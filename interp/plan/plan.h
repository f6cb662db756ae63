/* plan: a YAML test plan (DESIGN.md section 2) loaded, typed and checked. */
#ifndef FSPLAN_PLAN_H
#define FSPLAN_PLAN_H

#include <stdint.h>

#include "util/diag.h"

/* A string from the plan with the place it was written. s may be NULL. */
struct pstr {
	char *s;
	struct pos pos;
	int col_shift;	/* bytes before the text on its line (quote), or -1 */
};

struct kv {
	char *key;
	struct pos kpos;
	struct pstr val;
};

/* One axis of a matrix: a name and its values, in the order written. */
struct plan_axis {
	char *name;
	struct pos pos;
	struct pstr *values;
	int n;
};

enum target_kind { TARGET_IMAGE, TARGET_DEVICE, TARGET_DIR };

enum between_action { BETWEEN_SYNC, BETWEEN_DROP_CACHES, BETWEEN_REMOUNT };

/* An ordered list of between actions; n == 0 is `none`, n < 0 inherit. */
struct between {
	int n;
	enum between_action act[4];
};

struct plan_fs {
	struct pos pos;
	struct pstr type;	/* expanded at load: parameters only */
	struct pstr label;	/* raw; s NULL when derived */
	struct pstr *mkfs;	/* raw alternatives; at least one ("") */
	int n_mkfs;
	struct pstr *mount;
	int n_mount;
	struct pstr setup;	/* raw */
	struct pstr teardown;
	int nodev;		/* no block device: no mkfs */
};

struct plan_phase {
	struct pos pos;
	char *name;		/* unique; given or derived */
	struct pos name_pos;
	struct pstr use;	/* a library module name or a .lua path */
	char *module_path;	/* use: resolved to a file */
	struct pstr exec;	/* raw command */
	struct pstr parse;
	struct kv *with;	/* raw values */
	int n_with;
	struct plan_axis *matrix;
	int n_matrix;
	double timeout_s;
	int repeat;		/* 0: the plan's */
	struct between between;	/* n < 0: the plan's */
	uint64_t memory;	/* Lua allocator cap per worker; 0 default */
};

/* One exclude rule: every condition must match (a list value: any of). */
struct plan_cond {
	char *key;
	struct pos kpos;
	struct pstr *values;
	int n;
};

struct plan_exclude {
	struct pos pos;
	struct plan_cond *conds;
	int n;
};

struct plan_target {
	enum target_kind kind;
	struct pos pos;
	uint64_t image_bytes;
	char *device;
	int wipe;
	char *dir;
};

struct plan {
	char *file;
	char *dir;		/* the plan's directory, absolute */
	char *text;		/* the whole plan, for diagnostics and manifest */
	size_t text_len;
	int version;
	char *name;
	char *description;
	struct kv *params;	/* final values: -D applied, ${} expanded */
	int n_params;
	uint64_t seed;
	struct plan_target target;
	char *runas;
	int repeat;
	struct between between;
	struct plan_fs *fs;
	int n_fs;
	struct plan_axis *matrix;
	int n_matrix;
	struct plan_exclude *exclude;
	int n_exclude;
	struct plan_phase *phases;
	int n_phases;
};

/* A -D name=value from the command line. */
struct plan_define {
	const char *name;
	const char *value;
};

/*
 * Load and check a plan. On error returns -1 with d naming the place; a
 * plan that loads is ready to expand: every ${name} it holds resolves.
 */
int plan_load(struct plan **out, const char *path,
	      const struct plan_define *defs, int n_defs, struct diag *d);
/* The same from text in memory (tests, fuzzing); path names it. */
int plan_load_text(struct plan **out, const char *path, const char *text,
		   size_t len, const struct plan_define *defs, int n_defs,
		   struct diag *d);
void plan_free(struct plan *p);

const char *plan_param(const struct plan *p, const char *name);
/* Whether name is a fixed cell coordinate (type, label, ... rep). */
int plan_reserved_name(const char *name);
/* The coordinates a filter or exclude may name: the fixed ones, then
 * every axis (top-level, then each phase's); at most max. */
int plan_coord_names(const struct plan *p, const char **names, int max);
/* The directory phase modules are loaded from (lua/). */
const char *plan_library_dir(void);

#endif
