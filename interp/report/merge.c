/* merge: `fsplan merge` — check that shards are of one plan run alike, then
 * write their union as one run directory. */
#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/merge.h"
#include "report/mergefile.h"
#include "report/mergemanifest.h"
#include "report/mergeseries.h"
#include "results/bonniecsv.h"
#include "results/csv.h"
#include "results/results.h"
#include "util/grow.h"
#include "util/strbuf.h"

/* ---- the rows ----------------------------------------------------------- */

/* One phase run (or config's rows) of the merge, with where it goes. */
struct item {
	const struct res_run *run;
	size_t shard;
	long conf, cell;	/* plan order: config index, cell index */
	size_t seq;		/* the order read, to keep the sort stable */
};

static const char *const status_word[] = {
	[RES_NONE] = "", [RES_OK] = "ok", [RES_FAILED] = "failed",
	[RES_SKIPPED] = "skipped",
};

static int same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Whether two shards recorded one phase run alike, row for row. */
static int same_run(const struct res_run *x, const struct res_run *y)
{
	if (!same_str(x->fs_label, y->fs_label) ||
	    !same_str(x->fs_type, y->fs_type) ||
	    !same_str(x->mkfs_opts, y->mkfs_opts) ||
	    !same_str(x->mount_opts, y->mount_opts) ||
	    !same_str(x->phase, y->phase) || !same_str(x->params, y->params) ||
	    x->rep != y->rep || x->status != y->status ||
	    !same_str(x->reason, y->reason) || x->n_m != y->n_m)
		return 0;
	for (size_t i = 0; i < x->n_m; i++)
		if (strcmp(x->m[i].name, y->m[i].name) ||
		    strcmp(x->m[i].value, y->m[i].value) ||
		    strcmp(x->m[i].unit, y->m[i].unit))
			return 0;
	return 1;
}

static int by_plan_order(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->conf != y->conf)
		return x->conf < y->conf ? -1 : 1;
	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Every shard's runs once, in plan order; a cell in two shards must be
 * the same. NULL (d says why) on a conflict or out of memory. */
static struct item *collect(struct merge_shard *sh, size_t n, size_t *count,
			    const struct merge_index *ix, struct diag *d)
{
	size_t total = 0, k = 0;
	struct item *it;

	for (size_t s = 0; s < n; s++)
		total += sh[s].r.n_runs;
	it = calloc(total + 1, sizeof(*it));
	if (!it) {
		diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
		return NULL;
	}
	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < sh[s].r.n_runs; i++) {
			const struct res_run *run = &sh[s].r.runs[i];

			it[k].run = run;
			it[k].shard = s;
			it[k].conf = mergemanifest_conf_index(ix, run->fs_label);
			it[k].cell = *run->phase ?
				     mergemanifest_cell_index(ix, run->cell) : 0;
			it[k].seq = k;
			k++;
		}
	qsort(it, k, sizeof(*it), by_plan_order);
	/* the same cell has the same indexes: look among the kept items
	 * with them (all of a config's unknown cells share one) */
	*count = 0;
	for (size_t i = 0; i < k; i++) {
		const struct item *dup = NULL;

		for (size_t j = *count; j-- > 0 && it[j].conf == it[i].conf &&
		     it[j].cell == it[i].cell;)
			if (!strcmp(it[j].run->cell, it[i].run->cell)) {
				dup = &it[j];
				break;
			}
		if (dup && same_run(dup->run, it[i].run))
			continue;
		if (dup) {
			diag_fail(d, DIAG_INPUT, 0, "cell %s is in %s and in "
				  "%s with different results: merge joins "
				  "shards that ran different cells (K = 1..N "
				  "of one --shard N)", it[i].run->cell,
				  sh[dup->shard].dir, sh[it[i].shard].dir);
			free(it);
			return NULL;
		}
		it[(*count)++] = it[i];
	}
	return it;
}

