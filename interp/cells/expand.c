/* expand: unroll a plan into configs and cells, exclude, identify, select. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells/cellcheck.h"
#include "cells/expand.h"
#include "cells/expdesign.h"
#include "util/grow.h"
#include "util/strbuf.h"

#define MAX_CELLS 10000000

/* Whether a rule drops the cell at; every rule is tried, and what each
 * matched is noted (e->excl) for expand_warn. */
static int excluded(const struct cell_at *at)
{
	const struct plan *p = at->e->plan;
	int out = 0;

	for (int r = 0; r < p->n_exclude; r++) {
		const struct plan_exclude *ex = &p->exclude[r];
		struct exclude_use *u = &at->e->excl[r];
		unsigned char *seen = u->seen;
		int all = 1;

		for (int c = 0; c < ex->n; c++) {
			const char *v = cell_at_coord(at, ex->conds[c].key);
			int any = 0;

			for (int k = 0; v && k < ex->conds[c].n; k++)
				if (!strcmp(v, ex->conds[c].values[k].s))
					any = seen[k] = 1;
			seen += ex->conds[c].n;
			all &= any;
		}
		if (all)
			u->hits++;
		out |= all;
	}
	return out;
}

int expand_warn(const struct expansion *e)
{
	const struct plan *p = e->plan;
	int n = 0;

	for (int r = 0; r < p->n_exclude; r++) {
		const struct plan_exclude *ex = &p->exclude[r];
		const unsigned char *seen = e->excl[r].seen;
		int said = 0;
		struct diag d;

		for (int c = 0; c < ex->n; c++, seen += ex->conds[c - 1].n)
			for (int k = 0; k < ex->conds[c].n; k++) {
				if (seen[k])
					continue;
				diag_set(&d, p->file, p->text,
					 ex->conds[c].values[k].pos,
					 "warning: exclude: no cell has %s "
					 "'%s': this value excludes nothing",
					 ex->conds[c].key,
					 ex->conds[c].values[k].s);
				diag_print(&d);
				said = 1;
				n++;
			}
		if (!said && !e->excl[r].hits) {
			diag_set(&d, p->file, p->text, ex->pos, "warning: "
				 "exclude: no cell has all of this rule's "
				 "values: it excludes nothing");
			diag_print(&d);
			n++;
		}
	}
	return n;
}

/* ---- building ---- */

static int make_label(struct fsconf *fc, const struct cell_at *at)
{
	const struct plan_fs *fs = fc->fs;
	int alts = fs->n_mkfs * fs->n_mount > 1;
	struct strbuf b = { 0 };
	char *base;

	base = fs->label.s ? cell_at_expand(at, &fs->label) : strdup(fs->type.s);
	if (!base)
		return -1;
	if (fs->label.s && !alts) {
		fc->label = base;
		return 0;
	}
	/* type[:mkfs][:mount], the way DESIGN.md writes cell ids */
	if (strbuf_str(&b, base) ||
	    ((fc->mkfs[0] || fc->mount[0]) &&
	     (strbuf_str(&b, ":") || strbuf_str(&b, fc->mkfs))) ||
	    (fc->mount[0] &&
	     (strbuf_str(&b, ":") || strbuf_str(&b, fc->mount)))) {
		free(base);
		free(b.p);
		return -1;
	}
	free(base);
	fc->label = b.p;
	return 0;
}

/* An entry's age alternatives: at least one (an entry not made by the
 * loader may have none, which is the one alternative none). */
static int n_ages(const struct plan_fs *fs)
{
	return fs->n_age > 0 ? fs->n_age : 1;
}

/* "@age=NAME" after the label of an aged config (none adds nothing),
 * unless its entry has a label: of its own and this one alternative. */
static int age_label(struct fsconf *fc)
{
	const struct plan_fs *fs = fc->fs;
	struct strbuf b = { 0 };

	if (!fc->age || (fs->n_age < 2 && fs->label.s))
		return 0;
	if (strbuf_str(&b, fc->label) || strbuf_str(&b, "@age=") ||
	    strbuf_str(&b, fc->age->name)) {
		free(b.p);
		return -1;
	}
	free(fc->label);
	fc->label = b.p;
	return 0;
}

