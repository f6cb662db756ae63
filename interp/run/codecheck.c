/* codecheck: the files a run's code is made of, with their sha256s — recorded
 * when the run starts, checked when it resumes. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "phase/libsrc.h"
#include "phase/luaphase.h"
#include "results/manifest.h"
#include "run/codecheck.h"
#include "run/phfiles.h"
#include "util/sha256.h"

static const struct pos nowhere;

/* Add path once (the first kind it is found as stays). */
static void add(json_t *a, const char *kind, const char *path,
		const char *sha)
{
	json_t *o;
	size_t i;

	json_array_foreach(a, i, o)
		if (!strcmp(json_string_value(json_object_get(o, "path")) ?:
			    "", path))
			return;
	json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "kind", kind,
					   "path", path, "sha256", sha));
}

static void add_file(json_t *a, const char *kind, const char *path)
{
	char sha[65];

	if (!sha256_file(path, sha))
		add(a, kind, path, sha);
}

/* A library file: what the children run is the text read at the start
 * (libsrc.h), not what is on disk later. */
static void lib_file(void *ctx, const char *path, const char *text,
		     size_t len)
{
	const char *lib = libsrc_dir(), *rel = path + strlen(lib);
	char sha[65];

	if (strncmp(path, lib, strlen(lib)))
		rel = path;
	sha256_hex(text, len, sha);
	add(ctx, !strncmp(rel, "/exec/", 6) || (rel == path &&
		 strlen(path) > 3 && !strcmp(path + strlen(path) - 3, ".sh")) ?
		 "exec script" :
		 !strncmp(rel, "/parse/", 7) ? "parser" : "module", path, sha);
}

/* A with: or matrix value that names a file, as luaphase.c's preread and
 * ctx.input take it: from the plan's directory when relative. */
static void input(json_t *a, const struct plan *p, const char *val)
{
	char path[PATH_MAX];
	struct stat st;
	int n;

	if (!val || !*val || strchr(val, '\n'))
		return;
	n = val[0] == '/' ? snprintf(path, sizeof(path), "%s", val)
			  : snprintf(path, sizeof(path), "%s/%s", p->dir, val);
	if (n < 0 || (size_t)n >= sizeof(path) || stat(path, &st) ||
	    !S_ISREG(st.st_mode) || st.st_size > LUAJOB_MAX_INPUT)
		return;
	add_file(a, "input", path);
}

json_t *codecheck_json(const struct expansion *e)
{
	const struct plan *p = e->plan;
	json_t *a = json_array();
	int lib = 0;

	if (!a)
		return NULL;
	for (int i = 0; i < p->n_phases; i++)
		lib |= p->phases[i].use.s || p->phases[i].parse.s;
	/* the phases' modules among them, as read at the start */
	if (lib)
		libsrc_each(lib_file, a);
	for (int i = 0; i < p->n_phases; i++)
		if (p->phases[i].use.s && p->phases[i].module_path)
			add_file(a, "module", p->phases[i].module_path);
	for (size_t i = 0; i < e->n_cells; i++) {
		const struct cell *c = &e->cells[i];
		const struct plan_phase *ph = &p->phases[c->phase];
		char path[PATH_MAX];

		/* files: (phfiles.h), as each phase run gets them */
		for (int k = 0; c->selected && k < ph->n_files; k++)
			if (!phfiles_path(p, ph->files[k].s, path,
					  sizeof(path)))
				add(a, "file", path, ph->files_sha ?
				    ph->files_sha[k] : "");
		if (!c->selected || !ph->use.s)
			continue;
		for (int k = 0; k < ph->n_with; k++) {
			char *v = cell_with(e, c, ph->with[k].key);

			input(a, p, v);
			free(v);
		}
		for (int k = 0; k < ph->n_matrix; k++)
			input(a, p, cell_coord(e, c, ph->matrix[k].name));
	}
	return a;
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key)) ?: "";
}

/* The entry of path in a, or NULL. */
static json_t *find(json_t *a, const char *path)
{
	json_t *o;
	size_t i;

	json_array_foreach(a, i, o)
		if (!strcmp(str(o, "path"), path))
			return o;
	return NULL;
}

int codecheck_resume(const struct expansion *e, const char *dir,
		     struct diag *d)
{
	json_t *was = manifest_read_key(dir, "code"), *now, *o, *n;
	size_t i;
	int rc = 0;

	if (!json_is_array(was)) {
		json_decref(was);
		return 0;
	}
	now = codecheck_json(e);
	if (!now) {
		json_decref(was);
		return diag_set(d, dir, NULL, nowhere, "out of memory");
	}
	json_array_foreach(was, i, o) {
		n = find(now, str(o, "path"));
		if (!n)
			rc = diag_set(d, dir, NULL, nowhere, "%s %s is gone "
				      "since the run started (sha256 %s in "
				      "the manifest)",
				      str(o, "kind"), str(o, "path"),
				      str(o, "sha256"));
		else if (strcmp(str(o, "sha256"), str(n, "sha256")))
			rc = diag_set(d, dir, NULL, nowhere, "%s %s changed "
				      "since the run started: sha256 %s in the "
				      "manifest, %s now",
				      str(o, "kind"), str(o, "path"),
				      str(o, "sha256"), str(n, "sha256"));
		if (rc)
			goto out;
	}
	json_array_foreach(now, i, n)
		if (!find(was, str(n, "path"))) {
			rc = diag_set(d, dir, NULL, nowhere, "%s %s was not "
				      "there when the run started",
				      str(n, "kind"), str(n, "path"));
			break;
		}
out:
	json_decref(was);
	json_decref(now);
	return rc;
}
