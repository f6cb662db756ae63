/* mergemanifest: the manifests of merge's shards — loaded, checked against each
 * other, joined. */
#ifndef FSPLAN_MERGEMAN_H
#define FSPLAN_MERGEMAN_H

#include <jansson.h>
#include <stddef.h>

#include "results/results.h"
#include "util/diag.h"
#include "util/strbuf.h"

/* One shard's run directory. */
struct merge_shard {
	const char *dir;
	json_t *man;
	struct results r;
	const char *host;	/* its system.hostname, else its dir */
	const char *run_id;	/* its manifest's run_id */
	int loaded;		/* r holds results */
};

/* Load dir's manifest.json and results.csv into s; -1 with d filled when
 * either is missing or unreadable, warnings (rows left out) as lines in
 * notes. mergemanifest_free either way. */
int mergemanifest_load(struct merge_shard *s, const char *dir,
		       struct strbuf *notes, struct diag *d);
void mergemanifest_free(struct merge_shard *s);

/*
 * The shards are of one plan run alike: the same plan sha256, the same
 * parameters, the same phases and phase modules. -1 with the difference
 * in d.
 */
int mergemanifest_check(const struct merge_shard *sh, size_t n,
			struct diag *d);

/* Notes that do not refuse, as lines in notes: a shard that did not
 * complete, cells of the plan that no shard ran (n_cells: the merged
 * ones). */
void mergemanifest_notes(const struct merge_shard *sh, size_t n,
			 size_t n_cells, struct strbuf *notes);

/* Where a config (by label) and a cell (by id) come in the plan. */
struct merge_index {
	struct merge_cell { const char *id; long index; } *cells, *confs;
	size_t n_cells, n_confs;	/* sorted by id (a config's label) */
	size_t n_distinct;		/* distinct cell ids */
};

/* 0, or -1 out of memory (d says). */
int mergemanifest_index(struct merge_index *ix, const struct merge_shard *sh,
			size_t n, struct diag *d);
void mergemanifest_index_free(struct merge_index *ix);
/* The index in the plan, or LONG_MAX when no manifest names it. */
long mergemanifest_conf_index(const struct merge_index *ix, const char *label);
long mergemanifest_cell_index(const struct merge_index *ix, const char *cell);

/*
 * The merged manifest.json, as text in *text (malloc'd, ending in a
 * newline; its length in *len): the first shard's, with run_id and
 * command (argv) the merge's, the union of the cells in plan order, each
 * config as the shard that ran it recorded it with that host's system,
 * target, host and shard, the system and target facts all hosts share
 * at the top, and "merged": one entry per shard. Its status: "incomplete"
 * when a shard is not complete, else "partial" when the shards together
 * lack cells of the plan, else "complete". -1 out of memory.
 */
int mergemanifest_build(const struct merge_shard *sh, size_t n,
		   const char *run_id, int argc, char **argv, char **text,
		   size_t *len);

#endif
