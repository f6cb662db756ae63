/* where: a run's coordinates by name — report's --where k=v and --by AXIS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/manifestread.h"
#include "report/where.h"

static const char *const fixed[] = { "type", "label", "mkfs", "mount",
				     "phase" };
#define N_FIXED (sizeof(fixed) / sizeof(fixed[0]))

/* The value of key in "k=v;k=v" into buf, or NULL. */
static const char *param_of(const char *params, const char *key, char *buf,
			    size_t len)
{
	size_t k = strlen(key);

	for (const char *p = params; p && *p; p = strchr(p, ';'), p += !!p) {
		size_t n = strcspn(p, ";");

		if (n > k && !strncmp(p, key, k) && p[k] == '=') {
			snprintf(buf, len, "%.*s", (int)(n - k - 1), p + k + 1);
			return buf;
		}
	}
	return NULL;
}

/* The manifest's config of label, or NULL. */
static json_t *config_of(json_t *m, const char *label)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(m, "configs"), i, c)
		if (!strcmp(manifestread_str(c, "label", ""), label))
			return c;
	return NULL;
}

/* A design factor's level of config c: '+' or '-', into buf, or NULL. */
static const char *factor_of(json_t *m, json_t *c, const char *key,
			     char *buf, size_t len)
{
	json_t *ds = json_object_get(c, "design"), *d, *f;
	const char *lv = manifestread_str(ds, "levels", "");
	json_int_t entry = json_integer_value(json_object_get(ds, "entry"));
	size_t i, j;

	json_array_foreach(json_object_get(m, "designs"), i, d) {
		if (json_integer_value(json_object_get(d, "entry")) != entry)
			continue;
		json_array_foreach(json_object_get(d, "factors"), j, f)
			if (j < strlen(lv) && !strcmp(manifestread_str(f,
						"name", ""), key)) {
				snprintf(buf, len, "%c", lv[j]);
				return buf;
			}
	}
	return NULL;
}

const char *where_value(const struct res_run *x, json_t *m, const char *key,
			char *buf, size_t len)
{
	const char *v[N_FIXED] = { x->fs_type, x->fs_label, x->mkfs_opts,
				   x->mount_opts, x->phase };
	json_t *c, *ax;

	for (size_t i = 0; i < N_FIXED; i++)
		if (!strcmp(key, fixed[i])) {
			snprintf(buf, len, "%s", v[i]);
			return buf;
		}
	if (param_of(x->params, key, buf, len))
		return buf;
	if (!m || !(c = config_of(m, x->fs_label)))
		return NULL;
	if (json_is_string(ax = json_object_get(json_object_get(c, "axes"),
						key))) {
		snprintf(buf, len, "%s", json_string_value(ax));
		return buf;
	}
	return factor_of(m, c, key, buf, len);
}

/* Every coordinate name of r's runs (borrowed, or in *own to free). */
static const char **names_of(const struct results *r, json_t *m, size_t *n,
			     char **own)
{
	json_t *c = json_array_get(json_object_get(m, "configs"), 0), *d, *f;
	size_t i, j, plen = 0, cap = N_FIXED + json_object_size(
		json_object_get(c, "axes"));
	const char **names, *k;
	json_t *v;

	for (i = 0; i < r->n_runs; i++)	/* a key at most per byte */
		plen += strlen(r->runs[i].params) + 1;
	json_array_foreach(json_object_get(m, "designs"), i, d)
		cap += json_array_size(json_object_get(d, "factors"));
	cap += plen;
	names = calloc(cap + 1, sizeof(*names));
	*own = malloc(plen + 1);
	*n = 0;
	if (!names || !*own)
		return names;
	for (i = 0; i < N_FIXED; i++)
		names[(*n)++] = fixed[i];
	plen = 0;
	for (i = 0; i < r->n_runs; i++)	/* the keys of each k=v */
		for (const char *p = r->runs[i].params; *p && *n < cap;) {
			size_t e = strcspn(p, "=;");

			memcpy(*own + plen, p, e);
			(*own)[plen + e] = '\0';
			names[(*n)++] = *own + plen;
			plen += e + 1;
			p += strcspn(p, ";");
			p += *p == ';';
		}
	json_object_foreach(json_object_get(c, "axes"), k, v)
		if (*n < cap)
			names[(*n)++] = k;
	json_array_foreach(json_object_get(m, "designs"), i, d)
		json_array_foreach(json_object_get(d, "factors"), j, f)
			if (*n < cap)
				names[(*n)++] = manifestread_str(f, "name", "");
	return names;
}

int where_known(const struct results *r, json_t *m, const char *key,
		const char *opt, struct diag *d)
{
	char *own = NULL;
	size_t n = 0;
	const char **names = names_of(r, m, &n, &own), *hint;
	int rc = -1;

	if (!names || !own) {
		diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], key))
			rc = 0;
	if (rc) {
		hint = diag_suggest(key, names, n);
		diag_fail(d, DIAG_INPUT, 0, "%s: no run has a coordinate '%s'"
			  "%s%s%s", opt, key, hint ? " (did you mean '" : "",
			  hint ? hint : "", hint ? "'?)" : "");
	}
out:
	free(names);
	free(own);
	return rc;
}

/* Whether run x matches every term of where. */
static int matches(const struct res_run *x, json_t *m,
		   const struct opt_list *where)
{
	char key[256], buf[1024];

	for (int t = 0; t < where->n; t++) {
		const char *eq = strchr(where->v[t], '='), *v;

		snprintf(key, sizeof(key), "%.*s", (int)(eq - where->v[t]),
			 where->v[t]);
		v = where_value(x, m, key, buf, sizeof(buf));
		if (!v || strcmp(v, eq + 1))
			return 0;
	}
	return 1;
}

int where_apply(struct results *r, json_t *m, const struct opt_list *where,
		struct diag *d)
{
	char key[256], *keep;
	size_t left = 0;

	for (int t = 0; t < where->n; t++) {
		const char *eq = strchr(where->v[t], '=');

		if (!eq || eq == where->v[t] || eq - where->v[t] >= 255)
			return diag_fail(d, DIAG_INPUT, 0, "--where '%s': "
					 "not key=value", where->v[t]);
		snprintf(key, sizeof(key), "%.*s", (int)(eq - where->v[t]),
			 where->v[t]);
		if (where_known(r, m, key, "--where", d))
			return -1;
	}
	if (!(keep = calloc(r->n_runs + 1, 1)))
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	for (size_t i = 0; i < r->n_runs; i++)
		left += (keep[i] = (char)matches(&r->runs[i], m, where));
	if (!left) {
		free(keep);
		return diag_fail(d, DIAG_INPUT, 0, "--where: no run matches "
				 "every term");
	}
	if (results_keep(r, keep)) {
		free(keep);
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	}
	free(keep);
	return 0;
}
