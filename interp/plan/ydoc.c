/* ydoc: load one YAML document, refusing its hazards before a walk. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/ydoc.h"

struct walk {
	struct ydoc *y;
	struct diag *d;
	unsigned char *state;	/* per node: 0 new, 1 on the path, 2 done */
	uint32_t *size;		/* per node: nodes after alias expansion */
};

struct pos ydoc_pos(const yaml_node_t *n)
{
	struct pos p = { (int)n->start_mark.line + 1,
			 (int)n->start_mark.column + 1 };
	return p;
}

yaml_node_t *ydoc_node(struct ydoc *y, int index)
{
	return yaml_document_get_node(&y->doc, index);
}

yaml_node_t *ydoc_root(struct ydoc *y)
{
	return y->loaded ? yaml_document_get_root_node(&y->doc) : NULL;
}

const char *ydoc_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ?
		(const char *)n->data.scalar.value : NULL;
}

int ydoc_plain(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE &&
	       n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static int cmp_pair_key(const void *a, const void *b, void *arg)
{
	struct ydoc *y = arg;
	const yaml_node_pair_t *pa = a, *pb = b;
	yaml_node_t *ka = ydoc_node(y, pa->key), *kb = ydoc_node(y, pb->key);
	size_t la = ka->data.scalar.length, lb = kb->data.scalar.length;
	int c = memcmp(ka->data.scalar.value, kb->data.scalar.value,
		       la < lb ? la : lb);

	if (c)
		return c;
	if (la != lb)
		return la < lb ? -1 : 1;
	/* Equal keys: keep document order so the later one is reported. */
	return pa->key - pb->key;
}

static int check_keys(struct walk *w, yaml_node_t *map)
{
	yaml_node_pair_t *start = map->data.mapping.pairs.start;
	size_t n = map->data.mapping.pairs.top - start;
	yaml_node_pair_t *sorted;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		yaml_node_t *k = ydoc_node(w->y, start[i].key);

		if (k->type != YAML_SCALAR_NODE)
			return diag_set(w->d, w->y->file, w->y->text,
					ydoc_pos(k), "a key must be a plain "
					"string, not a list or mapping");
	}
	if (n < 2)
		return 0;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return diag_set(w->d, w->y->file, w->y->text, ydoc_pos(map),
				"out of memory");
	memcpy(sorted, start, n * sizeof(*sorted));
	qsort_r(sorted, n, sizeof(*sorted), cmp_pair_key, w->y);
	for (size_t i = 1; i < n && !rc; i++) {
		yaml_node_t *a = ydoc_node(w->y, sorted[i - 1].key);
		yaml_node_t *b = ydoc_node(w->y, sorted[i].key);

		if (a->data.scalar.length == b->data.scalar.length &&
		    !memcmp(a->data.scalar.value, b->data.scalar.value,
			    a->data.scalar.length)) {
			/* Aliased keys share a node: report the one written. */
			rc = diag_set(w->d, w->y->file, w->y->text,
				      ydoc_pos(b),
				      "duplicate key '%s' (first at line %d)",
				      (const char *)b->data.scalar.value,
				      ydoc_pos(a).line);
		}
	}
	free(sorted);
	return rc;
}

/* Where a mark points in the text: libyaml counts its column in
 * characters, not bytes. */
static const char *mark_at(const char *text, const yaml_mark_t *m)
{
	const char *p = text;

	for (size_t l = 0; l < m->line && (p = strchr(p, '\n')); l++)
		p++;
	if (!p)
		return "";
	for (size_t c = 0; c < m->column && *p && *p != '\n'; c++)
		do
			p++;
		while ((*p & 0xc0) == 0x80);
	return p;
}

/* A tag (!!binary, !evil, even !!str) is refused, not taken as text:
 * every value of a plan is text read by its key, and a tag there would
 * promise something else. libyaml resolves a tag that names the
 * default (!!str on a scalar, or !) to the default, so the text at the
 * node (after its &anchor) is looked at too. */
static int tagged(struct walk *w, const yaml_node_t *n)
{
	static const char *const defaults[] = {
		[YAML_SCALAR_NODE] = YAML_DEFAULT_SCALAR_TAG,
		[YAML_SEQUENCE_NODE] = YAML_DEFAULT_SEQUENCE_TAG,
		[YAML_MAPPING_NODE] = YAML_DEFAULT_MAPPING_TAG,
	};
	const char *p = mark_at(w->y->text, &n->start_mark);
	size_t len;

	if (*p == '&') {
		p += strcspn(p, " \t\r\n");
		p += strspn(p, " \t\r\n");
	}
	if (*p != '!' && n->tag && n->type <= YAML_MAPPING_NODE &&
	    defaults[n->type] && !strcmp((const char *)n->tag,
					 defaults[n->type]))
		return 0;
	len = *p == '!' ? strcspn(p, " \t\r\n,]}") : 0;
	return diag_set(w->d, w->y->file, w->y->text, ydoc_pos(n),
			"YAML tag '%.*s': a plan takes no tags (its values "
			"are text, read as each key says); remove it",
			len ? (int)len : (int)strlen((const char *)n->tag),
			len ? p : (const char *)n->tag);
}

