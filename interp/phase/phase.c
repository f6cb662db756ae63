/* phase: load a Lua phase module, read what it declares, type the plan's values by it. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "engine.h"
#include "results/metrics.h"
#include "phase/libsrc.h"
#include "phase/phase.h"
#include "phase/sandbox.h"
#include "util/file.h"
#include "util/grow.h"
#include "util/units.h"

static const char *const type_names[] = { "number", "size", "duration",
					   "boolean", "string" };

const char *phase_type_name(enum param_type t)
{
	return type_names[t];
}

/* "64M" is a size and "30s" a duration; "5m" reads as a size (5 MiB):
 * write "300s" for five minutes. */
static enum param_type string_type(const char *s)
{
	size_t n = strlen(s);
	uint64_t sz;
	double d;

	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (!n || !isalpha((unsigned char)s[n - 1]))
		return PARAM_STRING;
	if (!units_size(s, &sz))
		return PARAM_SIZE;
	if (!units_duration(s, &d))
		return PARAM_DURATION;
	return PARAM_STRING;
}

enum param_type phase_param_type(lua_State *L, int idx)
{
	switch (lua_type(L, idx)) {
	case LUA_TNUMBER:
		return PARAM_NUMBER;
	case LUA_TBOOLEAN:
		return PARAM_BOOL;
	default:
		return string_type(lua_tostring(L, idx));
	}
}

int phase_field(lua_State *L, int mod, const char *name)
{
	mod = lua_absindex(L, mod);
	lua_pushstring(L, name);
	return lua_rawget(L, mod);
}

static int cmp_param(const void *a, const void *b)
{
	return strcmp(((const struct param_decl *)a)->name,
		      ((const struct param_decl *)b)->name);
}

static int read_params(lua_State *L, int mod, struct phase_decl *decl,
		       const char *path, char *err, size_t len)
{
	size_t cap = 0;

	phase_field(L, mod, "params");
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		return 0;
	}
	if (!lua_istable(L, -1)) {
		snprintf(err, len, "%s: 'params' must be a table of defaults",
			 path);
		lua_pop(L, 1);
		return -1;
	}
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		struct param_decl *p;
		int t = lua_type(L, -1);
		const char *k = lua_type(L, -2) == LUA_TSTRING ?
				lua_tostring(L, -2) : NULL;

		if (!k || strlen(k) >= sizeof(p->name) ||
		    (t != LUA_TNUMBER && t != LUA_TBOOLEAN &&
		     t != LUA_TSTRING)) {
			snprintf(err, len, "%s: params.%s: a parameter is a "
				 "name with a number, boolean or string default",
				 path, k ? k : "?");
			lua_pop(L, 3);
			return -1;
		}
		p = grow_array(decl->params, &cap, (size_t)decl->n_params + 1,
			       sizeof(*p), 8);
		if (!p)
			goto oom;
		decl->params = p;
		p = &decl->params[decl->n_params];
		snprintf(p->name, sizeof(p->name), "%s", k);
		p->type = phase_param_type(L, -1);
		if (t == LUA_TBOOLEAN)
			p->dflt = strdup(lua_toboolean(L, -1) ? "true"
							      : "false");
		else	/* a copy: lua_tostring would convert the key */
			p->dflt = strdup(luaL_tolstring(L, -1, NULL)),
			lua_pop(L, 1);
		if (!p->dflt)
			goto oom;
		decl->n_params++;
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	if (decl->n_params > 1)
		qsort(decl->params, decl->n_params, sizeof(*decl->params),
		      cmp_param);
	return 0;
oom:
	snprintf(err, len, "out of memory");
	lua_pop(L, 3);
	return -1;
}

/* A name of a library file: letters, digits, '_', '.', '-', no leading
 * dot (so no ".." and no hidden file). */
