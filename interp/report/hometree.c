/* hometree: the 2008 home tree study's table (copy, move and rm steps). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/hometree.h"
#include "report/manifestread.h"
#include "results/results.h"
#include "util/strbuf.h"

/* A grown string's text ("" while empty). */
static const char *sb(const struct strbuf *b)
{
	return b->p ? b->p : "";
}

/* The columns of a step's row after its name: metric, scale, decimals. */
#define TREE_NCOL 9
static const struct { const char *metric; double scale; int dec; }
col[TREE_NCOL - 1] = {
	{ "seconds", 1, 2 }, { "cpu_user_s", 1, 2 }, { "cpu_sys_s", 1, 2 },
	{ "cpu_pct", 1, 0 }, { "files_per_s", 1, 0 }, { "rate_mbs", 1, 1 },
	{ "fs_used_bytes_source", 1 << 20, 0 },
	{ "fs_used_bytes_target", 1 << 20, 0 },
};
#define TREE_RATE 5		/* col[]'s MiB/s */

/* The tree table's head: the figures are MiB (rate_mbs is MiB/s); user
 * and system are the step's CPU seconds, as the study's time(1) gave. */
static const char *const tree_head[TREE_NCOL] = { "step", "seconds",
	"user s", "system s", "CPU%", "files/s", "MiB/s", "source MiB",
	"target MiB" };

/* Whether item ("k=v") is one of params' (";"-separated). */
static int params_has(const char *params, const char *item, size_t n)
{
	for (const char *p = params; *p; p += strcspn(p, ";"), p += !!*p)
		if (strcspn(p, ";") == n && !strncmp(p, item, n))
			return 1;
	return 0;
}

/* Whether every item of sub is one of set's. */
static int params_within(const char *sub, const char *set)
{
	for (const char *p = sub; *p; p += strcspn(p, ";"), p += !!*p)
		if (!params_has(set, p, strcspn(p, ";")))
			return 0;
	return 1;
}

/* The items of params that are not axes' (the phase's own matrix), as
 * " k=v k=v", appended to out. */
static void params_beyond(struct strbuf *out, const char *params,
			  const char *axes)
{
	for (const char *p = params; *p; p += strcspn(p, ";"), p += !!*p) {
		size_t n = strcspn(p, ";");

		if (!params_has(axes, p, n)) {
			strbuf_str(out, " ");
			strbuf_add(out, p, n);
		}
	}
}

/* Config label's own rows (phase "") whose axes (its top-level matrix
 * values, "k=v;...") are all in params, or NULL: none recorded. */
static const struct res_run *tree_config_run(const struct results *r,
					     const char *label,
					     const char *params)
{
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct res_run *x = &r->runs[i];

		if (!*x->phase && !strcmp(x->fs_label, label) &&
		    params_within(x->params, params))
			return x;
	}
	return NULL;
}

/* The top-level axes of run x: its config's ("" when no config rows). */
static const char *tree_axes(const struct results *r,
			     const struct res_run *x)
{
	const struct res_run *c = tree_config_run(r, x->fs_label, x->params);

	return c ? c->params : "";
}

/* What a run of phase does: the module's step (its params', else the
 * phase's with:, else the module's default), or NULL: not known. */
static const char *tree_step(json_t *phases, const struct res_run *x)
{
	const char *p = x->params;

	for (; *p; p += strcspn(p, ";"), p += !!*p)
		if (!strncmp(p, "step=", 5))
			return p + 5;
	p = manifestread_with(phases, x->phase, "step");
	if (p || manifestread_gives(phases, x->phase, "step"))
		return p;
	return "create";
}

/* Whether step moves the tree's data: a move is one rename and rm1 and
 * rm2 unlink, so their bytes over their time are no rate, whatever a run
 * recorded (a rename 15,000+ MiB/s, an rm 1,000). */
static int tree_moves_data(const char *step)
{
	return !step || (strcmp(step, "move") && strcmp(step, "rm1") &&
			 strcmp(step, "rm2"));
}

