/* plan: the plan's top-level keys, and the loader that walks them. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/coord.h"
#include "plan/field.h"
#include "plan/plan.h"
#include "plan/secage.h"
#include "plan/secfactors.h"
#include "plan/secfs.h"
#include "plan/secmatrix.h"
#include "plan/secphase.h"
#include "plan/sectime.h"
#include "util/file.h"
#include "util/units.h"

/* ---- top level ---- */

static int h_version(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;
	int64_t v;
	const char *s = field_scalar(L, n, "fsplan");

	if (!s)
		return -1;
	if (units_int(s, 0, INT_MAX, &v))
		return field_error(L, ydoc_pos(n),
				   "'fsplan' is the schema version, a number "
				   "(1), not '%s'", s);
	if (v != 1)
		return field_error(L, ydoc_pos(n), "unsupported schema "
				   "version %lld (this fsplan reads version "
				   "1)", (long long)v);
	p->version = (int)v;
	return 0;
}

static int h_name(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;
	struct pstr ps;

	if (field_pstr_params(L, n, "name", &ps))
		return -1;
	free(p->name);
	p->name = ps.s;
	if (!p->name[0])
		return field_error(L, ps.pos, "'name' is empty");
	for (const char *c = p->name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
			return field_error(L,
					   field_offset_pos(&ps, c - p->name),
					   "'name' becomes a directory name: "
					   "use letters, digits, '.', '_' and "
					   "'-'");
	return 0;
}

static int h_description(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;
	struct pstr ps;

	if (field_pstr_params(L, n, "description", &ps))
		return -1;
	p->description = ps.s;
	return 0;
}

static int h_params(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;
	int count, rc;

	if (n->type != YAML_MAPPING_NODE)
		return field_error(L, ydoc_pos(n), "'params' expects a "
				   "mapping of name: value");
	count = (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	p->params = calloc(count ? count : 1, sizeof(*p->params));
	if (!p->params)
		return field_error(L, ydoc_pos(n), "out of memory");
	for (int i = 0; i < count; i++) {
		yaml_node_pair_t *pr = &n->data.mapping.pairs.start[i];
		yaml_node_t *k = ydoc_node(&L->y, pr->key);
		yaml_node_t *v = ydoc_node(&L->y, pr->value);
		struct kv *kv = &p->params[i];
		const char *def = NULL;

		if (field_ident(L, k, "a parameter name"))
			return -1;
		if (coord_reserved(ydoc_scalar(k)))
			return field_error(L, ydoc_pos(k), "'%s' names a cell "
					   "coordinate; choose another "
					   "parameter name", ydoc_scalar(k));
		p->n_params = i + 1;	/* owned from here: freed on error */
		kv->key = field_strdup(L, ydoc_scalar(k));
		kv->kpos = ydoc_pos(k);
		if (!kv->key || field_pstr(L, v, kv->key, &kv->val))
			return -1;
		for (int j = 0; j < L->n_defs; j++)
			if (!strcmp(L->defs[j].name, kv->key))
				def = L->defs[j].value;
		if (def) {
			free(kv->val.s);
			kv->val.s = field_strdup(L, def);
			if (!kv->val.s)
				return -1;
			kv->val.col_shift = -1;
		}
		/* Only the parameters before this one are in its scope. */
		p->n_params = i;
		rc = field_expand_params(L, &kv->val);
		p->n_params = i + 1;
		if (rc)
			return -1;
	}
	return 0;
}

static int h_seed(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;
	struct pstr ps;
	int64_t v;

	if (field_pstr_params(L, n, "seed", &ps))
		return -1;
	if (units_int(ps.s, 0, INT64_MAX, &v)) {
		field_error(L, ps.pos, "'seed' must be a whole number >= 0, "
			    "not '%s'", ps.s);
		free(ps.s);
		return -1;
	}
	free(ps.s);
	p->seed = (uint64_t)v;
	return 0;
}

static int h_runas(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;
	struct pstr ps;
	int64_t uid;

	if (field_pstr_params(L, n, "runas", &ps))
		return -1;
	free(p->runas);
	p->runas = ps.s;
	p->runas_pos = ps.pos;
	/* What the name says; resolve_plan looks the user up. */
	if (!strcmp(ps.s, "root") ||
	    (!units_int(ps.s, 0, INT_MAX, &uid) && uid == 0))
		return field_error(L, ps.pos, "runas: '%s' is refused: phases "
				   "never run with privileges (use nobody or a "
				   "benchmark user)", ps.s);
	return 0;
}

static int h_plan_repeat(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;

	return field_repeat(L, n, &p->repeat, &p->repeat_min, &p->repeat_ci);
}

/* order: configs (each config's cells together, the default) or rounds
 * (repetition k of every config in round k, each filesystem made anew,
 * the configs' order rotating): drift of the machine over the run then
 * spreads over every config instead of favouring the first ones. */
static int h_order(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;
	struct pstr ps;
	int rc = 0;

	if (field_pstr_params(L, n, "order", &ps))
		return -1;
	p->order_pos = ps.pos;
	if (!strcmp(ps.s, "rounds"))
		p->rounds = 1;
	else if (strcmp(ps.s, "configs"))
		rc = field_error(L, ps.pos, "order: 'configs' (each config's "
				 "repetitions together) or 'rounds' (a "
				 "repetition of every config per round), not "
				 "'%s'", ps.s);
	free(ps.s);
	return rc;
}

static int h_plan_between(struct loader *L, yaml_node_t *n, void *obj)
{
	return field_between(L, n, &((struct plan *)obj)->between);
}

static int h_plan_matrix(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;

	return secmatrix_axes(L, n, "matrix", &p->matrix, &p->n_matrix, NULL);
}

static const struct field plan_fields[] = {
	{ "fsplan", h_version, 1 },
	{ "name", h_name, 0 },
	{ "description", h_description, 0 },
	{ "params", h_params, 0 },
	{ "seed", h_seed, 0 },
	{ "target", secfs_target, 0 },
	{ "runas", h_runas, 0 },
	{ "repeat", h_plan_repeat, 0 },
	{ "between", h_plan_between, 0 },
	{ "order", h_order, 0 },
	{ "matrix", h_plan_matrix, 0 },
	{ "interval", sectime_plan_interval, 0 },	/* before phases */
	{ "age", secage_plan, 0 },	/* after seed and target, before
					 * the entries that take it */
	{ "filesystems", secfs_filesystems, 0 },
	{ "phases", secphase_phases, 1 },
	{ "exclude", secmatrix_excludes, 0 },
	{ NULL, NULL, 0 }
};

/* ---- loading ---- */

static int check_defines(struct loader *L)
{
	const char *names[256];
	int n = 0;

	for (int i = 0; i < L->p->n_params && n < 256; i++)
		names[n++] = L->p->params[i].key;
	for (int i = 0; i < L->n_defs; i++) {
		const char *hint;
		int found = 0;

		for (int j = 0; j < L->p->n_params; j++)
			found |= !strcmp(L->p->params[j].key, L->defs[i].name);
		if (found)
			continue;
		hint = diag_suggest(L->defs[i].name, names, n);
		return diag_set(L->d, L->p->file, NULL, (struct pos){ 0, 0 },
				"-D %s: the plan has no parameter '%s'%s%s%s",
				L->defs[i].name, L->defs[i].name,
				hint ? " (did you mean '" : "",
				hint ? hint : "", hint ? "'?)" : "");
	}
	return 0;
}

static char *default_name(const char *path)
{
	const char *base = strrchr(path, '/');
	char *name, *dot;

	name = strdup(base ? base + 1 : path);
	if (!name)
		return NULL;
	dot = strrchr(name, '.');
	if (dot && dot != name)
		*dot = '\0';
	for (char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
			*c = '_';
	return name;
}

/* The directory the plan names itself in, as written: "." when none. */
static char *plan_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, slash - path);
}

int plan_load_text(struct plan **out, const char *path, const char *text,
		   size_t len, const struct plan_define *defs, int n_defs,
		   struct diag *d)
{
	struct loader L = { .d = d, .defs = defs, .n_defs = n_defs };
	struct plan *p;
	yaml_node_t *root;
	int rc = -1;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return diag_set(d, path, NULL, (struct pos){ 0, 0 },
				"out of memory");
	L.p = p;
	p->file = strdup(path);
	p->dir = plan_dir(path);
	p->text = malloc(len + 1);
	if (!p->file || !p->dir || !p->text) {
		plan_free(p);
		return diag_set(d, path, NULL, (struct pos){ 0, 0 },
				"out of memory");
	}
	memcpy(p->text, text, len);
	p->text[len] = '\0';
	p->text_len = len;
	p->seed = 1;
	p->repeat = 1;
	p->between.n = 2;
	p->between.act[0] = BETWEEN_SYNC;
	p->between.act[1] = BETWEEN_DROP_CACHES;
	p->target.kind = TARGET_IMAGE;
	p->target.image_bytes = UINT64_C(4) << 30;
	p->runas = strdup("nobody");
	p->interval_s = SECTIME_INTERVAL_S;

	if (ydoc_load(&L.y, p->file, p->text, len, d))
		goto out;
	root = ydoc_root(&L.y);
	if (root->type != YAML_MAPPING_NODE) {
		field_error(&L, ydoc_pos(root), "a plan is a mapping of keys "
			    "(fsplan, filesystems, phases, ...)");
		goto out;
	}
	if (field_mapping(&L, root, plan_fields, p, "the plan"))
		goto out;
	if (check_defines(&L) || secfactors_names(&L))
		goto out;
	if (!p->name && !(p->name = default_name(path)))
		goto out;
	if (!p->runas)
		goto out;
	if (p->target.kind == TARGET_DIR && p->n_fs == 0 &&
	    secfs_dir_fs(&L))
		goto out;
	if (p->n_fs == 0) {
		field_error(&L, ydoc_pos(root), "missing required key "
			    "'filesystems'");
		goto out;
	}
	rc = 0;
out:
	ydoc_free(&L.y);
	if (rc)
		plan_free(p);
	else
		*out = p;
	return rc;
}

int plan_load(struct plan **out, const char *path,
	      const struct plan_define *defs, int n_defs, struct diag *d)
{
	size_t len;
	char *text;
	int fd, more, rc;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return diag_set(d, path, NULL, (struct pos){ 0, 0 }, "%s",
				strerror(errno));
	text = file_read_all(fd, YDOC_MAX_BYTES, &len, &more);
	rc = errno;
	close(fd);
	if (!text)
		return diag_set(d, path, NULL, (struct pos){ 0, 0 }, "%s",
				strerror(rc));
	if (more) {
		free(text);
		return diag_set(d, path, NULL, (struct pos){ 0, 0 },
				"plan is larger than %d bytes", YDOC_MAX_BYTES);
	}
	rc = plan_load_text(out, path, text, len, defs, n_defs, d);
	free(text);
	return rc;
}

static void free_pstrs(struct pstr *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].s);
	free(v);
}

