/* studies: the seed studies' tables that span phases or cells — the 2008 home tree's steps, the 2008 ext4 study's ffsb profiles by threads, the 2008 OLTP study's engines. */
#include <string.h>

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

/* Column c of step in config label, formatted ("-" when none). */
static const char *cell(const struct results *r, const char *label,
			const char *phase, int c, char *buf, size_t len)
{
	double v;

	if (mean_of(r, label, phase, col[c].metric, &v))
		snprintf(buf, len, "%.*f", col[c].dec, v / col[c].scale);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* Whether phase o (manifest.json's) uses the library module name. */
static int uses(json_t *o, const char *name)
{
	const char *use = json_string_value(json_object_get(o, "use"));
	size_t n = use ? strlen(use) : 0, k = strlen(name);

	return use && (!strcmp(use, name) ||
		       (n >= k + 5 && use[n - k - 5] == '/' &&
			!strncmp(use + n - k - 4, name, k) &&
			!strcmp(use + n - 4, ".lua")));
}

static int is_tree(json_t *o)
{
	return uses(o, "tree");
}

/* The tree steps of phases (names borrowed), how many. */
static int tree_steps(json_t *phases, const char **step)
{
	int n_step = 0;
	size_t i;
	json_t *o;

	json_array_foreach(phases, i, o) {
		const char *name = json_string_value(json_object_get(o,
								     "name"));

		if (name && is_tree(o) && n_step < MAX_STEPS)
			step[n_step++] = name;
	}
	return n_step;
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
		fprintf(f, "\n  %-10s %10s %10s %10s %10s %10s\n", "step",
			"seconds", "files/s", "MB/s", "source MB", "target MB");
		for (int s = 0; s < n_step; s++) {
			if (!mean_of(r, label, step[s], "seconds", &v))
				continue;
			fprintf(f, "  %-10s", step[s]);
			for (int c = 0; c < 5; c++)
				fprintf(f, " %10s", cell(r, label, step[s], c,
							 buf[c], sizeof(buf[c])));
			fputc('\n', f);
		}
	}
	return printed > 0;
}

int studies_tree_grids(const struct results *r, json_t *phases,
		       classic_grid_fn fn, void *ctx)
{
	static const char *const head[6] = { "step", "seconds", "files/s",
		"MB/s", "source MB", "target MB" };
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
		bad = grid_row(&g, head);
		for (int s = 0; s < n_step && !bad; s++) {
			const char *row[6] = { step[s] };

			if (!mean_of(r, label, step[s], "seconds", &v))
				continue;
			for (int c = 0; c < 5; c++)
				row[c + 1] = cell(r, label, step[s], c, buf[c],
						  sizeof(buf[c]));
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

/* One ffsb phase's block: a row per config, a figure and %CPU per
 * thread count. Returns 1 printed, 0 no ok run with threads. */
static int ffsb_block(FILE *f, const struct results *r, const char *phase,
		      int first)
{
	const char *label[MAX_CONFIGS], *fig;
	double threads[MAX_THREADS], v;
	int n_t = 0, n_c = 0, reads = 0;
	size_t w = 7;	/* "threads" */

	for (size_t i = 0; i < r->n_runs; i++) {
		const struct res_run *x = &r->runs[i];
		int j;

		if (strcmp(x->phase, phase) || x->status != RES_OK ||
		    !results_value(x, "threads", &v))
			continue;
		for (j = 0; j < n_t && threads[j] != v; j++)
			;
		if (j == n_t && n_t < MAX_THREADS) {
			/* ascending, as the study's columns */
			while (j > 0 && threads[j - 1] > v) {
				threads[j] = threads[j - 1];
				j--;
			}
			threads[j] = v;
			n_t++;
		}
		for (j = 0; j < n_c && strcmp(label[j], x->fs_label); j++)
			;
		if (j == n_c && n_c < MAX_CONFIGS) {
			label[n_c++] = x->fs_label;
			if (strlen(x->fs_label) > w)
				w = strlen(x->fs_label);
		}
		reads |= results_value(x, "read_mbs", &v) && v > 0;
	}
	if (!n_t)
		return 0;
	/* the large-file create only writes: the study gave its MB/s; the
	 * small-file profile its transactions/s */
	fig = reads ? "transactions_per_s" : "write_mbs";
	if (first)
		fputs("\n== ffsb (the 2008 ext4 study): means of the ok runs, "
		      "by threads ==\n", f);
	fprintf(f, "\n%s: %s and %%CPU\n%-*s", phase,
		reads ? "transactions/s" : "write MB/s (MiB)", (int)w,
		"threads");
	for (int j = 0; j < n_t; j++)
		fprintf(f, "  %17.0f", threads[j]);
	fprintf(f, "\n%-*s", (int)w, "config");
	for (int j = 0; j < n_t; j++)
		fprintf(f, "  %10s %6s", reads ? "trans/s" : "MB/s", "%CPU");
	fputc('\n', f);
	for (int c = 0; c < n_c; c++) {
		fprintf(f, "%-*s", (int)w, label[c]);
		for (int j = 0; j < n_t; j++) {
			if (mean_where(r, label[c], phase, &threads[j], fig,
				       &v))
				fprintf(f, "  %10.*f", reads ? 0 : 1, v);
			else
				fprintf(f, "  %10s", "-");
			if (mean_where(r, label[c], phase, &threads[j],
				       "test_cpu_pct", &v))
				fprintf(f, " %6.1f", v);
			else
				fprintf(f, " %6s", "-");
		}
		fputc('\n', f);
	}
	return 1;
}

int studies_ffsb(FILE *f, const struct results *r, json_t *phases)
{
	int printed = 0;
	size_t i;
	json_t *o;

	json_array_foreach(phases, i, o) {
		const char *name = json_string_value(json_object_get(o,
								     "name"));

		if (name && uses(o, "ffsb"))
			printed += ffsb_block(f, r, name, !printed);
	}
	return printed > 0;
}

/* The first run of each config: where its rows first appear. */
static int first_of_label(const struct results *r, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(r->runs[j].fs_label, r->runs[i].fs_label))
			return 0;
	return 1;
}

int studies_oltp(FILE *f, const struct results *r, json_t *phases)
{
	static const struct { const char *metric, *fmt; } cols[] = {
		{ "total_time_s", " %8.2f" }, { "events", " %9.0f" },
		{ "transactions_per_s", " %9.1f" },
		{ "requests_per_s", " %9.1f" }, { "other_per_s", " %9.1f" },
		{ "lat_min_ms", " %8.2f" }, { "lat_avg_ms", " %8.2f" },
		{ "lat_max_ms", " %8.2f" },
	};
	const char *eng[MAX_STEPS];
	int n_eng = 0, width = 6, printed = 0;
	size_t i;
	json_t *o;

	json_array_foreach(phases, i, o) {
		const char *name = json_string_value(json_object_get(o,
								     "name"));

		if (name && (uses(o, "oltp") || uses(o, "mariadb")) &&
		    n_eng < MAX_STEPS)
			eng[n_eng++] = name;
	}
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
			fprintf(f, "%-*s %-10s", width, label, eng[e]);
			for (size_t c = 0; c < sizeof(cols) / sizeof(*cols);
			     c++) {
				if (mean_of(r, label, eng[e], cols[c].metric,
					    &v))
					fprintf(f, cols[c].fmt, v);
				else
					fprintf(f, " %8s", "-");
			}
			fputc('\n', f);
		}
	}
	return printed > 0;
}
