/* strbuf: a growable NUL-ended string. */
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/strbuf.h"

int strbuf_add(struct strbuf *b, const char *s, size_t n)
{
	char *p;

	if (b->oom)
		return -1;
	p = grow_array(b->p, &b->cap, b->len + n + 1, 1, 64);
	if (!p) {
		b->oom = 1;
		return -1;
	}
	b->p = p;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int strbuf_str(struct strbuf *b, const char *s)
{
	return strbuf_add(b, s, strlen(s));
}
