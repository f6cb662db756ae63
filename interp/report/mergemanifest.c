/* mergemanifest: refuse shards of different plan runs, and join the manifests
 * of those that match. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/mergemanifest.h"
#include "report/manifestread.h"
#include "results/manifest.h"
#include "util/diag.h"

int mergemanifest_load(struct merge_shard *s, const char *dir,
		       struct strbuf *notes, struct diag *d)
{
	struct diag ld = { 0 };
	json_error_t err;
	char path[PATH_MAX], msg[1024];

	s->dir = dir;
	if ((size_t)snprintf(path, sizeof(path), "%s/manifest.json", dir) >=
	    sizeof(path) - sizeof("results.csv"))
		return diag_fail(d, DIAG_INPUT, ENAMETOOLONG, "RUNDIR of %zu "
				 "bytes", strlen(dir));
	s->man = manifest_load(dir, &err);
	if (!s->man)
		return diag_fail(d, DIAG_INPUT, 0, "%s: %s (merge needs each "
				 "shard's manifest: its plan and parameters)",
				 path, err.text);
	if (!manifestread_str(s->man, "plan.sha256", NULL))
		return diag_fail(d, DIAG_INPUT, 0, "%s names no plan sha256: "
				 "not a manifest of 'fsplan run'", path);
	snprintf(path, sizeof(path), "%s/results.csv", dir);
	if (results_load(&s->r, path, &ld)) {
		diag_format(&ld, msg, sizeof(msg));
		diag_release(&ld);
		return diag_fail(d, DIAG_INPUT, 0, "%s", msg);
	}
	s->loaded = 1;
	if (s->r.n_torn)
		strbuf_printf(notes, "%s: its last row was cut short (an "
			      "interrupted run) and is left out\n", path);
	if (results_left_out_note(&s->r, msg, sizeof(msg)))
		strbuf_printf(notes, "%s: %s (merge copies them as they "
			      "are)\n", path, msg);
	s->host = manifestread_str(s->man, "system.hostname", dir);
	s->run_id = manifestread_str(s->man, "run_id", dir);
	return 0;
}

void mergemanifest_free(struct merge_shard *s)
{
	if (s->loaded)
		results_free(&s->r);
	json_decref(s->man);
	memset(s, 0, sizeof(*s));
}

/* ---- one plan run alike ------------------------------------------------- */

/* What of a phase must agree between shards. */
static const char *const phase_keys[] = { "name", "use", "exec", "parse",
					  "module_sha256", NULL };

/* Whether phase x's module is one of fsplan's library (`use: bonnie`),
 * not a file the plan brings (`use: mine.lua`). */
static int library_module(json_t *x)
{
	const char *use = manifestread_str(x, "use", "");
	size_t n = strlen(use);

	return !strchr(use, '/') && (n < 4 || strcmp(use + n - 4, ".lua"));
}

static int same_phases(const struct merge_shard *a,
		       const struct merge_shard *b, struct diag *d)
{
	json_t *pa = json_object_get(a->man, "phases");
	json_t *pb = json_object_get(b->man, "phases");

	if (json_array_size(pa) != json_array_size(pb)) {
		diag_fail(d, DIAG_INPUT, 0, "%s has %zu phases and %s %zu",
			  a->dir, json_array_size(pa), b->dir,
			  json_array_size(pb));
		return 0;
	}
	for (size_t i = 0; i < json_array_size(pa); i++)
		for (int k = 0; phase_keys[k]; k++) {
			json_t *x = json_array_get(pa, i);
			json_t *y = json_array_get(pb, i);
			const char *f = phase_keys[k];

			if (json_equal(json_object_get(x, f),
				       json_object_get(y, f)) ||
			    (!json_object_get(x, f) && !json_object_get(y, f)))
				continue;
			diag_fail(d, DIAG_INPUT, 0, "phase %zu (%s) differs in "
				  "its %s: '%s' in %s, '%s' in %s%s", i + 1,
				  manifestread_str(x, "name", "?"), f,
				  manifestread_str(x, f, "-"), a->dir,
				  manifestread_str(y, f, "-"), b->dir,
				  strcmp(f, "module_sha256") ? "" :
				  library_module(x) ? " (install the same "
				  "fsplan on every host)" : " (give every host "
				  "the same module file)");
			return 0;
		}
	return 1;
}

