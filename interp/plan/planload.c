/* planload: the loader's generic pieces — field tables, typed scalars, errors. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planload.h"
#include "util/units.h"

int pl_error(struct loader *L, struct pos pos, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_set(L->d, L->p->file, L->p->text, pos, "%s", msg);
}

char *pl_strdup(struct loader *L, const char *s)
{
	char *c = strdup(s);

	if (!c)
		pl_error(L, (struct pos){ 0, 0 }, "out of memory");
	return c;
}

int pl_mapping(struct loader *L, yaml_node_t *map,
	       const struct pl_field *fields, void *obj, const char *what)
{
	yaml_node_t *slot[32] = { 0 };
	const char *keys[32];
	int nf = 0;

	if (map->type != YAML_MAPPING_NODE)
		return pl_error(L, ydoc_pos(map), "%s must be a mapping of "
				"keys", what);
	while (fields[nf].key)
		keys[nf] = fields[nf].key, nf++;
	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start;
	     pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = ydoc_node(&L->y, pr->key);
		const char *key = ydoc_scalar(k), *hint;
		int i;

		for (i = 0; i < nf; i++)
			if (!strcmp(key, fields[i].key))
				break;
		if (i < nf) {
			slot[i] = ydoc_node(&L->y, pr->value);
			continue;
		}
		hint = diag_suggest(key, keys, nf);
		if (hint)
			return pl_error(L, ydoc_pos(k), "unknown key '%s' in %s "
					"(did you mean '%s'?)", key, what, hint);
		return pl_error(L, ydoc_pos(k), "unknown key '%s' in %s",
				key, what);
	}
	for (int i = 0; i < nf; i++) {
		if (slot[i]) {
			if (fields[i].fn(L, slot[i], obj))
				return -1;
		} else if (fields[i].required) {
			return pl_error(L, ydoc_pos(map), "%s is missing the "
					"required key '%s'", what,
					fields[i].key);
		}
	}
	return 0;
}

const char *pl_scalar(struct loader *L, yaml_node_t *n, const char *key)
{
	const char *s = ydoc_scalar(n);

	if (!s)
		pl_error(L, ydoc_pos(n), "'%s' expects a single value, not a "
			 "%s", key, n->type == YAML_SEQUENCE_NODE ? "list"
								  : "mapping");
	return s;
}

int pl_pstr(struct loader *L, yaml_node_t *n, const char *key,
	    struct pstr *out)
{
	const char *s = pl_scalar(L, n, key);

	memset(out, 0, sizeof(*out));
	if (!s)
		return -1;
	out->pos = ydoc_pos(n);
	out->col_shift = -1;
	/* Offsets inside the text map to columns only on one line. */
	if (n->start_mark.line == n->end_mark.line) {
		switch (n->data.scalar.style) {
		case YAML_PLAIN_SCALAR_STYLE:
			out->col_shift = 0;
			break;
		case YAML_SINGLE_QUOTED_SCALAR_STYLE:
		case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
			out->col_shift = 1;
			break;
		default:
			break;
		}
	}
	/* A plain `~` or `null` is YAML's null: an empty value here. */
	if (ydoc_plain(n) && (!strcmp(s, "~") || !strcmp(s, "null")))
		s = "";
	out->s = pl_strdup(L, s);
	return out->s ? 0 : -1;
}

int pl_pstr_params(struct loader *L, yaml_node_t *n, const char *key,
		   struct pstr *out)
{
	if (pl_pstr(L, n, key, out))
		return -1;
	if (pl_expand_params(L, out)) {
		free(out->s);
		out->s = NULL;
		return -1;
	}
	return 0;
}

int pl_int(struct loader *L, yaml_node_t *n, const char *key, int min,
	   int max, int *out)
{
	struct pstr ps;
	int64_t v;
	int rc = 0;

	if (pl_pstr_params(L, n, key, &ps))
		return -1;
	if (units_int(ps.s, min, max, &v))
		rc = pl_error(L, ps.pos, "'%s' must be a whole number from %d "
			      "to %d, not '%s'", key, min, max, ps.s);
	else
		*out = (int)v;
	free(ps.s);
	return rc;
}

int pl_ident(struct loader *L, yaml_node_t *n, const char *what)
{
	const char *s = ydoc_scalar(n);

	if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		goto bad;
	for (const char *c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			goto bad;
	if (strlen(s) < 64)
		return 0;
bad:
	return pl_error(L, ydoc_pos(n), "'%s' is not usable as %s: use "
			"letters, digits and '_', starting with a letter",
			s ? s : "?", what);
}