/* A config of fs: its mkfs alternative mk and mount alternative mo, or
 * (row >= 0) row of the entry's design, at the top-level axis values,
 * aged by its age alternative ag. */
static int build_conf(struct expansion *e, struct fsconf *fc,
		      const struct plan_fs *fs, int mk, int mo, int row,
		      int ag, int *axis)
{
	struct cell_at at = { e, NULL, axis, -1, 0 };

	fc->fs = fs;
	fc->mkfs_alt = mk;
	fc->mount_alt = mo;
	fc->axis = axis;
	fc->age_alt = ag;
	fc->age = fs->n_age && fs->age[ag].fill > 0 ? &fs->age[ag] : NULL;
	if (row >= 0) {
		if (expdesign_conf(&at, fc, &e->designs[fs - e->plan->fs],
				   row))
			return -1;
	} else {
		fc->mkfs = cell_at_expand(&at, &fs->mkfs[mk]);
		fc->mount = cell_at_expand(&at, &fs->mount[mo]);
		if (!fc->mkfs || !fc->mount || make_label(fc, &at))
			return -1;
	}
	if (age_label(fc))
		return -1;
	if (fs->setup.s && !(fc->setup = cell_at_expand(&at, &fs->setup)))
		return -1;
	if (fs->teardown.s && !(fc->teardown = cell_at_expand(&at, &fs->teardown)))
		return -1;
	return 0;
}

static int phase_combos(const struct plan_phase *ph)
{
	int n = 1;

	for (int i = 0; i < ph->n_matrix; i++)
		n *= ph->matrix[i].n;
	return n;
}

static char *make_id(const struct cell_at *at, int rep)
{
	const struct plan *p = at->e->plan;
	const struct plan_phase *ph = &p->phases[at->phase];
	struct strbuf b = { 0 };
	char num[24];
	int err = 0, sep = 0;

	err |= strbuf_str(&b, at->fc->label) | strbuf_str(&b, "/") |
	       strbuf_str(&b, ph->name);
	for (int i = 0; i < p->n_matrix; i++) {
		err |= strbuf_str(&b, sep++ ? "," : "/") |
		       strbuf_str(&b, p->matrix[i].name) |
		       strbuf_str(&b, "=") |
		       strbuf_str(&b, p->matrix[i].values[at->axis[i]].s);
	}
	for (int i = 0; i < ph->n_matrix; i++) {
		err |= strbuf_str(&b, sep++ ? "," : "/") |
		       strbuf_str(&b, ph->matrix[i].name) |
		       strbuf_str(&b, "=") |
		       strbuf_str(&b, ph->matrix[i].values[
				cell_axis_index(ph, at->combo, i)].s);
	}
	snprintf(num, sizeof(num), "#%d", rep);
	err |= strbuf_str(&b, num);
	if (err) {
		free(b.p);
		return NULL;
	}
	return b.p;
}

static int add_cells(struct expansion *e, struct fsconf *fc, size_t *cap,
		     struct diag *d)
{
	const struct plan *p = e->plan;

	fc->first_cell = e->n_cells;
	for (int ph = 0; ph < p->n_phases; ph++) {
		const struct plan_phase *phase = &p->phases[ph];
		int combos = phase_combos(phase);
		int reps = phase->repeat ? phase->repeat : p->repeat;

		for (int c = 0; c < combos; c++) {
			struct cell_at at = { e, fc, fc->axis, ph, c };

			if (excluded(&at))
				continue;
			for (int r = 1; r <= reps; r++) {
				struct cell *cell;

				if (e->n_cells >= MAX_CELLS)
					return diag_set(d, p->file, NULL,
							(struct pos){ 0, 0 },
							"the plan expands to "
							"more than %d cells",
							MAX_CELLS);
				cell = grow_array(e->cells, cap,
						  e->n_cells + 1,
						  sizeof(*cell), 256);
				if (!cell)
					goto oom;
				e->cells = cell;
				cell = &e->cells[e->n_cells];
				memset(cell, 0, sizeof(*cell));
				cell->conf = (int)(fc - e->confs);
				cell->phase = ph;
				cell->combo = c;
				cell->rep = r;
				cell->selected = 1;
				cell->id = make_id(&at, r);
				if (!cell->id)
					goto oom;
				e->n_cells++;
			}
		}
	}
	fc->n_cells = e->n_cells - fc->first_cell;
	return 0;
oom:
	return diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
			"out of memory");
}

