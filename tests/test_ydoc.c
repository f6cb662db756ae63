/* test_ydoc: one YAML document loaded, its hazards refused where they are
 * written, its nodes placed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/ydoc.h"

/* Load text (len bytes); returns ydoc_load's result, the diag in *d. */
static int load(struct ydoc *y, const char *text, size_t len, struct diag *d)
{
	memset(d, 0, sizeof(*d));
	return ydoc_load(y, "t.yaml", text, len, d);
}

/* Expect text refused at line:col (0:0: no place) with msg in the message. */
static void refused(const char *text, size_t len, int line, int col,
		    const char *msg)
{
	struct ydoc y;
	struct diag d;

	cr_assert_eq(load(&y, text, len, &d), -1, "accepted; expected '%s'",
		     msg);
	cr_expect_null(ydoc_root(&y), "a refused document has no root");
	cr_expect_str_eq(d.file, "t.yaml");
	cr_expect_eq(d.pos.line, line, "line %d, expected %d (%s)", d.pos.line,
		     line, d.msg);
	cr_expect_eq(d.pos.col, col, "col %d, expected %d (%s)", d.pos.col,
		     col, d.msg);
	cr_expect(strstr(d.msg, msg), "message '%s' lacks '%s'", d.msg, msg);
	ydoc_free(&y);	/* safe after a refusal */
}

static void refused_s(const char *text, int line, int col, const char *msg)
{
	refused(text, strlen(text), line, col, msg);
}

static void accepted(struct ydoc *y, const char *text, size_t len)
{
	struct diag d;

	cr_assert_eq(load(y, text, len, &d), 0, "refused: %d:%d: %s",
		     d.pos.line, d.pos.col, d.msg);
	cr_assert_not_null(ydoc_root(y));
}

/* The value of key in mapping m, or NULL. */
static yaml_node_t *get(struct ydoc *y, yaml_node_t *m, const char *key)
{
	cr_assert_eq(m->type, YAML_MAPPING_NODE);
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
	     p < m->data.mapping.pairs.top; p++) {
		const char *k = ydoc_scalar(ydoc_node(y, p->key));

		if (k && !strcmp(k, key))
			return ydoc_node(y, p->value);
	}
	return NULL;
}

static yaml_node_t *item(struct ydoc *y, yaml_node_t *seq, int i)
{
	cr_assert_eq(seq->type, YAML_SEQUENCE_NODE);
	cr_assert_lt(i, seq->data.sequence.items.top -
			seq->data.sequence.items.start);
	return ydoc_node(y, seq->data.sequence.items.start[i]);
}

static void expect_pos(const yaml_node_t *n, int line, int col,
		       const char *what)
{
	struct pos p = ydoc_pos(n);

	cr_expect_eq(p.line, line, "%s: line %d, expected %d", what, p.line,
		     line);
	cr_expect_eq(p.col, col, "%s: col %d, expected %d", what, p.col, col);
}

/* A growing text buffer for the generated documents. */
struct buf {
	char *s;
	size_t len, cap;
};

static void put(struct buf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		cr_assert_not_null(b->s);
	}
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

/* ---- a good document ---------------------------------------------------- */

Test(ydoc, node_positions_and_scalars)
{
	static const char text[] =
		"fsplan: 1\n"
		"name: 'quoted'\n"
		"list:\n"
		"  - one\n"
		"  - {k: \"v\", n: ~}\n"
		"flow: [a,  b]\n";
	struct ydoc y;
	yaml_node_t *root, *list, *map, *flow;

	accepted(&y, text, strlen(text));
	root = ydoc_root(&y);
	expect_pos(root, 1, 1, "root");
	cr_expect_null(ydoc_scalar(root), "a mapping is not a scalar");
	cr_expect_not(ydoc_plain(root));

	cr_assert_not_null(get(&y, root, "fsplan"));
	expect_pos(get(&y, root, "fsplan"), 1, 9, "fsplan's value");
	cr_expect_str_eq(ydoc_scalar(get(&y, root, "fsplan")), "1");
	cr_expect(ydoc_plain(get(&y, root, "fsplan")));

	/* a quoted scalar: its position is the quote, its text without */
	expect_pos(get(&y, root, "name"), 2, 7, "name");
	cr_expect_str_eq(ydoc_scalar(get(&y, root, "name")), "quoted");
	cr_expect_not(ydoc_plain(get(&y, root, "name")),
		      "'quoted' is not plain");

	list = get(&y, root, "list");
	cr_assert_not_null(list);
	expect_pos(list, 4, 3, "list (its first dash)");
	expect_pos(item(&y, list, 0), 4, 5, "one");
	cr_expect_str_eq(ydoc_scalar(item(&y, list, 0)), "one");

	map = item(&y, list, 1);
	expect_pos(map, 5, 5, "the flow mapping");
	expect_pos(get(&y, map, "k"), 5, 9, "\"v\"");
	cr_expect_str_eq(ydoc_scalar(get(&y, map, "k")), "v");
	cr_expect_not(ydoc_plain(get(&y, map, "k")));
	/* ~ is plain: the caller may read it as null */
	cr_expect_str_eq(ydoc_scalar(get(&y, map, "n")), "~");
	cr_expect(ydoc_plain(get(&y, map, "n")));

	flow = get(&y, root, "flow");
	expect_pos(flow, 6, 7, "flow");
	expect_pos(item(&y, flow, 1), 6, 12, "b");
	ydoc_free(&y);
	cr_expect_null(ydoc_root(&y), "freed: no root");
	ydoc_free(&y);	/* twice is harmless */
}

