/* subst: expand ${name} in plan strings, one pass, with exact error offsets. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "plan/subst.h"
#include "util/strbuf.h"

/* Text into b; NULL: only checking, nothing kept. An out-of-memory is
 * b's oom, seen at the end. */
static void put(struct strbuf *b, const char *s, size_t n)
{
	if (b)
		strbuf_add(b, s, n);
}

static int is_name_char(int c, int first)
{
	return c == '_' || isalpha(c) || (!first && isdigit(c));
}

static int error(struct subst_error *e, size_t off, const char *what,
		 const char *name, size_t len)
{
	e->offset = off;
	e->what = what;
	e->undefined = 0;
	e->length = 0;
	if (len >= sizeof(e->name))
		len = sizeof(e->name) - 1;
	memcpy(e->name, name, len);
	e->name[len] = '\0';
	return -1;
}

int subst(const char *in, subst_lookup look, void *ctx, char **out,
	  struct subst_error *e)
{
	struct strbuf b = { 0 }, *bp = out ? &b : NULL;
	const char *p = in;
	size_t total = 0;	/* what the text comes to, kept or not */

	put(bp, "", 0);
	while (*p) {
		const char *dollar = strchr(p, '$');
		const char *name, *val;
		size_t n;

		if (!dollar) {
			put(bp, p, strlen(p));
			break;
		}
		put(bp, p, dollar - p);
		total += dollar - p;
		if (dollar[1] == '$') {
			put(bp, "$", 1);
			total++;
			p = dollar + 2;
			continue;
		}
		if (dollar[1] != '{') {
			put(bp, "$", 1);
			total++;
			p = dollar + 1;
			continue;
		}
		name = dollar + 2;
		for (n = 0; is_name_char((unsigned char)name[n], n == 0); n++)
			;
		if (name[n] != '}') {
			free(b.p);
			if (!memchr(name, '}', strlen(name)))
				return error(e, dollar - in,
					     "unterminated '${'", "", 0);
			return error(e, dollar - in,
				     "a ${...} name is letters, digits and "
				     "'_', not starting with a digit", "", 0);
		}
		val = look(ctx, name, n);
		if (!val) {
			free(b.p);
			error(e, dollar - in, "undefined", name, n);
			e->undefined = 1;
			return -1;
		}
		/* ten parameters each ten copies of the one before would
		 * be 10 GB: the text stops at SUBST_MAX, at the name */
		if (total > SUBST_MAX || strlen(val) > SUBST_MAX - total) {
			free(b.p);
			error(e, dollar - in, "too long", name, n);
			e->length = total + strlen(val);
			return -1;
		}
		put(bp, val, strlen(val));
		total += strlen(val);
		p = name + n + 1;
	}
	if (b.oom) {
		free(b.p);
		return error(e, 0, "out of memory", "", 0);
	}
	if (out)
		*out = b.p;
	return 0;
}

int subst_has_ref(const char *in)
{
	for (const char *p = in; (p = strchr(p, '$')); p++) {
		if (p[1] == '$')
			p++;
		else if (p[1] == '{')
			return 1;
	}
	return 0;
}
