/* table: a report table as data, built once, rendered as text, csv, html. */
#ifndef FSPLAN_REPORT_TABLE_H
#define FSPLAN_REPORT_TABLE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "results/results.h"

/*
 * A study table (tiobench's sections, bonnie++'s blocks, ...) is built
 * once by its study (report/study.h) into a struct table: columns with a
 * name and a unit, rows of cells (formatted text; table_num formats a
 * number), sections (a title where a new block of rows starts, as
 * tiobench's "Sequential Reads") and a note. table_html, table_csv and
 * table_text render it; none of them knows which study built it.
 *
 * The text layout of the published studies (tiobench's and bon_csv2txt's
 * columns, to the byte) is data too: a row template, a printf-like
 * string in which
 *	%s %-s %Ns %-Ns	a cell, right- or left-aligned in N bytes
 *	%*s %-*s	in the column's fitted width: the widest of its
 *			cells in the data rows, at least t->width
 *	%*-Ns		that width less N
 *	%*js %-*js	this cell and the next in the fitted width, the
 *			first left, the second right (bonnie++'s Name and
 *			Size), the width fitted to both
 *	%t %=		(section template) the section's text title, and
 *			as many '=' under it (at most 50)
 *	%%		a percent sign
 * Cells are taken in order, the k-th field is column k. A head line is a
 * template and its cells (a NULL cell: the section's text title; NULL
 * cells: a rule, each field as dashes of its width).
 *
 * A table without a row template (report's metric tables, compare's) is
 * fitted: the column heads, a rule of dashes, the rows, each column as
 * wide as its widest cell (UTF-8 characters), two spaces between, text
 * columns left-aligned and the others right-aligned.
 */

struct table_col {
	char *name;		/* the html and csv head: "Rate" */
	char *unit;		/* "MiB/s": the head says "Rate (MiB/s)" */
	int wrap;		/* > 0: words, wrapped (table_wrap); < 0:
				 * marks (a sparkline): one line, monospace */
};

struct table_row {
	char **cell;		/* ncol strings */
	int sub;		/* a row told under the one before (sub_fmt) */
};

struct table_sect {
	size_t first;		/* the row where it starts */
	char *title;		/* the html and csv title, or NULL */
	char *text_title;	/* the text's (%t), or NULL: title */
};

struct table_head {
	char *fmt;
	char **cell;		/* NULL: a rule */
	size_t n;
};

struct table {
	struct table_col *col;
	int ncol, left;		/* the first `left` columns are text */
	struct table_row *row;
	size_t n, cap;
	struct table_sect *sect;
	size_t n_sect;
	char *note;		/* under the table in text and csv, or NULL */
	/* the text layout (see above) */
	char *sect_fmt, *row_fmt, *sub_fmt;
	struct table_head *head;
	size_t n_head;
	int width;		/* the least fitted width */
	int failed;		/* out of memory while it was built */
};

/* A table's columns: names (with units, NULL for none) and how many of
 * the first are text; the layout's templates (sub may be NULL). Every
 * builder below returns 0, or -1 out of memory, which t->failed keeps. */
int table_init(struct table *t, int ncol, int left, const char *const *name,
	       const char *const *unit);
int table_layout(struct table *t, const char *sect_fmt, const char *row_fmt,
		 const char *sub_fmt);
int table_head(struct table *t, const char *fmt, const char *const *cell,
	       size_t n);
/* Column c holds words (a list of facts, "a=1 b=x,y"): the fitted text
 * layout wraps its cells in lines of at most width columns, breaking at
 * a space or after a comma (a word longer than that is cut across
 * lines), the row's other cells on its first line; html lets them wrap
 * (class words); csv keeps each whole. */
int table_wrap(struct table *t, int c, int width);
/* A section starting at the next row (text_title NULL: title). */
int table_section(struct table *t, const char *title,
		  const char *text_title);
/* A row of ncol cells (copied; NULL is ""); sub: a row under the last. */
int table_row(struct table *t, const char *const *cell, int sub);
int table_note(struct table *t, const char *note);
void table_free(struct table *t);

/* Room for any double as printf's %.Nf (N <= 6, a sign, a unit such as
 * "%"): a figure from results.csv is never cut. */
#define TABLE_NUM 330

/* printf's format into buf ("-" when v is NAN); returns buf. */
const char *table_num(char *buf, size_t len, const char *fmt, double v);

/* Column c's head: "name (unit)" or "name"; into buf, returned. */
const char *table_colhead(const struct table *t, int c, char *buf,
			  size_t len);

/* The renderers: text by the layout; html a <h3> per section title and
 * a <table> (text columns left, figures right-aligned); csv a line per
 * section title, the head, the rows, a blank line between sections. */
void table_text(FILE *f, const struct table *t);
void table_html(FILE *f, const struct table *t);
int table_csv(FILE *f, const struct table *t);

/* What a study's tables are built from (report/study.h). A phase's
 * study: runs (the phase's ok runs) and phase; a study that spans
 * phases: r. phases: manifest.json's, or NULL. */
struct table_src {
	const struct res_run *const *runs;
	size_t n;
	const char *phase;
	const struct results *r;
	json_t *phases;
};

/* The tables of a study, in order. */
struct tables {
	struct table **t;
	size_t n;
	int failed;
};
/* A new empty table at the end, or NULL out of memory. */
struct table *tables_add(struct tables *ts);
/* -1 when a table failed (out of memory) or ts had no room, else 0. */
int tables_failed(const struct tables *ts);
void tables_free(struct tables *ts);

#endif
