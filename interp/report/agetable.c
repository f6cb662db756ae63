/* agetable: the report's table of how aged each config was, as measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/agetable.h"
#include "report/fig.h"
#include "report/manifestread.h"

/* The columns after config and age: a config row's metric, the head,
 * its unit and the scale it is shown in. */
static const struct {
	const char *metric, *name, *unit;
	double scale;
} cols[] = {
	{ "age_fill_pct", "fill", "%", 1 },
	{ "age_files", "files", NULL, 1 },
	{ "age_layout_score", "layout score", NULL, 1 },
	{ "age_extents_per_file", "extents/file", NULL, 1 },
	{ "age_extents_per_file_p99", "p99", NULL, 1 },
	{ "age_free_extents", "free extents", NULL, 1 },
	{ "age_free_extent_p50_kib", "free p50", "KiB", 1 },
	{ "age_seconds", "aging", "s", 1 },
	{ "age_bytes_written", "written", "GiB", 1024.0 * 1024 * 1024 },
};
#define N_COLS (sizeof(cols) / sizeof(cols[0]))
#define LAYOUT 2	/* the layout score's column in cols */

static const char NOTE[] = "layout score (Smith and Seltzer 1997): of the "
	"blocks of files with two blocks or more, after each file's first, "
	"the share that follows the file's previous block on the device; "
	"1.0 = no file fragmented.";

/* Whether a config's own rows in r have age_fill_pct. */
static int any_aged(const struct results *r)
{
	double v;

	for (size_t i = 0; i < r->n_runs; i++)
		if (!*r->runs[i].phase &&
		    results_value(&r->runs[i], "age_fill_pct", &v))
			return 1;
	return 0;
}

/* The name of config label's age in mconf, or "none". */
static const char *age_name(json_t *mconf, const char *label)
{
	json_t *o;
	size_t i;

	json_array_foreach(mconf, i, o)
		if (!strcmp(manifestread_str(o, "label", ""), label))
			return manifestread_str(o, "age.name", "none");
	return "none";
}

/* Config label's row: its age and the means of its figures. */
static int age_row(struct table *g, const struct results *r, json_t *mconf,
		   const char *label)
{
	char num[N_COLS][FIG_LEN];
	const char *row[2 + N_COLS] = { label, age_name(mconf, label) };

	for (size_t c = 0; c < N_COLS; c++) {
		double v;

		if (!results_mean(r, label, "", NULL, NULL, cols[c].metric,
				  &v))
			snprintf(num[c], sizeof(num[c]), "-");
		else if (c == LAYOUT)
			table_num(num[c], sizeof(num[c]), "%.3f", v);
		else
			fig_text(num[c], sizeof(num[c]), v / cols[c].scale, 0,
				 NULL, NULL);
		row[2 + c] = num[c];
	}
	return table_row(g, row, 0);
}

int agetable_table(struct table *g, const struct results *r, json_t *mconf)
{
	const char *name[2 + N_COLS] = { "config", "age" };
	const char *unit[2 + N_COLS] = { NULL, NULL };
	int rc;

	if (!any_aged(r))
		return 1;
	for (size_t c = 0; c < N_COLS; c++) {
		name[2 + c] = cols[c].name;
		unit[2 + c] = cols[c].unit;
	}
	rc = table_init(g, 2 + (int)N_COLS, 2, name, unit);
	for (size_t i = 0; !rc && i < r->n_runs; i++) {
		const char *label = r->runs[i].fs_label;
		size_t j;

		/* each config once, where it first appears */
		for (j = 0; j < i; j++)
			if (!strcmp(r->runs[j].fs_label, label))
				break;
		if (j == i)
			rc = age_row(g, r, mconf, label);
	}
	if (!rc)
		rc = table_note(g, NOTE);
	return rc ? -1 : 0;
}

int agetable_text(FILE *f, const struct results *r, json_t *mconf)
{
	struct table g = { 0 };
	int rc = agetable_table(&g, r, mconf);

	if (!rc) {
		fputs("\n== aging (measured after aging; fresh configs: -) "
		      "==\n", f);
		table_text(f, &g);
	}
	table_free(&g);
	return rc < 0 ? -1 : 0;
}

int agetable_html(FILE *f, const struct results *r, json_t *mconf)
{
	struct table g = { 0 };
	int rc = agetable_table(&g, r, mconf);

	if (!rc) {
		fputs("<h3 id=\"aging\">How aged each config was (measured "
		      "after aging; fresh configs: -)</h3>\n", f);
		table_html(f, &g);
	}
	table_free(&g);
	return rc < 0 ? -1 : 0;
}
