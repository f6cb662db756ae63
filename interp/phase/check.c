/* check: every phase of a plan loaded and its cells' values typed, without I/O — in whatever process calls it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "phase/check.h"
#include "phase/libsrc.h"
#include "phase/lparse.h"
#include "phase/phase.h"
#include "phase/sandbox.h"
#include "plan/plan.h"
#include "results/metrics.h"
#include "util/clock.h"

/* How long loading one module or parser may take (the sandbox's hook). */
#define CHECK_LOAD_S 30

/* An exec phase's key: its parser's (parse:), then seconds. */
static int exec_key(const struct plan *p, int ph, struct phase_key *key,
		    struct diag *d)
{
	const struct plan_phase *x = &p->phases[ph];
	int rc = 0;

	memset(key, 0, sizeof(*key));
	if (x->parse.s) {
		struct sandbox_limits lim = { 256u << 20, clock_now() + CHECK_LOAD_S, NULL,
					      libsrc_dir() };
		lua_State *L = sandbox_new(&lim);
		char path[4200], err[1024] = "";

		if (!L)
			return diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
					"cannot make a Lua state");
		snprintf(path, sizeof(path), "%s/parse/%s.lua",
			 libsrc_dir(), x->parse.s);
		if (lparse_load(L, path, key, err, sizeof(err)))
			rc = diag_set(d, p->file, p->text, x->parse.pos, "%s",
				      err);
		sandbox_close(L);
	}
	for (int k = 0; k < key->n; k++)
		if (!strcmp(key->name[k], "seconds"))
			return rc;
	snprintf(key->name[key->n++], sizeof(key->name[0]), "seconds");
	return rc;
}

/* An exec module's script and parser are files of the library: read
 * by root into it (libsrc_load), or at least there. */
static int exec_files(const struct phase_decl *decl, char *err, size_t len)
{
	char path[4200];
	struct stat st;
	size_t n;

	snprintf(path, sizeof(path), "%s/exec/%s", libsrc_dir(), decl->exec);
	if (!libsrc_get(path, &n) && (stat(path, &st) || !S_ISREG(st.st_mode))) {
		snprintf(err, len, "exec: no script '%s' in the library (%s/exec)",
			 decl->exec, libsrc_dir());
		return -1;
	}
	snprintf(path, sizeof(path), "%s/parse/%s.lua", libsrc_dir(),
		 decl->parse);
	if (!libsrc_get(path, &n) && (stat(path, &st) || !S_ISREG(st.st_mode))) {
		snprintf(err, len, "parse: no parser '%s' in the library "
			 "(%s/parse)", decl->parse, libsrc_dir());
		return -1;
	}
	return 0;
}

int check_phases(const struct expansion *e, char **text, size_t *tlen,
		      struct phase_checked *out, struct diag *d)
{
	const struct plan *p = e->plan;

	for (int ph = 0; ph < p->n_phases; ph++) {
		struct sandbox_limits lim = { 256u << 20, clock_now() + CHECK_LOAD_S, NULL,
					      libsrc_dir() };
		struct phase_decl decl;
		lua_State *L;
		char err[1024] = "";
		int rc = 0;

		if (!p->phases[ph].use.s) {
			if (exec_key(p, ph, &out[ph].key, d))
				return -1;
			continue;
		}
		L = sandbox_new(&lim);
		if (!L)
			return diag_set(d, p->file, NULL, (struct pos){ 0, 0 },
					"cannot make a Lua state");
		if (phase_load(L, p->phases[ph].module_path,
			       text ? text[ph] : NULL, text ? tlen[ph] : 0,
			       &decl, err, sizeof(err))) {
			sandbox_close(L);
			phase_decl_free(&decl);
			return diag_set(d, p->file, p->text,
					p->phases[ph].use.pos, "%s", err);
		}
		out[ph].key = decl.key;
		if (decl.exec[0] && (rc = exec_files(&decl, err, sizeof(err))))
			diag_set(d, p->file, p->text, p->phases[ph].use.pos,
				 "%s: %s", p->phases[ph].module_path, err);
		memcpy(out[ph].exec, decl.exec, sizeof(out[ph].exec));
		memcpy(out[ph].parse, decl.parse, sizeof(out[ph].parse));
		for (size_t i = 0; i < e->n_cells && !rc; i++) {
			const struct cell *c = &e->cells[i];
			struct param_val *vals;
			char engine[16];
			int workers;

			if (c->phase != ph || c->rep != 1)
				continue;
			vals = calloc(decl.n_params + 1, sizeof(*vals));
			if (!vals)
				rc = -1;
			else
				rc = phase_values(e, c, &decl, vals, &workers,
						  engine, sizeof(engine), d);
			if (!rc && workers > out[ph].max_workers)
				out[ph].max_workers = workers;
			if (vals)
				phase_values_free(vals, decl.n_params);
			free(vals);
		}
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
