/* configs: the report's table of filesystem configs, as made and timed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mountopts.h"
#include "report/configs.h"
#include "report/fig.h"
#include "report/manifestread.h"
#include "report/metricname.h"
#include "report/rank.h"
#include "util/strbuf.h"

/* The mean of name over the config rows (phase "") of label, in *v. */
static int mean_of(const struct res_run *const *runs, size_t n,
		       const char *label, const char *name, double *v)
{
	double sum = 0, x;
	int k = 0;

	for (size_t i = 0; i < n; i++)
		if (!*runs[i]->phase && !strcmp(runs[i]->fs_label, label) &&
		    results_value(runs[i], name, &x)) {
			sum += x;
			k++;
		}
	if (k)
		*v = sum / k;
	return k;
}

/* The unit of name in the config rows, "" if none says. */
static const char *unit_of(const struct res_run *const *runs, size_t n,
			       const char *name)
{
	for (size_t i = 0; i < n; i++) {
		const struct res_metric *m = *runs[i]->phase ? NULL :
					     results_metric(runs[i], name);

		if (m && *m->unit)
			return m->unit;
	}
	return "";
}

/* A volume's own times (mkfs_s_source, ...) left out of names: the
 * totals are in the config table, the rest behind --metric and in the
 * study's table; and how aged a config was (age_*), which the aging
 * table shows (report/agetable.h). The count kept. */
static size_t totals_only(const char **names, size_t n)
{
	size_t k = 0;

	for (size_t m = 0; m < n; m++) {
		const char *u = strstr(names[m], "_s_");

		if ((!u || u[3] == '\0') && strncmp(names[m], "age_", 4))
			names[k++] = names[m];
	}
	return k;
}

int configs_rounds(const struct res_run *const *runs, size_t n,
		       const char *label)
{
	int rounds = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j;

		if (*runs[i]->phase || runs[i]->rep < 1 ||
		    strcmp(runs[i]->fs_label, label))
			continue;
		/* a config made again in its round (a resumed run) */
		for (j = 0; j < i; j++)
			if (!*runs[j]->phase && runs[j]->rep == runs[i]->rep &&
			    !strcmp(runs[j]->fs_label, label))
				break;
		rounds += j == i;
	}
	return rounds;
}

/* The columns: a config's four facts, what mkfs made, its rounds, at
 * most MAX_M metrics (as report has shown); the words of what mkfs made
 * wrap in text at MADE_WRAP columns. */
enum { FACTS = 4, MAX_M = 11, MADE_WRAP = 40 };

/* What the configs' table is made of: their own rows (conf), each
 * config's first run (first, in order), what mkfs made of each (made,
 * "" unknown), the metrics and their names. */
struct configs {
	const struct res_run **conf, **first;
	size_t n_conf, n_first;
	struct strbuf *made;
	int any_made;		/* the column mkfs made is there */
	struct strbuf *applied;	/* what the kernel changed, "" nothing */
	int any_applied;	/* the column mount applied is there */
	int rounds;		/* the column rounds is there */
	const char **names;
	size_t n_names;
	struct metricname t[MAX_M];
	size_t c0;		/* the first metric's column */
};

/* What mkfs made of config label, from mconf (manifest.json's configs). */
static void made_of(json_t *mconf, const char *label, struct strbuf *out)
{
	json_t *o;
	size_t i;

	json_array_foreach(mconf, i, o)
		if (!strcmp(manifestread_str(o, "label", ""), label)) {
			manifestread_mkfs_applied(o, out);
			return;
		}
}

/* In text's words (space-separated), the one of n bytes at word, or with
 * word's key ("key=" of it, n bytes) when key: where it starts, NULL. */
static const char *word_in(const char *text, const char *word, size_t n,
			   int key)
{
	for (const char *w = text; *w;) {
		size_t len = strcspn(w, " ");

		if (key ? len > n && !strncmp(w, word, n)
			: len == n && !strncmp(w, word, n))
			return w;
		w += len + (w[len] == ' ');
	}
	return NULL;
}

/* The items of list a (a comma list of n bytes) that list b (m bytes)
 * lacks, each as " SIGNitem", into out. */
static void items_not_in(const char *a, size_t n, const char *b, size_t m,
			 char sign, struct strbuf *out)
{
	for (size_t i = 0; i < n;) {
		size_t len = strcspn(a + i, ",");
		int found = 0;

		len = len > n - i ? n - i : len;
		for (size_t j = 0; j < m && !found;) {
			size_t l = strcspn(b + j, ",");

			l = l > m - j ? m - j : l;
			found = l == len && !strncmp(a + i, b + j, len);
			j += l + 1;
		}
		if (!found && len)
			strbuf_printf(out, " %c%.*s", sign, (int)len, a + i);
		i += len + 1;
	}
}

