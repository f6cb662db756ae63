/* view: what a report shows, whatever its format — each phase's ok runs, the
 * metrics it tables, the runs that did not count. */
#ifndef FSPLAN_REPORT_VIEW_H
#define FSPLAN_REPORT_VIEW_H

#include <jansson.h>
#include <stddef.h>

#include "results/results.h"

/* Which tables a phase gets: its key metrics, --metric's, or --all. */
enum view_mode { VIEW_KEY, VIEW_METRIC, VIEW_ALL };

struct overtime;

struct pick {
	enum view_mode view;
	const char *const *only;	/* --metric's globs */
	json_t *phases;			/* manifest.json's, or NULL */
	const struct results *all;	/* every run, or NULL */
	const struct overtime *series;	/* timeseries.csv's, or NULL */
};

#define VIEW_MAX_KEY 32	/* metrics of a phase's key that report reads */

extern const char *const view_status[4];	/* "ok", "failed", ... */

/* The phases of r (not the configs' own rows, phase ""), each once, in
 * the order they first appear: NULL-ended, borrowed from r; free the
 * array. NULL out of memory. */
const char **view_phases(const struct results *r);

/* Every run of r, configs' own rows too, as an array (NULL-ended; free
 * it). NULL out of memory. */
const struct res_run **view_all_runs(const struct results *r);

/* How many rounds made the configs anew (order: rounds: their own rows'
 * rep is the round), at most, and in *fewest the fewest of a config
 * that has any (a stop rule ends a config's rounds early); 0 when each
 * was made once. */
int view_config_rounds(const struct results *r, int *fewest);

/* The ok runs of phase (NULL-ended; free it); the counts of every
 * status in count[]. NULL out of memory. */
const struct res_run **view_ok_runs(const struct results *r,
				    const char *phase, size_t *n,
				    size_t count[4]);


/* Whether metric name is a figure that the study tables of shown (the
 * mask study_text returned: tiobench's, bonnie++'s, ...) showed, so
 * that a report need not repeat it as a table of its own. */
int view_shown(const char *name, unsigned shown);

/*
 * The metric globs whose tables phase shows (runs: its ok runs; shown:
 * the study tables that showed, study_text's mask):
 * --metric's, every one ("*"), or the key's but for what those tables
 * showed; without a key reported, the fallback (seconds, *_mbs, *_iops)
 * and *fallback = 1 when the phase has a key. NULL-ended, in buf (room
 * for VIEW_MAX_KEY + 1) or borrowed; an empty list shows nothing.
 */
const char *const *view_tables(const struct pick *pick,
			       const struct res_run *const *runs, size_t n,
			       const char *phase, unsigned shown,
			       const char **buf, int *fallback);

/*
 * The key metrics of phase (its module's key, as the manifest records
 * it) that no run of runs reported, which a typo in key = {...} leaves
 * out of every table: one line naming them (free it), or NULL when
 * every one has rows, with --metric or --all, or out of memory. shown
 * as for view_tables (what those tables show is not asked).
 */
char *view_unreported(const struct pick *pick,
		      const struct res_run *const *runs, size_t n,
		      const char *phase, unsigned shown);

/*
 * The runs that did not count, one group per status, config, phase and
 * reason (a skipped config's phases are one group): runs[first] is the
 * group's first, times how many, several whether of more than one phase.
 */
struct view_group {
	size_t first, times;
	int several;
};

/* The groups (free them) and their number in *n_groups, the counts of
 * each status over the phase runs in count[]; NULL out of memory. */
struct view_group *view_not_ok(const struct results *r, size_t *n_groups,
			       size_t count[4]);

/*
 * The cells of manifest m that did not run (pending, running or
 * interrupted, with no rows in r: an interrupted run's rest); in *ended
 * those of them a stop rule made unneeded (an earlier repetition says
 * stop_reason), which are not counted in the return.
 */
size_t view_not_run(const struct results *r, json_t *m, size_t *ended);

/* A group's reason, or what stands for it. */
const char *view_reason(const struct res_run *x);

/*
 * The phase runs the rest of the machine disturbed: other programs used
 * more than a quarter of a core in user mode while one ran
 * (others_cores), or a hypervisor took as much from the machine
 * (steal_cores). One line saying which (the text report's "!" line, the
 * page's note; free it), or NULL when none did or out of memory.
 */
char *view_disturbed(const struct res_run *const *runs, size_t n);
/* Whether x was disturbed: others_cores or steal_cores above 0.25 (a
 * quarter of a core); the two figures in *others and *steal (0 when not
 * recorded). */
int view_run_disturbed(const struct res_run *x, double *others,
		       double *steal);

#endif
