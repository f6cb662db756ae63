/* study: the registry of study tables that report and its html page walk. */
#ifndef FSPLAN_REPORT_STUDY_H
#define FSPLAN_REPORT_STUDY_H

#include <stdio.h>

#include "report/table.h"

/*
 * How a newcomer adds a study table (say, postmark's):
 *  1. report/postmark.c with one function,
 *	int postmark_tables(struct tables *out, const struct table_src *in)
 *     that reads in (report/table.h: a phase's ok runs, or the whole
 *     run, and the manifest's phases) and adds its tables to out (tables_add,
 *     table_init, table_layout, table_head, table_section, table_row:
 *     report/table.h); no table when it has nothing to show. Its
 *     prototype goes in report/postmark.h.
 *  2. one line in study_list (study.c): its name, whether it spans
 *     phases, the function, the metrics it shows (so that report does
 *     not repeat them as tables of their own; NULL for none), and its
 *     words: the text printed above its tables, the html heading and
 *     note.
 * report's text and its html page then show it, in the list's order;
 * nothing else names it.
 */

struct study {
	const char *name;
	int spans;		/* of the whole run, after the phases */
	int (*tables)(struct tables *out, const struct table_src *in);
	int (*shows)(const char *metric);	/* or NULL */
	const char *text_before;	/* above its tables in text */
	const char *html_id;		/* its <h2 id> and ... */
	const char *html_heading;	/* ... heading, or NULL: none */
	const char *html_note;		/* raw html under it, or NULL */
};

/* The registry, ended by a NULL name. */
extern const struct study study_list[];

/* The bit of the study named name in study_text's mask (0: none). */
unsigned study_bit(const char *name);

/*
 * The studies of in that span phases (spans) or not, each that has a
 * table printed as text (study_text) or html (study_html) to f. Returns
 * the mask of those shown (study_bit), or -1 out of memory.
 */
int study_text(FILE *f, const struct table_src *in, int spans);
int study_html(FILE *f, const struct table_src *in, int spans);

/* The study named name's tables into out (free with tables_free);
 * 0, or -1 out of memory or no such study. */
int study_tables(const char *name, const struct table_src *in,
		 struct tables *out);

/* Whether metric is shown by a study of mask (study_text's return). */
int study_shows(unsigned mask, const char *metric);

#endif
