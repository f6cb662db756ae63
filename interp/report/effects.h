/* effects: `fsplan effects` — which factors of a run's design moved a metric.
 */
#ifndef FSPLAN_EFFECTS_H
#define FSPLAN_EFFECTS_H

#include <jansson.h>
#include <stdio.h>

#include "report/effectsmath.h"
#include "report/outfmt.h"
#include "results/results.h"
#include "util/diag.h"
#include "util/opts.h"
#include "util/strbuf.h"

/* fsplan effects' operand and options (cli/cmd_effects.c parses them). */
struct effects_opts {
	enum out_format fmt;
	const char *out, *rundir;
	struct opt_list metric;		/* --metric GLOB, in order */
};

/*
 * One design's effects on one metric of one phase and parameter set.
 * With missing set (configs of the design that have no ok repetition
 * of it, named there) nothing is computed: e is empty.
 */
struct eff_block {
	const char *design;		/* the entry's label; borrowed */
	const char *type;		/* "fractional", ...; borrowed */
	const char *phase, *params, *metric, *unit;	/* borrowed */
	const char **factor;		/* k names; borrowed */
	int k, n_rows, lower;
	const char **label;		/* each row's config; borrowed */
	signed char *x;			/* n_rows * k signs */
	struct effm_out e;
	double predicted;		/* of the best combination */
	struct strbuf missing;		/* "ext4/a=+,b=-, ..." */
	struct strbuf aliases;		/* lines: "A:B = C:D", ... */
	struct strbuf best;		/* "a=+,b=-" */
	struct strbuf command;		/* that confirms it */
	struct strbuf note;		/* how the CIs came, ... */
};

struct effects {
	struct eff_block *b;
	size_t n, cap;
	json_t *m;			/* the manifest, owned */
	const char *rundir;
};

/*
 * The effects of the designs of manifest m (owned by out from here) over
 * r's ok runs: each phase's key metrics, or those matching only
 * (NULL-ended globs). 0; -1 with d: the run has no design, out of
 * memory.
 */
int effects_build(const struct results *r, json_t *m, const char *rundir,
		  const char *const *only, struct effects *out,
		  struct diag *d);
void effects_free(struct effects *ef);

/* A term's name, "data" or "data:commit", into b. */
void effects_term_name(const struct eff_block *bk, const struct effm_term *t,
		       struct strbuf *b);

/* Whether manifest m records a design (the report's section shows). */
int effects_has_design(json_t *m);

struct table;

/* bk's estimated terms, largest |effect| first (free it), their number
 * in *n; NULL out of memory. */
const struct effm_term **effects_sorted(const struct eff_block *bk,
					size_t *n);
/* bk's table (term, effect, % of mean, 95% CI, significant); 0 or -1. */
int effects_table(const struct eff_block *bk, struct table *t);
/* bk's title: "fractional design of ext4 (16 rows): phase p, m (unit)". */
void effects_title(const struct eff_block *bk, struct strbuf *b);

/* The renderers (report/effectsout.c, report/htmleffects.c): 0, or -1
 * out of memory. */
int effects_text(FILE *f, const struct effects *ef);
int effects_csv(FILE *f, const struct effects *ef);
int effects_html(FILE *f, const struct effects *ef);

/* The best combination, its prediction and command, of bk. 0 or -1. */
int effects_best(const struct effects *ef, struct eff_block *bk);

/* report's section (text, or html): the effects of manifest m's designs
 * (nothing without one), only as for effects_build. 0, or -1 out of
 * memory. */
int effects_report(FILE *f, const struct results *r, json_t *m,
		   const char *rundir, const char *const *only, int html);

/* fsplan effects as o asks. 0; 1 when some design is incomplete (said);
 * -1 with d. */
int effects_run(const struct effects_opts *o, struct diag *d);

#endif
