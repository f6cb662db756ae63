/* studies: the seed studies' tables that span phases or cells — the 2008 home tree's steps, the 2008 ext4 study's ffsb profiles by threads, the 2008 OLTP study's engines. */
#include <string.h>

#include "report/manifestread.h"
#include "report/studies.h"
#include "util/strbuf.h"

#define MAX_STEPS 32
#define MAX_THREADS 16
#define MAX_CONFIGS 64

/* A grown string's text ("" while empty). */
static const char *sb(const struct strbuf *b)
{
	return b->p ? b->p : "";
}

/* The mean of metric over the ok runs of phase in config label (with
 * `threads` threads, unless it is NULL); 0 none. */
static int mean_where(const struct results *r, const char *label,
		      const char *phase, const double *threads,
		      const char *metric, double *out)
{
	double sum = 0, v, t;
	int n = 0;

	for (size_t i = 0; i < r->n_runs; i++) {
		const struct res_run *x = &r->runs[i];

		if (strcmp(x->fs_label, label) || strcmp(x->phase, phase) ||
		    (*phase && x->status != RES_OK) ||
		    (threads && (!results_value(x, "threads", &t) ||
				 t != *threads)) ||
		    !results_value(x, metric, &v))
			continue;
		sum += v;
		n++;
	}
	if (n)
		*out = sum / n;
	return n;
}

static int mean_of(const struct results *r, const char *label,
		   const char *phase, const char *metric, double *out)
{
	return mean_where(r, label, phase, NULL, metric, out);
}

/* The columns of a step's row: metric, scale, decimals. */
static const struct { const char *metric; double scale; int dec; } col[5] = {
	{ "seconds", 1, 2 }, { "files_per_s", 1, 0 }, { "rate_mbs", 1, 1 },
	{ "fs_used_bytes_source", 1 << 20, 0 },
	{ "fs_used_bytes_target", 1 << 20, 0 },
};

/* The tree table's head: the figures are MiB (rate_mbs is MiB/s). */
static const char *const tree_head[6] = { "step", "seconds", "files/s",
	"MiB/s", "source MiB", "target MiB" };

/* Column c of step (manifest.json's phases) in config label, formatted
 * ("-" when none). A move is one rename: the bytes of the tree over its
 * time are no rate, whatever the run recorded. */