/* A word of what mkfs made (w, len bytes) that the base's made lacks, as
 * it differs: a list (features=a,b) by the items added and removed. */
static void word_diff(const char *base, const char *w, size_t len,
		      struct strbuf *out)
{
	size_t key = strcspn(w, "=");
	const char *b = key < len ? word_in(base, w, key + 1, 1) : NULL;

	if (b && memchr(w, ',', len)) {
		size_t blen = strcspn(b, " ");

		strbuf_printf(out, "%.*s", (int)key, w);
		items_not_in(w + key + 1, len - key - 1, b + key + 1,
			     blen - key - 1, '+', out);
		items_not_in(b + key + 1, blen - key - 1, w + key + 1,
			     len - key - 1, '-', out);
		return;
	}
	strbuf_printf(out, "%.*s", (int)len, w);
}

/*
 * What mkfs made of config k, as the report shows it: whole for the
 * first config of its type, then against that one ("as ext4::defaults",
 * "as ext4::defaults but features +metadata_csum inode_size=256"): a
 * type's long list of features once, and what differs where it differs.
 */
static void made_shown(const struct configs *c, size_t k, struct strbuf *out)
{
	const char *mine = c->made[k].p, *base, *sep = " but ";
	size_t j;

	for (j = 0; j < k; j++)
		if (c->made[j].len &&
		    !strcmp(c->first[j]->fs_type, c->first[k]->fs_type))
			break;
	if (j == k || !c->made[k].len) {
		strbuf_str(out, c->made[k].len ? mine : "-");
		return;
	}
	base = c->made[j].p;
	strbuf_printf(out, "as %s", c->first[j]->fs_label);
	for (const char *w = mine; *w;) {
		size_t len = strcspn(w, " ");

		if (len && !word_in(base, w, len, 0)) {
			strbuf_str(out, sep);
			word_diff(base, w, len, out);
			sep = " ";
		}
		w += len + (w[len] == ' ');
	}
}

/* The words after "... as APPLIED: " of the probe's warning w. */
static const char *change_of(const char *w)
{
	const char *as = strstr(w, " as ");

	as = as ? strstr(as, ": ") : NULL;
	return as ? as + 2 : NULL;
}

/*
 * When the kernel did not mount config x as asked: its options as
 * applied (the superblock's) and what changed, from the probe's warning
 * or by comparing mount_applied with the request (a run before the
 * probe), into out; nothing when it did.
 */
static void applied_of(json_t *mconf, const struct res_run *x,
		       struct strbuf *out)
{
	struct strbuf ch = { 0 };
	const char *applied = NULL, *w = NULL, *sb;
	json_t *o = NULL, *pr;
	size_t i;

	json_array_foreach(mconf, i, o)
		if (!strcmp(manifestread_str(o, "label", ""), x->fs_label))
			break;
	if (i == json_array_size(mconf))
		return;
	pr = manifestread_get(o, "probe");
	applied = manifestread_str(o, "mount_applied", NULL);
	if (json_is_object(pr)) {
		applied = applied ?: manifestread_str(pr, "applied", NULL);
		w = json_string_value(json_array_get(
			json_object_get(pr, "warnings"), 0));
	}
	if (!applied)
		return;
	if (w && change_of(w))
		strbuf_str(&ch, change_of(w));
	else if (!mountopts_compare(x->mount_opts, applied, NULL, &ch))
		return;
	sb = strchr(applied, ' ');
	strbuf_printf(out, "%s: %s", sb ? sb + 1 : applied,
		      ch.oom ? "changed" : ch.p);
	free(ch.p);
}

static int configs_gather(struct configs *c, const struct res_run *const *runs,
			  size_t n, json_t *mconf)
{
	int most = 0;

	c->conf = calloc(n + 1, sizeof(*c->conf));
	c->first = calloc(n + 1, sizeof(*c->first));
	c->made = calloc(n + 1, sizeof(*c->made));
	c->applied = calloc(n + 1, sizeof(*c->applied));
	if (!c->conf || !c->first || !c->made || !c->applied)
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (!*runs[i]->phase)
			c->conf[c->n_conf++] = runs[i];
		for (k = 0; k < c->n_first; k++)
			if (!strcmp(c->first[k]->fs_label, runs[i]->fs_label))
				break;
		if (k == c->n_first)
			c->first[c->n_first++] = runs[i];
	}
	c->names = rank_metric_names(c->conf, c->n_conf, 1, &c->n_names);
	if (!c->names)
		return -1;
	c->n_names = totals_only(c->names, c->n_names);
	if (c->n_names > MAX_M)
		c->n_names = MAX_M;
	for (size_t k = 0; k < c->n_first; k++) {
		/* order: rounds: a config its stop rules ended early has
		 * fewer */
		int got = configs_rounds(c->conf, c->n_conf,
					 c->first[k]->fs_label);

		most = got > most ? got : most;
		made_of(mconf, c->first[k]->fs_label, &c->made[k]);
		c->any_made |= c->made[k].len > 0;
		applied_of(mconf, c->first[k], &c->applied[k]);
		c->any_applied |= c->applied[k].len > 0;
	}
	c->rounds = most > 1;
	c->c0 = FACTS + (size_t)c->any_made + (size_t)c->any_applied +
		(size_t)c->rounds;
	return 0;
}

