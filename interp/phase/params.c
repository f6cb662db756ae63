/* params: a cell's values of a module's parameters, typed, and ctx's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "phase/params.h"
#include "util/units.h"

const struct pstr *params_place(const struct plan_phase *ph,
				const struct cell *c, const char *key,
				struct pos *kpos)
{
	for (int i = 0; i < ph->n_with; i++)
		if (!strcmp(ph->with[i].key, key)) {
			*kpos = ph->with[i].kpos;
			return &ph->with[i].val;
		}
	for (int i = 0; i < ph->n_matrix; i++)
		if (!strcmp(ph->matrix[i].name, key)) {
			*kpos = ph->matrix[i].pos;
			return &ph->matrix[i].values[cell_axis_index(ph,
								     c->combo,
								     i)];
		}
	return NULL;
}

static int parse_value(enum param_type t, const char *s, double *out)
{
	uint64_t sz;
	int b;
	char *end;

	switch (t) {
	case PARAM_NUMBER:
		*out = strtod(s, &end);
		return end == s || *end ? -1 : 0;
	case PARAM_SIZE:
		if (units_size(s, &sz))
			return -1;
		*out = (double)sz;
		return 0;
	case PARAM_DURATION:
		return units_duration(s, out);
	case PARAM_BOOL:
		/* the classic tools' own profiles write 0 and 1 */
		if (!strcmp(s, "0") || !strcmp(s, "1"))
			b = s[0] == '1';
		else if (units_bool(s, &b))
			return -1;
		*out = b;
		return 0;
	case PARAM_STRING:
		*out = 0;
		return 0;
	}
	return -1;
}

/* What the classic tools call their workers: tiobench's threads,
 * dbench's clients, fio's numjobs, ffsb's num_threads, ... */
