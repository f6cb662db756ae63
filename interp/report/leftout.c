/* leftout: what compare did not compare: one-sided cells, runs not ok. */
#include <stdio.h>

#include "report/leftout.h"

#define MAX_FOOTER 20	/* lines of each kind in the footer */

/* A cell as the footer names it: "config/phase params". */
static void cell_name(FILE *f, const struct pair *p, int b)
{
	fprintf(f, "%s/%s%s%s", b ? p->label_b : p->label_a, p->phase,
		*p->params ? " " : "", p->params);
}

void leftout_print(FILE *f, const struct pairing *pg)
{
	size_t shown[2] = { 0 }, more[2] = { 0 };

	for (size_t i = 0; i < pg->n_pairs; i++) {
		const struct pair *p = &pg->pairs[i];
		int b = !(p->n_a || p->bad_a);

		if (pairing_both(p))
			continue;
		if (shown[0]++ >= MAX_FOOTER) {
			more[0]++;
			continue;
		}
		fprintf(f, "only in %s: ", b ? "B" : "A");
		cell_name(f, p, b);
		fprintf(f, " (%zu phase run%s)\n",
			b ? p->n_b + p->bad_b : p->n_a + p->bad_a,
			(b ? p->n_b + p->bad_b : p->n_a + p->bad_a) == 1 ? "" :
			"s");
	}
	for (size_t i = 0; i < pg->n_pairs; i++) {
		const struct pair *p = &pg->pairs[i];

		for (int b = 0; b < 2; b++) {
			size_t bad = b ? p->bad_b : p->bad_a;

			if (!bad)
				continue;
			if (shown[1]++ >= MAX_FOOTER) {
				more[1]++;
				continue;
			}
			fprintf(f, "not ok in %s: ", b ? "B" : "A");
			cell_name(f, p, b);
			fprintf(f, ", %zu phase run%s: %s\n", bad,
				bad == 1 ? "" : "s", b ? p->why_b : p->why_a);
		}
	}
	if (more[0] + more[1])
		fprintf(f, "(and %zu more)\n", more[0] + more[1]);
}
