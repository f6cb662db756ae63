/* subst: ${name} expansion of plan strings. */
#ifndef FSPLAN_SUBST_H
#define FSPLAN_SUBST_H

#include <stddef.h>

/* Returns the value of name[0..len), or NULL when it is not in scope. */
typedef const char *(*subst_lookup)(void *ctx, const char *name, size_t len);

/* The longest text an expansion may make: 1 MiB. */
#define SUBST_MAX ((size_t)1 << 20)

struct subst_error {
	size_t offset;		/* byte offset of the offending '$' */
	char name[64];		/* the name at fault, if a name is */
	const char *what;	/* message */
	int undefined;		/* name is not in scope */
	size_t length;		/* else: the text would pass SUBST_MAX, at
				 * least this long with name's value */
};

/*
 * Expand ${name} in `in` in one pass (values are not re-scanned); "$$"
 * is a literal '$', and a '$' followed by anything else stays as it is,
 * so shell variables in exec commands survive. With out NULL only
 * checks. A result longer than SUBST_MAX is an error at the name that
 * makes it so. Returns 0, or -1 with e filled.
 */
int subst(const char *in, subst_lookup look, void *ctx, char **out,
	  struct subst_error *e);

/* Whether the string refers to any ${name} at all. */
int subst_has_ref(const char *in);

#endif
