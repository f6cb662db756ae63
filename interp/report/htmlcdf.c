/* htmlcdf: ops' latency distributions (CDF) from histograms.csv, per config. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/htmlcdf.h"
#include "results/histcsv.h"
#include "util/grow.h"
#include "util/strbuf.h"

/* An op with fewer ops than this in all of a chart's runs is not drawn:
 * open and close, once a worker. */
enum { FEWEST = 20, OPS = 16 };

struct hrow {
	char *cell, *op;	/* one allocation, cell first */
	double lo, hi, count;
};

struct reading {
	struct htmlcdf *h;
	char **prev;		/* the last row's fields, to find blocks */
	int oom;
};

/* Forget cell's rows before index from: its block written again. */
static void drop_cell(struct htmlcdf *h, const char *cell, size_t from)
{
	size_t k = 0;

	for (size_t i = 0; i < h->n; i++) {
		if (i < from && !strcmp(h->row[i].cell, cell)) {
			free(h->row[i].cell);
			continue;
		}
		h->row[k++] = h->row[i];
	}
	h->n = k;
}

static int take_row(void *ctx, const char *const *f, int line)
{
	struct reading *rd = ctx;
	struct htmlcdf *h = rd->h;
	struct hrow *r;
	size_t lc, lo;
	char *p;

	(void)line;
	if (!f)
		return 0;	/* not a row of ours: left out */
	/* a block starts: the cell's earlier one, if any, is gone */
	if (histcsv_block_starts((const char *const *)rd->prev, f))
		drop_cell(h, f[HISTCSV_CELL], h->n);
	r = grow_array(h->row, &h->cap, h->n + 1, sizeof(*r), 256);
	lc = strlen(f[HISTCSV_CELL]) + 1;
	lo = strlen(f[HISTCSV_OP]) + 1;
	if (!r || !(p = malloc(lc + lo))) {
		rd->oom = 1;
		return -1;
	}
	h->row = r;
	r = &h->row[h->n++];
	r->cell = memcpy(p, f[HISTCSV_CELL], lc);
	r->op = memcpy(p + lc, f[HISTCSV_OP], lo);
	r->lo = strtod(f[HISTCSV_LO], NULL);
	r->hi = strtod(f[HISTCSV_HI], NULL);
	r->count = strtod(f[HISTCSV_COUNT], NULL);
	rd->prev[HISTCSV_CELL] = r->cell;
	rd->prev[HISTCSV_OP] = r->op;
	snprintf(rd->prev[HISTCSV_LO], 32, "%.3f", r->lo);
	return 0;
}

int htmlcdf_load(struct htmlcdf *h, const char *rundir)
{
	char path[PATH_MAX + 32], lo[32] = "", empty[1] = "";
	char *prev[HISTCSV_FIELDS] = { empty, empty, empty, lo, empty, empty };
	struct reading rd = { h, NULL, 0 };
	struct csv_read seen;
	struct diag d = { 0 };
	int rc;

	memset(h, 0, sizeof(*h));
	snprintf(path, sizeof(path), "%s/histograms.csv", rundir);
	rd.prev = prev;
	rc = histcsv_read(path, take_row, &rd, &seen, &d);
	diag_release(&d);
	(void)rc;	/* no file, or a torn one: what was read */
	return rd.oom ? -1 : 0;
}

void htmlcdf_free(struct htmlcdf *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->row[i].cell);
	free(h->row);
	memset(h, 0, sizeof(*h));
}

/* ---- a chart ------------------------------------------------------------ */

static int is_run(const struct res_run *const *runs, size_t n,
		  const char *cell, const char *label, const char *params)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(runs[i]->cell, cell))
			return (!label || !strcmp(runs[i]->fs_label, label)) &&
			       !strcmp(runs[i]->params, params);
	return 0;
}

static int by_lo(const void *a, const void *b)
{
	const struct hrow *x = *(const struct hrow *const *)a;
	const struct hrow *y = *(const struct hrow *const *)b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* How many ops of op the runs with params had. */
static double ops_of(const struct htmlcdf *h,
		     const struct res_run *const *runs, size_t n,
		     const char *op, const char *params)
{
	double total = 0;

	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->row[i].op, op) &&
		    is_run(runs, n, h->row[i].cell, NULL, params))
			total += h->row[i].count;
	return total;
}

/* The CDF of op over the runs of label with params into s (x: a
 * bucket's top in us, y: the share at or below); its op count. */
