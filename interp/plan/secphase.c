/* secphase: the plan's phases section. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "plan/field.h"
#include "plan/secmatrix.h"
#include "plan/secphase.h"
#include "plan/sectime.h"
#include "plan/subst.h"
#include "util/units.h"

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

	if (field_pstr_params(L, n, "name", &ps))
		return -1;
	ph->name = ps.s;
	ph->name_pos = ps.pos;
	if (!phase_name_ok(ps.s))
		return field_error(L, ps.pos, "phase name '%s' must be "
				   "letters, digits, '_', '.', '+' or '-'",
				   ps.s);
	return 0;
}

/*
 * `use: NAME` is lua/NAME.lua; a path ending in .lua is plan-relative.
 * Only the form is checked here: resolve_plan finds the file.
 */
static int h_ph_use(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;
	const char *u;
	size_t len;

	if (field_pstr_params(L, n, "use", &ph->use))
		return -1;
	u = ph->use.s;
	len = strlen(u);
	if (len > 4 && !strcmp(u + len - 4, ".lua"))
		return 0;
	if (!phase_name_ok(u) || strchr(u, '/'))
		return field_error(L, ph->use.pos, "'%s' is neither a library "
				   "module name nor a .lua path", u);
	return 0;
}

static int h_ph_matrix(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;

	return secmatrix_axes(L, n, "matrix", &ph->matrix, &ph->n_matrix, ph);
}

static int h_ph_exec(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;

	if (field_pstr(L, n, "exec", &ph->exec) ||
	    field_check_refs(L, &ph->exec, ph, 1))
		return -1;
	if (!ph->exec.s[0])
		return field_error(L, ph->exec.pos, "'exec' is an empty "
				   "command");
	return 0;
}

static int h_ph_parse(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;

	if (field_pstr_params(L, n, "parse", &ph->parse))
		return -1;
	if (!ph->exec.s)
		return field_error(L, ph->parse.pos, "'parse' reads the output "
				   "of an 'exec' command; this phase has none");
	if (!phase_name_ok(ph->parse.s))
		return field_error(L, ph->parse.pos, "'%s' is not a parser "
				   "name", ph->parse.s);
	return 0;	/* resolve_plan finds it in the library */
}

/* files: [job.fio, data/x.csv]: paths under the plan's directory, as
 * they will be under the work directory. resolve_plan finds them. */
static int h_ph_files(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;

	if (field_list(L, n, "files", &ph->files, &ph->n_files, 1, NULL, 0))
		return -1;
	for (int i = 0; i < ph->n_files; i++) {
		const char *f = ph->files[i].s, *c = f;
		int bad = !*f || *f == '/';

		for (; *c && !bad; c += strcspn(c, "/"), c += *c == '/') {
			size_t len = strcspn(c, "/");

			bad = !len || (len == 2 && !strncmp(c, "..", 2)) ||
			      (len == 1 && *c == '.');
		}
		if (bad || strchr(f, '\n') || f[strlen(f) - 1] == '/')
			return field_error(L, ph->files[i].pos, "files: '%s' "
					   "is not a file's path relative to "
					   "the plan's directory (no leading "
					   "/, no . or .. parts)", f);
	}
	return 0;
}

/* workers and engine belong to every Lua phase, ram to every phase:
 * check them early. */
