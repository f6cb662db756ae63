/* field: the loader's typed field readers, tables, lists, ${} and errors. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/field.h"
#include "plan/subst.h"
#include "util/units.h"

int field_error(struct loader *L, struct pos pos, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_set(L->d, L->p->file, L->p->text, pos, "%s", msg);
}

char *field_strdup(struct loader *L, const char *s)
{
	char *c = strdup(s);

	if (!c)
		field_error(L, (struct pos){ 0, 0 }, "out of memory");
	return c;
}

int field_mapping(struct loader *L, yaml_node_t *map,
		  const struct field *fields, void *obj, const char *what)
{
	yaml_node_t *slot[32] = { 0 }, *key_of[32];
	const char *keys[32];
	int nf = 0;

	if (map->type != YAML_MAPPING_NODE)
		return field_error(L, ydoc_pos(map), "%s must be a mapping of "
				   "keys", what);
	while (fields[nf].key)
		keys[nf] = fields[nf].key, nf++;
	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start;
	     pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = ydoc_node(&L->y, pr->key);
		const char *key = ydoc_scalar(k), *hint;
		int i;

		for (i = 0; i < nf; i++)
			if (!strcmp(key, fields[i].key))
				break;
		if (i < nf) {
			slot[i] = ydoc_node(&L->y, pr->value);
			key_of[i] = k;
			continue;
		}
		hint = diag_suggest(key, keys, nf);
		if (hint)
			return field_error(L, ydoc_pos(k), "unknown key '%s' "
					   "in %s (did you mean '%s'?)", key,
					   what, hint);
		return field_error(L, ydoc_pos(k), "unknown key '%s' in %s",
				   key, what);
	}
	for (int i = 0; i < nf; i++) {
		if (slot[i]) {
			L->key = key_of[i];
			if (fields[i].fn(L, slot[i], obj))
				return -1;
		} else if (fields[i].required) {
			return field_error(L, ydoc_pos(map), "%s is missing "
					   "the required key '%s'", what,
					   fields[i].key);
		}
	}
	return 0;
}

const char *field_scalar(struct loader *L, yaml_node_t *n, const char *key)
{
	const char *s = ydoc_scalar(n);

	if (!s)
		field_error(L, ydoc_pos(n), "'%s' expects a single value, not "
			    "a %s", key, n->type == YAML_SEQUENCE_NODE ?
					 "list" : "mapping");
	return s;
}

int field_pstr(struct loader *L, yaml_node_t *n, const char *key,
	       struct pstr *out)
{
	const char *s = field_scalar(L, n, key);

	memset(out, 0, sizeof(*out));
	if (!s)
		return -1;
	out->pos = ydoc_pos(n);
	out->col_shift = -1;
	/* Offsets inside the text map to columns only on one line. */
	if (n->start_mark.line == n->end_mark.line) {
		switch (n->data.scalar.style) {
		case YAML_PLAIN_SCALAR_STYLE:
			out->col_shift = 0;
			break;
		case YAML_SINGLE_QUOTED_SCALAR_STYLE:
		case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
			out->col_shift = 1;
			break;
		default:
			break;
		}
	}
	/* A plain `~` or `null` is YAML's null: an empty value here. */
	if (ydoc_plain(n) && (!strcmp(s, "~") || !strcmp(s, "null")))
		s = "";
	out->s = field_strdup(L, s);
	return out->s ? 0 : -1;
}

int field_pstr_params(struct loader *L, yaml_node_t *n, const char *key,
		      struct pstr *out)
{
	if (field_pstr(L, n, key, out))
		return -1;
	if (field_expand_params(L, out)) {
		free(out->s);
		out->s = NULL;
		return -1;
	}
	return 0;
}

int field_int(struct loader *L, yaml_node_t *n, const char *key, int min,
	      int max, int *out)
{
	struct pstr ps;
	int64_t v;
	int rc = 0;

	if (field_pstr_params(L, n, key, &ps))
		return -1;
	if (units_int(ps.s, min, max, &v))
		rc = field_error(L, ps.pos, "'%s' must be a whole number from "
				 "%d to %d, not '%s'", key, min, max, ps.s);
	else
		*out = (int)v;
	free(ps.s);
	return rc;
}

struct rule {
	int max, min;
	double ci;
	struct pos pos;
};

static int h_rule_min(struct loader *L, yaml_node_t *n, void *obj)
{
	return field_int(L, n, "min", 2, 1000000, &((struct rule *)obj)->min);
}

static int h_rule_max(struct loader *L, yaml_node_t *n, void *obj)
{
	return field_int(L, n, "max", 2, 1000000, &((struct rule *)obj)->max);
}

