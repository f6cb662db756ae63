/* hometree: the 2008 home tree study's table (copy, move and rm steps). */
#ifndef FSPLAN_HOMETREE_H
#define FSPLAN_HOMETREE_H

#include "report/table.h"

/*
 * The copy/move/rm study's table for the phases that use the tree module
 * (in->phases, manifest.json's; "use": "tree"): a section per filesystem
 * config and values of the top-level matrix axes (never averaged
 * together), titled with its mkfs and mount seconds per volume (source,
 * target), and a row per step (phase, in the plan's order; per values of
 * the phase's own axes) with the means over the ok repetitions of
 * seconds, the step's user and system CPU seconds and CPU%, files/s,
 * MiB/s (none for a move, a rename, nor for rm1 and rm2, which move no
 * data) and the MiB used on the source and target volumes after it (df).
 * A study of study_list, of the whole run (in->r).
 */
int hometree_tables(struct tables *out, const struct table_src *in);

#endif
