/* pairing: load the two sides of a comparison, refuse runs of different plans,
 * pair their cells. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/pairing.h"
#include "report/manifestread.h"
#include "results/manifest.h"
#include "util/diag.h"
#include "util/grow.h"
#include "util/strhash.h"

static void note(struct pairing *pg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct pairing *pg, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (pg->n_notes == PAIRING_MAX_NOTES)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0)
		pg->notes[pg->n_notes++] = s;
	va_end(ap);
}

/* ---- loading and checking ----------------------------------------------- */

static int load_side(struct pairing_side *s, const char *dir, struct diag *d)
{
	struct diag ld = { 0 };
	char path[4096], why[1024];

	s->dir = dir;
	if ((size_t)snprintf(path, sizeof(path), "%s/results.csv", dir) >=
	    sizeof(path))
		return diag_fail(d, DIAG_INPUT, ENAMETOOLONG, "RUNDIR of %zu "
				 "bytes", strlen(dir));
	if (results_load(&s->r, path, &ld)) {
		diag_format(&ld, why, sizeof(why));
		diag_release(&ld);
		return diag_fail(d, DIAG_INPUT, 0, "%s\n(RUNDIR is a directory "
				 "that 'fsplan run' or 'fsplan merge' wrote)",
				 why);
	}
	s->run_id = s->r.run_id ? s->r.run_id : "?";
	s->man = manifest_load(dir, NULL);
	return 0;
}

/* What phase i runs: its module, or its command and parser. */
static void phase_what(json_t *ph, char *buf, size_t len)
{
	if (manifestread_str(ph, "use", NULL))
		snprintf(buf, len, "use %s", manifestread_str(ph, "use", NULL));
	else
		snprintf(buf, len, "exec '%s'%s%s", manifestread_str(ph, "exec", "?"), manifestread_str(ph, "parse", NULL) ? " parse " : "",
			 manifestread_str(ph, "parse", ""));
}

/* v as a plan writes it into buf: a string as it is, else its JSON;
 * "(unset)" when absent. */
static const char *with_value(json_t *v, char *buf, size_t len)
{
	char *text;

	if (!v)
		return "(default)";
	if (json_is_string(v))
		return json_string_value(v);
	text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	snprintf(buf, len, "%s", text ? text : "?");
	free(text);
	return buf;
}

/* The keys of x's or y's with: whose values differ, "k=v k=v" for each
 * side into a and b; whether any does. */
static int with_differs(json_t *x, json_t *y, char *a, char *b, size_t len)
{
	json_t *sides[2] = { x, y }, *v;
	size_t na = 0, nb = 0;
	const char *k;
	char va[256], vb[256];

	a[0] = b[0] = '\0';
	for (int s = 0; s < 2; s++)
		json_object_foreach(sides[s], k, v) {
			json_t *vx = json_object_get(x, k);
			json_t *vy = json_object_get(y, k);

			if ((s && vx) || json_equal(vx, vy))
				continue;	/* the same, or said already */
			if (na < len)
				na += snprintf(a + na, len - na, "%s%s=%s",
					       na ? " " : "", k,
					       with_value(vx, va, sizeof(va)));
			if (nb < len)
				nb += snprintf(b + nb, len - nb, "%s%s=%s",
					       nb ? " " : "", k,
					       with_value(vy, vb, sizeof(vb)));
		}
	return a[0] != '\0';
}

/* Two manifests' phases: the same names running the same things, or
 * the first difference in d. Modules that differ only in their text
 * (another fsplan version) are a note. */
static int same_phases(struct pairing *pg, json_t *pa, json_t *pb,
		       struct diag *d)
{
	size_t na = json_array_size(pa), nb = json_array_size(pb);
	char wa[512], wb[512];