static int write_rows(const char *out, const char *run_id,
		      const struct item *it, size_t n, struct diag *d)
{
	struct diag cd = { 0 };
	struct csv *c;
	char path[PATH_MAX], msg[1024];
	int rc = 0;

	snprintf(path, sizeof(path), "%s/results.csv", out);
	if (csv_open(&c, path, &cd)) {
		diag_format(&cd, msg, sizeof(msg));
		diag_release(&cd);
		return diag_fail(d, DIAG_SYSTEM, 0, "%s", msg);
	}
	for (size_t i = 0; i < n && !rc; i++) {
		const struct res_run *x = it[i].run;
		struct csv_key k = { run_id, x->cell, x->fs_label, x->fs_type,
			x->mkfs_opts, x->mount_opts, x->phase, x->params,
			x->rep };
		const char *why = x->reason &&
				  strcmp(x->reason, status_word[x->status]) ?
				  x->reason : "";

		for (size_t m = 0; m < x->n_m && !rc; m++)
			rc = csv_row(c, &k, x->m[m].name, x->m[m].value,
				     x->m[m].unit);
		if (!rc && *x->phase && x->status != RES_NONE)
			rc = csv_row(c, &k, "status", status_word[x->status],
				     why);
	}
	if (!rc)
		rc = csv_sync(c);
	csv_close(c);
	return rc ? diag_fail(d, DIAG_SYSTEM, -rc, "%s", path) : 0;
}

/* ---- bonnie.csv, log.txt ------------------------------------------------ */

/* Whether text (NULL: none yet) has line (its newline included) as a
 * line of its own. */
static int has_line(const char *text, const char *line)
{
	for (const char *at = text; at && (at = strstr(at, line)); at++)
		if (at == text || at[-1] == '\n')
			return 1;
	return 0;
}

/* One bonnie++ line of a shard, with where it goes. */
struct bon_line {
	const char *p;
	size_t len;
	long conf;		/* its config's index in the plan */
	size_t seq;		/* the order read, to keep the sort stable */
};

/* Whether a bonnie++ line's name field (len bytes at f) is label as
 * bonniecsv_line writes it. */
static int names(const char *label, const char *f, size_t len)
{
	size_t i;

	for (i = 0; i < len && label[i]; i++)
		if (bonniecsv_name_char(label[i]) != f[i])
			return 0;
	return i == len && !label[i];
}

/* The plan index of the config a line names (field 2), or LONG_MAX. */
static long line_conf(const struct merge_index *ix, const char *p,
		      size_t len)
{
	const char *f = p, *end = p + len, *e;

	for (int k = 0; k < 2 && f; k++) {
		f = memchr(f, ',', end - f);
		f = f ? f + 1 : NULL;
	}
	if (!f)
		return LONG_MAX;
	for (e = f; e < end && *e != ',' && *e != '\n'; e++)
		;
	for (size_t i = 0; i < ix->n_confs; i++)
		if (names(ix->confs[i].id, f, e - f))
			return ix->confs[i].index;
	return LONG_MAX;
}

