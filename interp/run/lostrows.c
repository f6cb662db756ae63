/* lostrows: what a killed run left short in results.csv, superseded when the
 * run goes on, so that the last row of every key is a current one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/lostrows.h"
#include "run/runlog.h"
#include "util/grow.h"
#include "util/strbuf.h"
#include "util/strhash.h"

struct metric {
	char *name, *unit;
};

struct mlist {
	struct metric *m;
	size_t n, cap;
};

/* The rows of one (cell, phase, rep): a config's own (phase "") or a
 * phase run's. */
struct rowset {
	char *key;		/* cell TAB phase TAB rep */
	char *f[CSV_FIELDS];	/* its first row: what the key repeats */
	struct mlist latest;	/* a config: its latest make's figures; a
				 * phase run: its rows since its status */
	struct mlist ever;	/* a config: every make's */
};

struct scan {
	struct rowset *set;
	size_t n, cap;
	struct strhash index;
	const char *path;
	struct diag *d;
};

static const char *key_of(const void *ctx, size_t i)
{
	return ((const struct scan *)ctx)->set[i].key;
}

static int has(const struct mlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->m[i].name, name))
			return 1;
	return 0;
}

static int add(struct mlist *l, const char *name, const char *unit)
{
	struct metric *m;

	if (has(l, name))
		return 0;
	m = grow_array(l->m, &l->cap, l->n + 1, sizeof(*m), 8);
	if (!m)
		return -1;
	l->m = m;
	m[l->n].name = strdup(name);
	m[l->n].unit = strdup(unit);
	if (!m[l->n].name || !m[l->n].unit) {
		free(m[l->n].name);
		free(m[l->n].unit);
		return -1;
	}
	l->n++;
	return 0;
}

static void clear(struct mlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->m[i].name);
		free(l->m[i].unit);
	}
	l->n = 0;
}

static void scan_free(struct scan *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->set[i].key);
		for (int k = 0; k < CSV_FIELDS; k++)
			free(s->set[i].f[k]);
		clear(&s->set[i].latest);
		clear(&s->set[i].ever);
		free(s->set[i].latest.m);
		free(s->set[i].ever.m);
	}
	free(s->set);
	strhash_free(&s->index);
}

/* The set of the row's key, made when new; NULL out of memory. */
static struct rowset *set_of(struct scan *s, const char *const *f)
{
	size_t len = strlen(f[CSV_CELL]) + strlen(f[CSV_PHASE]) +
		     strlen(f[CSV_REP]) + 3, *slot;
	struct rowset *set;
	char *key = malloc(len);

	if (!key)
		return NULL;
	snprintf(key, len, "%s\t%s\t%s", f[CSV_CELL], f[CSV_PHASE],
		 f[CSV_REP]);
	if (strhash_reserve(&s->index, s->n + 1, key_of, s))
		goto fail;
	slot = strhash_slot(&s->index, key, key_of, s);
	if (*slot) {
		free(key);
		return &s->set[*slot - 1];
	}
	set = grow_array(s->set, &s->cap, s->n + 1, sizeof(*set), 64);
	if (!set)
		goto fail;
	s->set = set;
	set = &s->set[s->n];
	memset(set, 0, sizeof(*set));
	set->key = key;
	for (int k = 0; k < CSV_FIELDS; k++)
		if (!(set->f[k] = strdup(f[k])))
			goto fail_set;
	*slot = ++s->n;
	return set;
fail_set:
	for (int k = 0; k < CSV_FIELDS; k++)
		free(set->f[k]);
fail:
	free(key);
	return NULL;
}

static int scan_row(void *ctx, const char *const *f, int line)
{
	struct scan *s = ctx;
	struct rowset *set = set_of(s, f);
	const char *m = f[CSV_METRIC];
	int rc = 0;

	(void)line;
	if (!set)
		return diag_set(s->d, s->path, NULL, (struct pos){ 0, 0 },
				"out of memory");
	if (*f[CSV_PHASE] && !strcmp(m, "status")) {
		clear(&set->latest);
	} else {
		/* a config's figure again: a make of it anew */
		if (!*f[CSV_PHASE] && has(&set->latest, m))
			clear(&set->latest);
		rc = add(&set->latest, m, f[CSV_UNIT]);
		if (!rc && !*f[CSV_PHASE])
			rc = add(&set->ever, m, f[CSV_UNIT]);
	}
	if (rc)
		return diag_set(s->d, s->path, NULL, (struct pos){ 0, 0 },
				"out of memory");
	return 0;
}

