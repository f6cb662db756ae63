/* progress: the run's one progress line on stderr, and its ETA. */
#ifndef FSPLAN_PROGRESS_H
#define FSPLAN_PROGRESS_H

#include <stddef.h>

struct run;
struct cell;

/* The terminal's width: stderr's (TIOCGWINSZ), else $COLUMNS, else 80. */
int progress_columns(void);

/*
 * "[3/12] CELL  00:12 elapsed, ETA 04:21" into buf (len bytes), at most
 * cols - 1 columns (the last column would wrap on some terminals): a
 * long cell id loses its middle ("..."), then the line its end.
 */
void progress_format(char *buf, size_t len, int cols, size_t n, size_t of,
		     const char *id, double elapsed, double eta,
		     size_t unknown);

/*
 * Show c's line, when r->progress: on a terminal redrawn in place (\r,
 * the line, erase to its end), each tick; elsewhere (-v on a pipe) a
 * plain line when the cell starts (tick 0), none on its ticks.
 */
void progress_show(struct run *r, const struct cell *c, int tick);

/*
 * The line before c's config is made: "making CONFIG" in place of c's id
 * (mkfs, its mount and what the config does before its first phase
 * take their time too); drawn once, as at a cell's start.
 */
void progress_making(struct run *r, const struct cell *c,
		     const char *config);

/* The line erased at the end of the run (on a terminal). */
void progress_clear(const struct run *r);

#endif
