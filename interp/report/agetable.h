/* agetable: the report's table of how aged each config was, as measured. */
#ifndef FSPLAN_AGETABLE_H
#define FSPLAN_AGETABLE_H

#include <jansson.h>
#include <stdio.h>

#include "report/table.h"
#include "results/results.h"

/*
 * When some config's own rows (phase "") have age_fill_pct: a row per
 * config of r, in order of first appearance — config, its age (the name
 * of manifest.json's configs[].age, by label, from mconf; "none" without
 * one), and the means over its rows (its rounds) of the age_* figures
 * (3 significant figures, the layout score to 3 decimals; "-" where it
 * has none: a fresh config) — with a note on the layout score. Into g
 * (zeroed by the caller, freed with table_free): 0; 1 when no config
 * was aged (g untouched); -1 out of memory.
 */
int agetable_table(struct table *g, const struct results *r, json_t *mconf);

/* The table as text into f, under its title "== aging (...) ==", or
 * nothing when no config was aged. 0, or -1 out of memory. */
int agetable_text(FILE *f, const struct results *r, json_t *mconf);

/* The same as html: a heading and the table. */
int agetable_html(FILE *f, const struct results *r, json_t *mconf);

#endif
