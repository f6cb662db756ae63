/* studies: the seed studies' tables that span phases or cells — the 2008 home tree's steps, the 2008 ext4 study's ffsb profiles by threads, the 2008 OLTP study's engines. */
#ifndef FSPLAN_STUDIES_H
#define FSPLAN_STUDIES_H

#include <jansson.h>
#include <stdio.h>

#include "report/classic.h"
#include "results/results.h"

/*
 * The copy/move/rm study's table for the phases that use the tree module
 * (manifest.json's phases, given as phases; "use": "tree"): per
 * filesystem config its mkfs and mount seconds, then a row per step
 * (phase, in the plan's order) with the means over the ok repetitions of
 * seconds, files/s, MB/s (MiB) and the MiB used on the source and target
 * volumes after it (df). Returns 1 printed, 0 nothing to print.
 */
int studies_tree(FILE *f, const struct results *r, json_t *phases);
/* The same tables as grids, one per config, titled with its label and
 * its mkfs and mount seconds (see classic_grid_fn); -1 on error. */
int studies_tree_grids(const struct results *r, json_t *phases,
		       classic_grid_fn fn, void *ctx);

/*
 * The 2008 ext4 study's table for the phases that use the ffsb module: per
 * phase a row per filesystem config and, per thread count (the runs'
 * `threads`, ascending), the mean over the ok runs of the study's figure
 * and of %CPU (test_cpu_pct): write MB/s (MiB) for a profile that reads
 * nothing (the large-file create), else transactions/s. Returns 1
 * printed, 0 nothing to print.
 */
int studies_ffsb(FILE *f, const struct results *r, json_t *phases);
/* The same tables as grids, one per phase, titled with the phase and its
 * figure (see classic_grid_fn); 1 shown, 0 none, -1 on error. */
int studies_ffsb_grids(const struct results *r, json_t *phases,
		       classic_grid_fn fn, void *ctx);

/*
 * The 2008 OLTP study's table for the phases that use oltp (lua/oltp.lua)
 * or mariadb (sysbench against MariaDB): a row per filesystem config and
 * phase with the means over the ok repetitions of the total time, events,
 * transactions/s, requests/s, other/s and the min, avg and max latency
 * (ms), so the native load and the real one sit side by side, and
 * studies_oltp_note under it when a phase uses oltp. Returns 1 printed,
 * 0 nothing to print.
 */
int studies_oltp(FILE *f, const struct results *r, json_t *phases);
/* What the table says under it when a phase uses the native oltp: its
 * rates are not sysbench's (two lines, no final newline). */
extern const char studies_oltp_note[];
/* The same table as one grid (see classic_grid_fn); 1 shown, 0 none, -1
 * on error. */
int studies_oltp_grids(const struct results *r, json_t *phases,
		       classic_grid_fn fn, void *ctx);

#endif
