/* words: a string split into words the way a shell splits a command line,
 * without expansion. */
#ifndef FSPLAN_WORDS_H
#define FSPLAN_WORDS_H

#include <stddef.h>

/*
 * Split s at blanks, honouring '...' and "..." quotes and \ escapes as a
 * shell does (no expansion of any kind). Returns a NULL-terminated vector
 * of the words, malloc'd in one allocation (free() it), or NULL out of
 * memory; *argc (if given) is the count. When at is given, *at points
 * into the same allocation at where each word starts in s.
 */
char **words_split(const char *s, int *argc, const size_t **at);

#endif
