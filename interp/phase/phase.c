/* phase: load a Lua phase module and read what it declares. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "results/metrics.h"
#include "phase/libsrc.h"
#include "phase/phase.h"
#include "phase/sandbox.h"
#include "util/file.h"
#include "util/grow.h"
#include "util/strbuf.h"
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
		       const char *path, struct diag *d)
{
	size_t cap = 0;

	phase_field(L, mod, "params");
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		return 0;
	}
	if (!lua_istable(L, -1)) {
		diag_fail(d, DIAG_INPUT, 0, "%s: 'params' must be a table of "
			  "defaults", path);
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
			diag_fail(d, DIAG_INPUT, 0, "%s: params.%s: a "
				  "parameter is a name with a number, boolean "
				  "or string default", path, k ? k : "?");
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
	diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
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
		       const char *path, struct diag *d)
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
			diag_fail(d, DIAG_INPUT, 0, "%s: '%s' names a file of "
				  "the library (letters, digits, '_', '.', "
				  "'-')", path, keys[i]);
			return -1;
		}
		if (s)
			memcpy(dst[i], s, n + 1);
		lua_pop(L, 1);
	}
	if (t[0] == LUA_TNIL && t[1] == LUA_TNIL)
		return 0;
	if (t[0] == LUA_TNIL || t[1] == LUA_TNIL) {
		diag_fail(d, DIAG_INPUT, 0, "%s: an exec module names both "
			  "its script (exec) and the parser of its output "
			  "(parse)", path);
		return -1;
	}
	if (phase_field(L, mod, "worker") != LUA_TNIL) {
		lua_pop(L, 1);
		diag_fail(d, DIAG_INPUT, 0, "%s: a module has a worker "
			  "function or an exec script, not both", path);
		return -1;
	}
	lua_pop(L, 1);
	return 0;
}

static int optional_fn(lua_State *L, int mod, const char *name, int *has,
		       const char *path, struct diag *d)
{
	int t = phase_field(L, mod, name);

	lua_pop(L, 1);
	*has = t == LUA_TFUNCTION;
	if (t == LUA_TNIL || t == LUA_TFUNCTION)
		return 0;
	diag_fail(d, DIAG_INPUT, 0, "%s: '%s' must be a function", path, name);
	return -1;
}

int phase_read_key(lua_State *L, int mod, struct phase_key *key,
		   const char *path, struct diag *d)
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
		diag_fail(d, DIAG_INPUT, 0, "%s: 'key' is a list of metric "
			  "names, e.g. key = { \"rate_mbs\", \"avg_lat_ms\" "
			  "}, not a %s", path, luaL_typename(L, -1));
		goto fail;
	}
	n = lua_rawlen(L, -1);
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		entries++;
		lua_pop(L, 1);
	}
	if (entries != n) {
		diag_fail(d, DIAG_INPUT, 0, "%s: 'key' is a list of metric "
			  "names, without other keys", path);
		goto fail;
	}
	if (!n || n > PHASE_KEY_MAX) {
		diag_fail(d, DIAG_INPUT, 0, "%s: 'key' names 1 to %d metrics, "
			  "not %zu", path, PHASE_KEY_MAX, n);
		goto fail;
	}
	for (size_t i = 1; i <= n; i++) {
		size_t nl;
		const char *name = lua_rawgeti(L, -1, (lua_Integer)i) ==
				   LUA_TSTRING ? lua_tolstring(L, -1, &nl)
					       : NULL;

		if (!name || !metrics_metric_name_ok(name, nl)) {
			diag_fail(d, DIAG_INPUT, 0, "%s: key[%zu]: %s%.64s%s "
				  "is not a metric name (letters, digits, "
				  "'_', '.', '-'; 1 to %d characters)", path, i,
				  name ? "'" : "a ",
				  name ? name : luaL_typename(L, -1),
				  name ? "'" : "", METRICS_METRIC_LEN);
			lua_pop(L, 1);
			goto fail;
		}
		for (int k = 0; k < key->n; k++)
			if (!strcmp(key->name[k], name)) {
				diag_fail(d, DIAG_INPUT, 0, "%s: key[%zu]: "
					  "'%s' is already key[%d]", path, i,
					  name, k + 1);
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
		     size_t text_len, struct diag *d)
{
	struct strbuf name = { 0 };
	int rc;

	if (strbuf_printf(&name, "@%s", path)) {
		free(name.p);
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	}
	rc = luaL_loadbufferx(L, text, text_len, name.p, "t");
	free(name.p);
	if (rc) {
		diag_fail(d, DIAG_INPUT, 0, "%s", lua_tostring(L, -1));
		lua_pop(L, 1);
		return -1;
	}
	return sandbox_call(L, 0, 1, d);
}

int phase_load(lua_State *L, const char *path, const char *text,
	       size_t text_len, struct phase_decl *decl, struct diag *d)
{
	int mod;

	memset(decl, 0, sizeof(*decl));
	sandbox_strict(L, 0);
	if (text ? load_text(L, path, text, text_len, d)
		 : sandbox_dofile(L, path, d))
		return -1;
	sandbox_strict(L, 1);
	mod = lua_gettop(L);
	if (!lua_istable(L, mod)) {
		diag_fail(d, DIAG_INPUT, 0, "%s: a phase module returns a "
			  "table (with a worker function), not a %s", path,
			  luaL_typename(L, mod));
		return -1;
	}
	if (exec_module(L, mod, decl, path, d))
		return -1;
	if (!decl->exec[0] &&
	    phase_field(L, mod, "worker") != LUA_TFUNCTION) {
		lua_pop(L, 1);
		diag_fail(d, DIAG_INPUT, 0, "%s: the module has no worker "
			  "function", path);
		return -1;
	}
	if (!decl->exec[0])
		lua_pop(L, 1);
	if (optional_fn(L, mod, "setup", &decl->has_setup, path, d) ||
	    optional_fn(L, mod, "teardown", &decl->has_teardown, path, d) ||
	    optional_fn(L, mod, "report", &decl->has_report, path, d) ||
	    optional_fn(L, mod, "check", &decl->has_check, path, d))
		return -1;
	if (decl->exec[0] && (decl->has_setup || decl->has_teardown ||
			      decl->has_report)) {
		diag_fail(d, DIAG_INPUT, 0, "%s: an exec module runs its "
			  "script, not Lua: it has no setup, teardown or "
			  "report", path);
		return -1;
	}
	if (phase_field(L, mod, "describe") == LUA_TSTRING)
		decl->describe = strdup(lua_tostring(L, -1));
	lua_pop(L, 1);
	if (phase_read_key(L, mod, &decl->key, path, d))
		return -1;
	switch (phase_field(L, mod, "tolerate_errors")) {
	case LUA_TNIL:
		break;
	case LUA_TBOOLEAN:
		decl->tolerate_errors = lua_toboolean(L, -1);
		break;
	default:
		diag_fail(d, DIAG_INPUT, 0, "%s: 'tolerate_errors' is true or "
			  "false, not a %s", path, luaL_typename(L, -1));
		lua_pop(L, 1);
		return -1;
	}
	lua_pop(L, 1);
	return read_params(L, mod, decl, path, d);
}

void phase_decl_free(struct phase_decl *decl)
{
	for (int i = 0; i < decl->n_params; i++)
		free(decl->params[i].dflt);
	free(decl->params);
	free(decl->describe);
	memset(decl, 0, sizeof(*decl));
}
