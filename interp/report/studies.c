/* studies: the seed studies' tables that span phases or cells — the 2008 home tree's steps, the 2008 ext4 study's ffsb profiles by threads, the 2008 OLTP study's engines. */
#include <string.h>

#include "report/grid.h"
#include "report/manifestread.h"
#include "report/studies.h"

#define MAX_STEPS 32
#define MAX_THREADS 16
#define MAX_CONFIGS 64

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

int studies_tree(FILE *f, const struct results *r, json_t *phases)
{
	const char *step[MAX_STEPS];
	int n_step = tree_steps(phases, step), printed = 0;
	char buf[5][48];

	for (size_t i = 0; n_step && i < r->n_runs; i++) {
		const char *label = r->runs[i].fs_label;
		double v;

		if (!tree_config(r, i, step, n_step))
			continue;
		if (!printed++)
			fputs("\n== the home tree (copy/move/rm study): means "
			      "of the ok runs; df after each step ==\n", f);
		fprintf(f, "\n%s", label);
		if (mean_of(r, label, "", "mkfs_s", &v))
			fprintf(f, "   mkfs %.3f s", v);
		if (mean_of(r, label, "", "mount_s", &v))
			fprintf(f, "   mount %.3f s", v);
		fprintf(f, "\n  %-10s", tree_head[0]);
		for (int c = 1; c < 6; c++)
			fprintf(f, " %10s", tree_head[c]);
		fputc('\n', f);
		for (int s = 0; s < n_step; s++) {
			if (!mean_of(r, label, step[s], "seconds", &v))
				continue;
			fprintf(f, "  %-10s", step[s]);
			for (int c = 0; c < 5; c++)
				fprintf(f, " %10s", cell(r, phases, label,
							 step[s], c, buf[c],
							 sizeof(buf[c])));
			fputc('\n', f);
		}
	}
	return printed > 0;
}