/* What the config set's latest make lacks: what an earlier one has,
 * and the umount of each mount it has. */
static int conf_missing(const struct rowset *set, struct mlist *out)
{
	char name[256];

	for (size_t i = 0; i < set->ever.n; i++)
		if (!has(&set->latest, set->ever.m[i].name) &&
		    add(out, set->ever.m[i].name, set->ever.m[i].unit))
			return -1;
	for (size_t i = 0; i < set->latest.n; i++) {
		const char *m = set->latest.m[i].name;

		if (strncmp(m, "mount_s", 7) ||
		    snprintf(name, sizeof(name), "u%s", m) >=
		    (int)sizeof(name) || has(&set->latest, name))
			continue;
		if (add(out, name, "s"))
			return -1;
	}
	return 0;
}

/* The config (0-based) whose label a config row has, or -1. */
static int conf_index(const struct run *r, const char *label)
{
	for (int i = 0; i < r->e->n_confs; i++)
		if (!strcmp(r->e->confs[i].label, label))
			return i;
	return -1;
}

/* Supersede what set lacks with rows of SINK_LOST. */
static void supersede(struct run *r, const struct rowset *set,
		      const struct mlist *lost)
{
	struct csv_key k = {
		.run_id = r->run_id, .cell = set->f[CSV_CELL],
		.fs_label = set->f[CSV_LABEL], .fs_type = set->f[CSV_TYPE],
		.mkfs_opts = set->f[CSV_MKFS], .mount_opts = set->f[CSV_MOUNT],
		.phase = set->f[CSV_PHASE], .phase_params = set->f[CSV_PARAMS],
		.rep = atoi(set->f[CSV_REP]),
	};
	int conf = *k.phase ? -1 : conf_index(r, k.fs_label);
	struct strbuf b = { 0 };
	const char *names;

	for (size_t i = 0; i < lost->n; i++) {
		sink_lost(&r->sink, &k, lost->m[i].name, lost->m[i].unit);
		strbuf_printf(&b, "%s%s", i ? ", " : "", lost->m[i].name);
		if (conf >= 0 && k.rep)
			manifest_conf_round(r->man, conf, k.rep,
					    lost->m[i].name, json_null());
		else if (conf >= 0)
			manifest_conf(r->man, conf, lost->m[i].name,
				      json_null());
	}
	/* out of memory, the log says how many, not which */
	names = b.oom || !b.p ? "its rows" : b.p;
	r->n_lost += (int)lost->n;
	if (*k.phase)
		runlog("%s: %zu rows of its run were written when the run "
		       "was killed, not its status: now %s (it runs again): "
		       "%s", k.cell, lost->n, SINK_LOST, names);
	else
		runlog("%s: the run stopped (killed) before it recorded %s of "
		       "the config's latest make: now %s in results.csv",
		       k.cell, names, SINK_LOST);
	free(b.p);
}

int lostrows_record(struct run *r, struct diag *d)
{
	char path[PATH_MAX + 16];
	struct scan s = { 0 };
	struct mlist lost = { 0 };
	int rc = 0;

	snprintf(path, sizeof(path), "%s/results.csv", r->dir);
	s.path = path;
	s.d = d;
	if (csv_read_rows(path, scan_row, &s, NULL, d)) {
		scan_free(&s);
		return -1;
	}
	for (size_t i = 0; i < s.n && !rc; i++) {
		const struct rowset *set = &s.set[i];

		if (*set->f[CSV_PHASE]) {
			if (set->latest.n)
				supersede(r, set, &set->latest);
			continue;
		}
		rc = conf_missing(set, &lost);
		if (rc)
			rc = diag_set(d, path, NULL, (struct pos){ 0, 0 },
				      "out of memory");
		else if (lost.n)
			supersede(r, set, &lost);
		clear(&lost);
	}
	free(lost.m);
	scan_free(&s);
	if (r->n_lost)
		sink_save(&r->sink);
	return rc;
}
