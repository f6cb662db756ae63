/* secfactors: a filesystems entry's screening factors and design. */
#include <stdlib.h>
#include <string.h>

#include "plan/coord.h"
#include "plan/optcheck.h"
#include "plan/secfactors.h"

#define MAX_FACTORS 64		/* the designs hold 23; more is refused */

/* One level of mkfs or mount: a scalar, "" allowed, ${...} as the
 * entry's own words, and the device words refused as theirs are. */
static int level(struct loader *L, yaml_node_t *n, const char *key,
		 struct pstr *out)
{
	if (n->type != YAML_SCALAR_NODE)
		return field_error(L, ydoc_pos(n), "a level of '%s' is "
				   "options as one value, not a %s", key,
				   n->type == YAML_SEQUENCE_NODE ? "list" :
				   "mapping");
	if (field_pstr(L, n, key, out) || field_check_refs(L, out, NULL, 1))
		return -1;
	return optcheck_devices(L, key, out, 1);
}

static int levels(struct loader *L, yaml_node_t *n, const char *key,
		  struct pstr *lv)
{
	if (n->type != YAML_SEQUENCE_NODE || field_seq_len(n) != 2)
		return field_error(L, ydoc_pos(n), "a factor's '%s' takes "
				   "two levels, [baseline, other], e.g. "
				   "[commit=5, commit=60]", key);
	for (int i = 0; i < 2; i++)
		if (level(L, ydoc_node(&L->y, n->data.sequence.items.start[i]),
			  key, &lv[i]))
			return -1;
	if (!strcmp(lv[0].s, lv[1].s))
		return field_error(L, lv[1].pos, "both levels of '%s' are "
				   "'%s': a factor changes something", key,
				   lv[0].s);
	return 0;
}

/* The entry is the obj of the factor's fields: its factor is the last. */
static struct plan_factor *cur(void *obj)
{
	struct plan_fs *fs = obj;

	return &fs->factors[fs->n_factors - 1];
}

static int h_name(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_fs *fs = obj;
	struct plan_factor *f = cur(obj);
	const char *s;

	if (field_ident(L, n, "a factor name"))
		return -1;
	s = ydoc_scalar(n);
	f->name_pos = ydoc_pos(n);
	if (coord_reserved(s))
		return field_error(L, f->name_pos, "'%s' is a cell coordinate "
				   "already; name the factor otherwise", s);
	for (int i = 0; i < fs->n_factors - 1; i++)
		if (!strcmp(fs->factors[i].name, s))
			return field_error(L, f->name_pos, "factor '%s' is "
					   "named twice (first at line %d)",
					   s, fs->factors[i].name_pos.line);
	f->name = field_strdup(L, s);
	return f->name ? 0 : -1;
}

static int h_mkfs(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_fs *fs = obj;

	if (fs->nodev)
		return field_error(L, ydoc_pos(n), PLAN_NODEV_MKFS,
				   fs->type.s);
	return levels(L, n, "mkfs", cur(obj)->mkfs);
}

static int h_mount(struct loader *L, yaml_node_t *n, void *obj)
{
	return levels(L, n, "mount", cur(obj)->mount);
}

static const struct field factor_fields[] = {
	{ "name", h_name, 1 },
	{ "mkfs", h_mkfs, 0 },
	{ "mount", h_mount, 0 },
	{ NULL, NULL, 0 }
};

/* A level not given is "" at the factor's place. */
static int empty_levels(struct loader *L, struct plan_factor *f,
			struct pstr *lv)
{
	for (int i = 0; i < 2; i++) {
		if (lv[i].s)
			continue;
		lv[i].pos = f->pos;
		lv[i].col_shift = -1;
		if (!(lv[i].s = field_strdup(L, "")))
			return -1;
	}
	return 0;
}

int secfactors_factors(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_fs *fs = obj;
	int cnt = field_seq_len(n);

	if (n->type != YAML_SEQUENCE_NODE || cnt == 0)
		return field_error(L, ydoc_pos(n), "'factors' is a list of "
				   "{name, mkfs: [-, +], mount: [-, +]}");
	if (cnt > MAX_FACTORS)
		return field_error(L, ydoc_pos(n), "'factors' lists %d; a "
				   "design takes at most 23", cnt);
	fs->factors = calloc(cnt, sizeof(*fs->factors));
	if (!fs->factors)
		return field_error(L, ydoc_pos(n), "out of memory");
	for (int i = 0; i < cnt; i++) {
		yaml_node_t *it = ydoc_node(&L->y,
					    n->data.sequence.items.start[i]);
		struct plan_factor *f = &fs->factors[i];

		f->pos = ydoc_pos(it);
		fs->n_factors = i + 1;	/* owned from here: freed on error */
		if (field_mapping(L, it, factor_fields, fs, "a factor"))
			return -1;
		if (!f->mkfs[0].s && !f->mount[0].s)
			return field_error(L, f->pos, "factor '%s' changes "
					   "nothing: give it 'mkfs' or "
					   "'mount' levels", f->name);
		if (empty_levels(L, f, f->mkfs) ||
		    empty_levels(L, f, f->mount))
			return -1;
	}
	if (cnt < 2)
		return field_error(L, ydoc_pos(n), "a design needs at least "
				   "two factors; for one, list its two "
				   "values as mkfs or mount alternatives");
	return 0;
}