	for (size_t i = 0; i < na && i < nb; i++) {
		json_t *x = json_array_get(pa, i), *y = json_array_get(pb, i);
		const char *n = manifestread_str(x, "name", "?");
		const char *sx = manifestread_str(x, "module_sha256", NULL);
		const char *sy = manifestread_str(y, "module_sha256", NULL);

		if (strcmp(n, manifestread_str(y, "name", "?")))
			return diag_fail(d, DIAG_INPUT, 0, "phase %zu is '%s' "
					 "in A and '%s' in B", i + 1, n,
					 manifestread_str(y, "name", "?"));
		phase_what(x, wa, sizeof(wa));
		phase_what(y, wb, sizeof(wb));
		if (strcmp(wa, wb))
			return diag_fail(d, DIAG_INPUT, 0, "phase '%s' is %s "
					 "in A and %s in B", n, wa, wb);
		if (sx && sy && strcmp(sx, sy))
			note(pg, "phase '%s': its module's text differs "
			     "(sha256 %.12s in A, %.12s in B)", n, sx, sy);
		if (with_differs(json_object_get(x, "with"),
				 json_object_get(y, "with"), wa, wb,
				 sizeof(wa)))
			note(pg, "phase '%s': its with: values differ: A %s, "
			     "B %s", n, wa, wb);
	}
	if (na != nb)
		return diag_fail(d, DIAG_INPUT, 0, "A's plan has %zu phases "
				 "and B's %zu", na, nb);
	return 0;
}

/* The distinct phase names of r's rows, first appearance first,
 * ", "-separated into out. */
static void phases_of(const struct results *r, struct strbuf *out)
{
	for (size_t i = 0; i < r->n_runs; i++) {
		const char *ph = r->runs[i].phase;
		size_t j;

		for (j = 0; j < i; j++)
			if (!strcmp(r->runs[j].phase, ph))
				break;
		if (*ph && j == i)
			strbuf_printf(out, "%s%s", out->len ? ", " : "", ph);
	}
}

/* Runs without both manifests: their rows' phases must agree. */
static int check_rows(struct pairing *pg, struct diag *d)
{
	struct strbuf pa = { 0 }, pb = { 0 };
	int rc = 0;

	phases_of(&pg->side[0].r, &pa);
	phases_of(&pg->side[1].r, &pb);
	if (strcmp(pa.p ? pa.p : "", pb.p ? pb.p : ""))
		rc = diag_fail(d, DIAG_INPUT, 0, "the runs have different "
			       "phases (A: %s; B: %s): compare needs two runs "
			       "of one plan or of plans with the same phases",
			       pa.p ? pa.p : "", pb.p ? pb.p : "");
	else
		strbuf_printf(&pg->plans, "plans not checked: %s has no "
			      "readable manifest.json (the phases' names "
			      "agree)", pg->side[0].man ? pg->side[1].dir :
			      pg->side[0].dir);
	free(pa.p);
	free(pb.p);
	return rc;
}

/* What differs between the runs and does not refuse: the parameters,
 * the targets (a buffered loop image's reads may have come from the
 * host's RAM). */
static void plan_notes(struct pairing *pg, json_t *ma, json_t *mb)
{
	struct strbuf pa = { 0 }, pb = { 0 };

	if (!manifestread_same_params(ma, mb)) {
		manifestread_params(ma, &pa);
		manifestread_params(mb, &pb);
		note(pg, "the parameters differ: A %s, B %s", pa.p, pb.p);
		pa.len = pb.len = 0;
	}
	manifestread_target(ma, &pa);
	manifestread_target(mb, &pb);
	if (strcmp(pa.len ? pa.p : "", pb.len ? pb.p : ""))
		note(pg, "the targets differ: A %s; B %s",
		     pa.len ? pa.p : "?", pb.len ? pb.p : "?");
	free(pa.p);
	free(pb.p);
}

