/* studies: the seed studies' tables that span phases — the 2008 home tree's steps. */
#include <string.h>

#include "report/studies.h"

#define MAX_STEPS 32

/* The mean of metric over the ok runs of phase in config label; 0 none. */
static int mean_of(const struct results *r, const char *label,
		   const char *phase, const char *metric, double *out)
{
	double sum = 0, v;
	int n = 0;

	for (size_t i = 0; i < r->n_runs; i++) {
		const struct res_run *x = &r->runs[i];

		if (strcmp(x->fs_label, label) || strcmp(x->phase, phase) ||
		    (*phase && x->status != RES_OK) ||
		    !results_value(x, metric, &v))
			continue;
		sum += v;
		n++;
	}
	if (n)
		*out = sum / n;
	return n;
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

static int is_tree(json_t *o)
{
	const char *use = json_string_value(json_object_get(o, "use"));
	size_t n = use ? strlen(use) : 0;

	return use && (!strcmp(use, "tree") ||
		       (n >= 9 && !strcmp(use + n - 9, "/tree.lua")));
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