static double cdf(const struct htmlcdf *h, const struct res_run *const *runs,
		  size_t n, const char *op, const char *label,
		  const char *params, const struct hrow **tmp, double *x,
		  double *y, size_t *np)
{
	double total = 0, cum = 0;
	size_t k = 0, m = 0;

	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->row[i].op, op) &&
		    is_run(runs, n, h->row[i].cell, label, params)) {
			tmp[k++] = &h->row[i];
			total += h->row[i].count;
		}
	qsort(tmp, k, sizeof(*tmp), by_lo);
	for (size_t i = 0; i < k; i++) {
		cum += tmp[i]->count;
		if (m && x[m - 1] == tmp[i]->hi) {
			y[m - 1] = cum / total;
			continue;
		}
		/* the line starts at the first bucket's foot */
		if (!m) {
			x[m] = tmp[i]->lo > 0 ? tmp[i]->lo : tmp[i]->hi / 2;
			y[m++] = 0;
		}
		x[m] = tmp[i]->hi;
		y[m++] = cum / total;
	}
	*np = m;
	return total;
}

/* The chart of op for params: a line per config of the runs. */
static int op_chart(FILE *f, const struct htmlcdf *h,
		    const struct res_run *const *runs, size_t n,
		    const char *op, const char *params)
{
	const struct hrow **tmp = calloc(h->n + 1, sizeof(*tmp));
	struct html_series *s = calloc(n + 1, sizeof(*s));
	const char **config = calloc(n + 1, sizeof(*config));
	struct strbuf *label = calloc(n + 1, sizeof(*label)), title = { 0 };
	double **xy = calloc(2 * n + 2, sizeof(*xy)), ops;
	size_t ns = 0, np;
	int rc = -1;

	if (!tmp || !s || !config || !label || !xy)
		goto out;
	for (size_t i = 0; i < n; i++) {
		size_t j;

		if (strcmp(runs[i]->params, params))
			continue;
		for (j = 0; j < i && (strcmp(runs[j]->fs_label,
					     runs[i]->fs_label) ||
				      strcmp(runs[j]->params, params)); j++)
			;
		if (j < i)
			continue;
		xy[2 * ns] = calloc(2 * h->n + 2, sizeof(double));
		xy[2 * ns + 1] = calloc(2 * h->n + 2, sizeof(double));
		if (!xy[2 * ns] || !xy[2 * ns + 1])
			goto out;
		ops = cdf(h, runs, n, op, runs[i]->fs_label, params, tmp,
			  xy[2 * ns], xy[2 * ns + 1], &np);
		if (!(ops > 0))
			continue;
		strbuf_printf(&label[ns], "%s (%.0f ops)", runs[i]->fs_label,
			      ops);
		if (label[ns].oom)
			goto out;
		s[ns] = (struct html_series){ label[ns].p, xy[2 * ns],
			xy[2 * ns + 1], np };
		config[ns++] = runs[i]->fs_label;
	}
	strbuf_printf(&title, "%s latency distribution (CDF), a line per "
		      "config%s%s", op, *params ? ", for " : "", params);
	if (title.oom)
		goto out;
	for (char *p = title.p; *p; p++)
		*p = *p == ';' ? ' ' : *p;
	html_lines_chart(f, &(struct html_lines){ .cls = "fsplan-cdf",
			 .title = title.p,
			 .note = "the share of ops that took at most a "
			 "latency; from the ops' histograms",
			 .xtitle = "latency (log scale)",
			 .ytitle = "share of ops at or below", .s = s,
			 .n = ns, .config = config, .logx = 1, .decades = 1,
			 .xfmt = html_fmt_us, .ymax = 1 });
	rc = 0;
out:
	for (size_t i = 0; xy && i < 2 * n + 2; i++)
		free(xy[i]);
	for (size_t i = 0; label && i < n; i++)
		free(label[i].p);
	free(xy);
	free(label);
	free(title.p);
	free(tmp);
	free(s);
	free(config);
	return rc;
}

/* The distinct ops of the runs' rows, by name; how many, up to OPS. */
static size_t ops_list(const struct htmlcdf *h,
		       const struct res_run *const *runs, size_t n,
		       const char **op)
{
	size_t k = 0;

	for (size_t i = 0; i < h->n; i++) {
		size_t j;

		for (j = 0; j < k && strcmp(op[j], h->row[i].op); j++)
			;
		if (j < k || k == OPS)
			continue;
		for (j = 0; j < n && strcmp(runs[j]->cell, h->row[i].cell);
		     j++)
			;
		if (j < n)
			op[k++] = h->row[i].op;
	}
	return k;
}

int htmlcdf_phase(FILE *f, const struct htmlcdf *h,
		  const struct res_run *const *runs, size_t n)
{
	const char *op[OPS];
	size_t nop = h->n ? ops_list(h, runs, n, op) : 0;

	for (size_t o = 0; o < nop; o++)
		for (size_t i = 0; i < n; i++) {
			size_t j;

			for (j = 0; j < i && strcmp(runs[j]->params,
						    runs[i]->params); j++)
				;
			if (j < i || ops_of(h, runs, n, op[o],
					    runs[i]->params) < FEWEST)
				continue;
			if (op_chart(f, h, runs, n, op[o], runs[i]->params))
				return -1;
		}
	return 0;
}
