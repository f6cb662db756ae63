/* reselect: a run's -D, --only, --shard, kept so --resume selects alike. */
#ifndef FSPLAN_RESELECT_H
#define FSPLAN_RESELECT_H

#include <stddef.h>

#include <jansson.h>

#include "cells/cellopts.h"

/* The selection as the manifest keeps it: {"defines": ["k=v", ...],
 * "only": [...], "shard": "K/N" or null}. */
json_t *reselect_json(const struct cell_opts *co);

/*
 * --resume dir: the selection dir's manifest records goes into co when
 * the command line gives none (the strings are kept in *keep, a
 * NULL-ended array for reselect_free); the same one given again passes;
 * another is refused: -1 with d. A manifest without one (a run from
 * before it was kept) leaves co as given.
 */
int reselect_resume(const char *dir, struct cell_opts *co, char ***keep,
		    struct diag *d);
void reselect_free(char **keep);

#endif
