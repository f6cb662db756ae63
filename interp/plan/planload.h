/* planload: the plan loader's internals, shared by plan.c and plansec.c. */
#ifndef FSPLAN_PLANLOAD_H
#define FSPLAN_PLANLOAD_H

#include "plan/plan.h"
#include "plan/ydoc.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct loader {
	struct ydoc y;
	struct plan *p;
	struct diag *d;
	const struct plan_define *defs;
	int n_defs;
};

typedef int (*pl_handler)(struct loader *L, yaml_node_t *n, void *obj);

/* One key of a mapping; handlers run in table order, not file order. */
struct pl_field {
	const char *key;
	pl_handler fn;
	int required;
};

/* Errors: every one returns -1. */
int pl_error(struct loader *L, struct pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct pos pl_offset_pos(const struct pstr *ps, size_t off);

/* Walk a mapping with a field table: unknown keys are errors with a
 * suggestion, required keys are enforced, `what` names it in errors. */
int pl_mapping(struct loader *L, yaml_node_t *map,
	       const struct pl_field *fields, void *obj, const char *what);

/* Scalars. */
const char *pl_scalar(struct loader *L, yaml_node_t *n, const char *key);
int pl_pstr(struct loader *L, yaml_node_t *n, const char *key,
	    struct pstr *out);
int pl_pstr_params(struct loader *L, yaml_node_t *n, const char *key,
		   struct pstr *out);
int pl_int(struct loader *L, yaml_node_t *n, const char *key, int min,
	   int max, int *out);
int pl_ident(struct loader *L, yaml_node_t *n, const char *what);
char *pl_strdup(struct loader *L, const char *s);

/* A value or a list of values, parameters expanded, no duplicates. */
int pl_values(struct loader *L, yaml_node_t *n, const char *key,
	      struct pstr **out, int *n_out);
int pl_seq_len(yaml_node_t *n);

/* ${...}: check against a scope, or expand parameters in place. */
int pl_check_refs(struct loader *L, const struct pstr *ps,
		  const struct plan_phase *ph, int axes);
int pl_expand_params(struct loader *L, struct pstr *ps);

/* Sections, in plansec.c. */
int pl_between(struct loader *L, yaml_node_t *n, struct between *out);
int pl_matrix(struct loader *L, yaml_node_t *n, const char *key,
	      struct plan_axis **out, int *n_out,
	      const struct plan_phase *ph);
int pl_target(struct loader *L, yaml_node_t *n, void *obj);
int pl_filesystems(struct loader *L, yaml_node_t *n, void *obj);
int pl_phases(struct loader *L, yaml_node_t *n, void *obj);
int pl_excludes(struct loader *L, yaml_node_t *n, void *obj);
int pl_dir_fs(struct loader *L);

#endif
