/* design: two-level screening designs, their generators and aliases. */
#ifndef FSPLAN_DESIGN_H
#define FSPLAN_DESIGN_H

#include <stdint.h>

#include "plan/types.h"
#include "util/strbuf.h"

/* Factors a design may have: fractional and full up to 11, PB 23. */
#define DESIGN_MAX_K 23
#define DESIGN_MAX_FRAC_K 11
#define DESIGN_MAX_GEN 8

/*
 * A design's matrix: n rows of k signs, x[r * k + j] -1 (factor j at its
 * baseline, level 0) or +1, rows in standard (Yates) order for full and
 * fractional designs, the textbook's order for Plackett-Burman (the
 * cyclic rows, then all minus) and oat (the baseline, then factor 1
 * alone, ...). Factor j's letter is design_letter(j): A..H, J..Y (no I).
 */
struct design {
	enum design_kind kind;
	int k, n;
	int resolution;		/* fractional: the one achieved (3..7);
				 * full: 0 (every effect clear); pb and
				 * oat: 3 */
	int n_gen;		/* fractional: p generators */
	char gen[DESIGN_MAX_GEN][32];	/* "E = ABC" */
	signed char *x;
};

/* 'A' + j, skipping 'I'. */
char design_letter(int j);

/*
 * Make the design of kind for k factors; resolution (fractional: 3, 4,
 * 5; the design with the fewest runs whose resolution is at least it,
 * from the standard minimum-aberration generators) and runs
 * (plackett-burman: 12, 20 or 24; 0 the smallest that holds k) as in
 * struct plan_design. 0, or -1 with a one-line reason in err ("a
 * fractional design takes at most 11 factors", "plackett-burman 12
 * holds at most 11 factors"), or out of memory.
 */
int design_make(const struct plan_design *pd, int k, struct design *d,
		char *err, size_t errlen);
void design_free(struct design *d);

/*
 * The alias structure of a fractional design, one line per main effect
 * and two-factor interaction that has an alias of at most three letters,
 * "A = BCE", "AB = CE = DF" (terms ordered by length, then letters),
 * each line ended by '\n', appended to b; for full: nothing; for pb:
 * "two-factor interactions are partly aliased with main effects\n";
 * oat: "each effect is measured against the baseline alone\n". 0 or -1
 * (b->oom).
 */
int design_aliases(const struct design *d, struct strbuf *b);

/* The order in which rows run: a permutation of 0..n-1 shuffled by seed
 * (Fisher-Yates on mix64), the same for the same seed and n. */
void design_order(int n, uint64_t seed, int *order);

/*
 * Manifest (results/manifest.c writes it, report/effects.c reads it):
 * - top level "designs": one object per filesystems entry with factors:
 *   {"entry": 1-based entry index, "label": the entry's label or type,
 *    "type": "full" | "fractional" | "plackett-burman" | "oat",
 *    "resolution": n (fractional), "runs": n,
 *    "factors": [{"name", "letter", "minus": {"mkfs", "mount"},
 *                 "plus": {"mkfs", "mount"}}, ...],
 *    "generators": ["E = ABC", ...], "aliases": ["A = BCE", ...]}
 * - each config of a design row: "design": {"entry": n, "row": the row
 *   (1-based, the design's own order, before the shuffle),
 *   "levels": "+-+..." (one sign per factor, in factor order)}.
 */

#endif
