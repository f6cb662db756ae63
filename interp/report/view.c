/* view: what a report shows, whatever its format — each phase's ok runs, the
 * metrics it tables, the runs that did not count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/configs.h"
#include "report/manifestread.h"
#include "report/study.h"
#include "report/view.h"

const char *const view_status[4] = {
	[RES_NONE] = "incomplete", [RES_OK] = "ok",
	[RES_FAILED] = "failed", [RES_SKIPPED] = "skipped",
};

/* A phase without a key: its time and its throughput figures. */
static const char *const fallback_key[] = { "seconds", "*_mbs", "*_iops",
					    NULL };
static const char *const every[] = { "*", NULL };

const char **view_phases(const struct results *r)
{
	const char **seen = calloc(r->n_runs + 1, sizeof(*seen));
	size_t n = 0;

	for (size_t i = 0; seen && i < r->n_runs; i++) {
		const char *phase = r->runs[i].phase;
		size_t j;

		for (j = 0; j < n; j++)
			if (!strcmp(seen[j], phase))
				break;
		if (*phase && j == n)
			seen[n++] = phase;
	}
	return seen;
}

const struct res_run **view_all_runs(const struct results *r)
{
	const struct res_run **runs = calloc(r->n_runs + 1, sizeof(*runs));

	for (size_t i = 0; runs && i < r->n_runs; i++)
		runs[i] = &r->runs[i];
	return runs;
}

const struct res_run **view_ok_runs(const struct results *r,
				    const char *phase, size_t *n,
				    size_t count[4])
{
	const struct res_run **runs = calloc(r->n_runs + 1, sizeof(*runs));

	*n = 0;
	memset(count, 0, 4 * sizeof(*count));
	for (size_t i = 0; runs && i < r->n_runs; i++) {
		if (strcmp(r->runs[i].phase, phase))
			continue;
		count[r->runs[i].status]++;
		if (r->runs[i].status == RES_OK)
			runs[(*n)++] = &r->runs[i];
	}
	return runs;
}

int view_config_rounds(const struct results *r, int *fewest)
{
	const struct res_run **runs = view_all_runs(r);
	int most = 0;

	*fewest = 0;
	/* a config's own rows (no phase) name every config there is */
	for (size_t i = 0; runs && i < r->n_runs; i++) {
		int k;

		if (*runs[i]->phase)
			continue;
		k = configs_rounds(runs, r->n_runs, runs[i]->fs_label);

		if (k > most)
			most = k;
		if (k && (!*fewest || k < *fewest))
			*fewest = k;
	}
	free(runs);
	return most;
}

/* Whether a stop rule ended the repetitions of the cell id before its
 * rep: an earlier repetition of its base says stop_reason. */
static int stop_ended(const struct results *r, const char *id, int rep)
{
	const char *hash = strrchr(id, '#');
	size_t n = hash ? (size_t)(hash - id) : strlen(id);

	for (size_t i = 0; i < r->n_runs; i++) {
		const struct res_run *x = &r->runs[i];

		if (x->rep < rep && strlen(x->base) == n &&
		    !strncmp(x->base, id, n) &&
		    results_metric(x, "stop_reason"))
			return 1;
	}
	return 0;
}

/* A cell's status in manifest.json as results.h's enum: RES_NONE for
 * one that has not ended (pending, running, interrupted). results/ has
 * no parser of the word; this is report's, private. */
static enum res_status status_of(const char *word)
{
	for (int s = RES_OK; s <= RES_SKIPPED; s++)
		if (!strcmp(word, view_status[s]))
			return (enum res_status)s;
	return RES_NONE;
}

/* Whether results.csv has rows of the cell id. */
static int has_rows(const struct results *r, const char *id)
{
	for (size_t i = 0; i < r->n_runs; i++)
		if (!strcmp(r->runs[i].cell, id))
			return 1;
	return 0;
}

size_t view_not_run(const struct results *r, json_t *m, size_t *ended)
{
	size_t i, n = 0;
	json_t *c;

	*ended = 0;
	json_array_foreach(json_object_get(m, "cells"), i, c) {
		const char *id = manifestread_str(c, "id", "");
		enum res_status st = status_of(manifestread_str(c, "status",
								""));

		if (st != RES_NONE || has_rows(r, id))
			continue;
		if (stop_ended(r, id, (int)json_integer_value(
					json_object_get(c, "rep"))))
			(*ended)++;
		else
			n++;
	}
	return n;
}

int view_shown(const char *name, unsigned shown)
{
	return study_shows(shown, name);
}

static int reported(const struct res_run *const *runs, size_t n,
		    const char *name)
{
	double v;

	for (size_t i = 0; i < n; i++)
		if (results_value(runs[i], name, &v))
			return 1;
	return 0;
}

/* Whether any run of r has a row of name. */
static int any_reported(const struct results *r, const char *name)
{
	double v;

	for (size_t i = 0; i < r->n_runs; i++)
		if (results_value(&r->runs[i], name, &v))
			return 1;
	return 0;
}

