/* pivot: report --by AXIS — configs as rows, the axis's values as columns. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fig.h"
#include "report/pivot.h"
#include "report/rank.h"
#include "report/view.h"
#include "report/where.h"
#include "util/strbuf.h"

/* The distinct strings of v[0..n) (NULL: none), in order of first
 * appearance. */
static size_t distinct(char **v, size_t n, const char **out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j;

		if (!v[i])
			continue;
		for (j = 0; j < k && strcmp(out[j], v[i]); j++)
			;
		if (j == k)
			out[k++] = v[i];
	}
	return k;
}

/* A config by its facts but axis (type, mkfs or mount, the one the
 * columns show), its age kept ("ext4 mkfs=-I 128@age=80%x4"), into b. */
static void config_but(const struct res_run *x, const char *axis,
		       struct strbuf *b)
{
	const char *age = strstr(x->fs_label, "@age=");

	if (strcmp(axis, "type"))
		strbuf_str(b, x->fs_type);
	if (strcmp(axis, "mkfs") && *x->mkfs_opts)
		strbuf_printf(b, "%smkfs=%s", b->len ? " " : "",
			      x->mkfs_opts);
	if (strcmp(axis, "mount") && *x->mount_opts)
		strbuf_printf(b, "%smount=%s", b->len ? " " : "",
			      x->mount_opts);
	if (!b->len)
		strbuf_str(b, "-");
	if (age)
		strbuf_str(b, age);
}

/* A run's row: its config and its parameters but axis, "ext4 mode=x";
 * by a fact of the config, the config by its other facts. */
static char *row_of(const struct res_run *x, const char *axis)
{
	struct strbuf b = { 0 };
	size_t k = strlen(axis);

	if (!strcmp(axis, "type") || !strcmp(axis, "mkfs") ||
	    !strcmp(axis, "mount"))
		config_but(x, axis, &b);
	else
		strbuf_str(&b, x->fs_label);
	for (const char *p = x->params; *p;) {
		size_t n = strcspn(p, ";");

		if (!(n > k && !strncmp(p, axis, k) && p[k] == '='))
			strbuf_printf(&b, " %.*s", (int)n, p);
		p += n + (p[n] == ';');
	}
	return b.oom ? (free(b.p), NULL) : b.p;
}

/* The phase's first key metric that its runs report, or NULL. A phase
 * without a key (or whose key no run reported) pivots its first rate,
 * its seconds only when it reports none: every run has seconds. */
static const char *key_metric(const struct res_run *const *runs, size_t n,
			      const char *phase, json_t *m)
{
	struct pick pick = { VIEW_KEY, NULL, json_object_get(m, "phases"),
			     NULL, NULL };
	const char *buf[VIEW_MAX_KEY + 1], **names, *found = NULL;
	const char *const *globs;
	size_t n_names = 0;
	int fallback, own;

	globs = view_tables(&pick, runs, n, phase, 0, buf, &fallback);
	own = globs == buf;
	names = rank_metric_names(runs, n, 1, &n_names);
	for (const char *const *g = globs; names && *g && !found; g++)
		for (size_t i = 0; i < n_names && !found; i++)
			if ((own || strcmp(*g, "seconds")) &&
			    !fnmatch(*g, names[i], 0))
				found = names[i];
	for (size_t i = 0; names && !found && i < n_names; i++)
		if (!strcmp(names[i], "seconds"))
			found = names[i];
	free(names);
	return found;
}

struct grid {
	char **row, **col;	/* each run's */
	const char **rows, **cols;
	size_t n, n_rows, n_cols;
};

