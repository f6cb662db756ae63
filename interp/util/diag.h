/* diag: an error with the place it comes from, printed like a compiler's. */
#ifndef FSPLAN_DIAG_H
#define FSPLAN_DIAG_H

#include <stddef.h>

/* A place in a source file; line and col count from 1, 0 means unknown. */
struct pos {
	int line;
	int col;
};

struct diag {
	char file[256];
	struct pos pos;
	char msg[512];
	char srcline[256];	/* the offending source line, if known */
};

/*
 * Fill d with a message at pos in file; src (may be NULL) is the whole
 * source text, from which the line is copied for the caret display.
 * Returns -1 so a handler can `return diag_set(...)`.
 */
int diag_set(struct diag *d, const char *file, const char *src, struct pos pos,
	     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* "file:line:col: message", then the source line and a caret. */
void diag_format(const struct diag *d, char *buf, size_t len);
void diag_print(const struct diag *d);

/* The candidate nearest to word (edit distance), or NULL if none is close. */
const char *diag_suggest(const char *word, const char *const *cands, size_t n);

#endif
