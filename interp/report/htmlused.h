/* htmlused: what a run used, as its html page tells it — tools, options. */
#ifndef FSPLAN_REPORT_HTMLUSED_H
#define FSPLAN_REPORT_HTMLUSED_H

#include <jansson.h>
#include <stdio.h>

#include "results/results.h"

/*
 * Whether the run of manifest m and results r (may be NULL) used tool (a
 * key of system.tools): mount always; mkfs.<type> for a config or a run
 * of that type (mke2fs's mkfs.ext4 for ext2 and ext3 too); a
 * benchmark's when a phase uses its
 * module (bonnie: bonnie++; mariadb: mariadbd and sysbench) or an exec
 * phase's command names it as a word.
 */
int htmlused_tool(json_t *m, const struct results *r, const char *tool);
/*
 * Config o's (manifest.json's configs[]) applied mount options as what
 * the kernel changed of those requested (mountopts_compare:
 * "dioread_nolock dropped, nodelalloc added"), or "as requested", the
 * whole applied string in the cell's title; "-" without one. 0, or -1
 * out of memory.
 */
int htmlused_mount_change(FILE *f, json_t *o);
/*
 * The page's configs in the order manifest m lists them, then any other
 * of r's runs: each keeps its colour on every chart (html_config_index).
 * 0, or -1 out of memory.
 */
int htmlused_configs(json_t *m, const struct results *r);

#endif
