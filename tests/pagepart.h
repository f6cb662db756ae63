/* pagepart: test helpers that pick pieces out of a report's text or page. */
#ifndef FSPLAN_TEST_PAGEPART_H
#define FSPLAN_TEST_PAGEPART_H

#include <string.h>

/* How many times what occurs in s (NULL: none), not overlapping. */
static inline int page_count(const char *s, const char *what)
{
	int n = 0;

	for (; s && (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

/* The n-th (0-based) stretch of page from `from` to the next `to`
 * (malloc'd), or NULL. */
static inline char *page_part(const char *page, const char *from,
			      const char *to, int n)
{
	const char *a = page, *b;

	for (int i = 0; a && i <= n; i++)
		a = strstr(i ? a + 1 : a, from);
	if (!a || !(b = strstr(a, to)))
		return NULL;
	return strndup(a, b - a);
}

#endif
