/* select: keep the cells that --only and --shard ask for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells/select.h"
#include "plan/coord.h"
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
				 &n_terms[i], d, only[i]))
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