static int file_name_ok(const char *s, size_t n)
{
	if (!n || s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return 0;
	return 1;
}

/* exec = "NAME.sh" and parse = "NAME" of an exec module: both strings,
 * both names, and no worker beside them. */
static int exec_module(lua_State *L, int mod, struct phase_decl *decl,
		       const char *path, char *err, size_t len)
{
	static const char *const keys[] = { "exec", "parse" };
	char *dst[] = { decl->exec, decl->parse };
	int t[2];

	for (int i = 0; i < 2; i++) {
		size_t n = 0;
		const char *s = NULL;

		t[i] = phase_field(L, mod, keys[i]);
		if (t[i] == LUA_TSTRING)
			s = lua_tolstring(L, -1, &n);
		if (t[i] != LUA_TNIL && (!s || n >= sizeof(decl->exec) ||
					 !file_name_ok(s, n))) {
			lua_pop(L, 1);
			snprintf(err, len, "%s: '%s' names a file of the "
				 "library (letters, digits, '_', '.', '-')",
				 path, keys[i]);
			return -1;
		}
		if (s)
			memcpy(dst[i], s, n + 1);
		lua_pop(L, 1);
	}
	if (t[0] == LUA_TNIL && t[1] == LUA_TNIL)
		return 0;
	if (t[0] == LUA_TNIL || t[1] == LUA_TNIL) {
		snprintf(err, len, "%s: an exec module names both its script "
			 "(exec) and the parser of its output (parse)", path);
		return -1;
	}
	if (phase_field(L, mod, "worker") != LUA_TNIL) {
		lua_pop(L, 1);
		snprintf(err, len, "%s: a module has a worker function or an "
			 "exec script, not both", path);
		return -1;
	}
	lua_pop(L, 1);
	return 0;
}

static int optional_fn(lua_State *L, int mod, const char *name, int *has,
		       const char *path, char *err, size_t len)
{
	int t = phase_field(L, mod, name);

	lua_pop(L, 1);
	*has = t == LUA_TFUNCTION;
	if (t == LUA_TNIL || t == LUA_TFUNCTION)
		return 0;
	snprintf(err, len, "%s: '%s' must be a function", path, name);
	return -1;
}

int phase_read_key(lua_State *L, int mod, struct phase_key *key,
		   const char *path, char *err, size_t len)
{
	size_t n, entries = 0;
	int t;

	memset(key, 0, sizeof(*key));
	lua_pushliteral(L, "key");
	t = lua_rawget(L, mod);
	if (t == LUA_TNIL) {
		lua_pop(L, 1);
		return 0;
	}
	if (t != LUA_TTABLE) {
		snprintf(err, len, "%s: 'key' is a list of metric names, "
			 "e.g. key = { \"rate_mbs\", \"avg_lat_ms\" }, not "
			 "a %s", path, luaL_typename(L, -1));
		goto fail;
	}
	n = lua_rawlen(L, -1);
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		entries++;
		lua_pop(L, 1);
	}
	if (entries != n) {
		snprintf(err, len, "%s: 'key' is a list of metric names, "
			 "without other keys", path);
		goto fail;
	}
	if (!n || n > PHASE_KEY_MAX) {
		snprintf(err, len, "%s: 'key' names 1 to %d metrics, not %zu",
			 path, PHASE_KEY_MAX, n);
		goto fail;
	}
	for (size_t i = 1; i <= n; i++) {
		size_t nl;
		const char *name = lua_rawgeti(L, -1, (lua_Integer)i) ==
				   LUA_TSTRING ? lua_tolstring(L, -1, &nl)
					       : NULL;

		if (!name || !metrics_metric_name_ok(name, nl)) {
			snprintf(err, len, "%s: key[%zu]: %s%.64s%s is not a "
				 "metric name (letters, digits, '_', '.', '-'; "
				 "1 to %d characters)", path, i, name ? "'" : "a ",
				 name ? name : luaL_typename(L, -1),
				 name ? "'" : "", METRICS_METRIC_LEN);
			lua_pop(L, 1);
			goto fail;
		}
		for (int k = 0; k < key->n; k++)
			if (!strcmp(key->name[k], name)) {
				snprintf(err, len, "%s: key[%zu]: '%s' is "
					 "already key[%d]", path, i, name,
					 k + 1);
				lua_pop(L, 1);
				goto fail;
			}
		memcpy(key->name[key->n++], name, nl + 1);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return 0;
fail:
	lua_pop(L, 1);
	memset(key, 0, sizeof(*key));
	return -1;
}

char *phase_read_source(const char *path, size_t *len)
{
	const char *kept = libsrc_get(path, len);
	int fd, more, err;
	char *buf;

	/* what the run's start read (libsrc_keep): the run's own code */
	if (kept) {
		buf = malloc(*len ? *len : 1);
		if (buf)
			memcpy(buf, kept, *len);
		return buf;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = file_read_all(fd, 16u << 20, len, &more);
	err = errno;
	close(fd);
	if (buf && more) {
		free(buf);
		buf = NULL;
		err = EFBIG;
	}
	errno = err;
	return buf;
}

static int load_text(lua_State *L, const char *path, const char *text,
		     size_t text_len, char *err, size_t len)
{
	char name[4200];

	snprintf(name, sizeof(name), "@%s", path);
	if (luaL_loadbufferx(L, text, text_len, name, "t")) {
		snprintf(err, len, "%s", lua_tostring(L, -1));
		lua_pop(L, 1);
		return -1;
	}
	return sandbox_call(L, 0, 1, err, len);
}

int phase_load(lua_State *L, const char *path, const char *text,
	       size_t text_len, struct phase_decl *decl, char *err,
	       size_t len)
{
	int mod;

	memset(decl, 0, sizeof(*decl));
	sandbox_strict(L, 0);
	if (text ? load_text(L, path, text, text_len, err, len)
		 : sandbox_dofile(L, path, err, len))
		return -1;
	sandbox_strict(L, 1);
	mod = lua_gettop(L);
	if (!lua_istable(L, mod)) {
		snprintf(err, len, "%s: a phase module returns a table (with "
			 "a worker function), not a %s", path,
			 luaL_typename(L, mod));
		return -1;
	}
	if (exec_module(L, mod, decl, path, err, len))
		return -1;
	if (!decl->exec[0] &&
	    phase_field(L, mod, "worker") != LUA_TFUNCTION) {
		lua_pop(L, 1);
		snprintf(err, len, "%s: the module has no worker function",
			 path);
		return -1;
	}
	if (!decl->exec[0])
		lua_pop(L, 1);
	if (optional_fn(L, mod, "setup", &decl->has_setup, path, err, len) ||
	    optional_fn(L, mod, "teardown", &decl->has_teardown, path, err,
			len) ||
	    optional_fn(L, mod, "report", &decl->has_report, path, err, len) ||
	    optional_fn(L, mod, "check", &decl->has_check, path, err, len))
		return -1;
	if (decl->exec[0] && (decl->has_setup || decl->has_teardown ||
			      decl->has_report)) {
		snprintf(err, len, "%s: an exec module runs its script, not "
			 "Lua: it has no setup, teardown or report", path);
		return -1;
	}
	if (phase_field(L, mod, "describe") == LUA_TSTRING)
		decl->describe = strdup(lua_tostring(L, -1));
	lua_pop(L, 1);
	if (phase_read_key(L, mod, &decl->key, path, err, len))
		return -1;
	switch (phase_field(L, mod, "tolerate_errors")) {
	case LUA_TNIL:
		break;
	case LUA_TBOOLEAN:
		decl->tolerate_errors = lua_toboolean(L, -1);
		break;
	default:
		snprintf(err, len, "%s: 'tolerate_errors' is true or false, "
			 "not a %s", path, luaL_typename(L, -1));
		lua_pop(L, 1);
		return -1;
	}
	lua_pop(L, 1);
	return read_params(L, mod, decl, path, err, len);
}

void phase_decl_free(struct phase_decl *decl)
{
	for (int i = 0; i < decl->n_params; i++)
		free(decl->params[i].dflt);
	free(decl->params);
	free(decl->describe);
	memset(decl, 0, sizeof(*decl));
}

const struct pstr *phase_place(const struct plan_phase *ph,
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
		if (units_bool(s, &b))
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
	const char *names[130];
	int n = 0;

	names[n++] = "workers";
	names[n++] = "engine";
	names[n++] = "ram";
	for (int i = 0; i < decl->n_params && n < 130; i++)
		names[n++] = decl->params[i].name;
	for (int k = 0; k < ph->n_with + ph->n_matrix; k++) {
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
		if (is_workers_word(key))
			return diag_set(d, e->plan->file, e->plan->text, pos,
					"phase '%s' has no parameter '%s' "
					"(did you mean 'workers'? fsplan has "
					"one word for threads, clients and "
					"processes)", ph->name, key);
		hint = diag_suggest(key, names, n);
		return diag_set(d, e->plan->file, e->plan->text, pos,
				"phase '%s' has no parameter '%s'%s%s%s",
				ph->name, key, hint ? " (did you mean '" : "",
				hint ? hint : "", hint ? "'?)" : "");
	}
	return 0;
}

int phase_values(const struct expansion *e, const struct cell *c,
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
			where = phase_place(ph, c, p->name, &kpos);
			return diag_set(d, e->plan->file, e->plan->text,
					where ? where->pos : ph->pos,
					"phase '%s': '%s' is a %s, not '%s'",
					ph->name, p->name,
					phase_type_name(p->type), v->str);
		}
		/* w:done() counts on it: a negative one would never end */
		if (!strcmp(p->name, "seconds") && v->num < 0) {
			where = phase_place(ph, c, p->name, &kpos);
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

void phase_values_free(struct param_val *vals, int n)
{
	for (int i = 0; i < n; i++)
		free(vals[i].str);
}

void phase_push_params(lua_State *L, const struct param_val *vals, int n,
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

void phase_set_cell(lua_State *L, const struct expansion *e,
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
