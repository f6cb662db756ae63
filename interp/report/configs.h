/* configs: the report's table of filesystem configs, as made and timed. */
#ifndef FSPLAN_CONFIGS_H
#define FSPLAN_CONFIGS_H

#include <jansson.h>
#include <stdio.h>

#include "report/table.h"
#include "results/results.h"

/*
 * The filesystem configs of runs (all of a run's), a row each in order of
 * first appearance — a config whose phase runs were all skipped too:
 * label, type, mkfs options, what mkfs made (from mconf, manifest.json's
 * configs, by label: its mkfs_applied in short; a column only when some
 * config has one, its words wrapped in text), mount options, and the
 * mean of each measurement of its own rows (mkfs_s, mount_s, umount_s:
 * "-" when it has none). mconf may be NULL. Into g (zeroed by the
 * caller, freed with table_free); 0, or -1 out of memory.
 */
int configs_table(struct table *g, const struct res_run *const *runs,
		  size_t n, json_t *mconf);

/* configs_table as text into f. */
int configs_text(FILE *f, const struct res_run *const *runs, size_t n,
		 json_t *mconf);

/* How many rounds made config label anew (order: rounds: its own rows'
 * distinct reps), 0 when it was made once (rep 0). configs_table shows
 * it in a column rounds when some config has more than one. */
int configs_rounds(const struct res_run *const *runs, size_t n,
		   const char *label);

#endif
