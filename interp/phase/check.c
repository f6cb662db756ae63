/* check: a plan's phases loaded and their cells' values typed, no I/O. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "phase/check.h"
#include "phase/lfail.h"
#include "phase/libsrc.h"
#include "phase/lparse.h"
#include "phase/params.h"
#include "phase/phase.h"
#include "phase/sandbox.h"
#include "plan/plan.h"
#include "results/metrics.h"
#include "util/clock.h"
#include "util/strbuf.h"

/* How long loading one module or parser may take (the sandbox's hook). */
#define CHECK_LOAD_S 30
#define STR(x) #x
#define XSTR(x) STR(x)

/* An exec phase's key: its parser's (parse:), then seconds. */
static int exec_key(const struct plan *p, int ph, struct phase_key *key,
		    struct diag *d)
{
	const struct plan_phase *x = &p->phases[ph];
	int rc = 0;

	memset(key, 0, sizeof(*key));
	if (x->parse.s) {
		struct sandbox_limits lim = { 256u << 20,
					      clock_now() + CHECK_LOAD_S, NULL,
					      libsrc_dir(), NULL };
		lua_State *L = sandbox_new(&lim);
		struct strbuf path = { 0 };
		struct diag e = { 0 };

		if (!L)
			return diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
					"cannot make a Lua state");
		if (strbuf_printf(&path, "%s/parse/%s.lua", libsrc_dir(),
				  x->parse.s))
			rc = diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
		else if (lparse_load(L, path.p, key, &e))
			rc = diag_set(d, p->file, p->text, x->parse.pos, "%s",
				      lfail_whole(&e));
		diag_release(&e);
		free(path.p);
		sandbox_close(L);
	}
	for (int k = 0; k < key->n; k++)
		if (!strcmp(key->name[k], "seconds"))
			return rc;
	snprintf(key->name[key->n++], sizeof(key->name[0]), "seconds");
	return rc;
}

/* Whether the library has the file dir/name ext: read by root into it
 * (libsrc_load), or at least there. 1, 0, or -1 out of memory. */
static int lib_has(const char *dir, const char *name, const char *ext)
{
	struct strbuf path = { 0 };
	struct stat st;
	size_t n;
	int rc = -1;

	if (!strbuf_printf(&path, "%s/%s/%s%s", libsrc_dir(), dir, name, ext))
		rc = libsrc_get(path.p, &n) ||
		     (!stat(path.p, &st) && S_ISREG(st.st_mode));
	free(path.p);
	return rc;
}

/* Whether the module's own exec/ holds name where this process cannot
 * look (a dropped child, a 0700 directory on the way): root reads it
 * after the check (check_exec_script). */
static int beside_unreachable(const char *module, const char *name)
{
	const char *slash = module ? strrchr(module, '/') : NULL;
	struct strbuf path = { 0 };
	struct stat st;
	int hidden;

	if (!slash || strbuf_printf(&path, "%.*s/exec/%s",
				    (int)(slash - module), module, name))
		return 0;
	hidden = stat(path.p, &st) && errno == EACCES;
	free(path.p);
	return hidden;
}

int check_exec_script(const struct plan *p, int ph, const char *exec,
		      struct diag *d)
{
	const struct plan_phase *x = &p->phases[ph];
	char *path = libsrc_exec_path(x->module_path, exec);
	int script;

	if (!path)
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	script = libsrc_exists(path);
	free(path);
	if (!script && geteuid() != 0 &&
	    beside_unreachable(x->module_path, exec))
		script = 1;
	if (!script)
		return diag_set(d, p->file, p->text, x->use.pos, "%s: exec: no "
				"script '%s' in exec/ beside it or in the "
				"library (%s/exec)", x->module_path, exec,
				libsrc_dir());
	return 0;
}

/* An exec module's script is exec/NAME beside the module or the
 * library's (libsrc_exec_path), its parser a file of the library. 0, or
 * -1 with d at the phase's use of the module. */
