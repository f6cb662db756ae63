/* secage: the age: alternatives of a filesystems entry and of the plan. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/secage.h"
#include "util/units.h"

#define AGE_NAME_MAX 64
#define AGE_MAX_SIZES 32

/* ---- one alternative's keys ---- */

/* fill: "80%" or 0.8, 1% to 95% of the filesystem's size. */
static int h_fill(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_age *a = obj;
	struct pstr ps;
	size_t len;
	int pct, bad;
	double v = 0;

	if (field_pstr_params(L, n, "fill", &ps))
		return -1;
	len = strlen(ps.s);
	pct = len > 1 && ps.s[len - 1] == '%';
	bad = units_decimal(ps.s, pct ? len - 1 : len, &v);
	if (!bad && pct)
		v /= 100;
	if (bad || !(v >= 0.01 && v <= 0.95))
		bad = field_error(L, ps.pos, "'fill' is the share of the "
				  "filesystem to fill, 1%% to 95%% (e.g. 80%% "
				  "or 0.8), not '%s'", ps.s);
	a->fill = v;
	free(ps.s);
	return bad ? -1 : 0;
}

static int h_churn(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_age *a = obj;
	struct pstr ps;
	int rc = 0;

	if (field_pstr_params(L, n, "churn", &ps))
		return -1;
	if (units_decimal(ps.s, strlen(ps.s), &a->churn) ||
	    !(a->churn >= 0 && a->churn <= 100))
		rc = field_error(L, ps.pos, "'churn' is how many times the "
				 "filled bytes are rewritten, a number from 0 "
				 "to 100 (e.g. 4), not '%s'", ps.s);
	free(ps.s);
	return rc;
}

static int h_seed(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_age *a = obj;
	struct pstr ps;
	int64_t v;
	int rc = 0;

	if (field_pstr_params(L, n, "seed", &ps))
		return -1;
	if (units_int(ps.s, 0, INT64_MAX, &v))
		rc = field_error(L, ps.pos, "'seed' must be a whole number "
				 ">= 0, not '%s'", ps.s);
	a->seed = (uint64_t)v;
	a->seed_given = 1;
	free(ps.s);
	return rc;
}

/* One bucket of sizes: SIZE: weight, above the bucket before (prev). */
static int bucket(struct loader *L, yaml_node_t *k, yaml_node_t *v,
		  struct plan_age_size *b, uint64_t prev)
{
	struct pstr ks, vs = { 0 };
	int rc = 0;

	if (field_pstr_params(L, k, "sizes", &ks))
		return -1;
	if (units_size(ks.s, &b->upto))
		rc = field_error(L, ks.pos, "'%s' in 'sizes' is not a file "
				 "size (e.g. 4K, 64K, 1M, 64M)", ks.s);
	else if (!b->upto)
		rc = field_error(L, ks.pos, "a file size in 'sizes' is above "
				 "0, not '%s'", ks.s);
	else if (b->upto <= prev)
		rc = field_error(L, ks.pos, "'sizes' must increase in the "
				 "order written: %s is not above the size "
				 "before it", ks.s);
	else if (field_pstr_params(L, v, "sizes", &vs))
		rc = -1;
	else if (units_decimal(vs.s, strlen(vs.s), &b->weight) ||
		 !(b->weight > 0))
		rc = field_error(L, vs.pos, "the weight of %s in 'sizes' is "
				 "a number above 0 (its share of the files), "
				 "not '%s'", ks.s, vs.s);
	free(ks.s);
	free(vs.s);
	return rc;
}