/* ---- design ---- */

static const char *const kinds[] = {
	"full", "fractional", "plackett-burman", "oat"
};

const char *secfactors_kind_name(enum design_kind k)
{
	return k > DESIGN_NONE && k <= DESIGN_OAT ? kinds[k - DESIGN_FULL] :
						    "none";
}

static int h_type(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_design *d = obj;
	const char *s = field_scalar(L, n, "type"), *hint;

	if (!s)
		return -1;
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, kinds[i])) {
			d->kind = (enum design_kind)(DESIGN_FULL + i);
			return 0;
		}
	hint = diag_suggest(s, kinds, 4);
	return field_error(L, ydoc_pos(n), "unknown design '%s'%s%s%s; the "
			   "designs are full, fractional, plackett-burman "
			   "and oat", s, hint ? " (did you mean '" : "",
			   hint ? hint : "", hint ? "'?)" : "");
}

static int h_resolution(struct loader *L, yaml_node_t *n, void *obj)
{
	static const char *const roman[] = { "III", "IV", "V" };
	struct plan_design *d = obj;
	const char *s = field_scalar(L, n, "resolution");

	if (!s)
		return -1;
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, roman[i])) {
			d->resolution = 3 + i;
			return 0;
		}
	if (strlen(s) == 1 && s[0] >= '3' && s[0] <= '5') {
		d->resolution = s[0] - '0';
		return 0;
	}
	return field_error(L, ydoc_pos(n), "'resolution' is 3, 4 or 5 (III, "
			   "IV, V), not '%s'", s);
}

static int h_runs(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_design *d = obj;

	if (field_int(L, n, "runs", 12, 24, &d->runs))
		return -1;
	if (d->runs % 4 || d->runs == 16)
		return field_error(L, ydoc_pos(n), "'runs' of a "
				   "plackett-burman design is 12, 20 or 24, "
				   "not %d", d->runs);
	return 0;
}

static const struct field design_fields[] = {
	{ "type", h_type, 1 },
	{ "resolution", h_resolution, 0 },	/* after type: it checks it */
	{ "runs", h_runs, 0 },
	{ NULL, NULL, 0 }
};

int secfactors_design(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_fs *fs = obj;
	struct plan_design *d = &fs->design;

	d->pos = ydoc_pos(n);
	d->resolution = 4;
	if (n->type == YAML_SCALAR_NODE)
		return h_type(L, n, d);
	if (n->type != YAML_MAPPING_NODE)
		return field_error(L, d->pos, "'design' is full, fractional, "
				   "plackett-burman or oat, or a mapping "
				   "{type: fractional, resolution: 4}");
	if (field_mapping(L, n, design_fields, d, "a design"))
		return -1;
	if (d->runs && d->kind != DESIGN_PB)
		return field_error(L, d->pos, "'runs' applies only to a "
				   "plackett-burman design");
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
	     pr < n->data.mapping.pairs.top; pr++)
		if (!strcmp(ydoc_scalar(ydoc_node(&L->y, pr->key)),
			    "resolution") && d->kind != DESIGN_FRACTIONAL)
			return field_error(L, ydoc_pos(ydoc_node(&L->y,
					   pr->key)), "'resolution' applies "
					   "only to a fractional design");
	return 0;
}

/* After the entry: what its keys say together. */
int secfactors_check(struct loader *L, struct plan_fs *fs)
{
	if (!fs->n_factors && fs->design.kind != DESIGN_NONE)
		return field_error(L, fs->design.pos, "'design' needs "
				   "'factors' to vary");
	if (!fs->n_factors)
		return 0;
	if (fs->design.kind == DESIGN_NONE)
		return field_error(L, fs->factors[0].pos, "factors need a "
				   "'design:' (full, fractional, "
				   "plackett-burman or oat)");
	if (fs->n_mkfs > 1 || fs->n_mount > 1)
		return field_error(L, fs->n_mkfs > 1 ? fs->mkfs[1].pos :
				   fs->mount[1].pos, "with factors, 'mkfs' "
				   "and 'mount' are the words of every row: "
				   "one value each, not alternatives");
	return 0;
}

/* Checked once the plan is read: phases come after filesystems. */
int secfactors_names(struct loader *L)
{
	const struct plan *p = L->p;

	for (int i = 0; i < p->n_fs; i++)
		for (int j = 0; j < p->fs[i].n_factors; j++) {
			const struct plan_factor *f = &p->fs[i].factors[j];
			const char *what = NULL;

			for (int a = 0; a < p->n_params; a++)
				if (!strcmp(p->params[a].key, f->name))
					what = "a parameter";
			for (int a = 0; a < p->n_matrix; a++)
				if (!strcmp(p->matrix[a].name, f->name))
					what = "a matrix axis";
			for (int ph = 0; ph < p->n_phases; ph++)
				for (int a = 0; a < p->phases[ph].n_matrix; a++)
					if (!strcmp(p->phases[ph].matrix[a].name,
						    f->name))
						what = "a phase's matrix axis";
			if (what)
				return field_error(L, f->name_pos, "factor "
						   "'%s' has the name of %s: "
						   "--only and exclude would "
						   "be ambiguous", f->name,
						   what);
		}
	return 0;
}
