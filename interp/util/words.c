/* words: a string split into words the way a shell splits a command line,
 * without expansion. */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "util/words.h"

char **words_split(const char *s, int *argc, const size_t **at)
{
	const char *s0 = s;
	size_t len = strlen(s);
	/* at most len/2+1 words; their starts, then the strings, after the
	 * vector */
	size_t nvec = len / 2 + 2;
	char **v;
	size_t *start;
	char *out;
	int n = 0;

	_Static_assert(alignof(size_t) <= alignof(char *), "starts' alignment");
	v = malloc(nvec * (sizeof(char *) + sizeof(size_t)) + len + 1);
	if (!v)
		return NULL;
	start = (size_t *)(v + nvec);
	out = (char *)(start + nvec);
	while (*s) {
		char quote = 0;

		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		start[n] = (size_t)(s - s0);
		v[n++] = out;
		for (; *s; s++) {
			if (quote) {
				if (*s == quote)
					quote = 0;
				else if (*s == '\\' && quote == '"' && s[1])
					*out++ = *++s;
				else
					*out++ = *s;
			} else if (*s == '\'' || *s == '"') {
				quote = *s;
			} else if (*s == '\\' && s[1]) {
				*out++ = *++s;
			} else if (*s == ' ' || *s == '\t' || *s == '\n') {
				break;
			} else {
				*out++ = *s;
			}
		}
		*out++ = '\0';
	}
	v[n] = NULL;
	if (argc)
		*argc = n;
	if (at)
		*at = start;
	return v;
}