static int h_sizes(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_age *a = obj;
	yaml_node_pair_t *pr;
	int cnt;

	if (n->type != YAML_MAPPING_NODE)
		return field_error(L, ydoc_pos(n), "'sizes' is a mapping of "
				   "file size: weight, e.g. {4K: 30, 64K: 40, "
				   "1M: 20, 64M: 10}");
	pr = n->data.mapping.pairs.start;
	cnt = (int)(n->data.mapping.pairs.top - pr);
	if (cnt < 1 || cnt > AGE_MAX_SIZES)
		return field_error(L, ydoc_pos(n), "'sizes' has %d buckets: "
				   "give 1 to %d", cnt, AGE_MAX_SIZES);
	a->sizes = calloc(cnt, sizeof(*a->sizes));
	if (!a->sizes)
		return field_error(L, ydoc_pos(n), "out of memory");
	for (int i = 0; i < cnt; i++, pr++) {
		a->n_sizes = i + 1;
		if (bucket(L, ydoc_node(&L->y, pr->key),
			   ydoc_node(&L->y, pr->value), &a->sizes[i],
			   i ? a->sizes[i - 1].upto : 0))
			return -1;
	}
	return 0;
}

static int h_dirs(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_age *a = obj;

	return field_int(L, n, "dirs", 1, 1000000, &a->dirs);
}

static int h_reuse(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_age *a = obj;
	struct pstr ps;
	int rc = 0;

	if (field_pstr_params(L, n, "reuse", &ps))
		return -1;
	if (units_bool(ps.s, &a->reuse))
		rc = field_error(L, ps.pos, "'reuse' is true (age once, start "
				 "each repetition from a copy) or false (age "
				 "each time), not '%s'", ps.s);
	free(ps.s);
	return rc;
}

static int h_name(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_age *a = obj;
	struct pstr ps;

	if (field_pstr_params(L, n, "name", &ps))
		return -1;
	a->name = ps.s;
	if (!ps.s[0])
		return field_error(L, ps.pos, "'name' is empty");
	if (strlen(ps.s) > AGE_NAME_MAX)
		return field_error(L, ps.pos, "'name' is longer than %d "
				   "characters", AGE_NAME_MAX);
	if (!strcmp(ps.s, "none"))
		return field_error(L, ps.pos, "'none' names the fresh "
				   "filesystem: choose another name");
	for (const char *c = ps.s; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("%._-", *c))
			return field_error(L, field_offset_pos(&ps, c - ps.s),
					   "'name' is part of config labels "
					   "and cell ids: use letters, digits, "
					   "'%%', '.', '_' and '-'");
	return 0;
}

static const struct field age_fields[] = {
	{ "fill", h_fill, 1 },
	{ "churn", h_churn, 0 },
	{ "seed", h_seed, 0 },
	{ "sizes", h_sizes, 0 },
	{ "dirs", h_dirs, 0 },
	{ "reuse", h_reuse, 0 },
	{ "name", h_name, 0 },
	{ NULL, NULL, 0 }
};

/* ---- alternatives ---- */

/* Without name:, the fill percent and churn, "80%x4", plus the seed
 * when given, "80%x4s7". */
static int made_name(struct loader *L, struct plan_age *a)
{
	char buf[96];
	int len;

	len = snprintf(buf, sizeof(buf), "%.4g%%x%.4g", a->fill * 100,
		       a->churn);
	if (a->seed_given)
		snprintf(buf + len, sizeof(buf) - len, "s%llu",
			 (unsigned long long)a->seed);
	a->name = field_strdup(L, buf);
	return a->name ? 0 : -1;
}

static int alternative(struct loader *L, yaml_node_t *it, struct plan_age *a)
{
	struct pstr ps;

	a->pos = ydoc_pos(it);
	a->seed = L->p->seed;
	a->reuse = 1;
	if (it->type == YAML_MAPPING_NODE) {
		if (field_mapping(L, it, age_fields, a, "an age alternative "
				  "({fill, churn, seed, sizes, dirs, reuse, "
				  "name})"))
			return -1;
		return a->name ? 0 : made_name(L, a);
	}
	if (it->type != YAML_SCALAR_NODE)
		return field_error(L, a->pos, "an age alternative is none or "
				   "a mapping such as {fill: 80%%, churn: 4}, "
				   "not a list");
	if (field_pstr_params(L, it, "age", &ps))
		return -1;
	a->name = ps.s;
	if (strcmp(ps.s, "none"))
		return field_error(L, ps.pos, "an age alternative is none or "
				   "a mapping such as {fill: 80%%, churn: 4}, "
				   "not '%s'", ps.s);
	return 0;
}