int studies_tree_grids(const struct results *r, json_t *phases,
		       classic_grid_fn fn, void *ctx)
{
	const char *step[MAX_STEPS];
	int n_step = tree_steps(phases, step), shown = 0;
	char buf[5][48], title[512];

	for (size_t i = 0; n_step && i < r->n_runs; i++) {
		const char *label = r->runs[i].fs_label;
		struct grid g = { 6, 1, NULL, 0, 0 };
		size_t k;
		double v;
		int bad;

		if (!tree_config(r, i, step, n_step))
			continue;
		k = snprintf(title, sizeof(title), "%s", label);
		if (mean_of(r, label, "", "mkfs_s", &v) && k < sizeof(title))
			k += snprintf(title + k, sizeof(title) - k,
				      ": mkfs %.3f s", v);
		if (mean_of(r, label, "", "mount_s", &v) && k < sizeof(title))
			snprintf(title + k, sizeof(title) - k, ", mount %.3f s",
				 v);
		bad = grid_row(&g, tree_head);
		for (int s = 0; s < n_step && !bad; s++) {
			const char *row[6] = { step[s] };

			if (!mean_of(r, label, step[s], "seconds", &v))
				continue;
			for (int c = 0; c < 5; c++)
				row[c + 1] = cell(r, phases, label, step[s], c,
						  buf[c], sizeof(buf[c]));
			bad = grid_row(&g, row);
		}
		bad = bad || fn(ctx, title, &g);
		grid_free(&g);
		if (bad)
			return -1;
		shown = 1;
	}
	return shown;
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

/* One ffsb phase's block: a row per config, a figure and %CPU per
 * thread count. Returns 1 printed, 0 no ok run with threads. */
static int ffsb_block(FILE *f, const struct results *r, const char *phase,
		      int first)
{
	struct ffsb_shape sh;
	const char *fig;
	int w;
	double v;

	ffsb_shape(r, phase, &sh);
	if (!sh.n_t)
		return 0;
	fig = ffsb_figure(&sh);
	w = (int)sh.w;
	if (first)
		fputs("\n== ffsb (the 2008 ext4 study): means of the ok runs, "
		      "by threads ==\n", f);
	fprintf(f, "\n%s: %s and %%CPU\n%-*s", phase,
		sh.reads ? "transactions/s" : "write MB/s (MiB)", w,
		"threads");
	for (int j = 0; j < sh.n_t; j++)
		fprintf(f, "  %17.0f", sh.threads[j]);
	fprintf(f, "\n%-*s", w, "config");
	for (int j = 0; j < sh.n_t; j++)
		fprintf(f, "  %10s %6s", sh.reads ? "trans/s" : "MB/s", "%CPU");
	fputc('\n', f);
	for (int c = 0; c < sh.n_c; c++) {
		fprintf(f, "%-*s", w, sh.label[c]);
		for (int j = 0; j < sh.n_t; j++) {
			if (mean_where(r, sh.label[c], phase, &sh.threads[j],
				       fig, &v))
				fprintf(f, "  %10.*f", sh.reads ? 0 : 1, v);
			else
				fprintf(f, "  %10s", "-");
			if (mean_where(r, sh.label[c], phase, &sh.threads[j],
				       "test_cpu_pct", &v))
				fprintf(f, " %6.1f", v);
			else
				fprintf(f, " %6s", "-");
		}
		fputc('\n', f);
	}
	return 1;
}

/* The same block as a grid: a column pair per thread count (as many as
 * a grid holds). 1 shown, 0 nothing, -1 error. */
static int ffsb_grid(const struct results *r, const char *phase,
		     classic_grid_fn fn, void *ctx)
{
	struct ffsb_shape sh;
	struct grid g = { 0 };
	const char *row[GRID_COLS];
	char buf[GRID_COLS][48], title[256];
	int n_t, bad;
	double v;

	ffsb_shape(r, phase, &sh);
	if (!sh.n_t)
		return 0;
	n_t = sh.n_t < (GRID_COLS - 1) / 2 ? sh.n_t : (GRID_COLS - 1) / 2;
	g.ncol = 1 + 2 * n_t;
	g.left = 1;
	row[0] = "config";
	for (int j = 0; j < n_t; j++) {
		snprintf(buf[1 + 2 * j], sizeof(buf[0]), "%.0f threads: %s",
			 sh.threads[j], sh.reads ? "trans/s" : "MB/s");
		snprintf(buf[2 + 2 * j], sizeof(buf[0]), "%%CPU");
		row[1 + 2 * j] = buf[1 + 2 * j];
		row[2 + 2 * j] = buf[2 + 2 * j];
	}
	bad = grid_row(&g, row);
	for (int c = 0; c < sh.n_c && !bad; c++) {
		row[0] = sh.label[c];
		for (int j = 0; j < n_t; j++) {
			char *a = buf[1 + 2 * j], *b = buf[2 + 2 * j];

			if (mean_where(r, sh.label[c], phase, &sh.threads[j],
				       ffsb_figure(&sh), &v))
				snprintf(a, sizeof(buf[0]), "%.*f",
					 sh.reads ? 0 : 1, v);
			else
				snprintf(a, sizeof(buf[0]), "-");
			if (mean_where(r, sh.label[c], phase, &sh.threads[j],
				       "test_cpu_pct", &v))
				snprintf(b, sizeof(buf[0]), "%.1f", v);
			else
				snprintf(b, sizeof(buf[0]), "-");
		}
		bad = grid_row(&g, row);
	}
	snprintf(title, sizeof(title), "%s: %s and %%CPU", phase,
		 sh.reads ? "transactions/s" : "write MB/s (MiB)");
	bad = bad || fn(ctx, title, &g);
	grid_free(&g);
	return bad ? -1 : 1;
}

int studies_ffsb(FILE *f, const struct results *r, json_t *phases)
{
	const char *name;
	size_t at = 0;
	int printed = 0;

	while ((name = next_using(phases, &at, "ffsb", NULL)))
		printed += ffsb_block(f, r, name, !printed);
	return printed > 0;
}

int studies_ffsb_grids(const struct results *r, json_t *phases,
		       classic_grid_fn fn, void *ctx)
{
	const char *name;
	size_t at = 0;
	int shown = 0, rc;

	while ((name = next_using(phases, &at, "ffsb", NULL))) {
		if ((rc = ffsb_grid(r, name, fn, ctx)) < 0)
			return -1;
		shown |= rc;
	}
	return shown;
}

/* The first run of each config: where its rows first appear. */
static int first_of_label(const struct results *r, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(r->runs[j].fs_label, r->runs[i].fs_label))
			return 0;
	return 1;
}