static void free_conf(struct fsconf *fc)
{
	free(fc->axis);
	free(fc->label);
	free(fc->mkfs);
	free(fc->mount);
	free(fc->setup);
	free(fc->teardown);
	free(fc->levels);
}

/* An entry's configs before the top-level matrix: its design's rows,
 * or its mkfs times its mount alternatives, times its age ones. */
static uint64_t fs_confs(const struct expansion *e, int f)
{
	const struct plan_fs *fs = &e->plan->fs[f];
	uint64_t n = fs->n_factors ? (uint64_t)e->designs[f].d.n :
		     (uint64_t)fs->n_mkfs * fs->n_mount;

	/* no overflow: past MAX_CELLS it is too many anyway */
	return n > MAX_CELLS ? MAX_CELLS + 1 : n * n_ages(fs);
}

static int total_confs(const struct expansion *e, size_t *out)
{
	const struct plan *p = e->plan;
	uint64_t top = 1, n = 0;

	for (int i = 0; i < p->n_matrix; i++) {
		top *= p->matrix[i].n;
		if (top > MAX_CELLS)
			return -1;
	}
	for (int i = 0; i < p->n_fs && n <= MAX_CELLS; i++) {
		uint64_t c = fs_confs(e, i);

		n += c > MAX_CELLS ? c : c * top;
	}
	for (int i = 0; i < p->n_phases; i++) {
		uint64_t c = 1;

		for (int a = 0; a < p->phases[i].n_matrix; a++) {
			c *= p->phases[i].matrix[a].n;
			if (c > MAX_CELLS)
				return -1;
		}
	}
	if (n > MAX_CELLS)
		return -1;
	*out = n;
	return 0;
}

/* An empty expansion of p with each exclude rule's record of the
 * values it met; NULL out of memory. */
static struct expansion *expansion_new(const struct plan *p)
{
	struct expansion *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->plan = p;
	e->designs = calloc(p->n_fs + 1, sizeof(*e->designs));
	e->checked = calloc(p->n_phases + 1, sizeof(*e->checked));
	e->excl = calloc((size_t)p->n_exclude + 1, sizeof(*e->excl));
	if (!e->designs || !e->checked || !e->excl)
		goto oom;
	for (int r = 0; r < p->n_exclude; r++) {
		int nv = 0;

		for (int c = 0; c < p->exclude[r].n; c++)
			nv += p->exclude[r].conds[c].n;
		e->excl[r].seen = calloc((size_t)nv + 1, 1);
		if (!e->excl[r].seen)
			goto oom;
	}
	return e;
oom:
	expansion_free(e);
	return NULL;
}

/* Every config of filesystem fs (its mkfs and mount alternatives, or
 * its design's rows in their run order, times the top-level matrix, top
 * combinations; all that for each age alternative in turn: the age
 * varies slowest) and its cells. 0, or -1 with d. */
