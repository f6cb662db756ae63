/* classic: the seed studies' tables — tiobench's and bonnie++'s layouts, and the helpers the study tables share. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/classic.h"

/* A mean built one repetition at a time; n == 0 means "not measured". */
struct acc {
	double sum;
	int n;
};

static void acc_add(struct acc *a, const struct res_run *run,
		    const char *name)
{
	double v;

	if (results_value(run, name, &v)) {
		a->sum += v;
		a->n++;
	}
}

static int acc_mean(const struct acc *a, double *v)
{
	if (!a->n)
		return 0;
	*v = a->sum / a->n;
	return 1;
}

static int has(const struct res_run *run, const char *name)
{
	return results_metric(run, name) != NULL;
}

/*
 * The row name of a run: its filesystem label, then its parameters other
 * than those in skip (NULL-ended), space-separated. Caller frees.
 */
char *classic_ident(const struct res_run *run, const char *const *skip)
{
	size_t len = strlen(run->fs_label) + strlen(run->params) + 2, n;
	const char *p = run->params;
	char *s = malloc(len);

	if (!s)
		return NULL;
	n = snprintf(s, len, "%s", run->fs_label);
	while (*p) {
		size_t k = strcspn(p, ";"), kl = strcspn(p, "=;");
		int drop = 0;

		for (const char *const *q = skip; q && *q; q++)
			if (strlen(*q) == kl && !strncmp(p, *q, kl))
				drop = 1;
		if (!drop)
			n += snprintf(s + n, len - n, " %.*s", (int)k, p);
		p += k + (p[k] == ';');
	}
	return s;
}

/* Where each distinct name first appeared, so rows keep the run's order. */
int classic_order(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int)i;
	return -1;
}

/* ---- tiobench ----------------------------------------------------------- */

static const char *const tio_skip[] = { "mode", "threads", "workers", NULL };

/* Sections in tiobench's order; other modes follow under their own name. */
static const struct { const char *mode, *title; } tio_sections[] = {
	{ "seq_read", "Sequential Reads" },
	{ "rand_read", "Random Reads" },
	{ "seq_write", "Sequential Writes" },
	{ "rand_write", "Random Writes" },
};
#define N_TIO_SECTIONS 4

enum { T_SIZE, T_BLOCK, T_RATE, T_CPU, T_AVG, T_MAX, T_2S, T_10S, N_TCOLS };

/*
 * CPU% is test_cpu_pct where the phase reports it (lua/tiobench.lua: the
 * threads' time only, as tiotest measures it), else the harness's
 * cpu_pct of the whole phase run.
 */
static const char *const tio_metric[N_TCOLS] = {
	"file_size_mib", "block_bytes", "rate_mbs", "cpu_pct", "avg_lat_ms",
	"max_lat_ms", "over_2s_pct", "over_10s_pct",
};

struct tio_row {
	char *ident, *mode;
	int section;		/* index into tio_sections, or 4 + first seen */
	int order;		/* first appearance of ident */
	double threads;
	struct acc col[N_TCOLS];
};

static int tio_cmp(const void *a, const void *b)
{
	const struct tio_row *x = a, *y = b;

	if (x->section != y->section)
		return x->section < y->section ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return (x->threads > y->threads) - (x->threads < y->threads);
}

static double tio_threads(const struct res_run *run)
{
	char buf[64];
	double v;

	if (results_value(run, "threads", &v))
		return v;
	if (results_param(run->params, "threads", buf, sizeof(buf)) ||
	    results_param(run->params, "workers", buf, sizeof(buf)))
		return strtod(buf, NULL);
	return NAN;
}

static void tio_line(FILE *f, int w, const char *const c[11])
{
	fprintf(f, "%-*s %6s %6s %3s  %12s %7s %9s %11s  %8s %8s %7s\n", w,
		c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9],
		c[10]);
}

static void tio_header(FILE *f, const char *title, int w)
{
	static const char *const top[11] = { "", "File", "Blk", "Num", "", "",
		"Avg", "Maximum", "Lat%", "Lat%", "CPU" };
	static const char *const mid[11] = { "Identifier", "Size", "Size",
		"Thr", "Rate", "(CPU%)", "Latency", "Latency", ">2s", ">10s",
		"Eff" };
	static const int width[11] = { 0, 6, 6, 3, 12, 7, 9, 11, 8, 8, 7 };
	char dash[11][256];
	const char *d[11];

	fprintf(f, "\n%s\n%.*s\n", title, (int)strlen(title),
		"==================================================");
	for (int i = 0; i < 11; i++) {
		int n = i ? width[i] : w;

		memset(dash[i], '-', n);
		dash[i][n] = '\0';
		d[i] = dash[i];
	}
	tio_line(f, w, top);
	tio_line(f, w, mid);
	tio_line(f, w, d);
}