int mergemanifest_check(const struct merge_shard *sh, size_t n,
			struct diag *d)
{
	const struct merge_shard *a = &sh[0];

	for (size_t s = 1; s < n; s++) {
		const struct merge_shard *b = &sh[s];
		const char *sa = manifestread_str(a->man, "plan.sha256", NULL);
		const char *sb = manifestread_str(b->man, "plan.sha256", NULL);

		if (strcmp(sa, sb))
			return diag_fail(d, DIAG_INPUT, 0, "%s is a run of "
				"plan %s (sha256 %.12s) and %s of plan %s "
				"(sha256 %.12s): merge joins the shards of one "
				"plan",
				a->dir, manifestread_str(a->man, "plan.path",
							 "?"), sa, b->dir,
				manifestread_str(b->man, "plan.path", "?"), sb);
		if (!manifestread_same_params(a->man, b->man)) {
			struct strbuf pa = { 0 }, pb = { 0 };

			manifestread_params(a->man, &pa);
			manifestread_params(b->man, &pb);
			diag_fail(d, DIAG_INPUT, 0, "%s ran with parameters %s "
				  "and %s with %s: the shards of one run take "
				  "the same -D", a->dir, pa.p, b->dir, pb.p);
			free(pa.p);
			free(pb.p);
			return -1;
		}
		if (!same_phases(a, b, d))
			return -1;
		/* one run (its id, host, start and command) given twice:
		 * ./s1/ and s1, or a copy; two hosts' runs into directories
		 * of one name are two shards */
		for (size_t t = 0; t < s; t++)
			if (!strcmp(sh[t].run_id, b->run_id) &&
			    !strcmp(sh[t].host, b->host) &&
			    !strcmp(manifestread_str(sh[t].man, "started", ""),
				    manifestread_str(b->man, "started", "")) &&
			    json_equal(json_object_get(sh[t].man, "command"),
				       json_object_get(b->man, "command"))) {
				return diag_fail(d, DIAG_INPUT, 0, "%s and %s "
					"are one shard, given twice: both are "
					"run %s (their manifests' run_id; "
					"shards run into directories of their "
					"own names)", sh[t].dir, b->dir,
					b->run_id);
			}
	}
	return 0;
}

void mergemanifest_notes(const struct merge_shard *sh, size_t n,
			 size_t n_cells, struct strbuf *notes)
{
	json_int_t in_plan = json_integer_value(json_object_get(sh[0].man,
							"cells_in_plan"));

	for (size_t s = 0; s < n; s++) {
		const char *st = manifestread_str(sh[s].man, "status", "?");

		if (strcmp(st, "complete"))
			strbuf_printf(notes, "note: %s is '%s' (not complete): "
				      "the merged run is incomplete\n",
				      sh[s].dir, st);
	}
	if (in_plan > 0 && n_cells < (size_t)in_plan)
		strbuf_printf(notes, "note: %zu of the plan's %lld cells are "
			      "in no shard (--only, or a shard not given): the "
			      "merged run is partial\n",
			      (size_t)in_plan - n_cells, (long long)in_plan);
}

/* ---- plan order --------------------------------------------------------- */

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct merge_cell *)a)->id,
		      ((const struct merge_cell *)b)->id);
}

/* The id and index of every object in a, into v (from *n on). */
static void index_of(json_t *a, const char *id, struct merge_cell *v,
		     size_t *n)
{
	size_t i;
	json_t *c;

	json_array_foreach(a, i, c)
		if (manifestread_str(c, id, NULL)) {
			v[*n].id = manifestread_str(c, id, NULL);
			v[(*n)++].index = (long)json_integer_value(
				json_object_get(c, "index"));
		}
}