static int check_common(struct loader *L, const struct kv *kv)
{
	char names[256];
	uint64_t sz;
	int64_t v;

	if (subst_has_ref(kv->val.s))
		return 0;	/* checked once expanded, per cell */
	if (!strcmp(kv->key, "workers") &&
	    units_int(kv->val.s, ENGINE_WORKERS_MIN, ENGINE_WORKERS_MAX, &v))
		return field_error(L, kv->val.pos, "'workers' must be a whole "
				   "number from %d to %d, not '%s'",
				   ENGINE_WORKERS_MIN, ENGINE_WORKERS_MAX,
				   kv->val.s);
	if (!strcmp(kv->key, "engine") &&
	    !engine_known(kv->val.s, names, sizeof(names)))
		return field_error(L, kv->val.pos, "'engine' is %s, not '%s'",
				   names, kv->val.s);
	if (!strcmp(kv->key, "ram") && strcmp(kv->val.s, "auto") &&
	    units_size(kv->val.s, &sz))
		return field_error(L, kv->val.pos, "'ram' is the phase's "
				   "memory limit, a size (e.g. 64M, 2G) or "
				   "auto, not '%s'", kv->val.s);
	/* "ram: 64" is 64 bytes: a unit forgotten, not a limit */
	if (!strcmp(kv->key, "ram") && strcmp(kv->val.s, "auto") &&
	    sz > 0 && sz < (1u << 20))
		return field_error(L, kv->val.pos, "'ram' is '%s', %llu "
				   "bytes: no phase runs in less than 1M "
				   "(write a unit, e.g. 64M, or 0 for no "
				   "limit)", kv->val.s, (unsigned long long)sz);
	return 0;
}

