/* bonnie: bon_csv2txt's two blocks for the runs of a bonnie++ phase —
 * sequential output, input and seeks, then creates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/bonnie.h"
#include "report/classic.h"
#include "results/bonniecsv.h"

static int has(const struct res_run *run, const char *name)
{
	return results_metric(run, name) != NULL;
}

/* bonnie++'s tests in its CSV order: the IO block, then the file block. */
static const char *const bon_test[12] = {
	"putc", "put_block", "rewrite", "getc", "get_block", "seeks",
	"seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat",
	"ran_del",
};
enum { B_SEEKS = 5, B_FILES = 6, N_BTESTS = 12 };

/*
 * A test's figures over the repetitions. A repetition under 0.5 s (T_fast)
 * gives no rate or %CPU, as bonnie++ prints none: the means are of the
 * others, and "+++++ +++" shows when every repetition was that fast.
 */
struct bon_cell {
	struct classic_acc rate, cpu, lat;
	int fast;		/* repetitions that ran under 0.5 s */
};

struct bon_row {
	char *ident;
	const struct res_run *first;	/* its shape: size, seeks, files */
	struct bon_cell t[N_BTESTS];
};

static void bon_add(struct bon_row *r, const struct res_run *run)
{
	char name[64];

	for (int i = 0; i < N_BTESTS; i++) {
		struct bon_cell *c = &r->t[i];

		snprintf(name, sizeof(name), "%s_latency_us", bon_test[i]);
		classic_acc_add(&c->lat, run, name);
		if (results_fast(run, bon_test[i])) {
			c->fast++;
			continue;
		}
		classic_acc_add(&c->rate, run, bon_test[i]);
		snprintf(name, sizeof(name), "%s_cpu", bon_test[i]);
		classic_acc_add(&c->cpu, run, name);
	}
}

static int bon_ran(const struct bon_row *r, int from, int to)
{
	for (int i = from; i < to; i++)
		if (r->t[i].rate.n || r->t[i].cpu.n || r->t[i].fast)
			return 1;
	return 0;
}

/*
 * K/s as bon_csv2txt shows the whole number bonnie++ wrote: k under
 * 10000, then m (a fraction under 100, else rounded as its int(m + 0.5)),
 * then g.
 */
static void bon_speed(long long k, char *buf, size_t len)
{
	double m = k / 1024.0;

	if (k < 10000)
		snprintf(buf, len, "%lldk", k);
	else if (m < 100)
		snprintf(buf, len, "%.1fm", m);
	else if (m < 1000)
		snprintf(buf, len, "%lldm", (long long)(m + 0.5));
	else
		snprintf(buf, len, "%.1fg", m / 1024);
}

/*
 * A test's figures as bon_csv2txt prints them from bonnie++'s line: the
 * rate and %CPU truncated to whole numbers (seeks with "%.0f"/"%.1f"),
 * the latency as bonnie++ writes it (bonniecsv_latency, truncating); over
 * repetitions, of the mean, truncated alike.
 */
static void bon_figures(const struct bon_row *r, int i, char *rate,
			char *cpu, char *lat, size_t len)
{
	const struct bon_cell *c = &r->t[i];
	double v;

	rate[0] = cpu[0] = '\0';
	if (classic_acc_mean(&c->rate, &v)) {
		if (i >= B_FILES)
			snprintf(rate, len, "%lld", bonniecsv_whole(v));
		else if (i == B_SEEKS)
			snprintf(rate, len, v >= 1000 ? "%.0f" : "%.1f", v);
		else
			bon_speed(bonniecsv_whole(v), rate, len);
	} else if (c->fast) {
		snprintf(rate, len, "+++++");
	}
	if (classic_acc_mean(&c->cpu, &v))
		snprintf(cpu, len, "%lld", bonniecsv_whole(v));
	else if (c->fast)
		snprintf(cpu, len, "+++");
	bonniecsv_latency(classic_acc_mean(&c->lat, &v) ? v : 0, lat, len);
}

