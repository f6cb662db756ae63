/* cell: an expansion's types, and a cell's coordinates and values. */
#ifndef FSPLAN_CELL_H
#define FSPLAN_CELL_H

#include <stddef.h>
#include <stdint.h>

#include "cells/design.h"
#include "plan/plan.h"

/* One filesystem config: entry × mkfs alternative × mount alternative ×
 * a combination of the top-level matrix. Strings are expanded. */
struct fsconf {
	int index;		/* 1-based, among configs that kept a cell */
	const struct plan_fs *fs;
	int mkfs_alt, mount_alt;
	int *axis;		/* value index per top-level axis */
	char *label;
	char *mkfs;
	char *mount;
	char *setup;		/* NULL when the entry has none */
	char *teardown;
	int design_row;		/* 1-based row of its entry's design (the
				 * design's own order); 0: no design */
	char *levels;		/* "+-+..." per factor; NULL: no design */
	int age_alt;		/* index into fs->age */
	const struct plan_age *age;	/* NULL: fresh (age none) */
	size_t first_cell;	/* its cells are contiguous */
	size_t n_cells;
};

/* One phase run: a config, a phase, a phase-matrix combination, a rep. */
struct cell {
	size_t index;		/* 1-based; stable under --only and --shard */
	int conf;		/* index into expansion.confs */
	int phase;		/* index into plan.phases */
	int combo;		/* mixed-radix index of the phase's axes */
	int rep;		/* 1-based */
	int selected;		/* kept by --only / --shard */
	char *id;
};

/*
 * A phase's key metrics (DESIGN.md section 4): what `report` shows for
 * it, and the first is what a stop rule watches. A module declares at
 * most PHASE_KEY_MAX; an exec phase's key is its parser's and then
 * seconds. n == 0: the module declares none.
 */
#define PHASE_KEY_MAX 16
struct phase_key {
	int n;
	char name[PHASE_KEY_MAX + 1][64];	/* metric names, NUL-ended */
};

/*
 * What checking a phase's module found, for the root parent: its key;
 * for an exec module (lua/mariadb.lua), its script's and its parser's
 * names ("" otherwise). Not its string defaults: a module's own
 * ctx.input default is read as runas, never by root.
 */
struct phase_checked {
	struct phase_key key;
	int max_workers;	/* the most workers a cell of it runs */
	char exec[64];
	char parse[64];
};

/* An entry's design (d.n 0: the entry has no factors) and the order in
 * which its rows run (design_order). */
struct expdesign {
	struct design d;
	int *order;
};

struct expansion {
	const struct plan *plan;
	struct expdesign *designs;	/* per plan filesystems entry */
	struct fsconf *confs;
	int n_confs;
	struct cell *cells;
	size_t n_cells;
	size_t n_selected;
	struct phase_checked *checked;	/* per plan phase; phasecheck_all */
	/* per exclude rule: the cells it dropped, and per value of each
	 * of its conditions (in order) whether any cell had it */
	struct exclude_use {
		size_t hits;
		unsigned char *seen;
	} *excl;
};

/* A cell's value for a coordinate (type, label, mkfs, mount, phase, an
 * axis, or a factor: "+" or "-"), or NULL when it has none. */
const char *cell_coord(const struct expansion *e, const struct cell *c,
		       const char *key);
/* Which value of the phase's axis a (an index into ph->matrix) the
 * phase-matrix combination combo takes. */
int cell_axis_index(const struct plan_phase *ph, int combo, int a);
/* The phase's `with` parameter key for this cell, ${...} expanded; the
 * caller frees it. NULL if the phase does not set it. */
char *cell_with(const struct expansion *e, const struct cell *c,
		const char *key);
/* The cell's `ram` (its phase's memory cgroup) in *ram: 0 when the
 * phase leaves it out or gives auto. -1 when it is not a size. */
int cell_ram(const struct expansion *e, const struct cell *c, uint64_t *ram);
/* The exec command of an exec phase for this cell, expanded; freed by
 * the caller. */
char *cell_exec(const struct expansion *e, const struct cell *c);


/* Where a cell sits while it is built (fc NULL while its config is), for
 * its ${...} and coordinates: cell_at_expand's text, cell_at_coord's. */
struct cell_at {
	const struct expansion *e;
	const struct fsconf *fc;
	const int *axis;		/* top-level value indices */
	int phase;			/* -1: no phase in scope */
	int combo;
};

/* ps with its ${...} made at at, malloc'd; NULL out of memory (the
 * loader checked every reference). */
char *cell_at_expand(const struct cell_at *at, const struct pstr *ps);
/* at's value for a coordinate (as cell_coord), or NULL. */
const char *cell_at_coord(const struct cell_at *at, const char *key);

#endif
