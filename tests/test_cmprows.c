/* test_cmprows: Holm's correction over compare's rows (cmprows_holm). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "report/cmprows.h"
#include "report/compare.h"

/* A table of rows with these p (NAN: a row that could not be tested);
 * the even rows' p from the test of the logarithms. */
static void rows(struct cmprows *t, struct cmprow *row, const double *p,
		 size_t n)
{
	memset(t, 0, sizeof(*t));
	memset(row, 0, n * sizeof(*row));
	for (size_t i = 0; i < n; i++) {
		row[i].tested = !isnan(p[i]);
		row[i].ratio = i % 2 == 0;
		if (row[i].ratio)
			row[i].lw.p = p[i];
		else
			row[i].w.p = p[i];
	}
	t->row = row;
	t->n = n;
}

/* m = 4: 0.01 <= 0.05/4 differs; 0.02 > 0.05/3 stops it, and the
 * larger ones do not differ, though each is under 0.05 alone. */
Test(cmprows, holm_stops_at_the_first_kept_null)
{
	const double p[] = { 0.04, 0.01, 0.03, 0.02 };
	struct cmprow row[4];
	struct cmprows t;
	unsigned char keep[4];

	rows(&t, row, p, 4);
	cr_assert_eq(cmprows_holm(&t, 0.05, keep), 1);
	cr_expect_eq(keep[1], 1);
	cr_expect_eq(keep[0] + keep[2] + keep[3], 0);
}

/* An untested row is not one of the m: 0.001 <= 0.05/3, 0.012 <=
 * 0.05/2, 0.2 > 0.05. */
Test(cmprows, holm_counts_the_tested_rows_only)
{
	const double p[] = { 0.2, NAN, 0.012, 0.001 };
	struct cmprow row[4];
	struct cmprows t;
	unsigned char keep[4];

	rows(&t, row, p, 4);
	cr_assert_eq(cmprows_holm(&t, 0.05, keep), 2);
	cr_expect(keep[2] && keep[3] && !keep[0] && !keep[1]);
	/* one row alone: Holm is the plain test */
	rows(&t, row, (const double[]){ 0.049 }, 1);
	cr_expect_eq(cmprows_holm(&t, 0.05, keep), 1);
	/* nothing tested: nothing differs */
	rows(&t, row, (const double[]){ NAN, NAN }, 2);
	cr_expect_eq(cmprows_holm(&t, 0.05, keep), 0);
}

/* rerun's caveat under "reproduced": 32 of 192 marked at 0.05 each is
 * more than chance; 9 of 192 is chance; 2 of 4 is too few to say. */
Test(cmprows, family_leans_past_chance)
{
	struct compare_family f = { .compared = 192, .marked = 32 };

	cr_expect(compare_family_leans(&f));
	f.marked = 9;
	cr_expect_not(compare_family_leans(&f));
	f.compared = 4;
	f.marked = 2;
	cr_expect_not(compare_family_leans(&f));
	/* the untested do not count: 3 of 20 tested is 15% */
	f.compared = 100;
	f.untold = 80;
	f.marked = 3;
	cr_expect(compare_family_leans(&f));
}