static int check_plans(struct pairing *pg, struct diag *d)
{
	json_t *ma = pg->side[0].man, *mb = pg->side[1].man;
	const char *sa = manifestread_str(ma, "plan.sha256", NULL);
	const char *sb = manifestread_str(mb, "plan.sha256", NULL);
	char why[sizeof(d->msg)];

	if (pg->one_run) {
		strbuf_printf(&pg->plans, "plan %s (%s)",
			      manifestread_str(ma, "plan.name", "?"),
			      manifestread_str(ma, "plan.path",
					       "no manifest.json"));
		return 0;
	}
	if (!ma || !mb)
		return check_rows(pg, d);
	if (same_phases(pg, json_object_get(ma, "phases"),
			json_object_get(mb, "phases"), d)) {
		snprintf(why, sizeof(why), "%s", d->msg);
		return diag_fail(d, DIAG_INPUT, 0, "A (%s) and B (%s) are runs "
				 "of plans with different phases: %s; compare "
				 "needs two runs of one plan or of plans with "
				 "the same phases",
				 manifestread_str(ma, "plan.path", "?"),
				 manifestread_str(mb, "plan.path", "?"), why);
	}
	if (sa && sb && !strcmp(sa, sb))
		strbuf_printf(&pg->plans, "plan %s (sha256 %.12s) in both",
			      manifestread_str(ma, "plan.name", "?"), sa);
	else
		strbuf_printf(&pg->plans, "plans %s (A, sha256 %.12s) and %s "
			      "(B, sha256 %.12s): the same phases",
			      manifestread_str(ma, "plan.path", "?"),
			      sa ? sa : "?",
			      manifestread_str(mb, "plan.path", "?"),
			      sb ? sb : "?");
	plan_notes(pg, ma, mb);
	return 0;
}

/* Whether label is a config of side s; else the nearest one in d. */
static int has_label(const struct pairing_side *s, const char *label,
		     struct diag *d)
{
	const char **names = calloc(s->r.n_runs + 1, sizeof(*names));
	const char *hint;
	size_t n = 0;

	if (!names)
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	for (size_t i = 0; i < s->r.n_runs; i++) {
		if (!strcmp(s->r.runs[i].fs_label, label)) {
			free(names);
			return 0;
		}
		names[n++] = s->r.runs[i].fs_label;
	}
	hint = diag_suggest(label, names, n);
	diag_fail(d, DIAG_INPUT, 0, "no config '%s' in %s%s%s%s", label,
		  s->dir, hint ? " (did you mean '" : "", hint ? hint : "",
		  hint ? "'?)" : "");
	free(names);
	return -1;
}

/* ---- the pairs ---------------------------------------------------------- */

/* Whether name is an axis of the plan's top-level matrix (a config's). */
static int config_axis(json_t *man, const char *name)
{
	return json_object_get(json_object_get(json_array_get(
		json_object_get(man, "configs"), 0), "axes"), name) != NULL;
}

/* run's parameters as "k=v k=v"; with labels, without the configs'
 * own axes (config A's journal_mb=16 pairs with B's journal_mb=64). */
static char *pair_params(const struct res_run *run, json_t *man, int labels)
{
	char *out = malloc(strlen(run->params) + 1), *o = out;

	if (!out)
		return NULL;
	for (const char *p = run->params; *p;) {
		size_t n = strcspn(p, ";"), k = strcspn(p, "=");
		char *name = strndup(p, k < n ? k : n);

		if (!name) {
			free(out);
			return NULL;
		}
		if (!labels || !config_axis(man, name)) {
			if (o > out)
				*o++ = ' ';
			memcpy(o, p, n);
			o += n;
		}
		free(name);
		p += n + (p[n] == ';');
	}
	*o = '\0';
	return out;
}

static const char *key_of(const void *ctx, size_t i)
{
	return ((const struct pairing *)ctx)->pairs[i].key;
}

static struct pair *find_pair(struct pairing *pg, const char *key)
{
	size_t at = strhash_find(&pg->index, key, key_of, pg);

	return at ? &pg->pairs[at - 1] : NULL;
}