static int exec_files(const struct plan *p, int ph,
		      const struct phase_decl *decl, struct diag *d)
{
	const struct plan_phase *x = &p->phases[ph];
	int parser;

	if (x->steady.max_s > 0)	/* the plan's check for an exec: */
		return diag_set(d, p->file, p->text, x->steady.pos, "'steady' "
				"with max stops a Lua phase's workers; %s runs "
				"a command (%s) to its end (leave out max: the "
				"rule then judges the run)", x->module_path,
				decl->exec);
	if (check_exec_script(p, ph, decl->exec, d))
		return -1;
	parser = lib_has("parse", decl->parse, ".lua");
	if (parser < 0)
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	if (!parser)
		return diag_set(d, p->file, p->text, x->use.pos, "%s: parse: "
				"no parser '%s' in the library (%s/parse)",
				x->module_path, decl->parse, libsrc_dir());
	return 0;
}

/* What a module's check(ctx) sees of a cell: what its run will give,
 * less what only the run knows (the filesystem's size, ctx.input,
 * ctx.share). */
struct check_arg {
	const struct expansion *e;
	const struct cell *c;
	const struct param_val *vals;
	int n_vals, workers;
	uint64_t ram;
};

static int push_check_ctx(lua_State *L)
{
	const struct check_arg *a = lua_touserdata(L, 1);
	const struct fsconf *fc = &a->e->confs[a->c->conf];

	lua_createtable(L, 0, 8);
	params_push(L, a->vals, a->n_vals, a->workers);
	lua_setfield(L, -2, "params");
	params_set_cell(L, a->e, a->c, a->ram);
	/* the image's: the filesystem's own is a little less */
	if (a->e->plan->target.kind == TARGET_IMAGE && !fc->fs->nodev) {
		lua_getfield(L, -1, "fs");
		lua_pushinteger(L, (lua_Integer)a->e->plan->target.image_bytes);
		lua_setfield(L, -2, "size_bytes");
		lua_pop(L, 1);
	}
	lua_pushboolean(L, 1);
	lua_setfield(L, -2, "checking");
	return 1;
}

/* The memory the cell's phase will be judged against: its ram, else
 * the machine's (as ctx.ram_bytes in the run). */
static uint64_t cell_ram_bytes(const struct expansion *e,
			       const struct cell *c)
{
	struct sysinfo si;
	uint64_t ram;

	if (cell_ram(e, c, &ram) || !ram)
		ram = sysinfo(&si) ? 0 : (uint64_t)si.totalram * si.mem_unit;
	return ram;
}

/*
 * The module's check(ctx) for one cell, the module at mod: an error it
 * raises refuses the cell, at the plan's value of the parameter the
 * message starts with ("chunk: ..."), else at the phase's use.
 */
static int module_check(lua_State *L, int mod, const struct check_arg *a,
			const struct phase_decl *decl, struct diag *d)
{
	const struct plan_phase *ph = &a->e->plan->phases[a->c->phase];
	const struct pstr *where = NULL;
	struct diag raised = { 0 };
	char *err = raised.msg, name[64];
	struct pos kpos;
	size_t n;
	int rc;

	phase_field(L, mod, "check");
	if (sandbox_cpcall(L, push_check_ctx, (void *)a, 0, &raised)) {
		lua_pop(L, 1);
	} else if (!sandbox_call(L, 1, 0, &raised)) {
		return 0;
	}
	err[strcspn(err, "\n")] = '\0';	/* not the traceback */
	n = strspn(err, "abcdefghijklmnopqrstuvwxyz0123456789_");
	if (n && n < sizeof(name)) {
		memcpy(name, err, n);
		name[n] = '\0';
		for (int i = 0; i < decl->n_params && !where; i++)
			if (!strcmp(decl->params[i].name, name))
				where = params_place(ph, a->c, name, &kpos);
	}
	rc = diag_set(d, a->e->plan->file, a->e->plan->text,
		      where ? where->pos : ph->use.pos, "phase '%s', cell %s: "
		      "%s", ph->name, a->c->id, err);
	diag_release(&raised);
	return rc;
}

/*
 * Type the values of every cell of phase ph (its first repetition, the
 * module loaded at mod of L) and run the module's check on them; note
 * the most workers in out. 0, or -1 with d.
 */
static int check_cells(const struct expansion *e, int ph, lua_State *L,
		       int mod, const struct phase_decl *decl,
		       struct phase_checked *out, struct diag *d)
{
	int rc = 0;