/* The head: the configs' facts, then each metric's label and unit. */
static int configs_head(struct table *g, struct configs *c)
{
	const char *row[FACTS + 3 + MAX_M] = { "config", "type",
					       "mkfs options" };
	size_t k = 3, applied_col = 0;

	if (c->any_made)
		row[k++] = "mkfs made";
	row[k++] = "mount options";
	if (c->any_applied) {
		applied_col = k;
		row[k++] = "mount applied";
	}
	if (c->rounds)
		row[k++] = "rounds";
	for (size_t m = 0; m < c->n_names; m++) {
		double top = 0, v;

		for (size_t i = 0; i < c->n_first; i++)
			if (mean_of(c->conf, c->n_conf,
				    c->first[i]->fs_label, c->names[m], &v))
				top = fmax(top, fabs(v));
		if (metricname_of(c->names[m], unit_of(c->conf, c->n_conf,
			c->names[m]), top, &c->t[m]))
			return -1;
		row[c->c0 + m] = c->t[m].label.p;
	}
	if (table_init(g, (int)(c->c0 + c->n_names),
		       FACTS + c->any_made + c->any_applied, row, NULL))
		return -1;
	if (applied_col && table_wrap(g, (int)applied_col, MADE_WRAP))
		return -1;
	return c->any_made ? table_wrap(g, 3, MADE_WRAP) : 0;
}

/* A row per config: its facts, its rounds, the means of its metrics. */
static int configs_rows(struct table *g, const struct configs *c)
{
	const char *row[FACTS + 3 + MAX_M];
	char num[MAX_M][FIG_LEN], rounds[16];
	struct strbuf made = { 0 };
	int rc = 0;

	for (size_t i = 0; !rc && i < c->n_first; i++) {
		const struct res_run *x = c->first[i];
		size_t k = 0;

		row[k++] = x->fs_label;
		row[k++] = x->fs_type;
		row[k++] = *x->mkfs_opts ? x->mkfs_opts : "-";
		made.len = 0;
		if (c->any_made) {
			made_shown(c, i, &made);
			row[k++] = made.oom ? "-" : made.p;
		}
		row[k++] = *x->mount_opts ? x->mount_opts : "-";
		if (c->any_applied)
			row[k++] = c->applied[i].len ? c->applied[i].p : "-";
		snprintf(rounds, sizeof(rounds), "%d", configs_rounds(
			 c->conf, c->n_conf, x->fs_label));
		if (c->rounds)
			row[k++] = rounds;
		for (size_t m = 0; m < c->n_names; m++) {
			double v;

			if (mean_of(c->conf, c->n_conf, x->fs_label,
				    c->names[m], &v))
				fig_text(num[m], sizeof(num[m]),
					 v / c->t[m].scale, 0, NULL, NULL);
			else
				snprintf(num[m], sizeof(num[m]), "-");
			row[c->c0 + m] = num[m];
		}
		rc = table_row(g, row, 0);
	}
	free(made.p);
	return rc ? -1 : 0;
}

int configs_table(struct table *g, const struct res_run *const *runs,
		  size_t n, json_t *mconf)
{
	struct configs c;
	int rc;

	memset(&c, 0, sizeof(c));
	rc = configs_gather(&c, runs, n, mconf) || configs_head(g, &c) ||
	     configs_rows(g, &c) ? -1 : 0;
	for (size_t m = 0; m < MAX_M; m++)
		metricname_free(&c.t[m]);
	for (size_t k = 0; c.made && k < c.n_first; k++)
		free(c.made[k].p);
	free(c.made);
	for (size_t k = 0; c.applied && k < c.n_first; k++)
		free(c.applied[k].p);
	free(c.applied);
	free(c.names);
	free(c.conf);
	free(c.first);
	return rc;
}

int configs_text(FILE *f, const struct res_run *const *runs, size_t n,
		 json_t *mconf)
{
	struct table g = { 0 };
	int rc = configs_table(&g, runs, n, mconf);

	if (!rc)
		table_text(f, &g);
	table_free(&g);
	return rc;
}