static int grid_fill(struct table *t, const struct grid *g,
		     const struct res_run *const *runs, const char *metric,
		     int exact)
{
	const char **cell = calloc(g->n_cols + 2, sizeof(*cell));
	char (*num)[FIG_LEN] = calloc(g->n_cols + 1, sizeof(*num));
	int rc = cell && num ? 0 : -1;

	for (size_t r = 0; !rc && r < g->n_rows; r++) {
		cell[0] = g->rows[r];
		for (size_t c = 0; c < g->n_cols; c++) {
			double sum = 0;
			int k = 0;

			for (size_t i = 0; i < g->n; i++) {
				const struct res_metric *x;

				if (!g->row[i] || strcmp(g->row[i], g->rows[r]) ||
				    !g->col[i] || strcmp(g->col[i], g->cols[c]) ||
				    !(x = results_measured(runs[i], metric)))
					continue;
				sum += x->v;
				k++;
			}
			if (k && exact)
				snprintf(num[c], FIG_LEN, "%.10g", sum / k);
			else if (k)
				fig_text(num[c], FIG_LEN, sum / k, 0, NULL,
					 NULL);
			cell[c + 1] = k ? num[c] : "-";
		}
		rc = table_row(t, cell, 0);
	}
	free(cell);
	free(num);
	return rc;
}

/* The table of phase's runs by axis, when they have it. */
static int phase_pivot(const struct res_run *const *runs, size_t n,
		       const char *phase, json_t *m, const char *axis,
		       int exact, struct tables *ts)
{
	struct grid g = { calloc(n + 1, sizeof(char *)),
			  calloc(n + 1, sizeof(char *)),
			  calloc(n + 1, sizeof(char *)),
			  calloc(n + 2, sizeof(char *)), n, 0, 0 };
	const char *metric = key_metric(runs, n, phase, m), *unit = "";
	struct strbuf title = { 0 };
	struct table *t;
	char buf[1024];
	int rc = g.row && g.col && g.rows && g.cols ? 0 : -1;

	for (size_t i = 0; !rc && i < n; i++) {
		const char *v = where_value(runs[i], m, axis, buf, sizeof(buf));
		const struct res_metric *x = metric ?
			results_measured(runs[i], metric) : NULL;

		g.col[i] = v ? strdup(v) : NULL;
		g.row[i] = row_of(runs[i], axis);
		unit = x && *x->unit ? x->unit : unit;
		if ((v && !g.col[i]) || !g.row[i])
			rc = -1;
	}
	g.n_rows = rc ? 0 : distinct(g.row, n, g.rows);
	g.cols[0] = "config";
	g.n_cols = rc ? 0 : distinct(g.col, n, g.cols + 1);
	if (!rc && metric && g.n_cols) {
		strbuf_printf(&title, "phase %s: %s%s%s%s, mean by %s", phase,
			      metric, *unit ? " (" : "", unit, *unit ? ")" : "",
			      axis);
		rc = -1;
		if (!title.oom && (t = tables_add(ts)) &&
		    !table_init(t, (int)g.n_cols + 1, 1, g.cols, NULL) &&
		    !table_section(t, title.p, NULL))
			rc = grid_fill(t, &(struct grid){ g.row, g.col, g.rows,
				       g.cols + 1, n, g.n_rows, g.n_cols },
				       runs, metric, exact);
	}
	for (size_t i = 0; i < n; i++) {
		free(g.row ? g.row[i] : NULL);
		free(g.col ? g.col[i] : NULL);
	}
	free(g.row);
	free(g.col);
	free(g.rows);
	free(g.cols);
	free(title.p);
	return rc;
}

int pivot_tables(const struct results *r, json_t *m, const char *axis,
		 int exact, struct tables *ts)
{
	const char **phases = view_phases(r);
	int rc = phases ? 0 : -1;

	for (size_t p = 0; !rc && phases[p]; p++) {
		size_t n, count[4];
		const struct res_run **runs = view_ok_runs(r, phases[p], &n,
							   count);

		rc = runs ? phase_pivot(runs, n, phases[p], m, axis,
						  exact, ts) : -1;
		free(runs);
	}
	free(phases);
	return rc;
}