Test(ydoc, keys_that_only_look_alike_are_not_duplicates)
{
	static const char text[] = "ab: 1\nabc: 2\na: 3\n'a ': 4\n";
	struct ydoc y;

	accepted(&y, text, strlen(text));
	cr_expect_str_eq(ydoc_scalar(get(&y, ydoc_root(&y), "a ")), "4");
	ydoc_free(&y);
}

Test(ydoc, an_explicit_end_of_document_is_fine)
{
	static const char text[] = "---\na: 1\n...\n";
	struct ydoc y;

	accepted(&y, text, strlen(text));
	ydoc_free(&y);
}

Test(ydoc, shared_aliases_are_fine)
{
	/* the same anchor used twice is not a cycle */
	static const char text[] = "a: &x [1, 2]\nb: [*x, *x]\nc: *x\n";
	struct ydoc y;

	accepted(&y, text, strlen(text));
	ydoc_free(&y);
}

/* ---- hazards ------------------------------------------------------------ */

Test(ydoc, duplicate_keys)
{
	refused_s("a: 1\nb: 2\na: 3\n", 3, 1,
		  "duplicate key 'a' (first at line 1)");
	/* nested, and the later of three is not the one reported */
	refused_s("top:\n  x: 1\n  y: 2\n  x: 3\n  x: 4\n", 4, 3,
		  "duplicate key 'x' (first at line 2)");
	/* quoting does not make another key */
	refused_s("name: a\n\"name\": b\n", 2, 1,
		  "duplicate key 'name' (first at line 1)");
	refused_s("{k: 1, k: 2}\n", 1, 8, "duplicate key 'k'");
}

Test(ydoc, duplicate_key_through_an_alias)
{
	struct ydoc y;
	struct diag d;

	cr_assert_eq(load(&y, "&k a: 1\n*k : 2\n", 14, &d), -1);
	cr_expect(strstr(d.msg, "duplicate key 'a'"), "%s", d.msg);
	cr_expect_gt(d.pos.line, 0, "placed: %d:%d", d.pos.line, d.pos.col);
}

Test(ydoc, keys_must_be_scalars)
{
	refused_s("? [a, b]\n: 1\n", 1, 3, "a key must be a plain string");
	refused_s("{? {x: 1} : 2}\n", 1, 4, "a key must be a plain string");
}

Test(ydoc, recursive_aliases)
{
	/* placed at the anchor of the node that contains itself */
	refused_s("a: &x [1, *x]\n", 1, 4, "recursive alias");
	/* through a mapping, two levels further down */
	refused_s("a: &x\n  b:\n    c: *x\n", 1, 4, "recursive alias");
	refused_s("a: 1\nb: [0, &y {c: [*y]}]\n", 2, 8, "recursive alias");
}

