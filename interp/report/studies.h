/* studies: the seed studies' tables that span phases or cells — the 2008 ext4
 * study's ffsb profiles by threads, the 2008 OLTP study's engines. */
#ifndef FSPLAN_STUDIES_H
#define FSPLAN_STUDIES_H

#include <jansson.h>

#include "report/table.h"
#include "results/results.h"

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
 * its rates are not sysbench's, and the difference from MariaDB that
 * remains (bench/oltp.sh), in one line (two lines, no final newline). */
#define STUDIES_OLTP_NOTE \
	"use: oltp is MariaDB's I/O and a loop for its CPU, not sysbench: " \
	"compare configs' rates relative to one another.\n" \
	"Relative to ext4, its rates were 0.83-1.02x MariaDB's and its I/O " \
	"a transaction 0.86-1.24x (bench/oltp.sh, two runs of 5 rounds; the " \
	"orders agree)."

#endif
