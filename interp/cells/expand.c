/* expand: unroll a plan into configs and cells, exclude, identify, select. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells/expand.h"
#include "engine.h"
#include "plan/subst.h"
#include "util/grow.h"
#include "util/strbuf.h"
#include "util/strhash.h"
#include "util/units.h"

#define MAX_CELLS 10000000

/* Where a cell sits, before it is stored. */
struct at {
	const struct expansion *e;
	const struct fsconf *fc;	/* NULL while the config is built */
	const int *axis;		/* top-level value indices */
	int phase;			/* -1: no phase in scope */
	int combo;
};

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
	const struct at *at = ctx;
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

static char *at_expand(const struct at *at, const struct pstr *ps)
{
	struct subst_error err;
	char *out = NULL;

	/* The loader checked every reference, so only memory can fail. */
	if (!ps->s || subst(ps->s, at_lookup, (void *)at, &out, &err))
		return NULL;
	return out;
}

static const char *at_coord(const struct at *at, const char *key)
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
	return NULL;
}

/* Whether a rule drops the cell at; every rule is tried, and what each
 * matched is noted (e->excl) for expand_warn. */
static int excluded(const struct at *at)
{
	const struct plan *p = at->e->plan;
	int out = 0;

	for (int r = 0; r < p->n_exclude; r++) {
		const struct plan_exclude *ex = &p->exclude[r];
		struct exclude_use *u = &at->e->excl[r];
		unsigned char *seen = u->seen;
		int all = 1;

		for (int c = 0; c < ex->n; c++) {
			const char *v = at_coord(at, ex->conds[c].key);
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

/* A mount option list is comma-separated with no spaces: "noatime,
 * nodiratime" would reach mount(2) as it is and fail there (EINVAL). */
static int check_mount_spaces(const struct expansion *e, struct diag *d)
{
	for (int i = 0; i < e->n_confs; i++) {
		const struct fsconf *fc = &e->confs[i];
		const char *sp = fc->mount + strcspn(fc->mount, " \t\n");

		if (*sp)
			return diag_set(d, e->plan->file, e->plan->text,
					fc->fs->mount[fc->mount_alt].pos,
					"mount options are separated by ',' "
					"with no spaces: '%s' (mount would "
					"fail with EINVAL)", fc->mount);
	}
	return 0;
}

/* ---- building ---- */

static int make_label(struct fsconf *fc, const struct at *at)
{
	const struct plan_fs *fs = fc->fs;
	int alts = fs->n_mkfs * fs->n_mount > 1;
	struct strbuf b = { 0 };
	char *base;

	base = fs->label.s ? at_expand(at, &fs->label) : strdup(fs->type.s);
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

static int build_conf(struct expansion *e, struct fsconf *fc,
		      const struct plan_fs *fs, int mk, int mo, int *axis)
{
	struct at at = { e, NULL, axis, -1, 0 };

	fc->fs = fs;
	fc->mkfs_alt = mk;
	fc->mount_alt = mo;
	fc->axis = axis;
	fc->mkfs = at_expand(&at, &fs->mkfs[mk]);
	fc->mount = at_expand(&at, &fs->mount[mo]);
	if (!fc->mkfs || !fc->mount || make_label(fc, &at))
		return -1;
	if (fs->setup.s && !(fc->setup = at_expand(&at, &fs->setup)))
		return -1;
	if (fs->teardown.s && !(fc->teardown = at_expand(&at, &fs->teardown)))
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

static char *make_id(const struct at *at, int rep)
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
			struct at at = { e, fc, fc->axis, ph, c };

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

static int total_confs(const struct plan *p, size_t *out)
{
	uint64_t top = 1, n = 0;

	for (int i = 0; i < p->n_matrix; i++) {
		top *= p->matrix[i].n;
		if (top > MAX_CELLS)
			return -1;
	}
	for (int i = 0; i < p->n_fs; i++)
		n += (uint64_t)p->fs[i].n_mkfs * p->fs[i].n_mount * top;
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

int expand_plan(const struct plan *p, struct expansion **out,
		struct diag *d)
{
	struct expansion *e;
	size_t n_total, cap = 0;
	int kept = 0;

	*out = NULL;
	if (total_confs(p, &n_total))
		return diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
				"the plan expands to more than %d cells",
				MAX_CELLS);
	e = calloc(1, sizeof(*e));
	if (!e || !(e->confs = calloc(n_total ? n_total : 1,
				      sizeof(*e->confs))) ||
	    !(e->checked = calloc(p->n_phases + 1, sizeof(*e->checked)))) {
		if (e)
			free(e->confs);
		free(e);
		return diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
				"out of memory");
	}
	e->plan = p;
	e->excl = calloc((size_t)p->n_exclude + 1, sizeof(*e->excl));
	if (!e->excl)
		goto oom;
	for (int r = 0; r < p->n_exclude; r++) {
		int nv = 0;

		for (int c = 0; c < p->exclude[r].n; c++)
			nv += p->exclude[r].conds[c].n;
		e->excl[r].seen = calloc((size_t)nv + 1, 1);
		if (!e->excl[r].seen)
			goto oom;
	}
	for (int f = 0; f < p->n_fs; f++) {
		const struct plan_fs *fs = &p->fs[f];
		size_t top = n_total ? 1 : 0;

		for (int i = 0; i < p->n_matrix; i++)
			top *= p->matrix[i].n;
		for (int mk = 0; mk < fs->n_mkfs; mk++)
		for (int mo = 0; mo < fs->n_mount; mo++)
		for (size_t t = 0; t < top; t++) {
			struct fsconf *fc = &e->confs[e->n_confs];
			int *axis = calloc(p->n_matrix + 1, sizeof(int));
			size_t rest = t;

			if (!axis)
				goto oom;
			/* the last axis varies fastest, like nested loops */
			for (int i = p->n_matrix - 1; i >= 0; i--) {
				axis[i] = (int)(rest % p->matrix[i].n);
				rest /= p->matrix[i].n;
			}
			e->n_confs++;
			if (build_conf(e, fc, fs, mk, mo, axis))
				goto oom;
			if (add_cells(e, fc, &cap, d))
				goto fail;
		}
	}
	/* Configs whose every cell was excluded are dropped. */
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
	if (e->n_cells == 0) {
		diag_set(d, p->file, p->text, p->n_exclude ?
			 p->exclude[0].pos : (struct pos){ 0, 0 },
			 "exclude rules drop every cell of the plan");
		goto fail;
	}
	if (check_duplicates(e, d) || check_ids(e, d) ||
	    check_with_values(e, d) || check_mount_spaces(e, d))
		goto fail;
	*out = e;
	return 0;
oom:
	diag_set(d, p->file, NULL, (struct pos){ 0, 0 }, "out of memory");
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
	free(e);
}

static struct at cell_at(const struct expansion *e, const struct cell *c)
{
	const struct fsconf *fc = &e->confs[c->conf];
	struct at at = { e, fc, fc->axis, c->phase, c->combo };

	return at;
}

const char *cell_coord(const struct expansion *e, const struct cell *c,
		       const char *key)
{
	struct at at = cell_at(e, c);

	return at_coord(&at, key);
}

char *cell_with(const struct expansion *e, const struct cell *c,
		const char *key)
{
	const struct plan_phase *ph = &e->plan->phases[c->phase];
	struct at at = cell_at(e, c);

	for (int i = 0; i < ph->n_matrix; i++)
		if (!strcmp(ph->matrix[i].name, key))
			return strdup(at_coord(&at, key));
	for (int i = 0; i < ph->n_with; i++)
		if (!strcmp(ph->with[i].key, key))
			return at_expand(&at, &ph->with[i].val);
	return NULL;
}

char *cell_exec(const struct expansion *e, const struct cell *c)
{
	struct at at = cell_at(e, c);

	return at_expand(&at, &e->plan->phases[c->phase].exec);
}

/* The device a config's commands name: known only once it is attached. */
static const char *dev_name(const struct plan *p, const char *dev)
{
	if (dev)
		return dev;
	return p->target.kind == TARGET_DEVICE ? p->target.device : "LOOPDEV";
}

/* target.volumes: the command is run once per volume, which it says. */
static void each_volume(const struct plan *p, char *buf, size_t len)
{
	size_t n = strlen(buf);

	if (!p->target.n_volumes || n >= len)
		return;
	n += snprintf(buf + n, len - n, " (each volume:");
	for (int i = 0; i < p->target.n_volumes && n < len; i++)
		n += snprintf(buf + n, len - n, " %s", p->target.volumes[i].s);
	if (n < len)
		snprintf(buf + n, len - n, ")");
}

void fsconf_mkfs_cmd(const struct plan *p, const struct fsconf *fc,
		     const char *dev, char *buf, size_t len)
{
	if (p->target.kind == TARGET_DIR || fc->fs->nodev) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(buf, len, "mkfs.%s%s%s %s", fc->fs->type.s,
		 fc->mkfs[0] ? " " : "", fc->mkfs, dev_name(p, dev));
	each_volume(p, buf, len);
}

void fsconf_mount_cmd(const struct plan *p, const struct fsconf *fc,
		      const char *dev, const char *dir, char *buf, size_t len)
{
	const char *type = fc->fs->type.s;

	if (!dir)
		dir = "MOUNTPOINT";
	if (p->target.kind == TARGET_DIR) {
		snprintf(buf, len, "- (runs in %s)", p->target.dir);
	} else {
		snprintf(buf, len, "mount -t %s%s%s %s %s", type,
			 fc->mount[0] ? " -o " : "", fc->mount,
			 fc->fs->nodev ? type : dev_name(p, dev), dir);
		each_volume(p, buf, len);
	}
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