static int h_ph_with(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;
	int cnt;

	if (n->type != YAML_MAPPING_NODE)
		return field_error(L, ydoc_pos(n), "'with' expects a mapping "
				   "of parameter: value");
	cnt = (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	ph->with = calloc(cnt ? cnt : 1, sizeof(*ph->with));
	if (!ph->with)
		return field_error(L, ydoc_pos(n), "out of memory");
	for (int i = 0; i < cnt; i++) {
		yaml_node_pair_t *pr = &n->data.mapping.pairs.start[i];
		yaml_node_t *k = ydoc_node(&L->y, pr->key);
		yaml_node_t *v = ydoc_node(&L->y, pr->value);
		struct kv *kv = &ph->with[i];

		if (field_ident(L, k, "a phase parameter"))
			return -1;
		for (int j = 0; j < ph->n_matrix; j++)
			if (!strcmp(ph->matrix[j].name, ydoc_scalar(k)))
				return field_error(L, ydoc_pos(k), "'%s' is "
						   "set both here and by the "
						   "phase's matrix (line %d)",
						   ydoc_scalar(k),
						   ph->matrix[j].pos.line);
		kv->key = field_strdup(L, ydoc_scalar(k));
		kv->kpos = ydoc_pos(k);
		ph->n_with = i + 1;
		if (!kv->key || field_pstr(L, v, kv->key, &kv->val) ||
		    field_check_refs(L, &kv->val, ph, 1) || check_common(L, kv))
			return -1;
	}
	return 0;
}

static int h_ph_timeout(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;
	struct pstr ps;
	int rc = 0;

	if (field_pstr_params(L, n, "timeout", &ps))
		return -1;
	if (units_duration(ps.s, &ph->timeout_s))
		rc = field_error(L, ps.pos, "'timeout' is not a duration (e.g. "
				 "90, 90s, 5m, 1h): '%s'", ps.s);
	else if (ph->timeout_s < 0.001)
		rc = field_error(L, ps.pos, "'timeout' must be more than zero");
	free(ps.s);
	return rc;
}

static int h_ph_repeat(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;

	return field_repeat(L, n, &ph->repeat, &ph->repeat_min, &ph->repeat_ci);
}

static int h_ph_between(struct loader *L, yaml_node_t *n, void *obj)
{
	return field_between(L, n, &((struct plan_phase *)obj)->between);
}

static int h_ph_memory(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan_phase *ph = obj;
	struct pstr ps;
	int rc = 0;

	if (field_pstr_params(L, n, "memory", &ps))
		return -1;
	if (ph->exec.s)		/* read before memory: table order */
		rc = field_error(L, ydoc_pos(L->key), "'memory' caps a Lua "
				 "phase's allocator; for an exec phase's "
				 "memory, use ram: in with: (the memory "
				 "cgroup)");
	else if (units_size(ps.s, &ph->memory))
		rc = field_error(L, ps.pos, "'memory' is not a size (e.g. 64M, "
				 "1G): '%s'", ps.s);
	else if (ph->memory < (UINT64_C(1) << 20))
		rc = field_error(L, ps.pos, "'memory' below 1M leaves Lua no "
				 "room");
	free(ps.s);
	return rc;
}

/* engine, workers and ram written in the phase itself: they are
 * parameters, which with: sets (fsplan-lua(7) ENGINES). */
static int h_ph_in_with(struct loader *L, yaml_node_t *n, void *obj)
{
	const char *key = ydoc_scalar(L->key), *val = ydoc_scalar(n);

	(void)obj;
	if (!val || strlen(val) > 40)
		return field_error(L, ydoc_pos(L->key), "unknown key '%s' in "
				   "a phase (engine, workers and ram go in "
				   "with:)", key);
	return field_error(L, ydoc_pos(L->key), "unknown key '%s' in a phase "
			   "(engine, workers and ram go in with: write "
			   "with: {%s: %s})", key, key, val);
}

static const struct field phase_fields[] = {
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
	{ "files", h_ph_files, 0 },
	/* after timeout and exec, which their checks read */
	{ "interval", sectime_phase_interval, 0 },
	{ "warmup", sectime_phase_warmup, 0 },
	{ "steady", sectime_phase_steady, 0 },
	{ "engine", h_ph_in_with, 0 },
	{ "workers", h_ph_in_with, 0 },
	{ "ram", h_ph_in_with, 0 },
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
		field_error(L, ph->pos, "out of memory");
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
		return field_error(L, ph->pos, "a phase needs 'use' (a Lua "
				   "module) or 'exec' (a command)");
	if (ph->use.s && ph->exec.s)
		return field_error(L, ph->exec.pos, "a phase has 'use' or "
				   "'exec', not both");
	for (int i = 0; ph->exec.s && i < ph->n_with; i++)
		if (strcmp(ph->with[i].key, "ram"))
			return field_error(L, ph->with[i].kpos, "'with' sets "
					   "a Lua module's parameters (and "
					   "ram, which every phase takes); "
					   "an 'exec' command takes ${...} "
					   "values instead");
	if (!ph->name) {
		ph->name = derive_name(L, ph);
		ph->name_pos = ph->pos;
		if (!ph->name)
			return -1;
	}
	(void)n;
	for (int i = 0; i < p->n_phases - 1; i++)
		if (!strcmp(p->phases[i].name, ph->name))
			return field_error(L, ph->name_pos, "phase name '%s' "
					   "is already used by the phase at "
					   "line %d; give this one its own "
					   "'name'", ph->name,
					   p->phases[i].pos.line);
	if (!ph->timeout_s)
		ph->timeout_s = 3600;
	sectime_phase_finish(p, ph);
	return 0;
}

int secphase_phases(struct loader *L, yaml_node_t *n, void *obj)
{
	struct plan *p = obj;
	int cnt;

	if (n->type != YAML_SEQUENCE_NODE)
		return field_error(L, ydoc_pos(n), "'phases' expects a list of "
				   "phases (- use: ... or - exec: ...)");
	cnt = field_seq_len(n);
	if (cnt == 0)
		return field_error(L, ydoc_pos(n), "'phases' is empty");
	p->phases = calloc(cnt, sizeof(*p->phases));
	if (!p->phases)
		return field_error(L, ydoc_pos(n), "out of memory");
	for (int i = 0; i < cnt; i++) {
		yaml_node_t *it = ydoc_node(&L->y,
					    n->data.sequence.items.start[i]);
		struct plan_phase *ph = &p->phases[i];

		ph->pos = ydoc_pos(it);
		ph->between.n = -1;
		sectime_phase_init(ph);
		p->n_phases = i + 1;
		if (field_mapping(L, it, phase_fields, ph, "a phase") ||
		    finish_phase(L, it, ph))
			return -1;
	}
	return 0;
}
