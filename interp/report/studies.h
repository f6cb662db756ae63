/* studies: the seed studies' tables that span phases or cells — the 2008 home
 * tree's steps, the 2008 ext4 study's ffsb profiles by threads, the 2008 OLTP
 * study's engines. */
#ifndef FSPLAN_STUDIES_H
#define FSPLAN_STUDIES_H

#include <jansson.h>

#include "report/table.h"
#include "results/results.h"

/*
 * The copy/move/rm study's table for the phases that use the tree module
 * (in->phases, manifest.json's; "use": "tree"): a section per filesystem
 * config, titled with its mkfs and mount seconds, and a row per step
 * (phase, in the plan's order) with the means over the ok repetitions of
 * seconds, files/s, MB/s (MiB) and the MiB used on the source and target
 * volumes after it (df). A study of study_list, of the whole run (in->r).
 */
int studies_tree_tables(struct tables *out, const struct table_src *in);

/*
 * The 2008 ext4 study's tables for the phases that use the ffsb module: a
 * table per phase, a row per filesystem config and, per thread count (the
 * runs' `threads`, ascending), the mean over the ok runs of the study's
 * figure and of %CPU (test_cpu_pct): write MB/s (MiB) for a profile that
 * reads nothing (the large-file create), else transactions/s.
 */
int studies_ffsb_tables(struct tables *out, const struct table_src *in);

/*
 * The 2008 OLTP study's table for the phases that use oltp (lua/oltp.lua)
 * or mariadb (sysbench against MariaDB): a row per filesystem config and
 * phase with the means over the ok repetitions of the total time, events,
 * transactions/s, requests/s, other/s and the min, avg and max latency
 * (ms), so the native load and the real one sit side by side, and
 * STUDIES_OLTP_NOTE under it when a phase uses oltp.
 */
int studies_oltp_tables(struct tables *out, const struct table_src *in);

/* What the OLTP table says under it when a phase uses the native oltp:
 * its rates are not sysbench's (two lines, no final newline). */
#define STUDIES_OLTP_NOTE \
	"use: oltp is the I/O of sysbench's transactions without a " \
	"database's CPU:\nits rates are not sysbench's; only the configs' " \
	"order compares across engines."

#endif
