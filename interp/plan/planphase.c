/* planphase: the plan's phases and exclude rules. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/planload.h"
#include "plan/subst.h"
#include "util/units.h"

static int is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static int phase_name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.+-", *s))
			return 0;
	return 1;
}

static int h_ph_name(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;
	struct pstr ps;

	if (pl_pstr_params(L, n, "name", &ps))
		return -1;
	ph->name = ps.s;
	ph->name_pos = ps.pos;
	if (!phase_name_ok(ps.s))
		return pl_error(L, ps.pos, "phase name '%s' must be letters, "
				"digits, '_', '.', '+' or '-'", ps.s);
	return 0;
}

/* `use: NAME` is lua/NAME.lua; a path ending in .lua is plan-relative. */
static int h_ph_use(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;
	const char *u;
	char path[PATH_MAX];
	size_t len;

	if (pl_pstr_params(L, n, "use", &ph->use))
		return -1;
	u = ph->use.s;
	len = strlen(u);
	if (len > 4 && !strcmp(u + len - 4, ".lua")) {
		const char *slash = strrchr(L->p->file, '/');

		if (u[0] == '/' || !slash)
			snprintf(path, sizeof(path), "%s", u);
		else
			snprintf(path, sizeof(path), "%.*s/%s",
				 (int)(slash - L->p->file), L->p->file, u);
		if (!is_file(path))
			return pl_error(L, ph->use.pos, "phase module '%s' not "
					"found (looked for %s)", u, path);
	} else {
		if (!phase_name_ok(u) || strchr(u, '/'))
			return pl_error(L, ph->use.pos, "'%s' is neither a "
					"library module name nor a .lua path",
					u);
		snprintf(path, sizeof(path), "%s/%s.lua", plan_library_dir(),
			 u);
		if (!is_file(path))
			return pl_error(L, ph->use.pos, "no phase module '%s' "
					"in the library (%s)", u,
					plan_library_dir());
	}
	/* absolute: the phase child runs in the work directory */
	ph->module_path = realpath(path, NULL);
	if (!ph->module_path)
		return pl_error(L, ph->use.pos, "phase module '%s': %s", u,
				strerror(errno));
	return 0;
}

static int h_ph_matrix(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;
	int rc = pl_matrix(L, n, "matrix", &ph->matrix, &ph->n_matrix, ph);

	return rc;
}

static int h_ph_exec(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;

	if (pl_pstr(L, n, "exec", &ph->exec) ||
	    pl_check_refs(L, &ph->exec, ph, 1))
		return -1;
	if (!ph->exec.s[0])
		return pl_error(L, ph->exec.pos, "'exec' is an empty command");
	return 0;
}

static int h_ph_parse(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;
	char path[PATH_MAX];

	if (pl_pstr_params(L, n, "parse", &ph->parse))
		return -1;
	if (!ph->exec.s)
		return pl_error(L, ph->parse.pos, "'parse' reads the output "
				"of an 'exec' command; this phase has none");
	if (!phase_name_ok(ph->parse.s))
		return pl_error(L, ph->parse.pos, "'%s' is not a parser name",
				ph->parse.s);
	snprintf(path, sizeof(path), "%s/parse/%s.lua", plan_library_dir(),
		 ph->parse.s);
	if (!is_file(path))
		return pl_error(L, ph->parse.pos, "no parser '%s' in the "
				"library (%s/parse)", ph->parse.s,
				plan_library_dir());
	return 0;
}

/* workers and engine belong to every Lua phase: check them early. */
static int check_common(struct loader *L, const struct kv *kv)
{
	int64_t v;

	if (subst_has_ref(kv->val.s))
		return 0;	/* checked once expanded, per cell */
	if (!strcmp(kv->key, "workers") &&
	    units_int(kv->val.s, 1, 65536, &v))
		return pl_error(L, kv->val.pos, "'workers' must be a whole "
				"number from 1 to 65536, not '%s'", kv->val.s);
	if (!strcmp(kv->key, "engine") && strcmp(kv->val.s, "uring") &&
	    strcmp(kv->val.s, "sync"))
		return pl_error(L, kv->val.pos, "'engine' is uring or sync, "
				"not '%s'", kv->val.s);
	return 0;
}