static const char *cell(const struct results *r, json_t *phases,
			const char *label, const char *phase, int c,
			char *buf, size_t len)
{
	const char *step = c == 2 ? manifestread_with(phases, phase, "step") : NULL;
	double v;

	if ((!step || strcmp(step, "move")) &&
	    mean_of(r, label, phase, col[c].metric, &v))
		snprintf(buf, len, "%.*f", col[c].dec, v / col[c].scale);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* The name (borrowed) of the next phase from *at on, in the plan's order,
 * that uses the module mod or mod2 (NULL: none); NULL past the last. */
static const char *next_using(json_t *phases, size_t *at, const char *mod,
			      const char *mod2)
{
	while (*at < json_array_size(phases)) {
		json_t *o = json_array_get(phases, (*at)++);
		const char *name = json_string_value(json_object_get(o,
								     "name"));

		if (name && (manifestread_uses(o, mod) ||
			     (mod2 && manifestread_uses(o, mod2))))
			return name;
	}
	return NULL;
}

/* Those names, at most MAX_STEPS; how many. */
static int phases_using(json_t *phases, const char *mod, const char *mod2,
			const char **names)
{
	size_t at = 0;
	int n = 0;

	while (n < MAX_STEPS && (names[n] = next_using(phases, &at, mod,
						       mod2)))
		n++;
	return n;
}

/* The tree steps of phases (names borrowed), how many. */
static int tree_steps(json_t *phases, const char **step)
{
	return phases_using(phases, "tree", NULL, step);
}

/* Whether run i is the first of its config and the config ran a step. */
static int tree_config(const struct results *r, size_t i,
		       const char *const *step, int n_step)
{
	const char *label = r->runs[i].fs_label;
	double v;
	int ok = 0;

	for (size_t j = 0; j < i; j++)
		if (!strcmp(r->runs[j].fs_label, label))
			return 0;
	for (int s = 0; s < n_step; s++)
		ok += mean_of(r, label, step[s], "seconds", &v);
	return ok > 0;
}

/* A config's section: its label and its mkfs and mount seconds, as
 * "ext4: mkfs 0.1 s, mount 0.2 s" (html) and "ext4   mkfs ..." (text). */
static int tree_section(struct table *t, const struct results *r,
			const char *label)
{
	struct strbuf html = { 0 }, text = { 0 };
	int rc;
	double v;

	strbuf_str(&html, label);
	strbuf_str(&text, label);
	if (mean_of(r, label, "", "mkfs_s", &v)) {
		strbuf_printf(&html, ": mkfs %.3f s", v);
		strbuf_printf(&text, "   mkfs %.3f s", v);
	}
	if (mean_of(r, label, "", "mount_s", &v)) {
		strbuf_printf(&html, ", mount %.3f s", v);
		strbuf_printf(&text, "   mount %.3f s", v);
	}
	rc = html.oom || text.oom ? -1 :
	     table_section(t, sb(&html), sb(&text));
	free(html.p);
	free(text.p);
	return rc;
}

int studies_tree_tables(struct tables *out, const struct table_src *in)
{
	const struct results *r = in->r;
	const char *step[MAX_STEPS];
	int n_step = tree_steps(in->phases, step);
	struct table *t = NULL;
	char buf[5][48];

	for (size_t i = 0; n_step && i < r->n_runs; i++) {
		const char *label = r->runs[i].fs_label;
		double v;

		if (!tree_config(r, i, step, n_step))
			continue;
		if (!t) {
			if (!(t = tables_add(out)))
				return -1;
			table_init(t, 6, 1, tree_head, NULL);
			table_layout(t, "\n%t\n", "  %-10s %10s %10s %10s "
				     "%10s %10s", NULL);
			table_head(t, t->row_fmt, tree_head, 6);
		}
		if (tree_section(t, r, label))
			return -1;
		for (int s = 0; s < n_step; s++) {
			const char *row[6] = { step[s] };

			if (!mean_of(r, label, step[s], "seconds", &v))
				continue;
			for (int c = 0; c < 5; c++)
				row[c + 1] = cell(r, in->phases, label, step[s],
						  c, buf[c], sizeof(buf[c]));
			table_row(t, row, 0);
		}
	}
	return 0;
}

/* One ffsb phase's shape: its thread counts (ascending, as the study's
 * columns) and configs among the ok runs, and whether it reads. */
struct ffsb_shape {
	const char *label[MAX_CONFIGS];
	double threads[MAX_THREADS];
	int n_t, n_c, reads;
	size_t w;		/* the widest label, at least "threads" */
};

static void ffsb_shape(const struct results *r, const char *phase,
		       struct ffsb_shape *sh)
{
	double v;

	memset(sh, 0, sizeof(*sh));
	sh->w = 7;
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct res_run *x = &r->runs[i];
		int j;

		if (strcmp(x->phase, phase) || x->status != RES_OK ||
		    !results_value(x, "threads", &v))
			continue;
		for (j = 0; j < sh->n_t && sh->threads[j] != v; j++)
			;
		if (j == sh->n_t && sh->n_t < MAX_THREADS) {
			while (j > 0 && sh->threads[j - 1] > v) {
				sh->threads[j] = sh->threads[j - 1];
				j--;
			}
			sh->threads[j] = v;
			sh->n_t++;
		}
		for (j = 0; j < sh->n_c && strcmp(sh->label[j], x->fs_label);
		     j++)
			;
		if (j == sh->n_c && sh->n_c < MAX_CONFIGS) {
			sh->label[sh->n_c++] = x->fs_label;
			if (strlen(x->fs_label) > sh->w)
				sh->w = strlen(x->fs_label);
		}
		sh->reads |= results_value(x, "read_mbs", &v) && v > 0;
	}
}

/* The study's figure: the large-file create only writes, and the study
 * gave its MB/s; the small-file profile its transactions/s. */
static const char *ffsb_figure(const struct ffsb_shape *sh)
{
	return sh->reads ? "transactions_per_s" : "write_mbs";
}

/* One ffsb phase's table: a row per config, a figure and %CPU per
 * thread count; none when no ok run has threads. */
