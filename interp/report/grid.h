/* grid: a text table whose columns fit their widest cell. */
#ifndef FSPLAN_GRID_H
#define FSPLAN_GRID_H

#include <stdio.h>

#define GRID_COLS 16

/* Fill ncol and left, then add rows; zeroed, it is empty. */
struct grid {
	int ncol;		/* at most GRID_COLS */
	int left;		/* the first `left` columns are text */
	char **cell;		/* rows of ncol strings; row 0 is the head */
	size_t n, cap;		/* cells */
};

/* Add a row of ncol strings (copied; NULL is ""). 0, or -1 out of memory. */
int grid_row(struct grid *g, const char *const *row);
/* The head, a rule of dashes, the rows: text columns left-aligned,
 * the others right-aligned, two spaces between (UTF-8 aware). */
void grid_print(FILE *f, const struct grid *g);
void grid_free(struct grid *g);

#endif
