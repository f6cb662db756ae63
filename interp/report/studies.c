/* studies: the seed studies' tables that span phases or cells — the 2008 ext4
 * study's ffsb profiles by threads, the 2008 OLTP study's engines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/manifestread.h"
#include "report/studies.h"
#include "util/strbuf.h"

static int mean_of(const struct results *r, const char *label,
		   const char *phase, const char *metric, double *out)
{
	return results_mean(r, label, phase, NULL, NULL, metric, out);
}

/* The name (borrowed) of the next phase from *at on, in the plan's order,
 * that uses the module mod or mod2, or whose output the parser parse
 * reads (a user's own exec module or exec: phase; NULL: none); NULL past
 * the last. */
static const char *next_using(json_t *phases, size_t *at, const char *mod,
			      const char *mod2, const char *parse)
{
	while (*at < json_array_size(phases)) {
		json_t *o = json_array_get(phases, (*at)++);
		const char *name = json_string_value(json_object_get(o,
								     "name"));
		const char *p = json_string_value(json_object_get(o, "parse"));

		if (name && (manifestread_uses(o, mod) ||
			     (mod2 && manifestread_uses(o, mod2)) ||
			     (parse && p && !strcmp(p, parse))))
			return name;
	}
	return NULL;
}

/* Those names (borrowed; free the array) and how many in *n; NULL out
 * of memory. */
static const char **phases_using(json_t *phases, const char *mod,
				 const char *mod2, const char *parse, int *n)
{
	const char **names = calloc(json_array_size(phases) + 1,
				    sizeof(*names));
	size_t at = 0;

	*n = 0;
	while (names && (names[*n] = next_using(phases, &at, mod, mod2,
						       parse)))
		(*n)++;
	return names;
}

/* One ffsb phase's shape: its thread counts (ascending, as the study's
 * columns) and configs among the ok runs, and whether it reads. */
struct ffsb_shape {
	const char **label;
	double *threads;
	int n_t, n_c, reads;
	size_t w;		/* the widest label, at least "threads" */
};

/* Thread count v among sh's, in order, once. */
static void ffsb_thread(struct ffsb_shape *sh, double v)
{
	int j;

	for (j = 0; j < sh->n_t && sh->threads[j] != v; j++)
		;
	if (j < sh->n_t)
		return;
	while (j > 0 && sh->threads[j - 1] > v) {
		sh->threads[j] = sh->threads[j - 1];
		j--;
	}
	sh->threads[j] = v;
	sh->n_t++;
}

/* 0, or -1 out of memory; free sh->label and sh->threads either way. */
static int ffsb_shape(const struct results *r, const char *phase,
		      struct ffsb_shape *sh)
{
	double v;

	memset(sh, 0, sizeof(*sh));
	sh->w = 7;
	sh->label = calloc(r->n_runs + 1, sizeof(*sh->label));
	sh->threads = calloc(r->n_runs + 1, sizeof(*sh->threads));
	if (!sh->label || !sh->threads)
		return -1;
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct res_run *x = &r->runs[i];
		int j;

		if (strcmp(x->phase, phase) || x->status != RES_OK ||
		    !results_value(x, "threads", &v))
			continue;
		ffsb_thread(sh, v);
		for (j = 0; j < sh->n_c && strcmp(sh->label[j], x->fs_label);
		     j++)
			;
		if (j == sh->n_c) {
			sh->label[sh->n_c++] = x->fs_label;
			if (strlen(x->fs_label) > sh->w)
				sh->w = strlen(x->fs_label);
		}
		sh->reads |= results_value(x, "read_mbs", &v) && v > 0;
	}
	return 0;
}

/* The study's figure: the large-file create only writes, and the study
 * gave its MB/s; the small-file profile its transactions/s. */
static const char *ffsb_figure(const struct ffsb_shape *sh)
{
	return sh->reads ? "transactions_per_s" : "write_mbs";
}