static int expand_fs(struct expansion *e, const struct plan_fs *fs,
		     size_t top, size_t *cap, struct diag *d)
{
	const struct plan *p = e->plan;
	const struct expdesign *ed = &e->designs[fs - p->fs];
	int rows = fs->n_factors ? ed->d.n : fs->n_mkfs * fs->n_mount;

	for (int ar = 0; ar < rows * n_ages(fs); ar++)
	for (size_t t = 0; t < top; t++) {
		int r = ar % rows, ag = ar / rows;
		int mk = fs->n_factors ? 0 : r / fs->n_mount;
		int mo = fs->n_factors ? 0 : r % fs->n_mount;
		int row = fs->n_factors ? ed->order[r] : -1;
		struct fsconf *fc = &e->confs[e->n_confs];
		int *axis = calloc(p->n_matrix + 1, sizeof(int));
		size_t rest = t;

		if (!axis)
			return diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
					"out of memory");
		/* the last axis varies fastest, like nested loops */
		for (int i = p->n_matrix - 1; i >= 0; i--) {
			axis[i] = (int)(rest % p->matrix[i].n);
			rest /= p->matrix[i].n;
		}
		e->n_confs++;
		if (build_conf(e, fc, fs, mk, mo, row, ag, axis))
			return diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
					"out of memory");
		if (add_cells(e, fc, cap, d))
			return -1;
	}
	return 0;
}

/* Configs whose every cell was excluded are dropped; the rest, and
 * every cell, numbered from 1. */
static void drop_empty(struct expansion *e)
{
	int kept = 0;

	for (int i = 0; i < e->n_confs; i++) {
		struct fsconf *fc = &e->confs[i];

		if (!fc->n_cells) {
			free_conf(fc);
			continue;
		}
		for (size_t c = 0; c < fc->n_cells; c++)
			e->cells[fc->first_cell + c].conf = kept;
		e->confs[kept] = *fc;
		e->confs[kept].index = kept + 1;
		kept++;
	}
	e->n_confs = kept;
	for (size_t i = 0; i < e->n_cells; i++)
		e->cells[i].index = i + 1;
	e->n_selected = e->n_cells;
}

int expand_plan(const struct plan *p, struct expansion **out,
		struct diag *d)
{
	struct expansion *e;
	size_t n_total, top = 1, cap = 0;

	*out = NULL;
	e = expansion_new(p);
	if (!e)
		return diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
				"out of memory");
	if (expdesign_make(e, d))
		goto fail;
	if (total_confs(e, &n_total)) {
		diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
			 "the plan expands to more than %d cells", MAX_CELLS);
		goto fail;
	}
	e->confs = calloc(n_total ? n_total : 1, sizeof(*e->confs));
	if (!e->confs) {
		diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
			 "out of memory");
		goto fail;
	}
	for (int i = 0; i < p->n_matrix; i++)
		top *= p->matrix[i].n;
	for (int f = 0; f < p->n_fs; f++)
		if (expand_fs(e, &p->fs[f], n_total ? top : 0, &cap, d))
			goto fail;
	drop_empty(e);
	if (e->n_cells == 0) {
		diag_set(d, p->file, p->text, p->n_exclude ?
			 p->exclude[0].pos : (struct pos){ 0, 0 },
			 "exclude rules drop every cell of the plan");
		goto fail;
	}
	if (cellcheck_expansion(e, d))
		goto fail;
	*out = e;
	return 0;
fail:
	expansion_free(e);
	return -1;
}

void expansion_free(struct expansion *e)
{
	if (!e)
		return;
	for (int i = 0; i < e->n_confs; i++)
		free_conf(&e->confs[i]);
	for (size_t i = 0; i < e->n_cells; i++)
		free(e->cells[i].id);
	free(e->confs);
	free(e->cells);
	for (int i = 0; e->excl && i < e->plan->n_exclude; i++)
		free(e->excl[i].seen);
	free(e->excl);
	free(e->checked);
	expdesign_free(e);
	free(e);
}

int expansion_rounds(const struct expansion *e)
{
	int rounds = 0;

	for (size_t i = 0; i < e->n_cells; i++)
		if (e->cells[i].rep > rounds)
			rounds = e->cells[i].rep;
	return rounds;
}

struct fsconf *expansion_round_conf(const struct expansion *e, int round,
				    int j)
{
	return &e->confs[(j + round - 1) % e->n_confs];
}
