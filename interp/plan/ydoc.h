/* ydoc: a YAML document loaded with libyaml and checked for hazards. */
#ifndef FSPLAN_YDOC_H
#define FSPLAN_YDOC_H

#include <yaml.h>

#include "util/diag.h"

/* Limits that keep hostile input from being walked (reliability.md). */
#define YDOC_MAX_DEPTH	32
#define YDOC_MAX_NODES	100000	/* after alias expansion */
#define YDOC_MAX_BYTES	(4 << 20)

struct ydoc {
	yaml_document_t doc;
	int loaded;
	const char *file;	/* borrowed, for diagnostics */
	const char *text;	/* borrowed, for diagnostics */
};

/*
 * Load text as exactly one YAML document and reject what must not be
 * walked: duplicate keys, non-scalar keys, aliases that contain
 * themselves, alias expansion beyond YDOC_MAX_NODES, nesting beyond
 * YDOC_MAX_DEPTH, NUL bytes in scalars. file and text must outlive y.
 */
int ydoc_load(struct ydoc *y, const char *file, const char *text, size_t len,
	      struct diag *d);
void ydoc_free(struct ydoc *y);

yaml_node_t *ydoc_root(struct ydoc *y);
yaml_node_t *ydoc_node(struct ydoc *y, int index);
struct pos ydoc_pos(const yaml_node_t *n);
/* The scalar's text (NUL-terminated by libyaml), or NULL if not a scalar. */
const char *ydoc_scalar(const yaml_node_t *n);
/* Whether a scalar was written without quotes (so `~`, `null` are null). */
int ydoc_plain(const yaml_node_t *n);

#endif
