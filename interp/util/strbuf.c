/* strbuf: a growable NUL-ended string. */
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

int strbuf_add(struct strbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return -1;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *np;

		while (cap < b->len + n + 1)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->oom = 1;
			return -1;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int strbuf_str(struct strbuf *b, const char *s)
{
	return strbuf_add(b, s, strlen(s));
}
