/* dbench: the 2003 study's dbench table — throughput per client count, average,
 * high and low. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/classic.h"
#include "report/dbench.h"

/* The 2003 study's dbench table: per client count, a row per config with
 * the average, highest and lowest throughput of its repetitions. */
struct db_row {
	double clients;
	char *ident;
	int order;		/* where the ident first appeared */
	double sum, hi, lo;
	int n;
};

static const char *const db_skip[] = { "workers", "clients", NULL };

static int db_cmp(const void *a, const void *b)
{
	const struct db_row *x = a, *y = b;

	if (x->clients != y->clients)
		return x->clients < y->clients ? -1 : 1;
	return x->order - y->order;
}

/* The rows of runs, sorted by client count then first appearance; their
 * number, or -1 out of memory (rows and idents freed by db_free). */
static int db_collect(const struct res_run *const *runs, size_t n,
		      struct db_row *rows, char **idents, size_t *n_idents)
{
	size_t n_rows = 0;

	for (size_t i = 0; i < n; i++) {
		double mbs, clients;
		char *ident;
		size_t k;
		int order;

		if (!results_value(runs[i], "throughput_mbs", &mbs) ||
		    !results_value(runs[i], "clients", &clients))
			continue;
		ident = classic_ident(runs[i], db_skip);
		if (!ident)
			return -1;
		order = classic_order(idents, *n_idents, ident);
		if (order < 0) {
			order = (int)*n_idents;
			idents[(*n_idents)++] = strdup(ident);
			if (!idents[order]) {
				free(ident);
				return -1;
			}
		}
		for (k = 0; k < n_rows; k++)
			if (rows[k].clients == clients && rows[k].order == order)
				break;
		if (k == n_rows) {
			rows[k] = (struct db_row){ clients, ident, order, 0,
						   mbs, mbs, 0 };
			n_rows++;
		} else {
			free(ident);
		}
		rows[k].sum += mbs;
		rows[k].hi = fmax(rows[k].hi, mbs);
		rows[k].lo = fmin(rows[k].lo, mbs);
		rows[k].n++;
	}
	qsort(rows, n_rows, sizeof(*rows), db_cmp);
	return (int)n_rows;
}

static void db_free(struct db_row *rows, char **idents, size_t n)
{
	for (size_t i = 0; rows && i < n; i++)
		free(rows[i].ident);
	for (size_t i = 0; idents && i < n; i++)
		free(idents[i]);
	free(rows);
	free(idents);
}

/* "dbench 64 processes" (text), with the figure's words (html). */
static void db_section(struct table *t, double clients)
{
	char title[64], html[160];

	snprintf(title, sizeof(title), "dbench %g process%s", clients,
		 clients == 1 ? "" : "es");
	snprintf(html, sizeof(html), "%s: throughput (MB/s, 10^6 bytes of "
		 "ReadX and WriteX)", title);
	table_section(t, html, title);
}

int dbench_tables(struct tables *out, const struct table_src *in)
{
	static const char *const head[5] = { "config", "Average", "High",
		"Low", "Runs" };
	struct db_row *rows = calloc(in->n + 1, sizeof(*rows));
	char **idents = calloc(in->n + 1, sizeof(*idents));
	size_t n_idents = 0;
	struct table *t;
	int rc = -1, n_rows;

	if (!rows || !idents || (n_rows = db_collect(in->runs, in->n, rows,
						     idents, &n_idents)) < 0)
		goto out;
	rc = 0;
	if (!n_rows || !(t = tables_add(out)))
		goto out;
	t->width = 24;
	table_init(t, 5, 1, head, NULL);
	table_layout(t, "\n", "  %-*s %10s %10s %10s %5s", NULL);
	table_head(t, t->row_fmt, (const char *[]){ NULL, "Average", "High",
		   "Low", "Runs" }, 5);
	for (int i = 0; i < n_rows; i++) {
		const struct db_row *r = &rows[i];
		char num[4][TABLE_NUM];

		if (!i || r->clients != rows[i - 1].clients)
			db_section(t, r->clients);
		snprintf(num[0], sizeof(num[0]), "%.2f", r->sum / r->n);
		snprintf(num[1], sizeof(num[1]), "%.2f", r->hi);
		snprintf(num[2], sizeof(num[2]), "%.2f", r->lo);
		snprintf(num[3], sizeof(num[3]), "%d", r->n);
		table_row(t, (const char *[]){ r->ident, num[0], num[1],
			  num[2], num[3] }, 0);
	}
out:
	db_free(rows, idents, in->n);
	return rc;
}

int dbench_shows(const char *name)
{
	return !strcmp(name, "throughput_mbs");
}
