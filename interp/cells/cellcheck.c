/* cellcheck: an expanded plan's checks — unique configs and ids, values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells/cellcheck.h"
#include "engine.h"
#include "plan/subst.h"
#include "util/strhash.h"

/* A mount option list is comma-separated with no spaces: "noatime,
 * nodiratime" would reach mount(2) as it is and fail there (EINVAL). */
/* Where the mount words of fc with a space were written: the entry's,
 * or (a design row) the level that has one. */
static struct pos mount_pos(const struct fsconf *fc)
{
	const struct plan_fs *fs = fc->fs;

	for (int j = 0; fc->levels && j < fs->n_factors; j++) {
		const struct pstr *lv =
			&fs->factors[j].mount[fc->levels[j] == '+'];

		if (lv->s[strcspn(lv->s, " \t\n")])
			return lv->pos;
	}
	return fs->mount[fc->mount_alt].pos;
}

static int check_mount_spaces(const struct expansion *e, struct diag *d)
{
	for (int i = 0; i < e->n_confs; i++) {
		const struct fsconf *fc = &e->confs[i];
		const char *sp = fc->mount + strcspn(fc->mount, " \t\n");

		if (*sp)
			return diag_set(d, e->plan->file, e->plan->text,
					mount_pos(fc),
					"mount options are separated by ',' "
					"with no spaces: '%s' (mount would "
					"fail with EINVAL)", fc->mount);
	}
	return 0;
}

/* Two configs with the same label and axes would be the same cells. */
static int conf_key_cmp(const void *a, const void *b, void *arg)
{
	const struct fsconf *x = a, *y = b;
	const struct plan *p = arg;
	int c = strcmp(x->label, y->label);

	for (int i = 0; !c && i < p->n_matrix; i++)
		c = x->axis[i] - y->axis[i];
	if (!c)
		c = (x > y) - (x < y);
	return c;
}

static int check_duplicates(const struct expansion *e, struct diag *d)
{
	const struct plan *p = e->plan;
	struct fsconf *s;
	int rc = 0;

	if (e->n_confs < 2)
		return 0;
	s = malloc(e->n_confs * sizeof(*s));
	if (!s)
		return diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
				"out of memory");
	memcpy(s, e->confs, e->n_confs * sizeof(*s));
	qsort_r(s, e->n_confs, sizeof(*s), conf_key_cmp, (void *)p);
	for (int i = 1; i < e->n_confs && !rc; i++) {
		int same = !strcmp(s[i - 1].label, s[i].label);

		for (int a = 0; same && a < p->n_matrix; a++)
			same = s[i - 1].axis[a] == s[i].axis[a];
		if (same) {
			const struct plan_fs *a = s[i - 1].fs, *b = s[i].fs;

			if (b->pos.line < a->pos.line)
				a = s[i].fs, b = s[i - 1].fs;
			rc = diag_set(d, p->file, p->text, b->pos,
				      "filesystem config '%s' is the same as "
				      "the one at line %d: give one a "
				      "distinct 'label' or options",
				      s[i].label, a->pos.line);
		}
	}
	free(s);
	return rc;
}

/* workers/engine written as ${axis} can only be checked once expanded. */
static int check_with_values(const struct expansion *e, struct diag *d)
{
	const struct plan *p = e->plan;

	for (size_t i = 0; i < e->n_cells; i++) {
		const struct cell *c = &e->cells[i];
		const struct plan_phase *ph = &p->phases[c->phase];

		if (c->rep != 1)
			continue;
		for (int k = 0; k < ph->n_with; k++) {
			const struct kv *kv = &ph->with[k];
			char *v, *end, want[256];
			long n;
			int bad = 0;

			if (!subst_has_ref(kv->val.s) ||
			    (strcmp(kv->key, "workers") &&
			     strcmp(kv->key, "engine")))
				continue;
			v = cell_with(e, c, kv->key);
			if (!v)
				return diag_set(d, p->file, NULL,
						(struct pos){ 0, 0 },
						"out of memory");
			if (!strcmp(kv->key, "workers")) {
				n = strtol(v, &end, 10);
				bad = end == v || *end ||
				      n < ENGINE_WORKERS_MIN ||
				      n > ENGINE_WORKERS_MAX;
				snprintf(want, sizeof(want), "a whole number "
					 "from %d to %d", ENGINE_WORKERS_MIN,
					 ENGINE_WORKERS_MAX);
			} else {
				bad = !engine_known(v, want, sizeof(want));
			}
			if (bad) {
				diag_set(d, p->file, p->text, kv->val.pos,
					 "'%s' is '%s' in cell %s: %s", kv->key,
					 v, c->id, want);
				free(v);
				return -1;
			}
			free(v);
		}
	}
	return 0;
}

static const char *id_of(const void *ctx, size_t i)
{
	return ((const struct expansion *)ctx)->cells[i].id;
}

/* Where two cells of one id part: the first value that differs. */
static struct pos parting(const struct expansion *e, const struct cell *a,
			  const struct cell *b)
{
	const struct plan *p = e->plan;
	const struct fsconf *x = &e->confs[a->conf], *y = &e->confs[b->conf];
	const struct plan_phase *ph = &p->phases[b->phase];

	for (int i = 0; i < p->n_matrix; i++)
		if (x->axis[i] != y->axis[i])
			return p->matrix[i].values[y->axis[i]].pos;
	if (a->phase != b->phase)
		return ph->pos;
	for (int i = 0; a->combo != b->combo && i < ph->n_matrix; i++) {
		int k = cell_axis_index(ph, b->combo, i);

		if (k != cell_axis_index(ph, a->combo, i))
			return ph->matrix[i].values[k].pos;
	}
	return y->fs->pos;
}

/* Every cell its own id: --only, --resume and the results know a cell
 * by it. The axis values cannot hold the ids' separators (the loader
 * refuses them); this holds whatever a label or ${...} made. */
static int check_ids(struct expansion *e, struct diag *d)
{
	const struct plan *p = e->plan;
	struct strhash h = { 0 };
	int rc = 0;

	if (strhash_reserve(&h, e->n_cells, id_of, e))
		return diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
				"out of memory");
	for (size_t i = 0; i < e->n_cells && !rc; i++) {
		size_t *slot = strhash_slot(&h, e->cells[i].id, id_of, e);
		const struct cell *c = &e->cells[i], *first;

		if (!*slot) {
			*slot = i + 1;
			continue;
		}
		first = &e->cells[*slot - 1];
		rc = diag_set(d, p->file, p->text, parting(e, first, c),
			      "cells %zu and %zu have one id, '%s': make "
			      "the labels or values differ", first->index,
			      c->index, c->id);
	}
	strhash_free(&h);
	return rc;
}

int cellcheck_expansion(struct expansion *e, struct diag *d)
{
	return check_duplicates(e, d) || check_ids(e, d) ||
	       check_with_values(e, d) || check_mount_spaces(e, d) ? -1 : 0;
}