/* One ffsb phase's columns and layout: a figure and %CPU per thread
 * count, under a line of the thread counts. The strings it makes are
 * the table's (copied); 0, or -1 out of memory. */
static int ffsb_layout(struct table *t, const struct ffsb_shape *sh,
		       const char *phase)
{
	size_t ncol = 1 + 2 * (size_t)sh->n_t;
	const char **head = calloc(3 * ncol, sizeof(*head));
	char **own = calloc(2 * ncol, sizeof(*own));
	struct strbuf fmt = { 0 }, top = { 0 }, title = { 0 };
	const char *unit = sh->reads ? "trans/s" : "MB/s";
	int rc = -1;

	if (!head || !own)
		goto out;
	head[0] = "threads";
	head[ncol] = head[2 * ncol] = "config";
	strbuf_str(&fmt, "%-*s");
	strbuf_str(&top, "%-*s");
	for (int j = 0; j < sh->n_t; j++) {
		size_t a = 1 + 2 * (size_t)j;

		if (asprintf(&own[a], "%.0f", sh->threads[j]) < 0 ||
		    asprintf(&own[a + 1], "%.0f threads: %s", sh->threads[j],
			     unit) < 0)
			goto out;
		head[a] = own[a];
		head[a + 1] = "";
		head[ncol + a] = unit;
		head[ncol + a + 1] = head[2 * ncol + a + 1] = "%CPU";
		head[2 * ncol + a] = own[a + 1];
		strbuf_str(&fmt, "  %10s %6s");
		strbuf_str(&top, "  %17s%s");
	}
	strbuf_printf(&title, "%s: %s and %%CPU", phase, sh->reads ?
		      "transactions/s" : "write MB/s (MiB)");
	t->width = (int)sh->w;
	if (fmt.oom || top.oom || title.oom ||
	    table_init(t, (int)ncol, 1, head + 2 * ncol, NULL) ||
	    table_layout(t, "\n%t\n", fmt.p, NULL) ||
	    table_head(t, top.p, head, ncol) ||
	    table_head(t, fmt.p, head + ncol, ncol) ||
	    table_section(t, title.p, NULL))
		goto out;
	rc = 0;
out:
	for (size_t k = 0; own && k < 2 * ncol; k++)
		free(own[k]);
	free(own);
	free(head);
	free(fmt.p);
	free(top.p);
	free(title.p);
	return rc;
}

/* One ffsb phase's table: a row per config, a figure and %CPU per
 * thread count; none when no ok run has threads. */
static int ffsb_table(struct tables *out, const struct results *r,
		      const char *phase)
{
	struct ffsb_shape sh;
	struct table *t = NULL;
	const char **row = NULL;
	char (*cell)[TABLE_NUM] = NULL;
	int rc = ffsb_shape(r, phase, &sh);
	double v;

	if (rc || !sh.n_t)
		goto out;
	row = calloc(2 * (size_t)sh.n_t + 1, sizeof(*row));
	cell = calloc(2 * (size_t)sh.n_t, sizeof(*cell));
	rc = -1;
	if (!row || !cell || !(t = tables_add(out)) ||
	    ffsb_layout(t, &sh, phase))
		goto out;
	for (int c = 0; c < sh.n_c; c++) {
		row[0] = sh.label[c];
		for (int j = 0; j < sh.n_t; j++) {
			const double *th = &sh.threads[j];

			row[1 + 2 * j] = results_mean(r, sh.label[c], phase,
				NULL, th, ffsb_figure(&sh), &v) ?
				table_num(cell[2 * j], sizeof(cell[0]),
					  sh.reads ? "%.0f" : "%.1f", v) : "-";
			row[2 + 2 * j] = results_mean(r, sh.label[c], phase,
				NULL, th, "test_cpu_pct", &v) ?
				table_num(cell[2 * j + 1], sizeof(cell[0]),
					  "%.1f", v) : "-";
		}
		table_row(t, row, 0);
	}
	rc = 0;
out:
	free(row);
	free(cell);
	free(sh.label);
	free(sh.threads);
	return rc;
}

