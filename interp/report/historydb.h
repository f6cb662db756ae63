/* historydb: what history.c and historyq.c share of the SQLite database. */
#ifndef FSPLAN_HISTORYDB_H
#define FSPLAN_HISTORYDB_H

#include <sqlite3.h>

#include <jansson.h>

#include "results/results.h"
#include "util/diag.h"

struct history {
	sqlite3 *db;
	char *path;
};

/* "PATH: what SQLite said" for what: -1 with d filled. */
int historydb_fail(struct history *h, const char *what, struct diag *d);

/* Prepare sql into *st: 0, or -1 with d filled. */
int historydb_prepare(struct history *h, const char *sql, sqlite3_stmt **st,
		      struct diag *d);

/* rundir's manifest.json and results.csv into *man and r: 0, or -1 with
 * d filled (nothing to free then). */
int historydb_load(const char *rundir, json_t **man, struct results *r,
		   struct diag *d);

/* Column i of st as text, "" when NULL. */
const char *historydb_col(sqlite3_stmt *st, int i);

#endif