static int h_ph_with(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;
	int cnt;

	if (n->type != YAML_MAPPING_NODE)
		return pl_error(L, ydoc_pos(n), "'with' expects a mapping of "
				"parameter: value");
	cnt = (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	ph->with = calloc(cnt ? cnt : 1, sizeof(*ph->with));
	if (!ph->with)
		return pl_error(L, ydoc_pos(n), "out of memory");
	for (int i = 0; i < cnt; i++) {
		yaml_node_pair_t *pr = &n->data.mapping.pairs.start[i];
		yaml_node_t *k = ydoc_node(&L->y, pr->key);
		yaml_node_t *v = ydoc_node(&L->y, pr->value);
		struct kv *kv = &ph->with[i];

		if (pl_ident(L, k, "a phase parameter"))
			return -1;
		for (int j = 0; j < ph->n_matrix; j++)
			if (!strcmp(ph->matrix[j].name, ydoc_scalar(k)))
				return pl_error(L, ydoc_pos(k), "'%s' is set "
						"both here and by the phase's "
						"matrix (line %d)",
						ydoc_scalar(k),
						ph->matrix[j].pos.line);
		kv->key = pl_strdup(L, ydoc_scalar(k));
		kv->kpos = ydoc_pos(k);
		ph->n_with = i + 1;
		if (!kv->key || pl_pstr(L, v, kv->key, &kv->val) ||
		    pl_check_refs(L, &kv->val, ph, 1) || check_common(L, kv))
			return -1;
	}
	return 0;
}

static int h_ph_timeout(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;
	struct pstr ps;
	int rc = 0;

	if (pl_pstr_params(L, n, "timeout", &ps))
		return -1;
	if (units_duration(ps.s, &ph->timeout_s))
		rc = pl_error(L, ps.pos, "'timeout' is not a duration (e.g. "
			      "90, 90s, 5m, 1h): '%s'", ps.s);
	else if (ph->timeout_s < 0.001)
		rc = pl_error(L, ps.pos, "'timeout' must be more than zero");
	free(ps.s);
	return rc;
}

static int h_ph_repeat(struct loader *L, yaml_node_t *n, void *obj)
{
	return pl_int(L, n, "repeat", 1, 1000000,
		      &((struct plan_phase *)obj)->repeat);
}

static int h_ph_between(struct loader *L, yaml_node_t *n, void *obj)
{
	return pl_between(L, n, &((struct plan_phase *)obj)->between);
}

static int h_ph_memory(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;
	struct pstr ps;
	int rc = 0;

	if (pl_pstr_params(L, n, "memory", &ps))
		return -1;
	if (units_size(ps.s, &ph->memory))
		rc = pl_error(L, ps.pos, "'memory' is not a size (e.g. 64M, "
			      "1G): '%s'", ps.s);
	else if (ph->memory < (UINT64_C(1) << 20))
		rc = pl_error(L, ps.pos, "'memory' below 1M leaves Lua no room");
	free(ps.s);
	return rc;
}

static const struct pl_field phase_fields[] = {
	{ "name", h_ph_name, 0 },
	{ "use", h_ph_use, 0 },
	{ "matrix", h_ph_matrix, 0 },	/* before exec/with: their scope */
	{ "exec", h_ph_exec, 0 },
	{ "parse", h_ph_parse, 0 },
	{ "with", h_ph_with, 0 },
	{ "timeout", h_ph_timeout, 0 },
	{ "repeat", h_ph_repeat, 0 },
	{ "between", h_ph_between, 0 },
	{ "memory", h_ph_memory, 0 },
	{ NULL, NULL, 0 }
};

/* The default name: the module's, or the command's first word. */
static char *derive_name(struct loader *L, const struct plan_phase *ph)
{
	const char *src = ph->use.s ? ph->use.s : ph->exec.s;
	const char *base, *end;
	char *name;

	end = src + strcspn(src, " \t\n");
	base = src;
	for (const char *c = src; c < end; c++)
		if (*c == '/')
			base = c + 1;
	if (ph->use.s && end - base > 4 && !strncmp(end - 4, ".lua", 4))
		end -= 4;
	if (end <= base) {
		base = "exec";
		end = base + 4;
	}
	name = strndup(base, end - base);
	if (!name) {
		pl_error(L, ph->pos, "out of memory");
		return NULL;
	}
	for (char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_.+-", *c))
			*c = '_';
	return name;
}

static int finish_phase(struct loader *L, yaml_node_t *n,
			struct plan_phase *ph)
{
	const struct plan *p = L->p;

	if (!ph->use.s && !ph->exec.s)
		return pl_error(L, ph->pos, "a phase needs 'use' (a Lua "
				"module) or 'exec' (a command)");
	if (ph->use.s && ph->exec.s)
		return pl_error(L, ph->exec.pos, "a phase has 'use' or "
				"'exec', not both");
	if (ph->with && ph->exec.s)
		return pl_error(L, ph->with[0].kpos, "'with' sets a Lua "
				"module's parameters; an 'exec' command takes "
				"${...} values instead");
	if (!ph->name) {
		ph->name = derive_name(L, ph);
		ph->name_pos = ph->pos;
		if (!ph->name)
			return -1;
	}
	(void)n;
	for (int i = 0; i < p->n_phases - 1; i++)
		if (!strcmp(p->phases[i].name, ph->name))
			return pl_error(L, ph->name_pos, "phase name '%s' is "
					"already used by the phase at line %d; "
					"give this one its own 'name'",
					ph->name, p->phases[i].pos.line);
	if (!ph->timeout_s)
		ph->timeout_s = 3600;
	return 0;
}

int pl_phases(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;
	int cnt;

	if (n->type != YAML_SEQUENCE_NODE)
		return pl_error(L, ydoc_pos(n), "'phases' expects a list of "
				"phases (- use: ... or - exec: ...)");
	cnt = pl_seq_len(n);
	if (cnt == 0)
		return pl_error(L, ydoc_pos(n), "'phases' is empty");
	p->phases = calloc(cnt, sizeof(*p->phases));
	if (!p->phases)
		return pl_error(L, ydoc_pos(n), "out of memory");
	for (int i = 0; i < cnt; i++) {
		yaml_node_t *it = ydoc_node(&L->y,
					    n->data.sequence.items.start[i]);
		struct plan_phase *ph = &p->phases[i];

		ph->pos = ydoc_pos(it);
		ph->between.n = -1;
		p->n_phases = i + 1;
		if (pl_mapping(L, it, phase_fields, ph, "a phase") ||
		    finish_phase(L, it, ph))
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
	return pl_error(L, v->pos, "exclude: no %s%s has the value '%s'%s%s%s",
			axis ? "axis " : "", c->key, v->s,
			hint ? " (did you mean '" : "", hint ? hint : "",
			hint ? "'?)" : "");
}

static int one_exclude(struct loader *L, yaml_node_t *n,
		       struct plan_exclude *ex)
{
	const char *names[256];
	int nn = plan_coord_names(L->p, names, 256), cnt;

	ex->pos = ydoc_pos(n);
	if (n->type != YAML_MAPPING_NODE)
		return pl_error(L, ydoc_pos(n), "an exclude rule is a mapping "
				"of coordinate: value, e.g. {type: xfs, "
				"threads: 32}");
	cnt = (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (cnt == 0)
		return pl_error(L, ydoc_pos(n), "an empty exclude rule would "
				"drop every cell");
	ex->conds = calloc(cnt, sizeof(*ex->conds));
	if (!ex->conds)
		return pl_error(L, ydoc_pos(n), "out of memory");
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
			return pl_error(L, ydoc_pos(k), "exclude names '%s', "
					"which is not a coordinate or axis%s%s%s",
					key, hint ? " (did you mean '" : "",
					hint ? hint : "", hint ? "'?)" : "");
		}
		c->key = pl_strdup(L, key);
		c->kpos = ydoc_pos(k);
		ex->n = i + 1;
		if (!c->key ||
		    pl_values(L, ydoc_node(&L->y, pr->value), key,
			      &c->values, &c->n))
			return -1;
		for (int j = 0; j < c->n; j++)
			if (check_value(L, c, &c->values[j]))
				return -1;
	}
	return 0;
}

int pl_excludes(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;
	int cnt;

	if (n->type != YAML_SEQUENCE_NODE)
		return pl_error(L, ydoc_pos(n), "'exclude' expects a list of "
				"rules (- {type: xfs, threads: 32})");
	cnt = pl_seq_len(n);
	p->exclude = calloc(cnt ? cnt : 1, sizeof(*p->exclude));
	if (!p->exclude)
		return pl_error(L, ydoc_pos(n), "out of memory");
	for (int i = 0; i < cnt; i++) {
		p->n_exclude = i + 1;
		if (one_exclude(L, ydoc_node(&L->y,
					     n->data.sequence.items.start[i]),
				&p->exclude[i]))
			return -1;
	}
	return 0;
}
