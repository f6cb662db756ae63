/* grid: a text table whose columns fit their widest cell. */
#include <stdlib.h>
#include <string.h>

#include "report/grid.h"
#include "util/grow.h"

int grid_row(struct grid *g, const char *const *row)
{
	char **cell = grow_array(g->cell, &g->cap, g->n + (size_t)g->ncol,
				 sizeof(*cell), 16 * GRID_COLS);

	if (!cell)
		return -1;
	g->cell = cell;
	for (int i = 0; i < g->ncol; i++)
		if (!(g->cell[g->n++] = strdup(row[i] ? row[i] : "")))
			return -1;
	return 0;
}

/* Columns of UTF-8 text ("±" is two bytes, one column). */
static int width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void grid_line(FILE *f, const struct grid *g, const int *w,
		      size_t row)
{
	for (int c = 0; c < g->ncol; c++) {
		const char *s = row == (size_t)-1 ? "" :
				g->cell[row * g->ncol + c];
		int pad = w[c] - width(s);

		if (row == (size_t)-1)	/* the rule under the head */
			for (int k = 0; k < w[c]; k++)
				fputc('-', f);
		else if (c >= g->left)
			fprintf(f, "%*s%s", pad, "", s);
		else if (c + 1 < g->ncol)
			fprintf(f, "%s%*s", s, pad, "");
		else
			fputs(s, f);
		fputs(c + 1 < g->ncol ? "  " : "\n", f);
	}
}

void grid_print(FILE *f, const struct grid *g)
{
	int w[GRID_COLS] = { 0 };
	size_t rows = g->n / g->ncol;

	for (size_t i = 0; i < g->n; i++)
		if (width(g->cell[i]) > w[i % g->ncol])
			w[i % g->ncol] = width(g->cell[i]);
	grid_line(f, g, w, 0);
	grid_line(f, g, w, (size_t)-1);
	for (size_t r = 1; r < rows; r++)
		grid_line(f, g, w, r);
}

void grid_free(struct grid *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->cell[i]);
	free(g->cell);
}
