/* strbuf: a growable NUL-ended string, the one way fsplan builds text of
 * unknown length in memory. */
#ifndef FSPLAN_STRBUF_H
#define FSPLAN_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

/* Zeroed, it is empty; p is NULL until the first add, then always
 * NUL-ended. The caller frees p. */
struct strbuf {
	char *p;
	size_t len, cap;
	int oom;		/* an add ran out of memory: sticky */
};

/* Append n bytes of s. 0, or -1 out of memory (then, and after, oom). */
int strbuf_add(struct strbuf *b, const char *s, size_t n);
/* Append the string s. */
int strbuf_str(struct strbuf *b, const char *s);
/* Append formatted text, as long as it is. 0, or -1 out of memory. */
int strbuf_printf(struct strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap);

#endif
