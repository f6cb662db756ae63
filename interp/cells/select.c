/* select: keep the cells that --only and --shard ask for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells/select.h"
#include "plan/coord.h"
#include "util/strbuf.h"
#include "util/units.h"

int select_parse_shard(const char *s, int *k, int *n)
{
	int64_t a, b;
	const char *slash = strchr(s, '/');
	char left[32];

	if (!slash || slash - s >= (long)sizeof(left))
		return -1;
	memcpy(left, s, slash - s);
	left[slash - s] = '\0';
	if (units_int(left, 1, 1000000, &a) ||
	    units_int(slash + 1, 1, 1000000, &b) || a > b)
		return -1;
	*k = (int)a;
	*n = (int)b;
	return 0;
}

static int known_coord(const struct plan *p, const char *key,
		       const char **names, int *n)
{
	*n = coord_names(p, names, 256);
	for (int i = 0; i < *n; i++)
		if (!strcmp(names[i], key))
			return 1;
	return 0;
}

struct term {
	char *key;
	char *value;
};

/* Split "k=v,k=v" in place; values may not contain ','. */
static int parse_filter(const struct plan *p, char *s, struct term *t,
			int max, int *n, struct diag *d, const char *orig)
{
	const char *names[256];
	int nn;

	*n = 0;
	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		char *eq = strchr(tok, '=');
		const char *hint;

		if (!eq || eq == tok || *n == max)
			return diag_set(d, "--only", NULL, (struct pos){ 0, 0 },
					"'%s': expected coordinate=value[,...]"
					" (e.g. type=xfs,threads=8)", orig);
		*eq = '\0';
		if (!known_coord(p, tok, names, &nn)) {
			hint = diag_suggest(tok, names, nn);
			return diag_set(d, "--only", NULL, (struct pos){ 0, 0 },
					"'%s' is not a coordinate of this "
					"plan%s%s%s", tok,
					hint ? " (did you mean '" : "",
					hint ? hint : "", hint ? "'?)" : "");
		}
		t[*n].key = tok;
		t[(*n)++].value = eq + 1;
	}
	if (!*n)
		return diag_set(d, "--only", NULL, (struct pos){ 0, 0 },
				"empty filter");
	return 0;
}

/* Most values named in a "no config has" message; the rest are counted. */
#define SELECT_SHOWN 8

/* The distinct values key takes over e's cells, in cell order; their
 * number, or -1 out of memory. *has: one of them is value. */
static int coord_values(const struct expansion *e, const char *key,
			const char *value, const char ***out, int *has)
{
	const char **v = NULL;
	int n = 0;

	*has = 0;
	for (size_t i = 0; i < e->n_cells; i++) {
		const char *s = cell_coord(e, &e->cells[i], key);
		const char **grown;
		int seen = 0;

		if (!s)
			continue;
		*has |= !strcmp(s, value);
		for (int k = 0; k < n && !seen; k++)
			seen = !strcmp(v[k], s);
		if (seen)
			continue;
		if (!(grown = realloc(v, (n + 1) * sizeof(*v)))) {
			free(v);
			return -1;
		}
		v = grown;
		v[n++] = s;
	}
	*out = v;
	return n;
}

/* "a, b, c": all of vals if few, else those that hold word (or the
 * nearest one) and a count of the rest. */
static void list_values(struct strbuf *b, const char *word,
			const char **vals, int n)
{
	const char *near = diag_suggest(word, vals, n);
	int shown = 0;

	for (int i = 0; i < n && shown < SELECT_SHOWN; i++) {
		if (n > SELECT_SHOWN && !strstr(vals[i], word) &&
		    vals[i] != near)
			continue;
		strbuf_printf(b, "%s'%s'", shown ? ", " : "", vals[i]);
		shown++;
	}
	if (shown < n)
		strbuf_printf(b, "%s%d %s (fsplan expand lists them)",
			      shown ? " and " : "", n - shown,
			      shown ? "more" : "values");
}

/* A value no cell has is a typo or a label guessed wrong (an entry of
 * mkfs or mount alternatives labels each "type:mkfs:mount"): say which
 * values the key takes instead of only "no cell matches". */
static int check_values(const struct expansion *e, const struct term *t,
			int n, struct diag *d)
{
	for (int i = 0; i < n; i++) {
		const char **vals;
		struct strbuf b = { 0 };
		int has, nv = coord_values(e, t[i].key, t[i].value, &vals,
					   &has);

		if (nv < 0)
			return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
		if (!has) {
			list_values(&b, t[i].value, vals, nv);
			diag_set(d, "--only", NULL, (struct pos){ 0, 0 },
				 "no cell has %s '%s'; %s is one of %s",
				 t[i].key, t[i].value, t[i].key,
				 b.p ? b.p : "(none)");
		}
		free(b.p);
		free(vals);
		if (!has)
			return -1;
	}
	return 0;
}

int select_cells(struct expansion *e, const char *const *only, int n_only,
		 int shard_k, int shard_n, struct diag *d)
{
	struct term (*terms)[32] = NULL;
	int *n_terms = NULL;
	char **copies = NULL;
	int rc = -1;

	if (n_only) {
		terms = calloc(n_only, sizeof(*terms));
		n_terms = calloc(n_only, sizeof(*n_terms));
		copies = calloc(n_only, sizeof(*copies));
		if (!terms || !n_terms || !copies)
			goto oom;
	}
	for (int i = 0; i < n_only; i++) {
		if (!(copies[i] = strdup(only[i])))
			goto oom;
		if (parse_filter(e->plan, copies[i], terms[i], 32,
				 &n_terms[i], d, only[i]) ||
		    check_values(e, terms[i], n_terms[i], d))
			goto out;
	}
	e->n_selected = 0;
	for (size_t i = 0; i < e->n_cells; i++) {
		struct cell *c = &e->cells[i];
		int keep = n_only == 0;

		for (int f = 0; f < n_only && !keep; f++) {
			int all = 1;

			for (int t = 0; t < n_terms[f] && all; t++) {
				const char *v = cell_coord(e, c,
							   terms[f][t].key);

				all = v && !strcmp(v, terms[f][t].value);
			}
			keep = all;
		}
		if (shard_n > 0 &&
		    (e->confs[c->conf].index - 1) % shard_n != shard_k - 1)
			keep = 0;
		c->selected = keep;
		e->n_selected += keep;
	}
	rc = 0;
	goto out;
oom:
	diag_set(d, NULL, NULL, (struct pos){ 0, 0 }, "out of memory");
out:
	for (int i = 0; copies && i < n_only; i++)
		free(copies[i]);
	free(copies);
	free(terms);
	free(n_terms);
	return rc;
}