	for (size_t i = 0; i < e->n_cells && !rc; i++) {
		const struct cell *c = &e->cells[i];
		struct param_val *vals;
		char engine[16];
		int workers;

		if (c->phase != ph || c->rep != 1)
			continue;
		vals = calloc(decl->n_params + 1, sizeof(*vals));
		if (!vals)
			rc = -1;
		else
			rc = params_read(e, c, decl, vals, &workers,
					 engine, sizeof(engine), d);
		if (!rc && workers > out->max_workers)
			out->max_workers = workers;
		if (!rc && decl->has_check) {
			struct check_arg a = {
				.e = e, .c = c, .vals = vals,
				.n_vals = decl->n_params,
				.workers = workers,
				.ram = cell_ram_bytes(e, c) };

			rc = module_check(L, mod, &a, decl, d);
		}
		if (vals)
			params_free(vals, decl->n_params);
		free(vals);
	}
	return rc;
}

/* A module that did not load: its message (without the traceback of
 * its main chunk: a diag is a line) at the phase's use. */
static int load_failed(const struct plan *p, int ph, struct diag *loaded,
		       struct diag *d)
{
	const char *err = loaded->msg;
	int rc;

	if (d)
		d->kind = loaded->kind;
	rc = diag_set(d, p->file, p->text, p->phases[ph].use.pos, "%s%s",
			  err, strstr(err, "deadline passed") ?
			  " (the check gives a module " XSTR(CHECK_LOAD_S)
			  " s to load and check its cells: does it loop "
			  "when it loads?)" : "");

	diag_release(loaded);
	return rc;
}

int check_phases(const struct expansion *e, char **text, size_t *tlen,
		 volatile sig_atomic_t *stop, struct phase_checked *out,
		 struct diag *d)
{
	const struct plan *p = e->plan;

	for (int ph = 0; ph < p->n_phases; ph++) {
		struct sandbox_limits lim = { 256u << 20,
					      clock_now() + CHECK_LOAD_S, stop,
					      libsrc_dir(), NULL };
		struct phase_decl decl;
		struct diag loaded = { 0 };
		lua_State *L;
		int rc = 0, mod;

		if (!p->phases[ph].use.s) {
			if (exec_key(p, ph, &out[ph].key, d))
				return -1;
			continue;
		}
		L = sandbox_new(&lim);
		if (!L)
			return diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
					"cannot make a Lua state");
		mod = lua_gettop(L) + 1;
		if (phase_load(L, p->phases[ph].module_path,
			       text ? text[ph] : NULL, text ? tlen[ph] : 0,
			       &decl, &loaded)) {
			sandbox_close(L);
			phase_decl_free(&decl);
			return load_failed(p, ph, &loaded, d);
		}
		out[ph].key = decl.key;
		if (decl.exec[0])
			rc = exec_files(p, ph, &decl, d);
		memcpy(out[ph].exec, decl.exec, sizeof(out[ph].exec));
		memcpy(out[ph].parse, decl.parse, sizeof(out[ph].parse));
		if (!rc)
			rc = check_cells(e, ph, L, mod, &decl, &out[ph], d);
		phase_decl_free(&decl);
		sandbox_close(L);
		if (rc)
			return -1;
	}
	return 0;
}

int check_sent_ok(const struct phase_checked *c, int n)
{
	for (int ph = 0; ph < n; ph++) {
		const struct phase_key *key = &c[ph].key;

		if (key->n < 0 || key->n > PHASE_KEY_MAX + 1)
			return 0;
		for (int k = 0; k < key->n; k++) {
			const char *s = key->name[k];
			size_t len = strnlen(s, sizeof(key->name[k]));

			if (len == sizeof(key->name[k]) ||
			    !metrics_metric_name_ok(s, len))
				return 0;
		}
		if (strnlen(c[ph].exec, sizeof(c[ph].exec)) ==
			    sizeof(c[ph].exec) ||
		    strnlen(c[ph].parse, sizeof(c[ph].parse)) ==
			    sizeof(c[ph].parse) ||
		    strchr(c[ph].exec, '/') || strchr(c[ph].parse, '/') ||
		    c[ph].exec[0] == '.' || c[ph].parse[0] == '.')
			return 0;
	}
	return 1;
}
