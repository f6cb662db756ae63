/* pairing: what compare compares — two run directories checked against each
 * other, their cells paired. */
#ifndef FSPLAN_PAIRING_H
#define FSPLAN_PAIRING_H

#include <jansson.h>
#include <stdio.h>

#include "results/results.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/strhash.h"

#define PAIRING_MAX_KEY 32	/* key metrics of a phase that compare reads */
#define PAIRING_MAX_NOTES 8

/* A run directory as one side of a comparison. */
struct pairing_side {
	const char *dir;
	const char *run_id;	/* results.csv's, or "?" */
	const char *label;	/* --label: the one config compared, or NULL */
	struct results r;
	json_t *man;		/* manifest.json, or NULL */
};

/*
 * The phase runs of one cell on both sides: same phase and parameters,
 * and the same config (or A's label against B's).
 */
struct pair {
	const char *phase, *label_a, *label_b;
	char *params;		/* "k=v k=v", without the configs' axes */
	char *key;
	const struct res_run **a, **b;	/* the ok runs */
	size_t n_a, n_b;
	size_t bad_a, bad_b;	/* runs that failed or were skipped */
	const char *why_a, *why_b;	/* the first one's reason */
};

struct pairing {
	struct pairing_side side[2];
	int one_run;		/* one RUNDIR, two labels */
	struct strbuf plans;	/* what the plans are, for the header */
	char *notes[PAIRING_MAX_NOTES];	/* differences that do not refuse */
	struct strbuf warn;	/* lines for the user's stderr, each ended */
	size_t n_notes;
	const char **phases;	/* in plan order */
	size_t n_phases;
	struct pair *pairs;	/* A's in order, then B's own */
	size_t n_pairs, cap_pairs;
	struct strhash index;	/* of the pairs' keys */
};

/*
 * Load dirs (one or two; one needs labels), check that they are runs of
 * one plan or of plans with the same phases, and pair their cells; labels
 * is NULL or two config labels. Returns 0, or -1 with d filled
 * (unreadable, mismatched, an unknown label, nothing in common, out of
 * memory); pairing_free either way. pg->warn has lines the user must
 * see either way (results.csv rows left out).
 */
int pairing_build(struct pairing *pg, const char *const *dirs, int n_dirs,
		  const char *const *labels, struct diag *d);
void pairing_free(struct pairing *pg);

/* The key metrics of phase (NULL-ended into key, borrowed), from A's
 * manifest, else B's; how many (0: none recorded). */
int pairing_key(const struct pairing *pg, const char *phase,
		const char **key);

/* Whether both sides ran pair's cell (ok or not). */
int pairing_both(const struct pair *p);

#endif
