/* cell: an expansion's types, and a cell's coordinates and values. */
#include <stdlib.h>
#include <string.h>

#include "cells/cell.h"
#include "plan/subst.h"
#include "util/units.h"

int cell_axis_index(const struct plan_phase *ph, int combo, int a)
{
	int stride = 1;

	for (int i = ph->n_matrix - 1; i > a; i--)
		stride *= ph->matrix[i].n;
	return (combo / stride) % ph->matrix[a].n;
}

static int name_is(const char *a, const char *name, size_t len)
{
	return strlen(a) == len && !memcmp(a, name, len);
}

static const char *at_lookup(void *ctx, const char *name, size_t len)
{
	const struct cell_at *at = ctx;
	const struct plan *p = at->e->plan;

	for (int i = 0; i < p->n_params; i++)
		if (name_is(p->params[i].key, name, len))
			return p->params[i].val.s;
	for (int i = 0; i < p->n_matrix; i++)
		if (name_is(p->matrix[i].name, name, len))
			return p->matrix[i].values[at->axis[i]].s;
	if (at->phase >= 0) {
		const struct plan_phase *ph = &p->phases[at->phase];

		for (int i = 0; i < ph->n_matrix; i++)
			if (name_is(ph->matrix[i].name, name, len))
				return ph->matrix[i].values[
				    cell_axis_index(ph, at->combo, i)].s;
	}
	return NULL;
}

char *cell_at_expand(const struct cell_at *at, const struct pstr *ps)
{
	struct subst_error err;
	char *out = NULL;

	/* The loader checked every reference, so only memory can fail. */
	if (!ps->s || subst(ps->s, at_lookup, (void *)at, &out, &err))
		return NULL;
	return out;
}

const char *cell_at_coord(const struct cell_at *at, const char *key)
{
	const struct plan *p = at->e->plan;

	if (!strcmp(key, "type"))
		return at->fc->fs->type.s;
	if (!strcmp(key, "label"))
		return at->fc->label;
	if (!strcmp(key, "mkfs"))
		return at->fc->mkfs;
	if (!strcmp(key, "mount"))
		return at->fc->mount;
	if (!strcmp(key, "age"))
		return at->fc->age ? at->fc->age->name : "none";
	if (!strcmp(key, "phase"))
		return at->phase >= 0 ? p->phases[at->phase].name : NULL;
	for (int i = 0; i < p->n_matrix; i++)
		if (!strcmp(p->matrix[i].name, key))
			return p->matrix[i].values[at->axis[i]].s;
	if (at->phase >= 0) {
		const struct plan_phase *ph = &p->phases[at->phase];

		for (int i = 0; i < ph->n_matrix; i++)
			if (!strcmp(ph->matrix[i].name, key))
				return ph->matrix[i].values[
				    cell_axis_index(ph, at->combo, i)].s;
	}
	for (int i = 0; at->fc->levels && i < at->fc->fs->n_factors; i++)
		if (!strcmp(at->fc->fs->factors[i].name, key))
			return at->fc->levels[i] == '+' ? "+" : "-";
	return NULL;
}

static struct cell_at cell_at(const struct expansion *e, const struct cell *c)
{
	const struct fsconf *fc = &e->confs[c->conf];
	struct cell_at at = { e, fc, fc->axis, c->phase, c->combo };

	return at;
}

const char *cell_coord(const struct expansion *e, const struct cell *c,
		       const char *key)
{
	struct cell_at at = cell_at(e, c);

	return cell_at_coord(&at, key);
}

char *cell_with(const struct expansion *e, const struct cell *c,
		const char *key)
{
	const struct plan_phase *ph = &e->plan->phases[c->phase];
	struct cell_at at = cell_at(e, c);

	for (int i = 0; i < ph->n_matrix; i++)
		if (!strcmp(ph->matrix[i].name, key))
			return strdup(cell_at_coord(&at, key));
	for (int i = 0; i < ph->n_with; i++)
		if (!strcmp(ph->with[i].key, key))
			return cell_at_expand(&at, &ph->with[i].val);
	return NULL;
}

char *cell_exec(const struct expansion *e, const struct cell *c)
{
	struct cell_at at = cell_at(e, c);

	return cell_at_expand(&at, &e->plan->phases[c->phase].exec);
}

int cell_ram(const struct expansion *e, const struct cell *c, uint64_t *ram)
{
	char *v = cell_with(e, c, "ram");
	int rc = 0;

	*ram = 0;
	if (v && strcmp(v, "auto") && units_size(v, ram)) {
		*ram = 0;
		rc = -1;
	}
	free(v);
	return rc;
}
