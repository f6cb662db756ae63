/* audit: the methodology checks at the top of a report, one line each. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/audit.h"
#include "report/fig.h"
#include "report/html.h"
#include "report/manifestread.h"
#include "report/view.h"
#include "util/units.h"

/* What a check reads: the run's rows and its manifest (or NULL). */
struct audit_in {
	const struct results *r;
	json_t *m;
};

static const char *const verdict_name[] = { "pass", "warn", "fail" };

static void say(struct audit_line *l, enum audit_verdict v,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(struct audit_line *l, enum audit_verdict v,
		const char *fmt, ...)
{
	va_list ap;

	l->verdict = v;
	va_start(ap, fmt);
	vsnprintf(l->text, sizeof(l->text), fmt, ap);
	va_end(ap);
}

/* Whether x is a phase run (not a config's own rows) that counted. */
static int phase_ok(const struct res_run *x)
{
	return *x->phase && x->status == RES_OK;
}

/* The first key metric of phase (the manifest's), else seconds. */
static const char *first_key(json_t *m, const char *phase)
{
	const char *names[2];

	if (manifestread_key(json_object_get(m, "phases"), phase, names,
			     1) > 0)
		return names[0];
	return "seconds";
}

/* One cell's (config x phase x params) sample of its first key metric:
 * the ok runs of base, from run i on; the stats in *s. */
static int cell_stats(const struct audit_in *in, size_t i,
		      struct res_stats *s)
{
	const struct results *r = in->r;
	const char *key = first_key(in->m, r->runs[i].phase);
	double v[256];
	int n = 0;

	for (size_t j = i; j < r->n_runs && n < 256; j++) {
		const struct res_metric *x;

		if (!phase_ok(&r->runs[j]) ||
		    strcmp(r->runs[j].base, r->runs[i].base))
			continue;
		if ((x = results_measured(&r->runs[j], key)))
			v[n++] = x->v;
	}
	memset(s, 0, sizeof(*s));
	if (n)
		results_stats(v, n, s);
	s->n = n;
	return n;
}

/* Whether run i is the first ok run of its cell. */
static int cell_first(const struct results *r, size_t i)
{
	if (!phase_ok(&r->runs[i]))
		return 0;
	for (size_t j = 0; j < i; j++)
		if (phase_ok(&r->runs[j]) &&
		    !strcmp(r->runs[j].base, r->runs[i].base))
			return 0;
	return 1;
}

static void check_repetitions(const struct audit_in *in,
			      struct audit_line *l)
{
	int cells = 0, least = -1;
	double widest = 0;
	struct res_stats s;

	for (size_t i = 0; i < in->r->n_runs; i++) {
		if (!cell_first(in->r, i))
			continue;
		cells++;
		cell_stats(in, i, &s);
		if (least < 0 || s.n < least)
			least = s.n;
		if (s.n >= 2 && s.mean != 0 &&
		    100 * s.ci / fabs(s.mean) > widest)
			widest = 100 * s.ci / fabs(s.mean);
	}
	if (!cells)
		say(l, AUDIT_FAIL, "n=0: no phase run counted");
	else if (least < 2)
		say(l, AUDIT_FAIL, "n=%d: some of the %d cells have fewer "
		    "than 2 ok runs: no 95%% CI", least,
		    cells);
	else
		say(l, widest > 10 ? AUDIT_WARN : AUDIT_PASS, "n>=%d, widest "
		    "95%% CI +-%.1f%% of the mean over %d cells%s", least,
		    widest, cells, widest > 10 ? ": more repetitions would "
		    "narrow it (over 10%)" : "");
}

/* The text row name of x, or "". */
static const char *text_row(const struct res_run *x, const char *name)
{
	const struct res_metric *m = results_metric(x, name);

	return m && m->value ? m->value : "";
}

static void check_cache(const struct audit_in *in, struct audit_line *l)
{
	size_t runs = 0, open = 0, unlimited = 0, buffered = 0;

	for (size_t i = 0; i < in->r->n_runs; i++) {
		const struct res_run *x = &in->r->runs[i];
		const char *lim = text_row(x, "ram_limit");
		int nolim = !*lim || !strcmp(lim, "none");
		int direct = !strcmp(text_row(x, "loop_io"), "direct");

		/* tmpfs is memory: no cache between it and a disk */
		if (!*x->phase || !strcmp(x->fs_type, "tmpfs"))
			continue;
		runs++;
		unlimited += nolim;
		buffered += !direct;
		open += nolim && !direct;
	}
	if (open)
		say(l, AUDIT_WARN, "%zu of %zu phase runs had no memory limit "
		    "and no direct loop I/O: the page cache may be what is "
		    "measured", open, runs);
	else
		say(l, AUDIT_PASS, "%zu phase runs (tmpfs aside): %zu "
		    "without a memory limit, %zu without direct loop I/O, "
		    "none without both",
		    runs, unlimited, buffered);
}

static void check_aged(const struct audit_in *in, struct audit_line *l)
{
	json_t *confs = json_object_get(in->m, "configs"), *c;
	char fills[256] = "";
	size_t i, aged = 0, len = 0;

	json_array_foreach(confs, i, c) {
		double fill = json_number_value(json_object_get(
			json_object_get(c, "age"), "fill"));

		if (fill <= 0)
			continue;
		if (len < sizeof(fills))
			len += snprintf(fills + len, sizeof(fills) - len,
					"%s%s %.0f%%", aged ? ", " : "",
					manifestread_str(c, "label", "?"),
					100 * fill);
		aged++;
	}
	if (!json_array_size(confs))
		say(l, AUDIT_WARN, "no configs in manifest.json: whether "
		    "any was aged is not known");
	else if (!aged)
		say(l, AUDIT_WARN, "0 of %zu configs aged: results are those "
		    "of new filesystems", json_array_size(confs));
	else
		say(l, AUDIT_PASS, "%zu of %zu configs aged (fill %s)", aged,
		    json_array_size(confs), fills);
}

/* The data a phase run had to work on: the filesystem's used space
 * after it, or its size parameter when larger (a phase that removes its
 * files); -1 when neither is known. */
static double data_bytes(const struct res_run *x)
{
	char buf[64];
	double used = -1;
	uint64_t size;

	if (!results_value(x, "fs_used_bytes", &used))
		used = -1;
	if (results_param(x->params, "size", buf, sizeof(buf)) &&
	    !units_size(buf, &size) && (double)size > used)
		used = (double)size;
	return used;
}

/* Whether the device saw the phase run's own reads and writes (90% of
 * their bytes or more): O_DIRECT, or data past the cache; the cache
 * served none of them whatever the data's size. 0 when the run does not
 * count its bytes (an exec phase). */
static int device_saw_it(const struct res_run *x)
{
	static const char *const io[][2] = {
		{ "read_bytes", "dev_read_bytes" },
		{ "write_bytes", "dev_write_bytes" },
	};
	int counted = 0;

	for (size_t i = 0; i < 2; i++) {
		double own, dev;

		if (!results_value(x, io[i][0], &own) || !(own > 0))
			continue;
		if (!results_value(x, io[i][1], &dev) || dev < 0.9 * own)
			return 0;
		counted = 1;
	}
	return counted;
}

/* bonnie++'s rule: a file twice the memory, or the page cache can hold
 * it and the reads are memory's; a run whose I/O the device saw is not
 * the cache's whatever its size. */
static void check_data_size(const struct audit_in *in, struct audit_line *l)
{
	size_t runs = 0, small = 0, device = 0;
	double least = INFINITY, data = 0, mem = 0;
	char fd[FIG_LEN], fm[FIG_LEN];
	const char *cell = "";

	for (size_t i = 0; i < in->r->n_runs; i++) {
		const struct res_run *x = &in->r->runs[i];
		double ram, bytes = data_bytes(x);

		/* tmpfs is memory: there is no cache to outgrow */
		if (!phase_ok(x) || !strcmp(x->fs_type, "tmpfs") ||
		    bytes < 0 || !results_value(x, "ram_mib", &ram) ||
		    !(ram > 0))
			continue;
		runs++;
		if (device_saw_it(x)) {
			device++;
			continue;
		}
		ram *= 1048576;
		small += bytes < 2 * ram;
		if (bytes / ram < least) {
			least = bytes / ram;
			data = bytes;
			mem = ram;
			cell = x->base;
		}
	}
	if (!runs)
		return;		/* no line: nothing to check */
	fig_text(fd, sizeof(fd), data / 1048576, 0, NULL, " MiB");
	fig_text(fm, sizeof(fm), mem / 1048576, 0, NULL, " MiB");
	if (small)
		say(l, AUDIT_WARN, "%zu of %zu phase runs had less data than "
		    "twice their memory and the device did not see their I/O "
		    "(least: %s, %s against %s): the page cache may hold it "
		    "all", small, runs, cell, fd, fm);
	else if (device == runs)
		say(l, AUDIT_PASS, "the device saw the reads and writes of "
		    "all %zu phase runs (90%% of their bytes or more)", runs);
	else if (!device)
		say(l, AUDIT_PASS, "all %zu phase runs had at least twice "
		    "their memory in data (least %.1fx, %s)", runs, least,
		    cell);
	else
		say(l, AUDIT_PASS, "%zu of %zu phase runs had at least twice "
		    "their memory in data (least %.1fx, %s); the device saw "
		    "the I/O of the other %zu", runs - device, runs, least,
		    cell, device);
}

static void check_steady(const struct audit_in *in, struct audit_line *l)
{
	size_t judged = 0, never = 0;
	double v;

	for (size_t i = 0; i < in->r->n_runs; i++) {
		const struct res_run *x = &in->r->runs[i];

		if (!*x->phase || !results_value(x, "steady", &v))
			continue;
		judged++;
		never += v == 0;
	}
	if (!judged)
		return;		/* no line: nothing to check */
	/* a steady row is the judgment of the phase's key series, by its
	 * steady: rule or section 8's default test */
	if (never)
		say(l, AUDIT_WARN, "%zu of %zu phase runs judged for a steady "
		    "state were never steady", never, judged);
	else
		say(l, AUDIT_PASS, "all %zu phase runs judged for a steady "
		    "state became steady", judged);
}

static void check_disturbed(const struct audit_in *in,
			    struct audit_line *l)
{
	size_t runs = 0, busy = 0;

	for (size_t i = 0; i < in->r->n_runs; i++) {
		const struct res_run *x = &in->r->runs[i];
		double others = 0, steal = 0;

		if (!*x->phase)
			continue;
		runs++;
		busy += view_run_disturbed(x, &others, &steal);
	}
	say(l, !busy ? AUDIT_PASS : 3 * busy > runs ? AUDIT_FAIL : AUDIT_WARN,
	    "%zu of %zu phase runs disturbed (others_cores or steal_cores "
	    "> 0.25)%s", busy, runs, 3 * busy > runs ? ": more than a third"
	    : "");
}

static void check_cpu(const struct audit_in *in, struct audit_line *l)
{
	size_t runs = 0, bound = 0;
	double v;

	for (size_t i = 0; i < in->r->n_runs; i++) {
		const struct res_run *x = &in->r->runs[i];

		if (!*x->phase)
			continue;
		runs++;
		bound += results_value(x, "cpu_pct", &v) && v >= 90;
	}
	if (bound)
		say(l, AUDIT_WARN, "%zu of %zu phase runs used >= 0.9 of a "
		    "core: the filesystem may not be what is measured",
		    bound, runs);
	else
		say(l, AUDIT_PASS, "0 of %zu phase runs used >= 0.9 of a core",
		    runs);
}

/* The tool that made a filesystem of type, as sysinfo names it, or
 * NULL for one made without (tmpfs). */
static const char *mkfs_tool(const char *type, char *buf, size_t len)
{
	if (!strncmp(type, "ext", 3))
		return "mkfs.ext4";	/* mke2fs makes ext2, ext3, ext4 */
	if (strcmp(type, "xfs") && strcmp(type, "btrfs"))
		return NULL;
	snprintf(buf, len, "mkfs.%s", type);
	return buf;
}

static void check_tools(const struct audit_in *in, struct audit_line *l)
{
	json_t *tools = manifestread_get(in->m, "system.tools"), *c;
	char missing[256] = "", buf[64];
	size_t i, n = 0, bad = 0, len = 0;

	json_array_foreach(json_object_get(in->m, "configs"), i, c) {
		const char *t = mkfs_tool(manifestread_str(c, "type", ""),
					  buf, sizeof(buf));

		if (!t)
			continue;
		n++;
		if (json_is_string(json_object_get(tools, t)) ||
		    strstr(missing, t))
			continue;
		bad++;
		if (len < sizeof(missing))
			len += snprintf(missing + len, sizeof(missing) - len,
					"%s%s", len ? ", " : "", t);
	}
	if (bad)
		say(l, AUDIT_WARN, "%zu tool versions missing from the "
		    "manifest (%s): the run cannot be said again exactly",
		    bad, missing);
	else
		say(l, AUDIT_PASS, "the versions of the mkfs of all %zu "
		    "configs that need one are recorded", n);
}

static const struct check {
	const char *name;
	void (*fn)(const struct audit_in *in, struct audit_line *l);
} checks[] = {
	{ "repetitions", check_repetitions },
	{ "cache", check_cache },
	{ "data size", check_data_size },
	{ "aged", check_aged },
	{ "steady", check_steady },
	{ "disturbed", check_disturbed },
	{ "cpu-bound", check_cpu },
	{ "tools", check_tools },
};

int audit_run(const struct results *r, json_t *m, struct audit *a)
{
	struct audit_in in = { r, m };

	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		struct audit_line *l = &a->line[a->n++];

		l->name = checks[i].name;
		l->text[0] = '\0';
		checks[i].fn(&in, l);
		if (!l->text[0]) {
			a->n--;		/* the check does not apply */
			continue;
		}
		if (l->verdict > a->worst)
			a->worst = l->verdict;
	}
	return 0;
}

void audit_text(FILE *f, const struct audit *a)
{
	fputs("\n== audit ==\n", f);
	for (int i = 0; i < a->n; i++)
		fprintf(f, "%s  %-11s  %s\n", verdict_name[a->line[i].verdict],
			a->line[i].name, a->line[i].text);
}

void audit_html(FILE *f, const struct audit *a)
{
	fputs("<h2 id=\"audit\">audit</h2>\n<table class=\"audit\">\n", f);
	for (int i = 0; i < a->n; i++) {
		enum audit_verdict v = a->line[i].verdict;

		/* the page's style has .warn; a failure is bolder */
		fprintf(f, "<tr class=\"%s\"%s><td>%s</td><td>%s</td><td>",
			verdict_name[v], v == AUDIT_FAIL ?
			" style=\"color:#b00000;font-weight:bold\"" : "",
			verdict_name[v], a->line[i].name);
		html_text(f, a->line[i].text);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}
