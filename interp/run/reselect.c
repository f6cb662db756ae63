/* reselect: a run's -D, --only, --shard, kept so --resume selects alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells/select.h"
#include "results/manifest.h"
#include "run/reselect.h"
#include "util/opts.h"

json_t *reselect_json(const struct cell_opts *co)
{
	json_t *o = json_object(), *defs = json_array(), *only = json_array();
	char buf[4200];

	for (int i = 0; i < co->n_defs; i++) {
		snprintf(buf, sizeof(buf), "%s=%s", co->defs[i].name,
			 co->defs[i].value);
		json_array_append_new(defs, json_string(buf));
	}
	for (int i = 0; i < co->only.n; i++)
		json_array_append_new(only, json_string(co->only.v[i]));
	json_object_set_new(o, "defines", defs);
	json_object_set_new(o, "only", only);
	if (co->shard_n) {
		snprintf(buf, sizeof(buf), "%d/%d", co->shard_k, co->shard_n);
		json_object_set_new(o, "shard", json_string(buf));
	} else {
		json_object_set_new(o, "shard", json_null());
	}
	return o;
}

/* The selection as a command line gives it ("-D a=1 --shard 2/3"). */
static void describe(json_t *sel, char *buf, size_t len)
{
	size_t n = 0;
	json_t *v;
	size_t i;

	buf[0] = '\0';
	json_array_foreach(json_object_get(sel, "defines"), i, v)
		n += snprintf(buf + n, n < len ? len - n : 0, "%s-D %s",
			      n ? " " : "", json_string_value(v));
	json_array_foreach(json_object_get(sel, "only"), i, v)
		n += snprintf(buf + n, n < len ? len - n : 0, "%s--only %s",
			      n ? " " : "", json_string_value(v));
	if (json_is_string(json_object_get(sel, "shard")))
		n += snprintf(buf + n, n < len ? len - n : 0, "%s--shard %s",
			      n ? " " : "", json_string_value(
				      json_object_get(sel, "shard")));
	if (!n)
		snprintf(buf, len, "no -D, --only or --shard");
}

/* Keep s for as long as co points into it. */
static const char *kept(char ***keep, size_t *n, const char *s)
{
	char **nk = realloc(*keep, (*n + 2) * sizeof(*nk));

	if (!nk)
		return NULL;
	*keep = nk;
	if (!(nk[*n] = strdup(s)))
		return NULL;
	nk[++*n] = NULL;
	return nk[*n - 1];
}

/* The recorded selection, into co (which gives none). */
static int adopt(json_t *sel, struct cell_opts *co, char ***keep,
		 struct diag *d)
{
	json_t *v, *shard = json_object_get(sel, "shard");
	size_t i, n = 0;
	const char *s;

	json_array_foreach(json_object_get(sel, "defines"), i, v) {
		if (!(s = kept(keep, &n, json_string_value(v) ?: "")))
			goto no_memory;
		if (cellopts_define(s, co, d))
			return -1;
	}
	json_array_foreach(json_object_get(sel, "only"), i, v)
		if (!(s = kept(keep, &n, json_string_value(v) ?: "")) ||
		    opts_list_add(&co->only, s))
			goto no_memory;
	if (json_is_string(shard) &&
	    select_parse_shard(json_string_value(shard), &co->shard_k,
			       &co->shard_n))
		return diag_fail(d, DIAG_INPUT, 0, "its manifest's shard '%s' "
				 "is not K/N", json_string_value(shard));
	return 0;
no_memory:
	return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
}

int reselect_resume(const char *dir, struct cell_opts *co, char ***keep,
		    struct diag *d)
{
	json_t *sel = manifest_read_key(dir, "selection"), *given;
	char was[1024], now[1024];
	int rc = 0;

	*keep = NULL;
	if (!json_is_object(sel)) {
		json_decref(sel);
		return 0;
	}
	given = reselect_json(co);
	if (!co->n_defs && !co->only.n && !co->shard_n) {
		rc = adopt(sel, co, keep, d);
	} else if (!json_equal(sel, given)) {
		describe(sel, was, sizeof(was));
		describe(given, now, sizeof(now));
		rc = diag_fail(d, DIAG_INPUT, 0, "the run was started with %s, "
			       "not %s: a resume selects the same cells with "
			       "the same parameters (give the same, or none to "
			       "take the run's own)", was, now);
	}
	json_decref(given);
	json_decref(sel);
	return rc;
}

void reselect_free(char **keep)
{
	for (size_t i = 0; keep && keep[i]; i++)
		free(keep[i]);
	free(keep);
}