static int is_workers_word(const char *key)
{
	static const char *const words[] = {
		"threads", "thread", "clients", "client", "procs", "processes",
		"nprocs", "numjobs", "jobs", "num_threads", "nthreads",
		"num_clients", "tasks",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (!strcmp(key, words[i]))
			return 1;
	return 0;
}

static int unknown_keys(const struct expansion *e, const struct plan_phase *ph,
			const struct phase_decl *decl, struct diag *d)
{
	const char **names = malloc((decl->n_params + 3) * sizeof(*names));
	int n = 0, rc = 0;

	if (!names)
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	names[n++] = "workers";
	names[n++] = "engine";
	names[n++] = "ram";
	for (int i = 0; i < decl->n_params; i++)
		names[n++] = decl->params[i].name;
	for (int k = 0; !rc && k < ph->n_with + ph->n_matrix; k++) {
		const char *key = k < ph->n_with ? ph->with[k].key
				  : ph->matrix[k - ph->n_with].name;
		struct pos pos = k < ph->n_with ? ph->with[k].kpos
				 : ph->matrix[k - ph->n_with].pos;
		const char *hint;
		int found = 0;

		for (int i = 0; i < n; i++)
			found |= !strcmp(names[i], key);
		if (found)
			continue;
		hint = is_workers_word(key) ? NULL
		       : diag_suggest(key, names, n);
		if (is_workers_word(key))
			rc = diag_set(d, e->plan->file, e->plan->text, pos,
				      "phase '%s' has no parameter '%s' (did "
				      "you mean 'workers'? fsplan has one word "
				      "for threads, clients and processes)",
				      ph->name, key);
		else
			rc = diag_set(d, e->plan->file, e->plan->text, pos,
				      "phase '%s' has no parameter '%s'%s%s%s",
				      ph->name, key,
				      hint ? " (did you mean '" : "",
				      hint ? hint : "", hint ? "'?)" : "");
	}
	free(names);
	return rc;
}

int params_read(const struct expansion *e, const struct cell *c,
		const struct phase_decl *decl, struct param_val *vals,
		int *workers, char *engine, size_t engine_len,
		struct diag *d)
{
	const struct plan_phase *ph = &e->plan->phases[c->phase];
	char names[256], *w;

	memset(vals, 0, decl->n_params * sizeof(*vals));
	if (unknown_keys(e, ph, decl, d))
		return -1;
	*workers = 1;
	for (int i = 0; i < decl->n_params; i++) {
		const struct param_decl *p = &decl->params[i];
		struct param_val *v = &vals[i];
		char *s = cell_with(e, c, p->name);
		struct pos kpos;
		const struct pstr *where;

		v->name = p->name;
		v->type = p->type;
		v->str = s ? s : strdup(p->dflt);
		if (!v->str)
			return diag_set(d, e->plan->file, NULL,
					(struct pos){ 0, 0 }, "out of memory");
		if (parse_value(p->type, v->str, &v->num)) {
			where = params_place(ph, c, p->name, &kpos);
			return diag_set(d, e->plan->file, e->plan->text,
					where ? where->pos : ph->pos,
					"phase '%s': '%s' is a %s, not '%s'%s",
					ph->name, p->name,
					phase_type_name(p->type), v->str,
					p->type == PARAM_BOOL ? " (true/false, "
					"yes/no, on/off or 1/0)" : "");
		}
		/* w:done() counts on it: a negative one would never end */
		if (!strcmp(p->name, "seconds") && v->num < 0) {
			where = params_place(ph, c, p->name, &kpos);
			return diag_set(d, e->plan->file, e->plan->text,
					where ? where->pos : ph->pos,
					"phase '%s': 'seconds' must not be "
					"negative, not '%s'", ph->name, v->str);
		}
		if (!strcmp(p->name, "workers"))
			*workers = (int)v->num;
	}
	w = cell_with(e, c, "workers");
	if (w) {
		*workers = atoi(w);
		free(w);
	}
	/* engine: the plan's, else the module's declared default */
	w = cell_with(e, c, "engine");
	snprintf(engine, engine_len, "%s", w ? w : "auto");
	for (int i = 0; !w && i < decl->n_params; i++)
		if (!strcmp(decl->params[i].name, "engine"))
			snprintf(engine, engine_len, "%s", vals[i].str);
	free(w);
	if (!engine_known(engine, names, sizeof(names)))
		return diag_set(d, e->plan->file, e->plan->text, ph->pos,
				"phase '%s': engine is %s, not '%s'",
				ph->name, names, engine);
	if (*workers < ENGINE_WORKERS_MIN || *workers > ENGINE_WORKERS_MAX)
		return diag_set(d, e->plan->file, e->plan->text, ph->pos,
				"phase '%s': workers must be %d to %d",
				ph->name, ENGINE_WORKERS_MIN,
				ENGINE_WORKERS_MAX);
	return 0;
}

void params_free(struct param_val *vals, int n)
{
	for (int i = 0; i < n; i++)
		free(vals[i].str);
}

void params_push(lua_State *L, const struct param_val *vals, int n,
		 int workers)
{
	lua_createtable(L, 0, n + 1);
	for (int i = 0; i < n; i++) {
		const struct param_val *v = &vals[i];

		switch (v->type) {
		case PARAM_NUMBER:
		case PARAM_DURATION:
			if (v->num == (lua_Integer)v->num)
				lua_pushinteger(L, (lua_Integer)v->num);
			else
				lua_pushnumber(L, v->num);
			break;
		case PARAM_SIZE:
			lua_pushinteger(L, (lua_Integer)v->num);
			break;
		case PARAM_BOOL:
			lua_pushboolean(L, v->num != 0);
			break;
		case PARAM_STRING:
			lua_pushstring(L, v->str);
			break;
		}
		lua_setfield(L, -2, v->name);
	}
	lua_pushinteger(L, workers);
	lua_setfield(L, -2, "workers");
}

void params_set_cell(lua_State *L, const struct expansion *e,
		     const struct cell *c, uint64_t ram_bytes)
{
	const struct fsconf *fc = &e->confs[c->conf];
	const struct plan_phase *ph = &e->plan->phases[c->phase];

	lua_createtable(L, 0, 6);
	lua_pushstring(L, fc->fs->type.s);
	lua_setfield(L, -2, "type");
	lua_pushstring(L, fc->label);
	lua_setfield(L, -2, "label");
	lua_pushstring(L, fc->mkfs);
	lua_setfield(L, -2, "mkfs");
	lua_pushstring(L, fc->mount);
	lua_setfield(L, -2, "mount");
	lua_setfield(L, -2, "fs");
	lua_pushinteger(L, (lua_Integer)ram_bytes);
	lua_setfield(L, -2, "ram_bytes");
	lua_pushinteger(L, (lua_Integer)e->plan->seed);
	lua_setfield(L, -2, "seed");
	lua_pushinteger(L, c->rep);
	lua_setfield(L, -2, "rep");
	/* steps that build on each other repeat only round by round */
	lua_pushinteger(L, ph->repeat ? ph->repeat : e->plan->repeat);
	lua_setfield(L, -2, "repeats");
	lua_pushstring(L, e->plan->rounds ? "rounds" : "configs");
	lua_setfield(L, -2, "order");
	lua_pushstring(L, ph->name);
	lua_setfield(L, -2, "phase");
	/* unique per phase run: names that must not meet an earlier run's */
	lua_pushinteger(L, (lua_Integer)c->index);
	lua_setfield(L, -2, "index");
}
