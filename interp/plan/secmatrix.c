/* secmatrix: the plan's matrix axes and exclude rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/coord.h"
#include "plan/field.h"
#include "plan/secmatrix.h"

/* ---- matrix ---- */

static int axis_name_taken(struct loader *L, yaml_node_t *k,
			   const struct plan_phase *ph)
{
	const char *name = ydoc_scalar(k);

	if (coord_reserved(name))
		return field_error(L, ydoc_pos(k), "'%s' is a cell coordinate "
				   "already; name the axis otherwise", name);
	for (int i = 0; i < L->p->n_params; i++)
		if (!strcmp(name, L->p->params[i].key))
			return field_error(L, ydoc_pos(k), "axis '%s' has the "
					   "name of a parameter (line %d): "
					   "${%s} would be ambiguous", name,
					   L->p->params[i].kpos.line, name);
	for (int i = 0; ph && i < L->p->n_matrix; i++)
		if (!strcmp(name, L->p->matrix[i].name))
			return field_error(L, ydoc_pos(k), "axis '%s' is "
					   "already a top-level matrix axis "
					   "(line %d)", name,
					   L->p->matrix[i].pos.line);
	return 0;
}

/* A cell id is label/phase/axis=value,...#rep and phase_params is
 * axis=value;...: a value holding one of their separators (or a line
 * break, or any control character) could make two cells one id, and a
 * --resume would then skip a cell that never ran. */
static int id_safe(struct loader *L, const struct plan_axis *ax,
		   const struct pstr *v)
{
	static const char bad[] = ",=;/#";
	char what[16];

	for (const char *c = v->s; *c; c++) {
		unsigned char u = (unsigned char)*c;

		if (!strchr(bad, u) && u >= 0x20 && u != 0x7f)
			continue;
		if (strchr(bad, u))
			snprintf(what, sizeof(what), "'%c'", u);
		else
			snprintf(what, sizeof(what), "byte 0x%02x", u);
		return field_error(L, field_offset_pos(v, c - v->s), "axis "
				   "'%s': the value '%s' has %s; a value is "
				   "part of the cell ids "
				   "(label/phase/axis=value,...#rep), so it "
				   "may not hold ',', '=', ';', '/', '#' or "
				   "control characters", ax->name, v->s, what);
	}
	return 0;
}

