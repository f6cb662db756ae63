/* classic: the seed studies' tables — tiobench's layout, and the helpers the
 * study tables share. */
#ifndef FSPLAN_CLASSIC_H
#define FSPLAN_CLASSIC_H

#include <jansson.h>
#include <stdio.h>

#include "report/table.h"
#include "results/results.h"

/*
 * tiobench's layout for the ok runs of a phase (in->runs): Sequential
 * Reads, Random Reads, Sequential Writes, Random Writes (from the mode
 * parameter: a cell's axis, else the phase's with: value, see
 * classic_tio_mode), a row per filesystem config and thread count, the
 * means over repetitions, as one table of a section each. Runs without
 * rate_mbs and block_bytes are left out. A study of study_list.
 */
int classic_tio_tables(struct tables *out, const struct table_src *in);

/*
 * The with_mode of phase for the tiobench tables: the mode its with:
 * gives (manifest.json's phases; NULL for a ${name}, which the cells'
 * rows say), else for a phase that uses tiobench and gives no mode the
 * module's default, seq_write; NULL otherwise. Borrowed.
 */
const char *classic_tio_mode(json_t *phases, const char *phase);

/*
 * The Rate column of classic_tiobench's rows, in its order, given to fn:
 * the section's title ("Sequential Reads"), the row's identifier, its
 * thread count (NAN when none) and the mean rate (MiB/s). A nonzero
 * return from fn stops it. Returns 0, or -1 out of memory or when fn
 * failed.
 */
typedef int (*classic_tio_fn)(void *ctx, const char *section,
			      const char *ident, double threads, double rate);
int classic_tio_rates(const struct res_run *const *runs, size_t n,
		      const char *with_mode, classic_tio_fn fn, void *ctx);

/* Whether metric name is a figure of the tiobench sections, so that
 * report need not repeat it as a table of its own. */
int classic_tio_shows(const char *name);

/* A mean built one repetition at a time; n == 0 means "not measured". */
struct classic_acc {
	double sum;
	int n;
};

/* Add run's value of name, when it has one; 1 and the mean in *v, or 0
 * when nothing was added. */
void classic_acc_add(struct classic_acc *a, const struct res_run *run,
		     const char *name);
int classic_acc_mean(const struct classic_acc *a, double *v);

/* A run's identifier for the tables: its label and its parameters but
 * those in skip (malloc'd), and the index of name in names, or -1. */
char *classic_ident(const struct res_run *run, const char *const *skip);
int classic_order(char **names, size_t n, const char *name);

#endif