static void tio_print_row(FILE *f, int w, const struct tio_row *r)
{
	static const char *const fmt[N_TCOLS] = { "%.0f", "%.0f", "%.2f",
		"%.2f%%", "%.3f", "%.2f", "%.5f", "%.5f" };
	char cell[N_TCOLS][32], thr[16], eff[32];
	const char *c[11];
	double v[N_TCOLS];
	int ok[N_TCOLS];

	for (int i = 0; i < N_TCOLS; i++) {
		ok[i] = acc_mean(&r->col[i], &v[i]);
		if (ok[i])
			snprintf(cell[i], sizeof(cell[i]), fmt[i], v[i]);
		else
			strcpy(cell[i], "-");
	}
	if (isnan(r->threads))
		strcpy(thr, "-");
	else
		snprintf(thr, sizeof(thr), "%.0f", r->threads);
	/* tiobench's CPU efficiency: MiB/s per CPU, from the row's means. */
	if (ok[T_RATE] && ok[T_CPU] && v[T_CPU] > 0)
		snprintf(eff, sizeof(eff), "%.0f",
			 v[T_RATE] / (v[T_CPU] / 100));
	else
		strcpy(eff, "-");
	c[0] = r->ident;
	c[1] = cell[T_SIZE];
	c[2] = cell[T_BLOCK];
	c[3] = thr;
	for (int i = T_RATE; i < N_TCOLS; i++)
		c[i + 2] = cell[i];
	c[10] = eff;
	tio_line(f, w, c);
}

static int tio_find(struct tio_row *rows, size_t n, const char *mode,
		    const char *ident, double threads)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].mode, mode) &&
		    !strcmp(rows[i].ident, ident) &&
		    (rows[i].threads == threads ||
		     (isnan(threads) && isnan(rows[i].threads))))
			return (int)i;
	return -1;
}

/* Group the runs into rows (mode, identifier, threads); -1 on ENOMEM. */
static int tio_collect(const struct res_run *const *runs, size_t n,
		       struct tio_row *rows, size_t *n_rows, char **idents,
		       char **modes)
{
	size_t n_idents = 0, n_modes = 0;

	for (size_t i = 0; i < n; i++) {
		const struct res_run *run = runs[i];
		char mbuf[128], *ident;
		const char *mode;
		double thr = tio_threads(run);
		struct tio_row *r;
		int k, sec;

		/* rate_mbs alone is no tiobench: the tree study has one */
		if (!has(run, "rate_mbs") || !has(run, "block_bytes"))
			continue;
		mode = results_param(run->params, "mode", mbuf, sizeof(mbuf));
		mode = mode ? mode : "";
		ident = classic_ident(run, tio_skip);
		if (!ident)
			return -1;
		if (classic_order(idents, n_idents, ident) < 0)
			idents[n_idents++] = strdup(ident);
		for (sec = 0; sec < N_TIO_SECTIONS; sec++)
			if (!strcmp(mode, tio_sections[sec].mode))
				break;
		if (sec == N_TIO_SECTIONS) {
			if (classic_order(modes, n_modes, mode) < 0)
				modes[n_modes++] = strdup(mode);
			sec += classic_order(modes, n_modes, mode);
		}
		k = tio_find(rows, *n_rows, mode, ident, thr);
		if (k >= 0) {
			free(ident);
			r = &rows[k];
		} else {
			r = &rows[(*n_rows)++];
			memset(r, 0, sizeof(*r));
			r->ident = ident;
			r->mode = strdup(mode);
			r->section = sec;
			r->order = classic_order(idents, n_idents, ident);
			r->threads = thr;
			if (!r->mode || r->order < 0)
				return -1;
		}
		for (int c = 0; c < N_TCOLS; c++)
			acc_add(&r->col[c], run, c == T_CPU &&
				has(run, "test_cpu_pct") ? "test_cpu_pct" :
				tio_metric[c]);
	}
	return 0;
}

/* The rows of runs, sorted as tiobench prints them; -1 on ENOMEM. */
struct tio_set {
	struct tio_row *rows;
	char **idents, **modes;
	size_t n_rows, n;
};

static int tio_build(struct tio_set *t, const struct res_run *const *runs,
		     size_t n)
{
	t->n = n;
	t->n_rows = 0;
	t->rows = calloc(n + 1, sizeof(*t->rows));
	t->idents = calloc(n + 1, sizeof(*t->idents));
	t->modes = calloc(n + 1, sizeof(*t->modes));
	if (!t->rows || !t->idents || !t->modes ||
	    tio_collect(runs, n, t->rows, &t->n_rows, t->idents, t->modes))
		return -1;
	qsort(t->rows, t->n_rows, sizeof(*t->rows), tio_cmp);
	return 0;
}

