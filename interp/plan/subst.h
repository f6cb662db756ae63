/* subst: ${name} expansion of plan strings. */
#ifndef FSPLAN_SUBST_H
#define FSPLAN_SUBST_H

#include <stddef.h>

/* Returns the value of name[0..len), or NULL when it is not in scope. */
typedef const char *(*subst_lookup)(void *ctx, const char *name, size_t len);

struct subst_error {
	size_t offset;		/* byte offset of the offending '$' */
	char name[64];		/* the undefined name, if that was the error */
	const char *what;	/* message */
};

/*
 * Expand ${name} in `in` in one pass (values are not re-scanned); "$$"
 * is a literal '$', and a '$' followed by anything else stays as it is,
 * so shell variables in exec commands survive. With out NULL only
 * checks. Returns 0, or -1 with e filled.
 */
int subst(const char *in, subst_lookup look, void *ctx, char **out,
	  struct subst_error *e);

/* Whether the string refers to any ${name} at all. */
int subst_has_ref(const char *in);

#endif
