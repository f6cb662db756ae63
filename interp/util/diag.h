/* diag: the one failure record — what kind, errno, the plan's place, the
 * message and a grown detail — printed like a compiler's. */
#ifndef FSPLAN_DIAG_H
#define FSPLAN_DIAG_H

#include <stddef.h>

#include "util/strbuf.h"

/* A place in a source file; line and col count from 1, 0 means unknown. */
struct pos {
	int line;
	int col;
};

/* What failed; the exit code and a phase run's status follow from it. */
enum diag_kind {
	DIAG_INPUT,	/* a plan, module, option or file is wrong (the zero) */
	DIAG_SYSTEM,	/* a system call failed: err is its errno */
	DIAG_REFUSED,	/* refused to keep data safe: a device in use, ... */
	DIAG_PHASE,	/* a phase failed as it ran: raised, I/O error, bad value */
	DIAG_LIMIT,	/* a limit fsplan sets was reached: time, memory, output */
};

/*
 * Every layer above the system calls fails by filling one of these and
 * returning -1. Zeroed, it is an input error with no place and no text.
 * msg is bounded by diag_set and diag_fail: text that does not fit is cut
 * in the middle with a mark saying how much, never silently; what is
 * longer than a message (a traceback, a tool's stderr) goes in detail,
 * which grows and which diag_release frees.
 */
struct diag {
	enum diag_kind kind;
	int err;		/* errno, 0 if none */
	char file[256];
	struct pos pos;
	char msg[1024];
	char srcline[256];	/* the offending source line, if known */
	struct strbuf detail;
};

/*
 * Fill d with a message at pos in file; src (may be NULL) is the whole
 * source text, from which the line is copied for the caret display.
 * Returns -1 so a handler can `return diag_set(...)`.
 */
int diag_set(struct diag *d, const char *file, const char *src, struct pos pos,
	     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * A failure with no place in a file: kind, errno (0 for none; when set,
 * ": strerror" ends the message) and the message. Returns -1.
 */
int diag_fail(struct diag *d, enum diag_kind kind, int err, const char *fmt,
	      ...) __attribute__((format(printf, 4, 5)));
/* Append text to d's detail (grown). */
void diag_detail(struct diag *d, const char *text);
/* Free what d holds (its detail) and zero it. */
void diag_release(struct diag *d);
/* The kind's name: "input", "system", "refused", "phase", "limit". */
const char *diag_kind_name(enum diag_kind kind);

/* "file:line:col: message", then the source line and a caret. */
void diag_format(const struct diag *d, char *buf, size_t len);
void diag_print(const struct diag *d);

/* The candidate nearest to word (edit distance), or NULL if none is close. */
const char *diag_suggest(const char *word, const char *const *cands, size_t n);

#endif