/* "256M::8192:5" (size:chunk:seeks:procs) or "16:4096:1024/4". */
static void bon_shape(const struct res_run *run, int files, char *buf,
		      size_t len)
{
	double size, a, b, dirs, link;
	size_t n = 0;

	buf[0] = '\0';
	if (!files) {
		if (!results_value(run, "file_size_mib", &size))
			return;
		n = snprintf(buf, len, fmod(size, 1024) ? "%.0fM" : "%.0fG",
			     fmod(size, 1024) ? size : size / 1024);
		if (results_value(run, "seeks_count", &a) &&
		    results_value(run, "seek_procs", &b))
			snprintf(buf + n, len - n, "::%.0f:%.0f", a, b);
		return;
	}
	if (!results_value(run, "num_files", &a))
		return;
	n = snprintf(buf, len, "%.0f", a);
	if (results_value(run, "max_size_link", &link) && link)
		n += snprintf(buf + n, len - n, ":%s",
			      link == 1 ? "link" : "symlink");
	else if (results_value(run, "max_size", &a) && a) {
		n += snprintf(buf + n, len - n, ":%.0f", a);
		if (results_value(run, "min_size", &b) && b)
			n += snprintf(buf + n, len - n, ":%.0f", b);
	}
	if (results_value(run, "num_dirs", &dirs) && dirs > 1)
		snprintf(buf + n, len - n, "/%.0f", dirs);
}

/* The rows of runs with bonnie_line, a row per identifier; -1 on
 * ENOMEM. *io and *files: whether a row has a test of the block. */
static int bon_collect(const struct res_run *const *runs, size_t n,
		       struct bon_row *rows, size_t *n_rows, int *io,
		       int *files)
{
	*n_rows = 0;
	for (size_t i = 0; i < n; i++) {
		char *ident;
		size_t k;

		if (!has(runs[i], "bonnie_line"))
			continue;
		ident = classic_ident(runs[i], NULL);
		if (!ident)
			return -1;
		for (k = 0; k < *n_rows; k++)
			if (!strcmp(rows[k].ident, ident))
				break;
		if (k < *n_rows) {
			free(ident);
		} else {
			rows[*n_rows].ident = ident;
			rows[(*n_rows)++].first = runs[i];
		}
		bon_add(&rows[k], runs[i]);
	}
	*io = *files = 0;
	for (size_t k = 0; k < *n_rows; k++) {
		*io |= bon_ran(&rows[k], 0, B_FILES);
		*files |= bon_ran(&rows[k], B_FILES, N_BTESTS);
	}
	return 0;
}

static void bon_free(struct bon_row *rows, size_t n_rows)
{
	for (size_t k = 0; k < n_rows; k++)
		free(rows[k].ident);
	free(rows);
}

/* A block's columns and text layout: config, shape, then /sec and %CP
 * per test; bon_csv2txt's two head lines above. */