Test(ydoc, alias_expansion_up_to_the_limit)
{
	/* [&a [x*8], *a * k]: 1 + 9 (k + 1) nodes once expanded; k =
	 * 11110 makes exactly YDOC_MAX_NODES, one alias more is past it */
	struct buf b = { 0 };
	struct ydoc y;
	struct diag d;

	cr_assert_eq(1 + 9 * (11110 + 1), YDOC_MAX_NODES);
	put(&b, "[&a [x, x, x, x, x, x, x, x]");
	for (int i = 0; i < 11110; i++)
		put(&b, ", *a");
	put(&b, "]\n");
	accepted(&y, b.s, b.len);
	ydoc_free(&y);
	b.len -= 2;
	b.s[b.len] = '\0';
	put(&b, ", *a]\n");
	cr_expect_eq(load(&y, b.s, b.len, &d), -1, "one alias past the limit");
	cr_expect(strstr(d.msg, "aliases expand to more than 100000 nodes"),
		  "%s", d.msg);
	cr_expect_eq(d.pos.line, 1);
	cr_expect_eq(d.pos.col, 1, "the list that grew past it: col %d",
		     d.pos.col);
	free(b.s);
}

Test(ydoc, an_alias_bomb_is_refused_where_it_crosses)
{
	/* each level ten of the one before: 11, 111, 1111, 11111, 111111 */
	refused_s("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
		  "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
		  "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
		  "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
		  "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
		  "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
		  5, 4, "alias bomb");
}

/* n flow lists, one in the other: the innermost at depth n - 1. */
static char *nested(int n)
{
	char *s = malloc(2 * n + 2);

	cr_assert_not_null(s);
	memset(s, '[', n);
	memset(s + n, ']', n);
	s[2 * n] = '\n';
	s[2 * n + 1] = '\0';
	return s;
}

Test(ydoc, nesting_up_to_32_levels)
{
	char *ok = nested(YDOC_MAX_DEPTH + 1), *deep = nested(YDOC_MAX_DEPTH + 2);
	struct ydoc y;

	accepted(&y, ok, strlen(ok));
	ydoc_free(&y);
	/* the list at depth 33 is the one placed */
	refused_s(deep, 1, YDOC_MAX_DEPTH + 2, "nesting deeper than 32 levels");
	free(ok);
	free(deep);
	/* block style counts the same way */
	{
		struct buf b = { 0 };

		for (int i = 0; i <= YDOC_MAX_DEPTH; i++) {
			char line[128];

			snprintf(line, sizeof(line), "%*sk%d:\n", 2 * i, "", i);
			put(&b, line);
		}
		refused(b.s, b.len, YDOC_MAX_DEPTH + 1, 2 * YDOC_MAX_DEPTH + 1,
			"nesting deeper than");
		free(b.s);
	}
}

Test(ydoc, nul_bytes)
{
	/* a raw NUL: libyaml's reader refuses it, placed by its offset */
	static const char raw[] = "a: 1\nname: ab\0cd\n";
	static const char esc[] = "a: 1\nname: \"ab\\0cd\"\n";

	refused(raw, sizeof(raw) - 1, 2, 9, "NUL byte in the plan");
	/* an escape puts it in the string, where C would cut it short */
	refused_s(esc, 2, 7, "NUL byte in a string");
}

Test(ydoc, a_second_document)
{
	refused_s("a: 1\n---\nb: 2\n", 2, 1, "a plan is a single YAML document");
	refused_s("a: 1\n...\n---\nrm: -rf\n", 3, 1, "single YAML document");
}

Test(ydoc, empty)
{
	refused_s("", 0, 0, "the plan is empty");
	refused_s("# only a comment\n\n", 0, 0, "the plan is empty");
}

Test(ydoc, size_limit)
{
	size_t n = YDOC_MAX_BYTES;
	char *s = malloc(n + 2);
	struct ydoc y;

	cr_assert_not_null(s);
	/* a comment to fill it, then one key: exactly the limit loads */
	s[0] = '#';
	memset(s + 1, 'x', n - 1);
	memcpy(s + n - 6, "\na: 1\n", 6);
	accepted(&y, s, n);
	cr_expect_str_eq(ydoc_scalar(get(&y, ydoc_root(&y), "a")), "1");
	ydoc_free(&y);
	/* one byte more does not, before any parsing */
	memcpy(s + n - 6, "\na: 1\n\n", 7);
	refused(s, n + 1, 0, 0, "plan is larger than 4194304 bytes");
	free(s);
}

Test(ydoc, yaml_errors_are_placed)
{
	/* an unclosed quote: where it was opened */
	refused_s("a: 1\nb: \"open\n", 2, 4, "YAML:");
	refused_s("a: 1\n\tb: 2\n", 2, 1, "YAML:");
}