int mergemanifest_index(struct merge_index *ix, const struct merge_shard *sh,
			size_t n, struct diag *d)
{
	json_t *confs = json_object_get(sh[0].man, "configs");
	size_t total = 0;

	for (size_t s = 0; s < n; s++)
		total += json_array_size(json_object_get(sh[s].man, "cells"));
	ix->cells = calloc(total + 1, sizeof(*ix->cells));
	ix->confs = calloc(json_array_size(confs) + 1, sizeof(*ix->confs));
	if (!ix->cells || !ix->confs)
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	for (size_t s = 0; s < n; s++)
		index_of(json_object_get(sh[s].man, "cells"), "id", ix->cells,
			 &ix->n_cells);
	index_of(confs, "label", ix->confs, &ix->n_confs);
	qsort(ix->cells, ix->n_cells, sizeof(*ix->cells), by_id);
	qsort(ix->confs, ix->n_confs, sizeof(*ix->confs), by_id);
	for (size_t i = 0; i < ix->n_cells; i++)
		ix->n_distinct += !i || strcmp(ix->cells[i].id,
					       ix->cells[i - 1].id);
	return 0;
}

void mergemanifest_index_free(struct merge_index *ix)
{
	free(ix->cells);
	free(ix->confs);
	memset(ix, 0, sizeof(*ix));
}

static long find(const struct merge_cell *v, size_t n, const char *id)
{
	struct merge_cell key = { id, 0 }, *hit;

	hit = bsearch(&key, v, n, sizeof(key), by_id);
	return hit ? hit->index : LONG_MAX;
}

long mergemanifest_conf_index(const struct merge_index *ix, const char *label)
{
	return find(ix->confs, ix->n_confs, label);
}

long mergemanifest_cell_index(const struct merge_index *ix, const char *cell)
{
	return find(ix->cells, ix->n_cells, cell);
}

/* ---- the merged manifest ------------------------------------------------ */

/* The shard that ran config index (1-based): one of its cells is of it. */
static const struct merge_shard *runner_of(const struct merge_shard *sh,
					   size_t n, json_int_t index)
{
	for (size_t s = 0; s < n; s++) {
		size_t i;
		json_t *c;

		json_array_foreach(json_object_get(sh[s].man, "cells"), i, c)
			if (json_integer_value(json_object_get(c, "config")) ==
			    index)
				return &sh[s];
	}
	return NULL;
}

/* The facts of object key ("system", "target") every shard has alike:
 * what differs per shard (a hostname, a workdir) stays in its configs. */
static json_t *shared_facts(const struct merge_shard *sh, size_t n,
			    const char *key)
{
	json_t *o = json_deep_copy(json_object_get(sh[0].man, key));
	const char *k;
	json_t *v, *tmp;

	if (!json_is_object(o))
		return o ? o : json_null();
	json_object_foreach_safe(o, tmp, k, v)
		for (size_t s = 1; s < n; s++)
			if (!json_equal(v, json_object_get(json_object_get(
					sh[s].man, key), k))) {
				json_object_del(o, k);
				break;
			}
	return o;
}

static json_t *shard_entry(const struct merge_shard *s)
{
	static const char *const keys[] = { "run_id", "status", "started",
		"ended", "command", "selection", "fsplan_version", "system",
		"target", NULL };
	json_t *o = json_object();

	json_object_set_new(o, "dir", json_string(s->dir));
	json_object_set_new(o, "host", json_string(s->host));
	for (int k = 0; keys[k]; k++) {
		json_t *v = json_object_get(s->man, keys[k]);

		if (v)
			json_object_set(o, keys[k], v);
	}
	return o;
}

static int by_index(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a,
							  "index"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b,
							  "index"));

	return (x > y) - (x < y);
}