/* Column c of run x's step in its config, formatted ("-" when none). */
static const char *cell(const struct results *r, json_t *phases,
			const struct res_run *x, int c, char *buf, size_t len)
{
	double v;

	if ((c != TREE_RATE || tree_moves_data(tree_step(phases, x))) &&
	    results_mean(r, x->fs_label, x->phase, x->params, NULL,
				 col[c].metric, &v))
		snprintf(buf, len, "%.*f", col[c].dec, v / col[c].scale);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* The names (borrowed; free the array) of the phases that use the tree
 * module, in the plan's order, and how many in *n; NULL out of memory. */
static const char **tree_steps(json_t *phases, int *n)
{
	const char **names = calloc(json_array_size(phases) + 1,
				    sizeof(*names));

	*n = 0;
	for (size_t i = 0; names && i < json_array_size(phases); i++) {
		json_t *o = json_array_get(phases, i);
		const char *name = json_string_value(json_object_get(o,
								     "name"));

		if (name && manifestread_uses(o, "tree"))
			names[(*n)++] = name;
	}
	return names;
}

/* Whether run x is an ok run of one of the n steps with its seconds. */
static int tree_counts(const struct res_run *x, const char *const *step,
		       int n)
{
	double v;
	int s = 0;

	while (s < n && strcmp(x->phase, step[s]))
		s++;
	return s < n && x->status == RES_OK && results_value(x, "seconds", &v);
}

/* Whether run i is the first that counts of its section: its config
 * and the config's axes (a top-level matrix's values: a section each). */
static int tree_first(const struct results *r, size_t i,
		      const char *const *step, int n_step)
{
	const struct res_run *x = &r->runs[i];
	const char *axes = tree_axes(r, x);

	if (!tree_counts(x, step, n_step))
		return 0;
	for (size_t j = 0; j < i; j++)
		if (!strcmp(r->runs[j].fs_label, x->fs_label) &&
		    tree_counts(&r->runs[j], step, n_step) &&
		    !strcmp(tree_axes(r, &r->runs[j]), axes))
			return 0;
	return 1;
}

/* Config c's mkfs or mount seconds (what), per volume ("mkfs_s_source")
 * when it records them, else the sum ("mkfs_s"), appended to html and
 * text after sep. */
static void tree_times(struct strbuf *html, struct strbuf *text,
		       const struct res_run *c, const char *what,
		       const char *sep)
{
	char pre[16];
	size_t n = (size_t)snprintf(pre, sizeof(pre), "%s_s_", what);
	int k = 0;
	double v;

	for (size_t i = 0; i < c->n_m; i++) {
		const struct res_metric *m = &c->m[i];

		if (!m->numeric || strncmp(m->name, pre, n))
			continue;
		if (!k++) {
			strbuf_printf(html, "%s%s", sep, what);
			strbuf_printf(text, "   %s", what);
		}
		strbuf_printf(html, "%s %s %.3f s", k > 1 ? "," : "",
			      m->name + n, m->v);
		strbuf_printf(text, "%s %s %.3f s", k > 1 ? "," : "",
			      m->name + n, m->v);
	}
	pre[n - 1] = 0;
	if (!k && results_value(c, pre, &v)) {
		strbuf_printf(html, "%s%s %.3f s", sep, what, v);
		strbuf_printf(text, "   %s %.3f s", what, v);
	}
}

/* A section: its config's label and axes, and its mkfs and mount seconds
 * per volume, as "ext4 reflink=auto: mkfs source 0.1 s, target 0.1 s;
 * mount ..." (html) and "ext4 reflink=auto   mkfs source ..." (text). */
static int tree_section(struct table *t, const struct results *r,
			const struct res_run *x)
{
	struct strbuf html = { 0 }, text = { 0 };
	const struct res_run *c = tree_config_run(r, x->fs_label, x->params);
	int rc;

	strbuf_str(&html, x->fs_label);
	if (c)
		params_beyond(&html, c->params, "");
	strbuf_str(&text, sb(&html));
	if (c) {
		tree_times(&html, &text, c, "mkfs", ": ");
		tree_times(&html, &text, c, "mount", html.p &&
			   strchr(html.p, ':') ? "; " : ": ");
	}
	rc = html.oom || text.oom ? -1 :
	     table_section(t, sb(&html), sb(&text));
	free(html.p);
	free(text.p);
	return rc;
}

/* Whether run j is the first that counts of step in x's section with its
 * own parameters (a row each: a phase's matrix keeps its values apart). */
static int tree_row_first(const struct results *r, size_t j,
			  const struct res_run *x, const char *step)
{
	const struct res_run *y = &r->runs[j];
	const char *axes = tree_axes(r, x);

	if (strcmp(y->fs_label, x->fs_label) || !tree_counts(y, &step, 1) ||
	    strcmp(tree_axes(r, y), axes))
		return 0;
	for (size_t k = 0; k < j; k++)
		if (!strcmp(r->runs[k].fs_label, y->fs_label) &&
		    !strcmp(r->runs[k].params, y->params) &&
		    tree_counts(&r->runs[k], &step, 1))
			return 0;
	return 1;
}

/* x's section's rows: a step's, in the plan's order, per parameters. */
static int tree_rows(struct table *t, const struct table_src *in,
		     const struct res_run *x, const char *const *step,
		     int n_step)
{
	const struct results *r = in->r;
	char buf[TREE_NCOL - 1][TABLE_NUM];
	int rc = 0;

	for (int s = 0; s < n_step && !rc; s++)
		for (size_t j = 0; j < r->n_runs && !rc; j++) {
			const struct res_run *y = &r->runs[j];
			const char *row[TREE_NCOL];
			struct strbuf name = { 0 };

			if (!tree_row_first(r, j, x, step[s]))
				continue;
			strbuf_str(&name, step[s]);
			params_beyond(&name, y->params, tree_axes(r, y));
			row[0] = sb(&name);
			for (int c = 0; c < TREE_NCOL - 1; c++)
				row[c + 1] = cell(r, in->phases, y, c, buf[c],
						  sizeof(buf[c]));
			rc = name.oom ? -1 : table_row(t, row, 0);
			free(name.p);
		}
	return rc;
}

int hometree_tables(struct tables *out, const struct table_src *in)
{
	const struct results *r = in->r;
	int n_step, rc = 0;
	const char **step = tree_steps(in->phases, &n_step);
	struct table *t = NULL;

	if (!step)
		return -1;
	for (size_t i = 0; n_step && i < r->n_runs && !rc; i++) {
		if (!tree_first(r, i, step, n_step))
			continue;
		if (!t && !(t = tables_add(out))) {
			rc = -1;
			break;
		}
		if (!t->ncol) {
			table_init(t, TREE_NCOL, 1, tree_head, NULL);
			table_layout(t, "\n%t\n", "  %-10s %8s %7s %8s %5s "
				     "%9s %8s %10s %10s", NULL);
			table_head(t, t->row_fmt, tree_head, TREE_NCOL);
		}
		rc = tree_section(t, r, &r->runs[i]);
		if (!rc)
			rc = tree_rows(t, in, &r->runs[i], step, n_step);
	}
	free(step);
	return rc;
}