static int by_conf(const void *a, const void *b)
{
	const struct bon_line *x = a, *y = b;

	if (x->conf != y->conf)
		return x->conf < y->conf ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The shards' bonnie++ lines, each once, in plan order (by config, as
 * results.csv's rows; a config's lines in its shard's order). */
static int join_bonnie(const struct merge_shard *sh, size_t n,
		       const struct merge_index *ix, struct strbuf *t,
		       struct diag *d)
{
	char **buf = calloc(n + 1, sizeof(*buf));
	struct bon_line *line = NULL;
	size_t n_lines = 0, cap = 0, len;
	int rc = -1;

	if (!buf)
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	for (size_t s = 0; s < n; s++) {
		if (!(buf[s] = mergefile_slurp(sh[s].dir, "bonnie.csv", &len,
					       d)))
			goto out;
		for (char *p = buf[s]; p < buf[s] + len;) {
			char *nl = memchr(p, '\n', buf[s] + len - p);
			size_t k = (nl ? nl + 1 : buf[s] + len) - p;
			struct bon_line *l = grow_array(line, &cap, n_lines + 1,
							sizeof(*l), 32);

			if (!l)
				goto oom;
			line = l;
			line[n_lines] = (struct bon_line){ p, k,
				line_conf(ix, p, k), n_lines };
			/* the merge may not have its config: LONG_MAX, last */
			n_lines++;
			p += k;
		}
	}
	if (n_lines)	/* qsort takes no NULL, even of none */
		qsort(line, n_lines, sizeof(*line), by_conf);
	for (size_t i = 0; i < n_lines; i++) {
		const struct bon_line *l = &line[i];
		char *one = NULL;
		int bad;

		/* the line with its newline, once */
		if (asprintf(&one, "%.*s%s", (int)l->len, l->p,
			     l->p[l->len - 1] == '\n' ? "" : "\n") < 0)
			goto oom;
		bad = !has_line(t->p, one) && strbuf_str(t, one);
		free(one);
		if (bad)
			goto oom;
	}
	rc = 0;
	goto out;
oom:
	diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
out:
	for (size_t s = 0; s < n; s++)
		free(buf[s]);
	free(buf);
	free(line);
	return rc;
}

/* The shards' logs, each under a heading, every line after its host. */
static int join_logs(const struct merge_shard *sh, size_t n,
		     struct strbuf *t, struct diag *d)
{
	for (size_t s = 0; s < n; s++) {
		size_t len;
		char *buf = mergefile_slurp(sh[s].dir, "log.txt", &len, d);
		char *head = NULL;
		int rc = 0;

		if (!buf)
			return -1;	/* d says why */
		if (asprintf(&head, "== %s: shard %s (%s) ==\n", sh[s].host,
			     sh[s].run_id, sh[s].dir) < 0) {
			free(buf);
			return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
		}
		rc = strbuf_str(t, head);
		for (char *p = buf; !rc && p < buf + len;) {
			char *nl = memchr(p, '\n', buf + len - p);
			size_t k = (nl ? nl + 1 : buf + len) - p;

			rc = strbuf_str(t, sh[s].host) ||
			     strbuf_add(t, ": ", 2) || strbuf_add(t, p, k) ||
			     (!nl && strbuf_add(t, "\n", 1));
			p += k;
		}
		free(head);
		free(buf);
		if (rc)
			return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	}
	return 0;
}

/* ---- the command -------------------------------------------------------- */

int merge_run(const struct merge_opts *o, int argc, char **argv,
	      struct strbuf *notes, struct diag *d)
{
	size_t n = (size_t)o->dirs.n, n_items = 0;
	struct merge_shard *sh = calloc(n + 1, sizeof(*sh));
	struct merge_index ix = { 0 };
	struct merge_written w = { .d = d, .notes = notes };
	struct strbuf bon = { 0 }, log = { 0 };
	struct item *it = NULL;
	char path[PATH_MAX + 16], *man = NULL;
	const char *run_id;
	size_t man_len = 0;
	int rc = -1;

	if (!sh)
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	run_id = strrchr(o->out, '/') ? strrchr(o->out, '/') + 1 : o->out;
	if (!*run_id) {
		free(sh);
		return diag_fail(d, DIAG_INPUT, 0, "-o %s: name the run "
				 "directory, not a path ending in /", o->out);
	}
	for (size_t s = 0; s < n; s++)
		if (mergemanifest_load(&sh[s], o->dirs.v[s], notes, d))
			goto out;
	if (mergemanifest_check(sh, n, d) ||
	    mergemanifest_index(&ix, sh, n, d))
		goto out;
	it = collect(sh, n, &n_items, &ix, d);
	if (!it)
		goto out;
	if (join_bonnie(sh, n, &ix, &bon, d) || join_logs(sh, n, &log, d))
		goto out;
	if (mergemanifest_build(sh, n, run_id, argc, argv, &man, &man_len)) {
		diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
		goto out;
	}
	if (mergefile_make_out(&w, o->out))
		goto out;
	snprintf(path, sizeof(path), "%s/results.csv", o->out);
	if (mergefile_record(&w, path) ||
	    write_rows(o->out, run_id, it, n_items, d))
		goto fail;
	snprintf(path, sizeof(path), "%s/timeseries.csv", o->out);
	if (mergefile_record(&w, path) ||
	    mergeseries_join(sh, n, &ix, path, run_id, d))
		goto fail;
	snprintf(path, sizeof(path), "%s/histograms.csv", o->out);
	if (mergefile_record(&w, path) ||
	    mergeseries_hist(sh, n, &ix, path, run_id, d))
		goto fail;
	if ((bon.len &&
	     mergefile_write(&w, "bonnie.csv", bon.p, bon.len, 0644)) ||
	    mergefile_write(&w, "log.txt", log.p ? log.p : "", log.len, 0644) ||
	    mergefile_copy_exec(&w, sh, n) ||
	    mergefile_write(&w, "manifest.json", man, man_len, 0644))
		goto fail;
	mergemanifest_notes(sh, n, ix.n_distinct, notes);
	printf("fsplan merge: %zu shard%s, %zu phase runs and config records "
	       "into %s\n", n, n == 1 ? "" : "s", n_items, o->out);
	rc = 0;
	goto out;
fail:
	mergefile_take_back(&w);
out:
	mergefile_free(&w);
	free(it);
	free(bon.p);
	free(log.p);
	free(man);
	mergemanifest_index_free(&ix);
	for (size_t s = 0; s < n; s++)
		mergemanifest_free(&sh[s]);
	free(sh);
	return rc;
}