static struct pair *new_pair(struct pairing *pg, const struct res_run *run,
			     char *key, char *params)
{
	struct pair *p;

	if (strhash_reserve(&pg->index, pg->n_pairs + 1, key_of, pg))
		return NULL;
	p = grow_array(pg->pairs, &pg->cap_pairs, pg->n_pairs + 1, sizeof(*p),
		       32);
	if (!p)
		return NULL;
	pg->pairs = p;
	p = &pg->pairs[pg->n_pairs++];
	memset(p, 0, sizeof(*p));
	p->phase = run->phase;
	p->key = key;
	p->params = params;
	*strhash_slot(&pg->index, key, key_of, pg) = pg->n_pairs;
	return p;
}

static int push(const struct res_run ***v, size_t *n,
		const struct res_run *run)
{
	const struct res_run **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	*v = nv;
	nv[(*n)++] = run;
	return 0;
}

/* Side b's (0 A, 1 B) phase runs into their pairs. */
static int pair_side(struct pairing *pg, int b)
{
	const struct pairing_side *s = &pg->side[b];
	int labels = s->label != NULL;

	for (size_t i = 0; i < s->r.n_runs; i++) {
		const struct res_run *run = &s->r.runs[i];
		char *params, *key = NULL;
		struct pair *p;

		if (!*run->phase || (labels && strcmp(run->fs_label,
						      s->label)))
			continue;
		params = pair_params(run, s->man, labels);
		if (!params || asprintf(&key, "%s\n%s\n%s", labels ? "" :
					run->fs_label, run->phase,
					params) < 0) {
			free(params);
			return -1;
		}
		p = find_pair(pg, key);
		if (p) {
			free(key);
			free(params);
		} else if (!(p = new_pair(pg, run, key, params))) {
			free(key);
			free(params);
			return -1;
		}
		if (b)
			p->label_b = run->fs_label;
		else
			p->label_a = run->fs_label;
		if (run->status != RES_OK) {
			size_t *bad = b ? &p->bad_b : &p->bad_a;
			const char **why = b ? &p->why_b : &p->why_a;

			if (!(*bad)++)
				*why = run->reason ? run->reason :
				       "no status row (interrupted)";
		} else if (b ? push(&p->b, &p->n_b, run) :
			   push(&p->a, &p->n_a, run)) {
			return -1;
		}
	}
	return 0;
}

static int add_phase(struct pairing *pg, const char *name)
{
	const char **np;

	for (size_t i = 0; i < pg->n_phases; i++)
		if (!strcmp(pg->phases[i], name))
			return 0;
	np = realloc(pg->phases, (pg->n_phases + 1) * sizeof(*np));
	if (!np)
		return -1;
	pg->phases = np;
	np[pg->n_phases++] = name;
	return 0;
}

/* The phases in the plan's order, then any only results.csv names. */
static int list_phases(struct pairing *pg)
{
	size_t i;
	json_t *ph;

	for (int s = 0; s < 2; s++)
		json_array_foreach(json_object_get(pg->side[s].man, "phases"),
				   i, ph)
			if (json_is_string(json_object_get(ph, "name")) &&
			    add_phase(pg, manifestread_str(ph, "name", NULL)))
				return -1;
	for (i = 0; i < pg->n_pairs; i++)
		if (add_phase(pg, pg->pairs[i].phase))
			return -1;
	return 0;
}

int pairing_both(const struct pair *p)
{
	return (p->n_a || p->bad_a) && (p->n_b || p->bad_b);
}

/* Two configs of one run, repeated, in order: configs: each config's
 * repetitions ran together, at another time than the other's, and a
 * machine that drifted over the run (a VM's disk) shows as a
 * difference. */
static void drift_note(struct pairing *pg)
{
	int repeated = 0;

	if (!pg->side[0].man)
		return;		/* no manifest: the order is not known */
	for (size_t i = 0; i < pg->n_pairs; i++)
		repeated |= pg->pairs[i].n_a > 1 || pg->pairs[i].n_b > 1;
	if (repeated &&
	    strcmp(manifestread_str(pg->side[0].man, "order", "configs"), "rounds"))
		note(pg, "each config's repetitions ran together (order: "
		     "configs), A's at other times than B's: the machine's "
		     "drift over the run is in the difference; order: rounds "
		     "interleaves them");
}

