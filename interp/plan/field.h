/* field: the loader's typed field readers, shared by every plan section. */
#ifndef FSPLAN_FIELD_H
#define FSPLAN_FIELD_H

#include "plan/types.h"
#include "plan/ydoc.h"

/* One load: the document, the plan being filled, where errors go. */
struct loader {
	struct ydoc y;
	struct plan *p;
	struct diag *d;
	const struct plan_define *defs;
	int n_defs;
	yaml_node_t *key;	/* in a field_mapping handler: its key */
};

typedef int (*field_handler)(struct loader *L, yaml_node_t *n, void *obj);

/* One key of a mapping; handlers run in table order, not file order. */
struct field {
	const char *key;
	field_handler fn;
	int required;
};

/* Errors: every one returns -1. */
int field_error(struct loader *L, struct pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct pos field_offset_pos(const struct pstr *ps, size_t off);

/* Walk a mapping with a field table: unknown keys are errors with a
 * suggestion, required keys are enforced, `what` names it in errors. */
int field_mapping(struct loader *L, yaml_node_t *map,
		  const struct field *fields, void *obj, const char *what);

/* Scalars. */
const char *field_scalar(struct loader *L, yaml_node_t *n, const char *key);
int field_pstr(struct loader *L, yaml_node_t *n, const char *key,
	       struct pstr *out);
int field_pstr_params(struct loader *L, yaml_node_t *n, const char *key,
		      struct pstr *out);
int field_int(struct loader *L, yaml_node_t *n, const char *key, int min,
	      int max, int *out);
int field_ident(struct loader *L, yaml_node_t *n, const char *what);
char *field_strdup(struct loader *L, const char *s);

/*
 * A value or a list of values (alternatives), no duplicates. With expand
 * set, parameters are expanded; otherwise the raw text is kept and its
 * ${...} references are checked against the scope (ph, axes).
 */
int field_list(struct loader *L, yaml_node_t *n, const char *key,
	       struct pstr **out, int *n_out, int expand,
	       const struct plan_phase *ph, int axes);
/* The items of a sequence; 0 for anything else. */
int field_seq_len(yaml_node_t *n);
/* between: a list of actions, or none. */
int field_between(struct loader *L, yaml_node_t *n, struct between *out);
/* repeat: a count, or a stop rule {min, max, ci: 5%}: *count is then max
 * (default 10), *min (default 3), *ci the half-width as a fraction. */
int field_repeat(struct loader *L, yaml_node_t *n, int *count, int *min,
		 double *ci);

/* ${...}: check against a scope, or expand parameters in place. */
int field_check_refs(struct loader *L, const struct pstr *ps,
		     const struct plan_phase *ph, int axes);
int field_expand_params(struct loader *L, struct pstr *ps);

#endif
