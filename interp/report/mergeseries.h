/* mergeseries: the shards' timeseries.csv joined into the merge's. */
#ifndef FSPLAN_MERGESERIES_H
#define FSPLAN_MERGESERIES_H

#include <stddef.h>

#include "report/mergemanifest.h"
#include "util/diag.h"

/*
 * path (OUT/timeseries.csv) written from the shards' own: of each cell
 * the last block a shard holds (a --resume writes a phase run's block
 * anew), from the first shard that has one, in plan order (ix), with
 * run_id the merge's. A shard without the file adds nothing; the file
 * is written all the same (its header). 0, or -1 with d.
 */
int mergeseries_join(const struct merge_shard *sh, size_t n,
		     const struct merge_index *ix, const char *path,
		     const char *run_id, struct diag *d);
/* The same of histograms.csv (a cell's block: its ops' buckets). */
int mergeseries_hist(const struct merge_shard *sh, size_t n,
		     const struct merge_index *ix, const char *path,
		     const char *run_id, struct diag *d);

#endif