/* The union of the shards' cells, each id once, in plan order. */
static json_t *all_cells(const struct merge_shard *sh, size_t n)
{
	json_t *a = json_array(), **v;
	size_t total = 0, k = 0, i;
	json_t *c;

	for (size_t s = 0; s < n; s++)
		total += json_array_size(json_object_get(sh[s].man, "cells"));
	v = calloc(total + 1, sizeof(*v));
	if (!v || !a) {
		free(v);
		json_decref(a);
		return NULL;
	}
	for (size_t s = 0; s < n; s++)
		json_array_foreach(json_object_get(sh[s].man, "cells"), i, c)
			v[k++] = c;
	qsort(v, k, sizeof(*v), by_index);
	for (i = 0; i < k; i++)
		if (!i || !json_equal(json_object_get(v[i], "id"),
				      json_object_get(v[i - 1], "id")))
			json_array_append(a, v[i]);
	free(v);
	return a;
}

/* The earliest (least) or latest of a time key over the shards. */
static json_t *bound(const struct merge_shard *sh, size_t n, const char *key,
		     int latest)
{
	const char *best = NULL;

	for (size_t s = 0; s < n; s++) {
		const char *t = manifestread_str(sh[s].man, key, NULL);

		if (!t)
			return latest ? json_null() : json_string("?");
		if (!best || (latest ? strcmp(t, best) > 0 :
			      strcmp(t, best) < 0))
			best = t;
	}
	return json_string(best);
}

int mergemanifest_build(const struct merge_shard *sh, size_t n,
		   const char *run_id, int argc, char **argv, char **text,
		   size_t *len)
{
	json_t *root = json_deep_copy(sh[0].man), *cmd = json_array();
	json_t *merged = json_array(), *confs, *c, *cells;
	json_int_t in_plan = json_integer_value(json_object_get(sh[0].man,
							"cells_in_plan"));
	const char *status = "complete";
	size_t i;

	if (!root || !cmd || !merged) {
		json_decref(root);
		json_decref(cmd);
		json_decref(merged);
		return -1;
	}
	for (int k = 0; k < argc; k++)
		json_array_append_new(cmd, json_string(argv[k]));
	cells = all_cells(sh, n);
	/* shards that together lack cells of the plan: partial */
	if (cells && in_plan > 0 && json_array_size(cells) < (size_t)in_plan)
		status = "partial";
	for (size_t s = 0; s < n; s++) {
		if (strcmp(manifestread_str(sh[s].man, "status", ""), "complete"))
			status = "incomplete";
		json_array_append_new(merged, shard_entry(&sh[s]));
	}
	json_object_set_new(root, "run_id", json_string(run_id));
	json_object_set_new(root, "command", cmd);
	/* the shards together: their -D and --only, no one shard of them
	 * (a resume of the merged run is the whole run's) */
	if (json_is_object(json_object_get(root, "selection")))
		json_object_set_new(json_object_get(root, "selection"),
				    "shard", json_null());
	json_object_set_new(root, "status", json_string(status));
	json_object_set_new(root, "started", bound(sh, n, "started", 0));
	json_object_set_new(root, "ended", bound(sh, n, "ended", 1));
	json_object_set_new(root, "system", shared_facts(sh, n, "system"));
	json_object_set_new(root, "target", shared_facts(sh, n, "target"));
	confs = json_object_get(root, "configs");
	json_array_foreach(confs, i, c) {
		json_int_t index = json_integer_value(json_object_get(c,
								      "index"));
		const struct merge_shard *s = runner_of(sh, n, index);
		json_t *mine;

		if (!s)
			continue;
		mine = json_deep_copy(json_array_get(json_object_get(s->man,
							"configs"), i));
		if (!mine)
			continue;
		json_object_set_new(mine, "host", json_string(s->host));
		json_object_set_new(mine, "shard", json_string(s->run_id));
		json_object_set(mine, "system",
				json_object_get(s->man, "system"));
		json_object_set(mine, "target",
				json_object_get(s->man, "target"));
		json_array_set_new(confs, i, mine);
	}
	json_object_set_new(root, "cells", cells);
	json_object_set_new(root, "merged", merged);
	*text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!*text)
		return -1;
	*len = strlen(*text);
	(*text)[(*len)++] = '\n';	/* json_dumps leaves room: replaces the NUL */
	return 0;
}