static void bon_layout(struct table *t, int files, int w)
{
	static const char *const test[N_BTESTS] = { "Out Per Chr",
		"Out Block", "Rewrite", "In Per Chr", "In Block", "Seeks",
		"Seq Create", "Seq Read", "Seq Delete", "Ran Create",
		"Ran Read", "Ran Delete" };
	static const char *const head[2][2] = {
		{ "------Sequential Output------ --Sequential Input- "
		  "--Random-",
		  "-Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- "
		  "--Seeks--" },
		{ "------Sequential Create------ --------Random Create"
		  "--------",
		  "-Create-- --Read--- -Delete-- -Create-- --Read--- "
		  "-Delete--" },
	};
	static const char *const title[2] = {
		"bonnie++ Sequential Output, Sequential Input, Random Seeks "
		"(K/sec, seeks/sec; %CP; the longest op)",
		"bonnie++ Sequential Create, Random Create (files/sec; %CP; "
		"the longest op)" };
	const char *name[14], *line[14];
	char buf[12][32];
	int from = files ? B_FILES : 0;

	name[0] = "config";
	name[1] = files ? "files:max:min" : "size::seeks:procs";
	line[0] = files ? "" : "Name:Size etc";
	line[1] = files ? "files:max:min" : "";
	for (int i = 0; i < 6; i++) {
		snprintf(buf[2 * i], sizeof(buf[0]), "%s /sec", test[from + i]);
		snprintf(buf[2 * i + 1], sizeof(buf[0]), "%s %%CP",
			 test[from + i]);
		name[2 + 2 * i] = buf[2 * i];
		name[3 + 2 * i] = buf[2 * i + 1];
		line[2 + 2 * i] = "/sec";
		line[3 + 2 * i] = "%CP";
	}
	t->width = w;
	table_init(t, 14, 2, name, NULL);
	table_layout(t, "\n", "%-*js" " %5s %3s %5s %3s %5s %3s %5s %3s"
		     " %5s %3s %5s %3s", "%-*-1s%s%9s%s %9s%s %9s%s %9s%s"
		     " %9s%s %9s%s");
	table_head(t, "%-*s %s", (const char *[]){ files ? "" :
		   "fsplan bonnie", head[files][0] }, 2);
	table_head(t, "%-*s %s", (const char *[]){ "", head[files][1] }, 2);
	table_head(t, t->row_fmt, line, 14);
	table_section(t, title[files], NULL);
}

/* One block: a row per config that ran a test of it, and under it its
 * Latency row when it has one. */
static void bon_block(struct table *t, const struct bon_row *rows, size_t n,
		      int files)
{
	int from = files ? B_FILES : 0, w = 19;
	char shape[128], rate[6][32], cpu[6][32], lat[6][32];
	const char *row[14], *sub[14];

	for (size_t i = 0; i < n; i++) {
		bon_shape(rows[i].first, files, shape, sizeof(shape));
		if ((int)(strlen(rows[i].ident) + 1 + strlen(shape)) > w)
			w = (int)(strlen(rows[i].ident) + 1 + strlen(shape));
	}
	bon_layout(t, files, w);
	for (size_t r = 0; r < n; r++) {
		int any_lat = 0;

		if (!bon_ran(&rows[r], from, from + 6))
			continue;
		bon_shape(rows[r].first, files, shape, sizeof(shape));
		row[0] = rows[r].ident;
		row[1] = shape;
		sub[0] = "Latency";
		sub[1] = "";
		for (int i = 0; i < 6; i++) {
			bon_figures(&rows[r], from + i, rate[i], cpu[i],
				    lat[i], sizeof(rate[i]));
			row[2 + 2 * i] = rate[i];
			row[3 + 2 * i] = cpu[i];
			sub[2 + 2 * i] = lat[i];
			sub[3 + 2 * i] = "";
			any_lat |= lat[i][0] != '\0';
		}
		table_row(t, row, 0);
		if (any_lat)	/* bon_csv2txt leaves the line out too */
			table_row(t, sub, 1);
	}
}

int bonnie_tables(struct tables *out, const struct table_src *in)
{
	struct bon_row *rows = calloc(in->n + 1, sizeof(*rows));
	size_t n_rows = 0;
	int rc = -1, ran[2] = { 0, 0 };

	if (!rows || bon_collect(in->runs, in->n, rows, &n_rows, &ran[0],
				 &ran[1]))
		goto out;
	for (int b = 0; b < 2; b++) {
		struct table *t = ran[b] ? tables_add(out) : NULL;

		if (t)
			bon_block(t, rows, n_rows, b);
	}
	rc = 0;
out:
	bon_free(rows, n_rows);
	return rc;
}

/* ---- what the blocks show ---------------------------------------------- */

int bonnie_shows(const char *name)
{
	static const char *const suffix[] = { "", "_cpu", "_latency_us",
					      "_fast" };
	char want[64];

	for (int i = 0; i < N_BTESTS; i++)
		for (int k = 0; k < 4; k++) {
			snprintf(want, sizeof(want), "%s%s", bon_test[i],
				 suffix[k]);
			if (!strcmp(name, want))
				return 1;
		}
	return 0;
}
