/* types: the structures a loaded plan is made of, each value with its place. */
#ifndef FSPLAN_TYPES_H
#define FSPLAN_TYPES_H

#include <stddef.h>
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

/* A screening factor (DESIGN.md section 9): a name and two levels, each
 * level's mkfs words and mount words ("" when the level has none of one).
 * Level 0 is the baseline (-), level 1 the other (+). */
struct plan_factor {
	struct pos pos;
	char *name;
	struct pos name_pos;
	struct pstr mkfs[2];	/* raw; s "" when the level has none */
	struct pstr mount[2];
};

/* An entry's design: none (no factors), or one of section 9's. */
enum design_kind {
	DESIGN_NONE,
	DESIGN_FULL,		/* 2^k */
	DESIGN_FRACTIONAL,	/* 2^(k-p) at resolution (3, 4, 5) */
	DESIGN_PB,		/* Plackett-Burman: runs 12, 20 or 24 */
	DESIGN_OAT,		/* the baseline and each factor alone at + */
};

struct plan_design {
	enum design_kind kind;
	struct pos pos;
	int resolution;		/* fractional: 3, 4 or 5 (default 4) */
	int runs;		/* plackett-burman: 12, 20, 24; 0: the
				 * smallest that holds k factors */
};

/* One bucket of an aging size distribution: files of (the previous
 * bucket's upto, upto] bytes, log-uniform within, weight relative. */
struct plan_age_size {
	uint64_t upto;
	double weight;
};

/*
 * An age: alternative (DESIGN.md section 10). none is fill 0: the fresh
 * filesystem. Otherwise, after mkfs and mount, the filesystem is filled
 * to fill of its size with files of sizes, in dirs directories, then
 * churned until churn times the filled bytes have been rewritten.
 */
struct plan_age {
	struct pos pos;
	char *name;		/* "none", the given name:, or made: "80%x4",
				 * with the seed when given: "80%x4s7" */
	double fill;		/* 0 (none), or 0.01 to 0.95 */
	double churn;		/* >= 0; 0: fill only */
	uint64_t seed;		/* the given one, else the plan's */
	int seed_given;
	struct plan_age_size *sizes;	/* NULL: the documented default */
	int n_sizes;
	int dirs;		/* 0: one per 32 files the fill makes */
	int reuse;		/* 1 (default): age once, copy per repetition */
};

struct plan_fs {
	struct pos pos;
	struct pstr type;	/* expanded at load: parameters only */
	struct pstr label;	/* raw; s NULL when derived */
	struct pstr *mkfs;	/* raw alternatives; at least one ("") */
	struct pos mkfs_pos;	/* where mkfs: was given; line 0 if not */
	int n_mkfs;
	struct pstr *mount;
	int n_mount;
	struct pstr setup;	/* raw */
	struct pstr teardown;
	int nodev;		/* no block device, no mkfs: by name at load,
				 * by /proc/filesystems in resolve_plan */
	/* Section 9: with factors, mkfs and mount are one alternative
	 * each (the words every design row has). design.kind is
	 * DESIGN_NONE exactly when n_factors is 0. */
	struct plan_factor *factors;
	int n_factors;
	struct plan_design design;
	/* Section 10: the age alternatives, at least one after load (the
	 * entry's own, else the top level's, else none). */
	struct plan_age *age;
	int n_age;
};

/* The refusal of mkfs for a nodev type (%s): the loader's, by the type's
 * name, and resolve_plan's, by the kernel's list, say the same. */
#define PLAN_NODEV_MKFS "%s has no device to make: leave out 'mkfs' " \
			"(mount options only)"

/* A phase's steady: rule (DESIGN.md section 8); window_s 0: none. The
 * fractions as given: range: 20% is 0.20. */
struct plan_steady {
	struct pos pos;
	char metric[64];	/* "": the phase's key series */
	double window_s;
	double range, slope;
	double max_s;		/* 0: no stop (the phase ends as it would) */
};

struct plan_phase {
	struct pos pos;
	char *name;		/* unique; given or derived */
	struct pos name_pos;
	struct pstr use;	/* a library module name or a .lua path */
	char *module_path;	/* use: as an absolute file; resolve_plan */
	struct pstr exec;	/* raw command */
	struct pstr parse;
	struct kv *with;	/* raw values */
	int n_with;
	struct plan_axis *matrix;
	int n_matrix;
	double timeout_s;
	int repeat;		/* 0: the plan's (with its rule); a stop
				 * rule's max */
	int repeat_min;		/* a stop rule's: at least this many */
	double repeat_ci;	/* its CI half-width / mean; 0: no rule */
	struct between between;	/* n < 0: the plan's */
	uint64_t memory;	/* Lua allocator cap per worker; 0 default */
	/* DESIGN.md section 8. interval_s: the phase's own or the plan's,
	 * resolved at load (the default 1 s; 0: no series). */
	double interval_s;
	double warmup_s;	/* 0: none */
	struct plan_steady steady;
	/* files: relative to the plan's directory, put read-only into the
	 * work directory before each phase run (run/phfiles.h) */
	struct pstr *files;
	int n_files;
	char (*files_sha)[65];	/* their sha256s as the run began, or NULL */
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

/* At most this many volumes (filesystems) per config. */
#define PLAN_MAX_VOLUMES 8

struct plan_target {
	enum target_kind kind;
	struct pos pos;
	uint64_t image_bytes;	/* each volume's image */
	char *device;
	int wipe;
	char *dir;
	struct pstr *volumes;	/* names, or NULL: one filesystem */
	int n_volumes;
};

struct plan {
	char *file;
	char *dir;		/* the plan's directory; resolve_plan makes
				 * it absolute */
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
	struct pos runas_pos;	/* line 0: the default */
	int repeat;		/* a stop rule's max */
	int repeat_min;
	double repeat_ci;	/* 0: repeat times, no rule */
	struct between between;
	double interval_s;	/* the top level's interval: (1 s default) */
	int rounds;		/* order: rounds: repetition k of every
				 * config in round k, the configs rotating */
	struct pos order_pos;
	struct plan_fs *fs;
	int n_fs;
	struct plan_age *age;	/* top-level age: (entries without their
				 * own take these); NULL: none given */
	int n_age;
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

#endif