int secmatrix_axes(struct loader *L, yaml_node_t *n, const char *key,
		   struct plan_axis **out, int *n_out,
		   const struct plan_phase *ph)
{
	int cnt;

	if (n->type != YAML_MAPPING_NODE)
		return field_error(L, ydoc_pos(n), "'%s' expects a mapping of "
				   "axis: [values]", key);
	cnt = (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (cnt == 0)
		return field_error(L, ydoc_pos(n), "'%s' has no axes", key);
	*out = calloc(cnt, sizeof(**out));
	if (!*out)
		return field_error(L, ydoc_pos(n), "out of memory");
	for (int i = 0; i < cnt; i++) {
		yaml_node_pair_t *pr = &n->data.mapping.pairs.start[i];
		yaml_node_t *k = ydoc_node(&L->y, pr->key);
		yaml_node_t *v = ydoc_node(&L->y, pr->value);
		struct plan_axis *ax = &(*out)[i];

		if (field_ident(L, k, "an axis name") ||
		    axis_name_taken(L, k, ph))
			return -1;
		ax->name = field_strdup(L, ydoc_scalar(k));
		ax->pos = ydoc_pos(k);
		*n_out = i + 1;
		if (!ax->name)
			return -1;
		if (v->type == YAML_SEQUENCE_NODE && field_seq_len(v) == 0)
			return field_error(L, ydoc_pos(v), "matrix axis '%s' "
					   "is empty: give it at least one "
					   "value", ax->name);
		if (field_list(L, v, ax->name, &ax->values, &ax->n, 1, NULL, 0))
			return -1;
		for (int j = 0; j < ax->n; j++)
			if (id_safe(L, ax, &ax->values[j]))
				return -1;
	}
	return 0;
}

/* ---- exclude ---- */

/* Values known before expansion must name something that exists. */
static int check_value(struct loader *L, const struct plan_cond *c,
		       const struct pstr *v)
{
	const char *known[256];
	int n = 0, axis = 0;
	const char *hint;

	if (!strcmp(c->key, "type")) {
		for (int i = 0; i < L->p->n_fs && n < 256; i++)
			known[n++] = L->p->fs[i].type.s;
	} else if (!strcmp(c->key, "phase")) {
		for (int i = 0; i < L->p->n_phases && n < 256; i++)
			known[n++] = L->p->phases[i].name;
	} else if (!strcmp(c->key, "age")) {
		for (int i = 0; i < L->p->n_fs; i++)
			for (int j = 0; j < L->p->fs[i].n_age && n < 256; j++)
				known[n++] = L->p->fs[i].age[j].name;
	} else if (coord_factor(L->p, c->key, L->p->n_fs)) {
		known[n++] = "+";
		known[n++] = "-";
	} else if (strcmp(c->key, "label") && strcmp(c->key, "mkfs") &&
		   strcmp(c->key, "mount")) {
		axis = 1;
		for (int i = 0; i < L->p->n_matrix; i++)
			if (!strcmp(L->p->matrix[i].name, c->key))
				for (int j = 0; j < L->p->matrix[i].n &&
				     n < 256; j++)
					known[n++] = L->p->matrix[i].values[j].s;
		for (int i = 0; i < L->p->n_phases; i++) {
			const struct plan_phase *ph = &L->p->phases[i];

			for (int a = 0; a < ph->n_matrix; a++)
				if (!strcmp(ph->matrix[a].name, c->key))
					for (int j = 0; j < ph->matrix[a].n &&
					     n < 256; j++)
						known[n++] =
						    ph->matrix[a].values[j].s;
		}
	} else {
		return 0;
	}
	for (int i = 0; i < n; i++)
		if (!strcmp(known[i], v->s))
			return 0;
	hint = diag_suggest(v->s, known, n);
	return field_error(L, v->pos, "exclude: no %s%s has the value "
			   "'%s'%s%s%s", axis ? "axis " : "", c->key, v->s,
			   hint ? " (did you mean '" : "", hint ? hint : "",
			   hint ? "'?)" : "");
}

static int one_exclude(struct loader *L, yaml_node_t *n,
		       struct plan_exclude *ex)
{
	const char *names[256];
	int nn = coord_names(L->p, names, 256), cnt;

	ex->pos = ydoc_pos(n);
	if (n->type != YAML_MAPPING_NODE)
		return field_error(L, ydoc_pos(n), "an exclude rule is a "
				   "mapping of coordinate: value, e.g. "
				   "{type: xfs, threads: 32}");
	cnt = (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (cnt == 0)
		return field_error(L, ydoc_pos(n), "an empty exclude rule "
				   "would drop every cell");
	ex->conds = calloc(cnt, sizeof(*ex->conds));
	if (!ex->conds)
		return field_error(L, ydoc_pos(n), "out of memory");
	for (int i = 0; i < cnt; i++) {
		yaml_node_pair_t *pr = &n->data.mapping.pairs.start[i];
		yaml_node_t *k = ydoc_node(&L->y, pr->key);
		struct plan_cond *c = &ex->conds[i];
		const char *key = ydoc_scalar(k), *hint;
		int found = 0;

		for (int j = 0; j < nn; j++)
			found |= !strcmp(names[j], key);
		if (!found) {
			hint = diag_suggest(key, names, nn);
			return field_error(L, ydoc_pos(k), "exclude names "
					   "'%s', which is not a coordinate "
					   "or axis%s%s%s", key,
					   hint ? " (did you mean '" : "",
					   hint ? hint : "", hint ? "'?)" : "");
		}
		c->key = field_strdup(L, key);
		c->kpos = ydoc_pos(k);
		ex->n = i + 1;
		if (!c->key ||
		    field_list(L, ydoc_node(&L->y, pr->value), key,
			       &c->values, &c->n, 1, NULL, 0))
			return -1;
		for (int j = 0; j < c->n; j++)
			if (check_value(L, c, &c->values[j]))
				return -1;
	}
	return 0;
}

int secmatrix_excludes(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;
	int cnt;

	if (n->type != YAML_SEQUENCE_NODE)
		return field_error(L, ydoc_pos(n), "'exclude' expects a list "
				   "of rules (- {type: xfs, threads: 32})");
	cnt = field_seq_len(n);
	p->exclude = calloc(cnt ? cnt : 1, sizeof(*p->exclude));
	if (!p->exclude)
		return field_error(L, ydoc_pos(n), "out of memory");
	for (int i = 0; i < cnt; i++) {
		p->n_exclude = i + 1;
		if (one_exclude(L, ydoc_node(&L->y,
					     n->data.sequence.items.start[i]),
				&p->exclude[i]))
			return -1;
	}
	return 0;
}