const char *const *view_tables(const struct pick *pick,
			       const struct res_run *const *runs, size_t n,
			       const char *phase, unsigned shown,
			       const char **buf, int *fallback)
{
	const char *key[VIEW_MAX_KEY + 1];
	int n_key, k = 0, some = 0, found = 0;

	*fallback = 0;
	buf[0] = NULL;
	if (pick->view == VIEW_METRIC)
		return pick->only;
	if (pick->view == VIEW_ALL || !*phase)
		return every;
	/* room for write_amp beside them */
	n_key = manifestread_key(pick->phases, phase, key, VIEW_MAX_KEY - 1);
	for (int i = 0; i < n_key; i++) {
		if (view_shown(key[i], shown)) {
			some = 1;
			continue;
		}
		found |= reported(runs, n, key[i]);
		buf[k++] = key[i];
	}
	/* what the device wrote per byte the phase wrote, beside its rate */
	if (n_key && reported(runs, n, "write_amp"))
		buf[k++] = "write_amp";
	buf[k] = NULL;
	if (found || some)
		return buf;
	buf[0] = NULL;
	if (!n_key && shown)
		return buf;
	*fallback = n_key > 0;
	return fallback_key;
}

/* What view_unreported makes of each key metric of a phase. */
enum keyfate {
	KEY_MISSING,	/* not yet placed */
	KEY_HAD,	/* some run reported it */
	KEY_UNDONE,	/* missing with its direction: fio's read_* of a
			 * write-only job */
	KEY_TYPO,	/* missing otherwise: a misspelt key? */
	KEY_DONE,	/* had, in a direction beside an UNDONE one */
	KEY_GROUP,	/* demote_lone's: UNDONE and its direction whole */
	KEY_LONE,	/* demote_lone's: UNDONE alone (wr_mbs) */
};

/* The length of name's first word: "read" of "read_bw_mbs". */
static size_t head_len(const char *name)
{
	const char *u = strchr(name, '_');

	return u ? (size_t)(u - name) : strlen(name);
}

/* Whether key i names a figure that a key j with mark[j] == want has
 * in another direction (read_bw_mbs beside write_bw_mbs). */
static int variant(const char *const *key, int n_key, int i,
		   const enum keyfate *mark, enum keyfate want)
{
	size_t h = head_len(key[i]);

	for (int j = 0; h < strlen(key[i]) && j < n_key; j++)
		if (j != i && mark[j] == want &&
		    (head_len(key[j]) != h || strncmp(key[j], key[i], h)) &&
		    !strcmp(key[j] + head_len(key[j]), key[i] + h))
			return 1;
	return 0;
}

/* A direction the runs did not do lacks all its figures, two or more
 * (fio's read_bw_mbs and read_iops); a lone one (wr_mbs beside rate_mbs)
 * is more likely a misspelt key: a TYPO. */
static void demote_lone(const char *const *key, int n_key,
			enum keyfate *mark)
{
	for (int i = 0; i < n_key; i++) {
		size_t h = head_len(key[i]);
		int same = 0, all = 1;

		for (int j = 0; mark[i] == KEY_UNDONE && j < n_key; j++)
			if (head_len(key[j]) == h &&
			    !strncmp(key[j], key[i], h)) {
				same++;
				all &= mark[j] == KEY_UNDONE ||
				       mark[j] == KEY_GROUP;
			}
		if (mark[i] == KEY_UNDONE)
			mark[i] = same >= 2 && all ? KEY_GROUP : KEY_LONE;
	}
	for (int i = 0; i < n_key; i++)
		if (mark[i] == KEY_GROUP || mark[i] == KEY_LONE)
			mark[i] = mark[i] == KEY_GROUP ? KEY_UNDONE : KEY_TYPO;
}

/* sep-joined first words of the keys with mark[i] == want, once each. */
static void print_heads(FILE *f, const char *const *key, int n_key,
			const enum keyfate *mark, enum keyfate want,
			const char *sep)
{
	int k = 0;

	for (int i = 0; i < n_key; i++) {
		size_t h = head_len(key[i]);
		int seen = 0;

		if (mark[i] != want)
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = mark[j] == want && head_len(key[j]) == h &&
			       !strncmp(key[j], key[i], h);
		if (!seen)
			fprintf(f, "%s%.*s", k++ ? sep : "", (int)h, key[i]);
	}
}

/* The line on the key metrics that mark says no run reported. */
static void unreported_say(FILE *f, const char *const *key, int n_key,
			   const enum keyfate *mark)
{
	int n2 = 0, n3 = 0;

	for (int i = 0; i < n_key; i++) {
		n2 += mark[i] == KEY_UNDONE;
		n3 += mark[i] == KEY_TYPO;
	}
	if (n2) {
		fprintf(f, "no ");
		print_heads(f, key, n_key, mark, KEY_UNDONE, " or ");
		fprintf(f, " figures (");
		for (int i = 0, k = 0; i < n_key; i++)
			if (mark[i] == KEY_UNDONE)
				fprintf(f, "%s%s", k++ ? ", " : "", key[i]);
		fprintf(f, "): the runs reported ");
		print_heads(f, key, n_key, mark, KEY_DONE, " and ");
		fprintf(f, " only%s", n3 ? "; " : "");
	}
	for (int i = 0, k = 0; i < n_key; i++)
		if (mark[i] == KEY_TYPO)
			fprintf(f, "%s%s", k++ ? ", " : "", key[i]);
	if (n3)
		fprintf(f, ": key metric%s of the phase with no rows (no run "
			"recorded %s: is the module's key = {...} spelled as "
			"its metrics are?)", n3 == 1 ? "" : "s",
			n3 == 1 ? "it" : "them");
}