int studies_ffsb_tables(struct tables *out, const struct table_src *in)
{
	const char *name;
	size_t at = 0;

	while ((name = next_using(in->phases, &at, "ffsb", NULL, NULL)))
		if (ffsb_table(out, in->r, name))
			return -1;
	return 0;
}

/* The first run of each config: where its rows first appear. */
static int first_of_label(const struct results *r, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(r->runs[j].fs_label, r->runs[i].fs_label))
			return 0;
	return 1;
}

/* The OLTP table's columns: metric and decimals. */
static const struct { const char *metric; int dec; } oltp_col[] = {
	{ "total_time_s", 2 }, { "events", 0 },
	{ "transactions_per_s", 1 }, { "requests_per_s", 1 },
	{ "other_per_s", 1 }, { "lat_min_ms", 2 },
	{ "lat_avg_ms", 2 }, { "lat_max_ms", 2 },
};
#define OLTP_COLS (sizeof(oltp_col) / sizeof(*oltp_col))

/* The OLTP table's columns and text layout. */
static void oltp_layout(struct table *t, const struct results *r)
{
	static const char *const head[2 + OLTP_COLS] = { "config", "phase",
		"time s", "events", "trans/s", "req/s", "other/s",
		"min ms", "avg ms", "max ms" };
	static const char *const text[2 + OLTP_COLS] = { "config", "phase",
		"time s", "events", "trans/s", "req/s", "other/s", "min",
		"avg", "max" };

	t->width = 6;
	for (size_t i = 0; i < r->n_runs; i++)
		if ((int)strlen(r->runs[i].fs_label) > t->width)
			t->width = (int)strlen(r->runs[i].fs_label);
	table_init(t, 2 + OLTP_COLS, 2, head, NULL);
	table_layout(t, "\n", "%-*s %-10s %8s %9s %9s %9s %9s %8s %8s %8s",
		     NULL);
	table_head(t, t->row_fmt, text, 2 + OLTP_COLS);
	table_section(t, "means of the ok runs; latency in ms", NULL);
}

/* Config label's row of phase eng, when it ran ok: the means. */
static int oltp_row(struct table *t, const struct results *r,
		    const char *label, const char *eng)
{
	const char *row[2 + OLTP_COLS] = { label, eng };
	char buf[OLTP_COLS][TABLE_NUM];
	double v;

	for (size_t c = 0; c < OLTP_COLS; c++) {
		if (mean_of(r, label, eng, oltp_col[c].metric, &v))
			snprintf(buf[c], sizeof(buf[c]), "%.*f",
				 oltp_col[c].dec, v);
		else
			snprintf(buf[c], sizeof(buf[c]), "-");
		row[2 + c] = buf[c];
	}
	return table_row(t, row, 0);
}

int studies_oltp_tables(struct tables *out, const struct table_src *in)
{
	const struct results *r = in->r;
	int n_eng, native = 0, rc = 0;
	const char **eng = phases_using(in->phases, "oltp", "mariadb",
					"sysbench", &n_eng);
	struct table *t = NULL;
	double v;

	if (!eng)
		return -1;
	for (size_t i = 0; n_eng && i < r->n_runs && !rc; i++) {
		const char *label = r->runs[i].fs_label;

		for (int e = 0; e < n_eng && !rc && first_of_label(r, i); e++) {
			if (!mean_of(r, label, eng[e], "transactions_per_s",
				     &v))
				continue;
			if (!t && !(t = tables_add(out))) {
				rc = -1;
				break;
			}
			if (!t->ncol)
				oltp_layout(t, r);
			native |= manifestread_phase_uses(in->phases, eng[e],
							  "oltp");
			rc = oltp_row(t, r, label, eng[e]);
		}
	}
	free(eng);
	if (!rc && t && native)
		rc = table_note(t, STUDIES_OLTP_NOTE);
	return rc;
}
