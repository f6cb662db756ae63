/* history: runs kept in an SQLite database, their trends and checks. */
#ifndef FSPLAN_HISTORY_H
#define FSPLAN_HISTORY_H

#include <stdio.h>

#include "util/diag.h"

struct history;

/* The default database path ($XDG_DATA_HOME/fsplan/history.db, else
 * $HOME/.local/share/fsplan/history.db) into buf, its directories made
 * 0700. 0, or -1 with d filled. */
int history_default_path(char *buf, size_t len, struct diag *d);

/* Open (creating it and its tables) the database at path: NULL with d
 * filled on failure. */
struct history *history_open(const char *path, struct diag *d);
void history_close(struct history *h);

/* Add the run in rundir (results.csv and manifest.json) in one
 * transaction; a run_id already there is refused (DIAG_REFUSED). Its
 * run_id and count of metric values in *id (len bytes), *n. */
int history_add(struct history *h, const char *rundir, char *id, size_t len,
		long *n, struct diag *d);

/* One line a run: run_id, plan, started, kernel, cells; in start order. */
int history_list(struct history *h, FILE *f, struct diag *d);

enum history_format { HISTORY_TEXT, HISTORY_CSV, HISTORY_HTML };

struct history_show {
	const char *plan;
	const char *metric;	/* a glob, or NULL: each phase's first key */
	const char *config;	/* a config label, or NULL: all */
	enum history_format format;
};

/* Per cell and metric, each run's mean over its reps, by start time: a
 * table each (text), a row each (csv), or a page with a chart each and
 * the runs numbered by start (html). 0, or -1 with d filled (also when
 * nothing matched). */
int history_show(struct history *h, const struct history_show *o, FILE *f,
		 struct diag *d);

/* Check rundir's key metrics against the last runs of its plan (Welch's
 * t-test at 0.05). 1 when some metric is significantly worse, 0 when
 * none is, -1 with d filled. */
int history_check(struct history *h, const char *rundir, int last, FILE *f,
		  struct diag *d);

#endif