char *view_unreported(const struct pick *pick,
		      const struct res_run *const *runs, size_t n,
		      const char *phase, unsigned shown)
{
	const char *key[VIEW_MAX_KEY + 1];
	enum keyfate mark[VIEW_MAX_KEY + 1] = { KEY_MISSING };
	size_t len = 0;
	char *line = NULL;
	int n_key, k = 0;
	FILE *f;

	if (pick->view != VIEW_KEY || !*phase)
		return NULL;
	n_key = manifestread_key(pick->phases, phase, key, VIEW_MAX_KEY);
	/* a metric another phase of the module records is no misspelt
	 * key: a step without it (the tree's prepare has no rate) */
	for (int i = 0; i < n_key; i++)
		mark[i] = view_shown(key[i], shown) ||
			  reported(runs, n, key[i]) ||
			  (pick->all && any_reported(pick->all, key[i])) ?
			  KEY_HAD : KEY_MISSING;
	for (int i = 0; i < n_key; i++)
		if (!mark[i]) {
			mark[i] = variant(key, n_key, i, mark, KEY_HAD) ?
				  KEY_UNDONE : KEY_TYPO;
			k++;
		}
	demote_lone(key, n_key, mark);
	for (int i = 0; i < n_key; i++)
		if (mark[i] == KEY_HAD &&
		    variant(key, n_key, i, mark, KEY_UNDONE))
			mark[i] = KEY_DONE;
	if (!k || !(f = open_memstream(&line, &len)))
		return NULL;
	unreported_say(f, key, n_key, mark);
	if (fclose(f)) {
		free(line);
		return NULL;
	}
	return line;
}

struct view_group *view_not_ok(const struct results *r, size_t *n_groups,
			       size_t count[4])
{
	struct view_group *group = calloc(r->n_runs + 1, sizeof(*group));
	size_t ng = 0;

	memset(count, 0, 4 * sizeof(*count));
	for (size_t i = 0; group && i < r->n_runs; i++) {
		const struct res_run *x = &r->runs[i];
		size_t g;

		if (!*x->phase)
			continue;
		count[x->status]++;
		if (x->status == RES_OK)
			continue;
		for (g = 0; g < ng; g++) {
			const struct res_run *y = &r->runs[group[g].first];

			/* a skipped config is one line, whatever its phases */
			if (y->status == x->status &&
			    !strcmp(y->fs_label, x->fs_label) &&
			    (x->status == RES_SKIPPED ||
			     !strcmp(y->phase, x->phase)) &&
			    !strcmp(y->reason ? y->reason : "",
				    x->reason ? x->reason : ""))
				break;
		}
		if (g == ng)
			group[ng++].first = i;
		else if (strcmp(r->runs[group[g].first].phase, x->phase))
			group[g].several = 1;
		group[g].times++;
	}
	*n_groups = ng;
	return group;
}

const char *view_reason(const struct res_run *x)
{
	if (x->reason)
		return x->reason;
	return x->status == RES_NONE ? "no status row (interrupted)" :
	       "no reason given";
}

int view_run_disturbed(const struct res_run *x, double *others,
		       double *steal)
{
	*others = *steal = 0;
	results_value(x, "others_cores", others);
	results_value(x, "steal_cores", steal);
	return *others > 0.25 || *steal > 0.25;
}

char *view_disturbed(const struct res_run *const *runs, size_t n)
{
	size_t busy = 0, len = 0;
	double others, steal;
	char *line = NULL;
	FILE *f;

	for (size_t i = 0; i < n; i++)
		busy += view_run_disturbed(runs[i], &others, &steal);
	if (!busy || !(f = open_memstream(&line, &len)))
		return NULL;
	fprintf(f, "%zu of %zu phase runs were disturbed: other programs "
		"used more than a quarter of a core (others_cores), or the "
		"hypervisor took as much (steal_cores):", busy, n);
	for (size_t i = 0, k = 0; i < n && k < 8; i++) {
		double load;

		if (!view_run_disturbed(runs[i], &others, &steal))
			continue;
		fprintf(f, "%s %s (others %.2f, steal %.2f", k++ ? "," : "",
			runs[i]->cell, others, steal);
		if (results_value(runs[i], "load_1m", &load))
			fprintf(f, ", load %.2f", load);
		fputc(')', f);
	}
	fputs(busy > 8 ? ", ..." : "", f);
	if (fclose(f)) {
		free(line);
		return NULL;
	}
	return line;
}