/* age: one alternative or a list of them, each name once. */
static int age_list(struct loader *L, yaml_node_t *n, struct plan_age **out,
		    int *n_out)
{
	int cnt = n->type == YAML_SEQUENCE_NODE ? field_seq_len(n) : 1;

	if (!cnt)
		return field_error(L, ydoc_pos(n), "'age' is an empty list: "
				   "leave it out (none), or list alternatives "
				   "such as [none, {fill: 80%%, churn: 4}]");
	*out = calloc(cnt, sizeof(**out));
	if (!*out)
		return field_error(L, ydoc_pos(n), "out of memory");
	for (int i = 0; i < cnt; i++) {
		yaml_node_t *it = n->type == YAML_SEQUENCE_NODE ?
			ydoc_node(&L->y, n->data.sequence.items.start[i]) : n;
		struct plan_age *a = &(*out)[i];

		*n_out = i + 1;	/* owned from here: freed on error */
		if (alternative(L, it, a))
			return -1;
		for (int j = 0; j < i; j++)
			if (!strcmp((*out)[j].name, a->name))
				return field_error(L, a->pos, "age alternative "
						   "'%s' is given twice (first "
						   "at line %d): give each a "
						   "name:", a->name,
						   (*out)[j].pos.line);
	}
	return 0;
}

static int any_aged(const struct plan_age *a, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i].fill > 0)
			return 1;
	return 0;
}

int secage_any(const struct plan_fs *fs)
{
	return any_aged(fs->age, fs->n_age);
}

int secage_fs(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_fs *fs = obj;

	if (age_list(L, n, &fs->age, &fs->n_age))
		return -1;
	if (fs->nodev && secage_any(fs))
		return field_error(L, ydoc_pos(n), SECAGE_NODEV, fs->type.s);
	return 0;
}

int secage_plan(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;

	if (age_list(L, n, &p->age, &p->n_age))
		return -1;
	if (p->target.kind == TARGET_DIR && any_aged(p->age, p->n_age))
		return field_error(L, ydoc_pos(n), "age: needs a filesystem "
				   "fsplan makes (target image or device), and "
				   "target.dir has none to make");
	return 0;
}

static int copy_ages(struct loader *L, struct plan_fs *fs)
{
	const struct plan *p = L->p;

	fs->age = calloc(p->n_age, sizeof(*fs->age));
	if (!fs->age)
		return field_error(L, fs->pos, "out of memory");
	for (int i = 0; i < p->n_age; i++) {
		struct plan_age *a = &fs->age[i];
		size_t sz = p->age[i].n_sizes * sizeof(*a->sizes);

		*a = p->age[i];
		a->sizes = NULL;
		fs->n_age = i + 1;
		if (!(a->name = field_strdup(L, p->age[i].name)))
			return -1;
		if (sz && !(a->sizes = malloc(sz)))
			return field_error(L, fs->pos, "out of memory");
		if (sz)
			memcpy(a->sizes, p->age[i].sizes, sz);
	}
	return 0;
}

int secage_take(struct loader *L, struct plan_fs *fs)
{
	const struct plan *p = L->p;

	if (fs->n_age)
		return 0;
	if (p->n_age) {
		if (copy_ages(L, fs))
			return -1;
		if (fs->nodev && secage_any(fs))
			return field_error(L, fs->type.pos, "%s has no "
					   "device: nothing to age, and the "
					   "plan's age: (line %d) applies to "
					   "every entry without its own: give "
					   "this entry 'age: none'", fs->type.s,
					   p->age[0].pos.line);
		return 0;
	}
	fs->age = calloc(1, sizeof(*fs->age));
	if (!fs->age)
		return field_error(L, fs->pos, "out of memory");
	fs->n_age = 1;
	fs->age[0].pos = fs->pos;
	fs->age[0].seed = p->seed;
	fs->age[0].reuse = 1;
	fs->age[0].name = field_strdup(L, "none");
	return fs->age[0].name ? 0 : -1;
}

void secage_free(struct plan_age *a, int n)
{
	for (int i = 0; i < n; i++) {
		free(a[i].name);
		free(a[i].sizes);
	}
	free(a);
}