static int ffsb_table(struct tables *out, const struct results *r,
		      const char *phase)
{
	struct ffsb_shape sh;
	struct strbuf fmt = { 0 }, title = { 0 }, name[2 * MAX_THREADS + 1];
	const char *head[3][2 * MAX_THREADS + 1];
	char thr[MAX_THREADS][32], cell[2 * MAX_THREADS][48];
	struct table *t;
	int ncol, rc = -1;
	double v;

	ffsb_shape(r, phase, &sh);
	if (!sh.n_t)
		return 0;
	if (!(t = tables_add(out)))
		return -1;
	ncol = 1 + 2 * sh.n_t;
	memset(name, 0, sizeof(name));
	strbuf_str(&fmt, "%-*s");
	head[0][0] = "threads";
	head[1][0] = head[2][0] = "config";
	for (int j = 0; j < sh.n_t; j++) {
		snprintf(thr[j], sizeof(thr[j]), "%.0f", sh.threads[j]);
		strbuf_str(&fmt, "  %10s %6s");
		strbuf_printf(&name[1 + 2 * j], "%s threads: %s", thr[j],
			      sh.reads ? "trans/s" : "MB/s");
		head[0][1 + 2 * j] = thr[j];
		head[0][2 + 2 * j] = "";
		head[1][1 + 2 * j] = sh.reads ? "trans/s" : "MB/s";
		head[1][2 + 2 * j] = head[2][2 + 2 * j] = "%CPU";
		head[2][1 + 2 * j] = sb(&name[1 + 2 * j]);
	}
	strbuf_printf(&title, "%s: %s and %%CPU", phase,
		      sh.reads ? "transactions/s" : "write MB/s (MiB)");
	t->width = (int)sh.w;
	table_init(t, ncol, 1, head[2], NULL);
	table_layout(t, "\n%t\n", sb(&fmt), NULL);
	free(fmt.p);
	fmt = (struct strbuf){ 0 };
	strbuf_str(&fmt, "%-*s");
	for (int j = 0; j < sh.n_t; j++)
		strbuf_str(&fmt, "  %17s%s");
	table_head(t, sb(&fmt), head[0], (size_t)ncol);
	table_head(t, t->row_fmt, head[1], (size_t)ncol);
	if (fmt.oom || title.oom ||
	    table_section(t, sb(&title), NULL))
		goto out;
	for (int c = 0; c < sh.n_c; c++) {
		const char *row[2 * MAX_THREADS + 1] = { sh.label[c] };

		for (int j = 0; j < sh.n_t; j++) {
			row[1 + 2 * j] = mean_where(r, sh.label[c], phase,
				&sh.threads[j], ffsb_figure(&sh), &v) ?
				table_num(cell[2 * j], sizeof(cell[0]),
					  sh.reads ? "%.0f" : "%.1f", v) : "-";
			row[2 + 2 * j] = mean_where(r, sh.label[c], phase,
				&sh.threads[j], "test_cpu_pct", &v) ?
				table_num(cell[2 * j + 1], sizeof(cell[0]),
					  "%.1f", v) : "-";
		}
		table_row(t, row, 0);
	}
	rc = 0;
out:
	free(fmt.p);
	free(title.p);
	for (int j = 0; j < ncol; j++)
		free(name[j].p);
	return rc;
}

int studies_ffsb_tables(struct tables *out, const struct table_src *in)
{
	const char *name;
	size_t at = 0;

	while ((name = next_using(in->phases, &at, "ffsb", NULL)))
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

/* The phases that use oltp or mariadb, in the plan's order. */
static int oltp_phases(json_t *phases, const char **eng)
{
	return phases_using(phases, "oltp", "mariadb", eng);
}

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

int studies_oltp_tables(struct tables *out, const struct table_src *in)
{
	const struct results *r = in->r;
	const char *eng[MAX_STEPS], *row[2 + OLTP_COLS];
	char buf[OLTP_COLS][48];
	int n_eng = oltp_phases(in->phases, eng), native = 0;
	struct table *t = NULL;

	for (size_t i = 0; n_eng && i < r->n_runs; i++) {
		const char *label = r->runs[i].fs_label;
		double v;

		if (!first_of_label(r, i))
			continue;
		for (int e = 0; e < n_eng; e++) {
			if (!mean_of(r, label, eng[e], "transactions_per_s",
				     &v))
				continue;
			if (!t && !(t = tables_add(out)))
				return -1;
			if (!t->ncol)
				oltp_layout(t, r);
			native |= manifestread_phase_uses(in->phases, eng[e],
							  "oltp");
			row[0] = label;
			row[1] = eng[e];
			for (size_t c = 0; c < OLTP_COLS; c++) {
				if (mean_of(r, label, eng[e],
					    oltp_col[c].metric, &v))
					snprintf(buf[c], sizeof(buf[c]), "%.*f",
						 oltp_col[c].dec, v);
				else
					snprintf(buf[c], sizeof(buf[c]), "-");
				row[2 + c] = buf[c];
			}
			table_row(t, row, 0);
		}
	}
	return t && native ? table_note(t, STUDIES_OLTP_NOTE) : 0;
}