static void tio_free(struct tio_set *t)
{
	for (size_t i = 0; i < t->n_rows; i++) {
		free(t->rows[i].ident);
		free(t->rows[i].mode);
	}
	for (size_t i = 0; i <= t->n; i++) {
		free(t->idents ? t->idents[i] : NULL);
		free(t->modes ? t->modes[i] : NULL);
	}
	free(t->rows);
	free(t->idents);
	free(t->modes);
}

static const char *tio_title(const struct tio_row *r)
{
	return r->section < N_TIO_SECTIONS ? tio_sections[r->section].title :
	       *r->mode ? r->mode : "(no mode)";
}

int classic_tiobench(FILE *f, const struct res_run *const *runs, size_t n)
{
	struct tio_set t;
	int rc = -1, w = 28;

	if (tio_build(&t, runs, n))
		goto out;
	rc = t.n_rows > 0;
	if (!rc)
		goto out;
	for (size_t i = 0; i < t.n_rows; i++)
		if ((int)strlen(t.rows[i].ident) > w)
			w = (int)strlen(t.rows[i].ident);
	fputs("\ntiobench: means over the repetitions\n"
	      "  File Size = MiB   Blk Size = bytes   Rate = MiB/s\n"
	      "  CPU% = (user + sys) / wall time, the test's own "
	      "(test_cpu_pct) where the phase reports it\n"
	      "  Latency = ms   Lat% = % of requests slower than 2 s / 10 s\n"
	      "  CPU Eff = Rate / (CPU% / 100)\n", f);
	for (size_t i = 0; i < t.n_rows; i++) {
		if (!i || t.rows[i].section != t.rows[i - 1].section)
			tio_header(f, tio_title(&t.rows[i]), w);
		tio_print_row(f, w, &t.rows[i]);
	}
out:
	tio_free(&t);
	return rc;
}

int classic_tio_rates(const struct res_run *const *runs, size_t n,
		      classic_tio_fn fn, void *ctx)
{
	struct tio_set t;
	int rc = -1;

	if (tio_build(&t, runs, n))
		goto out;
	rc = 0;
	for (size_t i = 0; i < t.n_rows && !rc; i++) {
		const struct tio_row *r = &t.rows[i];
		double rate;

		if (acc_mean(&r->col[T_RATE], &rate))
			rc = fn(ctx, tio_title(r), r->ident, r->threads,
				rate) ? -1 : 0;
	}
out:
	tio_free(&t);
	return rc;
}

/* ---- bonnie ------------------------------------------------------------- */

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
	struct acc rate, cpu, lat;
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
	double v;

	for (int i = 0; i < N_BTESTS; i++) {
		struct bon_cell *c = &r->t[i];

		snprintf(name, sizeof(name), "%s_latency_us", bon_test[i]);
		acc_add(&c->lat, run, name);
		snprintf(name, sizeof(name), "%s_fast", bon_test[i]);
		if (results_value(run, name, &v) && v) {
			c->fast++;
			continue;
		}
		acc_add(&c->rate, run, bon_test[i]);
		snprintf(name, sizeof(name), "%s_cpu", bon_test[i]);
		acc_add(&c->cpu, run, name);
	}
}

static int bon_ran(const struct bon_row *r, int from, int to)
{
	for (int i = from; i < to; i++)
		if (r->t[i].rate.n || r->t[i].cpu.n || r->t[i].fast)
			return 1;
	return 0;
}

/* K/s as bon_csv2txt shows it: k under 10000, then m, then g. */
static void bon_speed(double k, char *buf, size_t len)
{
	double m = k / 1024;

	if (k < 10000)
		snprintf(buf, len, "%.0fk", k);
	else if (m < 100)
		snprintf(buf, len, "%.1fm", m);
	else if (m < 1000)
		snprintf(buf, len, "%.0fm", m);
	else
		snprintf(buf, len, "%.1fg", m / 1024);
}

/* bonnie++'s latency: us under 0.1 s, ms under 100 s, else s. */
static void bon_latency(double us, char *buf, size_t len)
{
	if (!(us > 0))
		buf[0] = '\0';
	else if (us < 100000)
		snprintf(buf, len, "%.0fus", us);
	else if (us < 100000000)
		snprintf(buf, len, "%.0fms", us / 1000);
	else
		snprintf(buf, len, "%.0fs", us / 1000000);
}

