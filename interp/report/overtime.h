/* overtime: a phase's behaviour over time in a report — steady lines and a
 * sparkline per config, from the steady rows and timeseries.csv. */
#ifndef FSPLAN_REPORT_OVERTIME_H
#define FSPLAN_REPORT_OVERTIME_H

#include <stdio.h>

#include "report/table.h"
#include "results/results.h"
#include "results/seriesread.h"
#include "util/strbuf.h"

/* The series of a run directory, as report reads them: each cell's key
 * series (its `steady` row's unit) and the machine's (OVERTIME_MACHINE). */
struct overtime {
	struct seriesread s;
	int have;		/* timeseries.csv was read */
	struct strbuf note;	/* what the reader left out, or why none */
};

/* The machine's series drawn under a phase's key: device, then memory. */
extern const char *const overtime_machine[4];

/* Read rundir/timeseries.csv for r's cells. A file that cannot be read
 * is a note, not a failure: 0, or -1 out of memory. */
int overtime_load(struct overtime *o, const char *rundir,
		  const struct results *r);
void overtime_free(struct overtime *o);

/* One config of a phase (a filesystem label and parameters), its runs
 * that have a `steady` row, and what they say. */
struct overtime_group {
	const struct res_run **runs;
	size_t n;
	int steady;		/* how many of them held */
	double at_lo, at_hi;	/* steady_at_s of those that held */
	double range, slope;	/* the widest range, steepest slope of
				 * those that did not (percent) */
	double tmax;		/* the last t_s of their key series */
	size_t idle;		/* not steady because the key series was 0
				 * over the window tested (the phase was
				 * doing other work: bonnie's put_block) */
};

struct overtime_phase {
	const char *key;	/* the key series (the first run's) */
	const char *unit;	/* its unit, or "" */
	struct overtime_group *g;
	size_t n;
	double tmax;		/* over every key series of the phase */
	double step;		/* their interval: the least first t_s */
};

/* The configs of runs (a phase's ok runs) with steady rows, in order;
 * p->n 0 when none has one (a run from before series). 0, or -1 out of
 * memory. */
int overtime_phase(struct overtime_phase *p, const struct overtime *o,
		   const struct res_run *const *runs, size_t n);
void overtime_phase_free(struct overtime_phase *p);

/* How many of runs have a `steady` row saying 0 (never steady); how
 * many have one in *rows. */
size_t overtime_unsteady(const struct res_run *const *runs, size_t n,
			 size_t *rows);

/* compare's flag of a pair whose side a or b was not steady in some
 * run: "B never steady: the mean may not hold" into buf; 1 flagged, 0
 * (buf "") not. */
int overtime_flag(const struct res_run *const *a, size_t n_a,
		  const struct res_run *const *b, size_t n_b, char *buf,
		  size_t len);

/* "steady after 42 s", "never steady (range 35%, slope -18%)", ... */
void overtime_says(const struct overtime_group *g, char *buf, size_t len);

/*
 * How the points of a phase fall into bins: its interval (step seconds;
 * a point's t_s ends its interval), per intervals to a bin, nb bins.
 * With room for every interval, a bin is one.
 */
struct overtime_grid {
	double step, per;
	size_t nb;
};
/* The grid of a phase's points up to tmax in at most max bins; step 0:
 * not known, tmax / max. nb 0 when there is no point (tmax 0). */
void overtime_grid(struct overtime_grid *g, double step, double tmax,
		   size_t max);
/* The t_s at which bin i ends (at most tmax). */
double overtime_bin_end(const struct overtime_grid *g, size_t i,
			double tmax);

/* The mean of metric over the points of runs in each bin of g, into
 * out[g->nb] (NAN where there is none): with a bin per interval, the
 * repetitions' mean per interval. */
void overtime_bins(const struct overtime *o, const struct res_run *const *runs,
		   size_t n, const char *metric, const struct overtime_grid *g,
		   double *out);

/* The phase's steady lines as a table (config, params, steady, the
 * sparkline), its title line in *title (free it). 0, or -1. */
int overtime_table(struct table *t, char **title, const struct overtime *o,
		   const struct overtime_phase *p);

/* A phase's steady view, what text and html both show: its configs, the
 * table and its title. */
struct overtime_view {
	struct overtime_phase p;
	struct table t;
	char *title;
};

/* The view of runs: 1 made (overtime_view_free it), 0 none (no run has
 * steady rows), -1 out of memory. */
int overtime_view(struct overtime_view *v, const struct overtime *o,
		  const struct res_run *const *runs, size_t n);
void overtime_view_free(struct overtime_view *v);

/* The table as text under its title, with the note of what was left
 * out; nothing when the phase has no steady rows. 0, or -1. */
int overtime_text(FILE *f, const struct overtime *o,
		  const struct res_run *const *runs, size_t n);

#endif