static void free_axes(struct plan_axis *a, int n)
{
	for (int i = 0; i < n; i++) {
		free(a[i].name);
		free_pstrs(a[i].values, a[i].n);
	}
	free(a);
}

static void free_kvs(struct kv *kv, int n)
{
	for (int i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].val.s);
	}
	free(kv);
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	free(p->file);
	free(p->dir);
	free(p->text);
	free(p->name);
	free(p->description);
	free_kvs(p->params, p->n_params);
	free(p->target.device);
	free(p->target.dir);
	free_pstrs(p->target.volumes, p->target.n_volumes);
	free(p->runas);
	for (int i = 0; i < p->n_fs; i++) {
		struct plan_fs *fs = &p->fs[i];

		free(fs->type.s);
		free(fs->label.s);
		free_pstrs(fs->mkfs, fs->n_mkfs);
		free_pstrs(fs->mount, fs->n_mount);
		free(fs->setup.s);
		free(fs->teardown.s);
		for (int j = 0; j < fs->n_factors; j++) {
			free(fs->factors[j].name);
			for (int l = 0; l < 2; l++) {
				free(fs->factors[j].mkfs[l].s);
				free(fs->factors[j].mount[l].s);
			}
		}
		free(fs->factors);
		secage_free(fs->age, fs->n_age);
	}
	free(p->fs);
	secage_free(p->age, p->n_age);
	free_axes(p->matrix, p->n_matrix);
	for (int i = 0; i < p->n_exclude; i++) {
		for (int j = 0; j < p->exclude[i].n; j++) {
			free(p->exclude[i].conds[j].key);
			free_pstrs(p->exclude[i].conds[j].values,
				   p->exclude[i].conds[j].n);
		}
		free(p->exclude[i].conds);
	}
	free(p->exclude);
	for (int i = 0; i < p->n_phases; i++) {
		struct plan_phase *ph = &p->phases[i];

		free(ph->name);
		free(ph->use.s);
		free(ph->module_path);
		free(ph->exec.s);
		free(ph->parse.s);
		free_kvs(ph->with, ph->n_with);
		free_axes(ph->matrix, ph->n_matrix);
		free_pstrs(ph->files, ph->n_files);
		free(ph->files_sha);
	}
	free(p->phases);
	free(p);
}

const char *plan_param(const struct plan *p, const char *name)
{
	for (int i = 0; i < p->n_params; i++)
		if (!strcmp(p->params[i].key, name))
			return p->params[i].val.s;
	return NULL;
}