/* The host side s ran on: its config's (a merge's shard) when there is a
 * label and its manifest says, else the run's; NULL if not known. */
static const char *host_of(const struct pairing_side *s)
{
	json_t *c;
	size_t i;

	if (!s->man)
		return NULL;
	json_array_foreach(json_object_get(s->man, "configs"), i, c)
		if (s->label && !strcmp(manifestread_str(c, "label", ""), s->label) &&
		    manifestread_str(c, "host", NULL))
			return manifestread_str(c, "host", NULL);
	return manifestread_str(s->man, "system.hostname", NULL);
}

/* A and B measured on two machines: the difference is theirs too. */
static void host_note(struct pairing *pg)
{
	const char *ha = host_of(&pg->side[0]), *hb = host_of(&pg->side[1]);

	if (ha && hb && strcmp(ha, hb))
		note(pg, "A ran on host %s, B on host %s: the difference is "
		     "the hosts' as well as the configs'", ha, hb);
}

int pairing_build(struct pairing *pg, const char *const *dirs, int n_dirs,
		  const char *const *labels, struct diag *d)
{
	size_t both = 0;

	memset(pg, 0, sizeof(*pg));
	pg->one_run = n_dirs == 1;
	for (int s = 0; s < 2; s++) {
		if (load_side(&pg->side[s], dirs[pg->one_run ? 0 : s], d))
			return -1;
		pg->side[s].label = labels ? labels[s] : NULL;
		if (labels && has_label(&pg->side[s], labels[s], d))
			return -1;
	}
	for (int s = 0; s < (pg->one_run ? 1 : 2); s++) {
		char why[1024];

		if (results_left_out_note(&pg->side[s].r, why, sizeof(why))) {
			note(pg, "%s: %s", pg->side[s].dir, why);
			strbuf_printf(&pg->warn, "%s/results.csv: %s\n",
				      pg->side[s].dir, why);
		}
	}
	if (check_plans(pg, d))
		return -1;
	if (pair_side(pg, 0) || pair_side(pg, 1) || list_phases(pg))
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	for (size_t i = 0; i < pg->n_pairs; i++)
		both += pairing_both(&pg->pairs[i]);
	if (both && pg->one_run && labels)
		drift_note(pg);
	if (both)
		host_note(pg);
	if (!both && labels)
		return diag_fail(d, DIAG_INPUT, 0, "configs '%s' and '%s' "
				 "have no phase and parameters in common: "
				 "nothing to compare", labels[0], labels[1]);
	if (!both)
		return diag_fail(d, DIAG_INPUT, 0, "no cell of A (%s) is in B "
				 "(%s): the filesystem configs differ (compare "
				 "two configs with --label A --label B)",
				 pg->side[0].dir, pg->side[1].dir);
	return 0;
}

void pairing_free(struct pairing *pg)
{
	for (size_t i = 0; i < pg->n_pairs; i++) {
		free(pg->pairs[i].key);
		free(pg->pairs[i].params);
		free(pg->pairs[i].a);
		free(pg->pairs[i].b);
	}
	free(pg->pairs);
	strhash_free(&pg->index);
	free(pg->phases);
	for (size_t i = 0; i < pg->n_notes; i++)
		free(pg->notes[i]);
	free(pg->warn.p);
	free(pg->plans.p);
	for (int s = 0; s < 2; s++) {
		if (pg->side[s].dir)
			results_free(&pg->side[s].r);
		json_decref(pg->side[s].man);
	}
	memset(pg, 0, sizeof(*pg));
}

int pairing_key(const struct pairing *pg, const char *phase,
		const char **key)
{
	int n = manifestread_key(json_object_get(pg->side[0].man, "phases"), phase,
			   key, PAIRING_MAX_KEY);

	return n ? n : manifestread_key(json_object_get(pg->side[1].man, "phases"),
				  phase, key, PAIRING_MAX_KEY);
}