/* ci: a percentage of the mean, "5%" (a bare number is ambiguous). */
static int h_rule_ci(struct loader *L, yaml_node_t *n, void *obj)
{
	struct rule *r = obj;
	struct pstr ps;
	char *end;
	int rc = 0;

	if (field_pstr_params(L, n, "ci", &ps))
		return -1;
	r->ci = strtod(ps.s, &end) / 100;
	if (end == ps.s || strcmp(end, "%") || !(r->ci > 0) || r->ci >= 10)
		rc = field_error(L, ps.pos, "'ci' is the 95%% confidence "
				 "interval's half-width as a percentage of the "
				 "mean, e.g. 5%%, not '%s'", ps.s);
	free(ps.s);
	return rc;
}

static const struct field rule_fields[] = {
	{ "min", h_rule_min, 0 },
	{ "max", h_rule_max, 0 },
	{ "ci", h_rule_ci, 1 },
	{ NULL, NULL, 0 }
};

int field_repeat(struct loader *L, yaml_node_t *n, int *count, int *min,
		 double *ci)
{
	struct rule r = { 10, 3, 0, ydoc_pos(n) };

	if (n->type != YAML_MAPPING_NODE) {
		*min = 0;
		*ci = 0;
		return field_int(L, n, "repeat", 1, 1000000, count);
	}
	if (field_mapping(L, n, rule_fields, &r, "a stop rule (repeat: {min, "
			  "max, ci})"))
		return -1;
	if (r.max < r.min)
		return field_error(L, r.pos, "the stop rule's max (%d) is less "
				   "than its min (%d)", r.max, r.min);
	*count = r.max;
	*min = r.min;
	*ci = r.ci;
	return 0;
}

