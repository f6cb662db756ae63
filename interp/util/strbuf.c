/* strbuf: a growable NUL-ended string. */
#include <stdio.h>
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

int strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap)
{
	va_list again;
	char *p;
	int n;

	if (b->oom)
		return -1;
	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (n < 0)
		return -1;
	p = grow_array(b->p, &b->cap, b->len + (size_t)n + 1, 1, 64);
	if (!p) {
		b->oom = 1;
		return -1;
	}
	b->p = p;
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = strbuf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}