/* The OLTP table's columns: metric, text width and decimals. */
static const struct { const char *metric; int width, dec; } oltp_col[] = {
	{ "total_time_s", 8, 2 }, { "events", 9, 0 },
	{ "transactions_per_s", 9, 1 }, { "requests_per_s", 9, 1 },
	{ "other_per_s", 9, 1 }, { "lat_min_ms", 8, 2 },
	{ "lat_avg_ms", 8, 2 }, { "lat_max_ms", 8, 2 },
};
#define OLTP_COLS (sizeof(oltp_col) / sizeof(*oltp_col))

const char studies_oltp_note[] =
	"use: oltp is the I/O of sysbench's transactions without a "
	"database's CPU:\nits rates are not sysbench's; only the configs' "
	"order compares across engines.";

/* The phases that use oltp or mariadb, in the plan's order. */
static int oltp_phases(json_t *phases, const char **eng)
{
	return phases_using(phases, "oltp", "mariadb", eng);
}

int studies_oltp(FILE *f, const struct results *r, json_t *phases)
{
	const char *eng[MAX_STEPS];
	int n_eng = oltp_phases(phases, eng), width = 6, printed = 0;
	int native = 0;
	size_t i;

	if (!n_eng)
		return 0;
	for (i = 0; i < r->n_runs; i++)
		if ((int)strlen(r->runs[i].fs_label) > width)
			width = (int)strlen(r->runs[i].fs_label);
	for (i = 0; i < r->n_runs; i++) {
		const char *label = r->runs[i].fs_label;
		double v;

		if (!first_of_label(r, i))
			continue;
		for (int e = 0; e < n_eng; e++) {
			if (!mean_of(r, label, eng[e], "transactions_per_s",
				     &v))
				continue;
			if (!printed++)
				fprintf(f, "\n== OLTP (the 2008 sysbench study): "
					"means of the ok runs; latency in ms "
					"==\n\n%-*s %-10s %8s %9s %9s %9s %9s "
					"%8s %8s %8s\n", width, "config",
					"phase", "time s", "events",
					"trans/s", "req/s", "other/s", "min",
					"avg", "max");
			native |= manifestread_phase_uses(phases, eng[e], "oltp");
			fprintf(f, "%-*s %-10s", width, label, eng[e]);
			for (size_t c = 0; c < OLTP_COLS; c++) {
				if (mean_of(r, label, eng[e],
					    oltp_col[c].metric, &v))
					fprintf(f, " %*.*f", oltp_col[c].width,
						oltp_col[c].dec, v);
				else
					fprintf(f, " %8s", "-");
			}
			fputc('\n', f);
		}
	}
	if (native)
		fprintf(f, "\n%s\n", studies_oltp_note);
	return printed > 0;
}

int studies_oltp_grids(const struct results *r, json_t *phases,
		       classic_grid_fn fn, void *ctx)
{
	static const char *const head[2 + OLTP_COLS] = { "config", "phase",
		"time s", "events", "trans/s", "req/s", "other/s",
		"min ms", "avg ms", "max ms" };
	const char *eng[MAX_STEPS], *row[2 + OLTP_COLS];
	char buf[OLTP_COLS][48];
	int n_eng = oltp_phases(phases, eng), shown = 0, bad;
	struct grid g = { 2 + OLTP_COLS, 2, NULL, 0, 0 };

	if (!n_eng)
		return 0;
	bad = grid_row(&g, head);
	for (size_t i = 0; i < r->n_runs && !bad; i++) {
		const char *label = r->runs[i].fs_label;
		double v;

		if (!first_of_label(r, i))
			continue;
		for (int e = 0; e < n_eng && !bad; e++) {
			if (!mean_of(r, label, eng[e], "transactions_per_s",
				     &v))
				continue;
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
			bad = grid_row(&g, row);
			shown = 1;
		}
	}
	bad = bad || (shown && fn(ctx, "means of the ok runs; latency in ms",
				  &g));
	grid_free(&g);
	return bad ? -1 : shown;
}