int field_ident(struct loader *L, yaml_node_t *n, const char *what)
{
	const char *s = ydoc_scalar(n);

	if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		goto bad;
	for (const char *c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			goto bad;
	if (strlen(s) < 64)
		return 0;
bad:
	return field_error(L, ydoc_pos(n), "'%s' is not usable as %s: use "
			   "letters, digits and '_', starting with a letter",
			   s ? s : "?", what);
}

/* ---- lists ---- */

static int count_items(yaml_node_t *n)
{
	if (n->type == YAML_SEQUENCE_NODE)
		return (int)(n->data.sequence.items.top -
			     n->data.sequence.items.start);
	return 1;
}

static yaml_node_t *item(struct loader *L, yaml_node_t *n, int i)
{
	if (n->type == YAML_SEQUENCE_NODE)
		return ydoc_node(&L->y, n->data.sequence.items.start[i]);
	return n;
}

int field_list(struct loader *L, yaml_node_t *n, const char *key,
	       struct pstr **out, int *n_out, int expand,
	       const struct plan_phase *ph, int axes)
{
	int cnt = count_items(n);
	struct pstr *v;

	if (n->type == YAML_MAPPING_NODE)
		return field_error(L, ydoc_pos(n), "'%s' expects a value or a "
				   "list of values, not a mapping", key);
	if (cnt == 0)
		return field_error(L, ydoc_pos(n), "'%s' is an empty list: "
				   "give at least one value", key);
	v = calloc(cnt, sizeof(*v));
	if (!v)
		return field_error(L, ydoc_pos(n), "out of memory");
	*out = v;
	*n_out = 0;
	for (int i = 0; i < cnt; i++) {
		yaml_node_t *it = item(L, n, i);

		if (it->type != YAML_SCALAR_NODE)
			return field_error(L, ydoc_pos(it), "'%s' takes plain "
					   "values; a list here cannot nest",
					   key);
		if (field_pstr(L, it, key, &v[i]))
			return -1;
		*n_out = i + 1;
		if (expand ? field_expand_params(L, &v[i])
			   : field_check_refs(L, &v[i], ph, axes))
			return -1;
		for (int j = 0; j < i; j++)
			if (!strcmp(v[j].s, v[i].s))
				return field_error(L, v[i].pos, "'%s' lists "
						   "'%s' twice (first at "
						   "line %d)", key, v[i].s,
						   v[j].pos.line);
	}
	return 0;
}

int field_seq_len(yaml_node_t *n)
{
	return n->type == YAML_SEQUENCE_NODE ? count_items(n) : 0;
}

int field_between(struct loader *L, yaml_node_t *n, struct between *out)
{
	static const char *const names[] = { "sync", "drop_caches",
					     "remount", "none" };
	struct pstr *v = NULL;
	int cnt = 0, none = 0, rc = -1;

	if (field_list(L, n, "between", &v, &cnt, 1, NULL, 0))
		goto out;
	out->n = 0;
	for (int i = 0; i < cnt; i++) {
		const char *hint;
		int a;

		for (a = 0; a < 4; a++)
			if (!strcmp(v[i].s, names[a]))
				break;
		if (a == 4) {
			hint = diag_suggest(v[i].s, names, 4);
			field_error(L, v[i].pos, "unknown between action "
				    "'%s'%s%s%s; the actions are sync, "
				    "drop_caches, remount and none", v[i].s,
				    hint ? " (did you mean '" : "",
				    hint ? hint : "", hint ? "'?)" : "");
			goto out;
		}
		if (a == 3)
			none = 1;
		else
			out->act[out->n++] = (enum between_action)a;
		if (none && cnt > 1) {
			field_error(L, v[i].pos, "'none' cannot be combined "
				    "with other between actions");
			goto out;
		}
	}
	rc = 0;
out:
	for (int i = 0; i < cnt; i++)
		free(v[i].s);
	free(v);
	return rc;
}

/* ---- strings with ${...}, checked against the scope they live in ---- */

struct scope {
	const struct plan *p;
	const struct plan_phase *ph;	/* phase axes in scope, or NULL */
	int axes;			/* top-level axes in scope */
};

static int name_is(const char *a, const char *name, size_t len)
{
	return strlen(a) == len && !memcmp(a, name, len);
}

/* An axis stands for its longest value: then a text that checks is
 * within SUBST_MAX in every cell. */
static const char *longest(const struct plan_axis *ax)
{
	const char *v = "";

	for (int i = 0; i < ax->n; i++)
		if (ax->values[i].s && strlen(ax->values[i].s) > strlen(v))
			v = ax->values[i].s;
	return v;
}

static const char *scope_lookup(void *ctx, const char *name, size_t len)
{
	const struct scope *s = ctx;

	for (int i = 0; i < s->p->n_params; i++)
		if (name_is(s->p->params[i].key, name, len))
			return s->p->params[i].val.s;
	for (int i = 0; s->axes && i < s->p->n_matrix; i++)
		if (name_is(s->p->matrix[i].name, name, len))
			return longest(&s->p->matrix[i]);
	for (int i = 0; s->ph && i < s->ph->n_matrix; i++)
		if (name_is(s->ph->matrix[i].name, name, len))
			return longest(&s->ph->matrix[i]);
	return NULL;
}

/* The place of byte `off` inside a scalar, when it can be known exactly. */
struct pos field_offset_pos(const struct pstr *ps, size_t off)
{
	struct pos p = ps->pos;

	if (ps->col_shift >= 0)
		p.col += ps->col_shift + (int)off;
	return p;
}

static int subst_fail(struct loader *L, const struct pstr *ps,
		      const struct subst_error *e, const char *scope_hint)
{
	struct pos p = field_offset_pos(ps, e->offset);

	if (e->undefined)
		return field_error(L, p, "undefined parameter '${%s}'%s",
				   e->name, scope_hint);
	if (e->name[0])
		return field_error(L, p, "'${%s}' makes this value %zu bytes "
				   "or more: an expanded value is at most 1 "
				   "MiB", e->name, e->length);
	return field_error(L, p, "%s", e->what);
}

int field_check_refs(struct loader *L, const struct pstr *ps,
		     const struct plan_phase *ph, int axes)
{
	struct scope s = { L->p, ph, axes };
	struct subst_error e;

	if (!ps->s || subst(ps->s, scope_lookup, &s, NULL, &e) == 0)
		return 0;
	return subst_fail(L, ps, &e, axes ? "" :
			  " (only params are in scope here)");
}

static yaml_node_t *map_get(struct loader *L, yaml_node_t *map,
			    const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start;
	     pr < map->data.mapping.pairs.top; pr++) {
		const char *k = ydoc_scalar(ydoc_node(&L->y, pr->key));

		if (k && !strcmp(k, key))
			return ydoc_node(&L->y, pr->value);
	}
	return NULL;
}

/* Whether name is an axis anywhere in the document, loaded yet or not. */
static int names_an_axis(struct loader *L, const char *name)
{
	yaml_node_t *root = ydoc_root(&L->y), *phases;

	if (map_get(L, map_get(L, root, "matrix"), name))
		return 1;
	phases = map_get(L, root, "phases");
	if (!phases || phases->type != YAML_SEQUENCE_NODE)
		return 0;
	for (yaml_node_item_t *it = phases->data.sequence.items.start;
	     it < phases->data.sequence.items.top; it++)
		if (map_get(L, map_get(L, ydoc_node(&L->y, *it), "matrix"),
			    name))
			return 1;
	return 0;
}

/* Expand parameters in place; a string at plan level knows no axes. */
int field_expand_params(struct loader *L, struct pstr *ps)
{
	struct scope s = { L->p, NULL, 0 };
	struct subst_error e;
	char *out;

	if (!ps->s)
		return 0;
	if (subst(ps->s, scope_lookup, &s, &out, &e)) {
		if (e.undefined && names_an_axis(L, e.name))
			return subst_fail(L, ps, &e,
					  " (matrix axes are not in scope here)");
		return subst_fail(L, ps, &e, "");
	}
	/* offsets into the expanded text are not columns of the plan */
	if (strcmp(ps->s, out))
		ps->col_shift = -1;
	free(ps->s);
	ps->s = out;
	return 0;
}