static void bon_figures(const struct bon_row *r, int i, char *rate,
			char *cpu, char *lat, size_t len)
{
	const struct bon_cell *c = &r->t[i];
	double v;

	rate[0] = cpu[0] = '\0';
	if (acc_mean(&c->rate, &v)) {
		if (i >= B_FILES)
			snprintf(rate, len, "%.0f", v);
		else if (i == B_SEEKS)
			snprintf(rate, len, v >= 1000 ? "%.0f" : "%.1f", v);
		else
			bon_speed(v, rate, len);
	} else if (c->fast) {
		snprintf(rate, len, "+++++");
	}
	if (acc_mean(&c->cpu, &v))
		snprintf(cpu, len, "%.0f", v);
	else if (c->fast)
		snprintf(cpu, len, "+++");
	bon_latency(acc_mean(&c->lat, &v) ? v : 0, lat, len);
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

static void bon_block(FILE *f, const struct bon_row *rows, size_t n,
		      int files)
{
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
	int from = files ? B_FILES : 0, w = 19;
	char shape[128], rate[32], cpu[32], lat[6][32];

	for (size_t i = 0; i < n; i++) {
		bon_shape(rows[i].first, files, shape, sizeof(shape));
		if ((int)(strlen(rows[i].ident) + 1 + strlen(shape)) > w)
			w = (int)(strlen(rows[i].ident) + 1 + strlen(shape));
	}
	fprintf(f, "\n%-*s %s\n%-*s %s\n", w, files ? "" : "fsplan bonnie",
		head[files][0], w, "", head[files][1]);
	fprintf(f, files ? "%*s" : "%-*s", w,
		files ? "files:max:min" : "Name:Size etc");
	for (int i = 0; i < 6; i++)
		fprintf(f, " %5s %3s", "/sec", "%CP");
	fputc('\n', f);
	for (size_t r = 0; r < n; r++) {
		int any_lat = 0;

		if (!bon_ran(&rows[r], from, from + 6))
			continue;
		bon_shape(rows[r].first, files, shape, sizeof(shape));
		fprintf(f, "%-*s%s", w - (int)strlen(shape), rows[r].ident,
			shape);
		for (int i = 0; i < 6; i++) {
			bon_figures(&rows[r], from + i, rate, cpu, lat[i],
				    sizeof(rate));
			fprintf(f, " %5s %3s", rate, cpu);
			any_lat |= lat[i][0] != '\0';
		}
		fputc('\n', f);
		if (!any_lat)
			continue;	/* bon_csv2txt leaves the line out too */
		fprintf(f, "%-*s", w - 1, "Latency");
		for (int i = 0; i < 6; i++)
			fprintf(f, "%s%9s", i ? " " : "", lat[i]);
		fputc('\n', f);
	}
}

int classic_bonnie(FILE *f, const struct res_run *const *runs, size_t n)
{
	struct bon_row *rows = calloc(n + 1, sizeof(*rows));
	size_t n_rows = 0;
	int rc = -1, io = 0, files = 0;

	if (!rows)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char *ident;
		size_t k;

		if (!has(runs[i], "bonnie_line"))
			continue;
		ident = classic_ident(runs[i], NULL);
		if (!ident)
			goto out;
		for (k = 0; k < n_rows; k++)
			if (!strcmp(rows[k].ident, ident))
				break;
		if (k < n_rows) {
			free(ident);
		} else {
			rows[n_rows].ident = ident;
			rows[n_rows++].first = runs[i];
		}
		bon_add(&rows[k], runs[i]);
	}
	for (size_t k = 0; k < n_rows; k++) {
		io |= bon_ran(&rows[k], 0, B_FILES);
		files |= bon_ran(&rows[k], B_FILES, N_BTESTS);
	}
	if (io || files)
		fputs("\nbonnie++: means over the repetitions (K/sec, "
		      "seeks/sec, files/sec; %CP; the longest op)\n", f);
	if (io)
		bon_block(f, rows, n_rows, 0);
	if (files)
		bon_block(f, rows, n_rows, 1);
	rc = io || files;
out:
	for (size_t k = 0; k < n_rows; k++)
		free(rows[k].ident);
	free(rows);
	return rc;
}

/* ---- what the tables show ----------------------------------------------- */

int classic_shows(const char *name, int tio, int bon, int db)
{
	if (db && !strcmp(name, "throughput_mbs"))
		return 1;
	static const char *const bon_suffix[] = { "", "_cpu", "_latency_us",
						  "_fast" };
	char want[64];

	for (int i = 0; tio && i < N_TCOLS; i++)
		if (!strcmp(name, tio_metric[i]))
			return 1;
	if (tio && (!strcmp(name, "test_cpu_pct") ||
		    !strcmp(name, "cpu_eff") || !strcmp(name, "threads")))
		return 1;
	for (int i = 0; bon && i < N_BTESTS; i++)
		for (int k = 0; k < 4; k++) {
			snprintf(want, sizeof(want), "%s%s", bon_test[i],
				 bon_suffix[k]);
			if (!strcmp(name, want))
				return 1;
		}
	return 0;
}
