/* select: the --only and --shard filters over an expansion's cells. */
#ifndef FSPLAN_SELECT_H
#define FSPLAN_SELECT_H

#include "util/diag.h"
#include "cells/expand.h"

/* "K/N" with 1 <= K <= N. */
int select_parse_shard(const char *s, int *k, int *n);

/*
 * Keep the cells that match any --only filter ("type=xfs,threads=8":
 * every k=v must hold) and whose filesystem config falls in shard k of n
 * (n 0: no sharding). Shards split by config, so every cell of a config
 * — and so the history of its filesystem — stays on one machine; the
 * config's index (1-based) mod n picks the shard. An unknown coordinate
 * in a filter is an error with a suggestion.
 */
int select_cells(struct expansion *e, const char *const *only, int n_only,
		 int shard_k, int shard_n, struct diag *d);

#endif
