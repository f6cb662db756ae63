/* dbench: the 2003 study's dbench table — throughput per client count, average, high and low. */
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

int dbench_table(FILE *f, const struct res_run *const *runs, size_t n)
{
	struct db_row *rows = calloc(n + 1, sizeof(*rows));
	char **idents = calloc(n + 1, sizeof(*idents));
	size_t n_rows = 0, n_idents = 0;
	int rc = -1, w = 24;

	if (!rows || !idents)
		goto out;
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
			goto out;
		order = classic_order(idents, n_idents, ident);
		if (order < 0) {
			order = (int)n_idents;
			idents[n_idents++] = strdup(ident);
			if (!idents[order]) {
				free(ident);
				goto out;
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
	rc = n_rows > 0;
	if (!rc)
		goto out;
	qsort(rows, n_rows, sizeof(*rows), db_cmp);
	for (size_t i = 0; i < n_rows; i++)
		if ((int)strlen(rows[i].ident) > w)
			w = (int)strlen(rows[i].ident);
	fputs("\ndbench: throughput over the repetitions, MB/s (10^6 bytes "
	      "of ReadX and WriteX)\n", f);
	for (size_t i = 0; i < n_rows; i++) {
		const struct db_row *r = &rows[i];

		if (!i || r->clients != rows[i - 1].clients) {
			char title[64];

			snprintf(title, sizeof(title), "dbench %g processes",
				 r->clients);
			fprintf(f, "\n  %-*s %10s %10s %10s %5s\n", w, title,
				"Average", "High", "Low", "Runs");
		}
		fprintf(f, "  %-*s %10.2f %10.2f %10.2f %5d\n", w, r->ident,
			r->sum / r->n, r->hi, r->lo, r->n);
	}
out:
	for (size_t i = 0; i < n_rows; i++)
		free(rows[i].ident);
	for (size_t i = 0; i < n_idents; i++)
		free(idents[i]);
	free(rows);
	free(idents);
	return rc;
}