/* Depth-first, memoised: each distinct node is checked once. */
static int visit(struct walk *w, int index, int depth)
{
	yaml_node_t *n = ydoc_node(w->y, index);
	uint64_t size = 1;

	if (w->state[index] == 2)
		return 0;
	if (w->state[index] == 1)
		return diag_set(w->d, w->y->file, w->y->text, ydoc_pos(n),
				"an alias refers to a node that contains it "
				"(recursive alias)");
	if (depth > YDOC_MAX_DEPTH)
		return diag_set(w->d, w->y->file, w->y->text, ydoc_pos(n),
				"nesting deeper than %d levels", YDOC_MAX_DEPTH);
	w->state[index] = 1;
	if (tagged(w, n))
		return -1;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		if (memchr(n->data.scalar.value, '\0', n->data.scalar.length))
			return diag_set(w->d, w->y->file, w->y->text,
					ydoc_pos(n), "NUL byte in a string");
		break;
	case YAML_SEQUENCE_NODE:
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++) {
			if (visit(w, *it, depth + 1))
				return -1;
			size += w->size[*it];
		}
		break;
	case YAML_MAPPING_NODE:
		if (check_keys(w, n))
			return -1;
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++) {
			if (visit(w, p->key, depth + 1) ||
			    visit(w, p->value, depth + 1))
				return -1;
			size += w->size[p->key] + w->size[p->value];
		}
		break;
	default:
		break;
	}
	if (size > YDOC_MAX_NODES)
		return diag_set(w->d, w->y->file, w->y->text, ydoc_pos(n),
				"aliases expand to more than %d nodes "
				"(alias bomb?)", YDOC_MAX_NODES);
	w->size[index] = (uint32_t)size;
	w->state[index] = 2;
	return 0;
}

/* Line and column of a byte offset, for errors libyaml gives as offsets. */
static struct pos offset_pos(const char *text, size_t off)
{
	struct pos p = { 1, 1 };

	for (size_t i = 0; i < off && text[i] != '\0'; i++) {
		if (text[i] == '\n') {
			p.line++;
			p.col = 1;
		} else {
			p.col++;
		}
	}
	return p;
}

static int parser_error(struct ydoc *y, yaml_parser_t *p, size_t len,
			struct diag *d)
{
	struct pos pos = { (int)p->problem_mark.line + 1,
			   (int)p->problem_mark.column + 1 };

	/* Reader errors (bad bytes) carry an offset, not a mark. */
	if (p->error == YAML_READER_ERROR) {
		pos = offset_pos(y->text, p->problem_offset);
		if (p->problem_value == 0)
			return diag_set(d, y->file, y->text, pos,
					"NUL byte in the plan");
		return diag_set(d, y->file, y->text, pos,
				"YAML: %s (byte 0x%02x)", p->problem,
				p->problem_value & 0xff);
	}
	/* At the end of input, where the unclosed thing began helps more. */
	if (p->context && p->problem_mark.index >= len)
		pos = (struct pos){ (int)p->context_mark.line + 1,
				    (int)p->context_mark.column + 1 };
	if (p->context)
		return diag_set(d, y->file, y->text, pos, "YAML: %s %s",
				p->problem ? p->problem : "error", p->context);
	return diag_set(d, y->file, y->text, pos, "YAML: %s",
			p->problem ? p->problem : "cannot parse");
}

int ydoc_load(struct ydoc *y, const char *file, const char *text, size_t len,
	      struct diag *d)
{
	static const struct pos nowhere;
	yaml_parser_t parser;
	yaml_document_t extra;
	struct walk w = { y, d, NULL, NULL };
	size_t nodes;
	int rc = -1;

	memset(y, 0, sizeof(*y));
	y->file = file;
	y->text = text;
	if (len > YDOC_MAX_BYTES)
		return diag_set(d, file, NULL, nowhere,
				"plan is larger than %d bytes", YDOC_MAX_BYTES);
	if (!yaml_parser_initialize(&parser))
		return diag_set(d, file, NULL, nowhere, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &y->doc)) {
		rc = parser_error(y, &parser, len, d);
		yaml_parser_delete(&parser);
		return rc;
	}
	y->loaded = 1;
	if (!yaml_document_get_root_node(&y->doc)) {
		rc = diag_set(d, file, NULL, nowhere, "the plan is empty");
		goto out;
	}
	/* A second document would be silently ignored: refuse it. */
	if (!yaml_parser_load(&parser, &extra)) {
		rc = parser_error(y, &parser, len, d);
		goto out;
	}
	if (yaml_document_get_root_node(&extra)) {
		struct pos p = { (int)extra.start_mark.line + 1,
				 (int)extra.start_mark.column + 1 };

		yaml_document_delete(&extra);
		rc = diag_set(d, file, text, p,
			      "a plan is a single YAML document");
		goto out;
	}
	yaml_document_delete(&extra);

	nodes = y->doc.nodes.top - y->doc.nodes.start;
	w.state = calloc(nodes + 1, 1);
	w.size = calloc(nodes + 1, sizeof(*w.size));
	if (!w.state || !w.size) {
		rc = diag_set(d, file, NULL, nowhere, "out of memory");
		goto out;
	}
	rc = visit(&w, 1, 0);	/* libyaml's root is node 1 */
out:
	free(w.state);
	free(w.size);
	yaml_parser_delete(&parser);
	if (rc)
		ydoc_free(y);
	return rc;
}

void ydoc_free(struct ydoc *y)
{
	if (y->loaded)
		yaml_document_delete(&y->doc);
	y->loaded = 0;
}
