/* test_design: the designs against the textbook tables and their algebra. */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "cells/design.h"

static struct design make(enum design_kind kind, int k, int res, int runs)
{
	struct plan_design pd = { .kind = kind, .resolution = res,
				  .runs = runs };
	struct design d;
	char err[128];

	cr_assert_eq(design_make(&pd, k, &d, err, sizeof(err)), 0, "%s", err);
	return d;
}

static int refused(enum design_kind kind, int k, int res, int runs,
		   const char *says)
{
	struct plan_design pd = { .kind = kind, .resolution = res,
				  .runs = runs };
	struct design d;
	char err[128] = "";

	if (design_make(&pd, k, &d, err, sizeof(err)) == 0) {
		design_free(&d);
		return 0;
	}
	cr_expect(strstr(err, says), "'%s' lacks '%s'", err, says);
	return 1;
}

static char *aliases(const struct design *d)
{
	struct strbuf b = { 0 };

	cr_assert_eq(design_aliases(d, &b), 0);
	return b.p ? b.p : strdup("");
}

/* Every pair of columns orthogonal, every column balanced. */
static void expect_orthogonal(const struct design *d)
{
	for (int a = 0; a < d->k; a++) {
		int sum = 0;

		for (int r = 0; r < d->n; r++)
			sum += d->x[r * d->k + a];
		cr_expect_eq(sum, 0, "column %c unbalanced", design_letter(a));
		for (int b = a + 1; b < d->k; b++) {
			int dot = 0;

			for (int r = 0; r < d->n; r++)
				dot += d->x[r * d->k + a] * d->x[r * d->k + b];
			cr_expect_eq(dot, 0, "columns %c and %c not orthogonal",
				     design_letter(a), design_letter(b));
		}
	}
}

/* No two rows the same. */
static void expect_distinct_rows(const struct design *d)
{
	for (int r = 0; r < d->n; r++)
		for (int s = r + 1; s < d->n; s++)
			cr_expect(memcmp(&d->x[r * d->k], &d->x[s * d->k],
					 d->k), "rows %d and %d equal", r, s);
}

Test(design, letters_skip_i)
{
	cr_expect_eq(design_letter(0), 'A');
	cr_expect_eq(design_letter(7), 'H');
	cr_expect_eq(design_letter(8), 'J');
	cr_expect_eq(design_letter(10), 'L');
}

Test(design, full_is_standard_order)
{
	struct design d = make(DESIGN_FULL, 3, 0, 0);
	static const signed char want[8][3] = {
		{ -1, -1, -1 }, { 1, -1, -1 }, { -1, 1, -1 }, { 1, 1, -1 },
		{ -1, -1, 1 }, { 1, -1, 1 }, { -1, 1, 1 }, { 1, 1, 1 },
	};

	cr_assert_eq(d.n, 8);
	cr_expect_eq(d.n_gen, 0);
	cr_expect_eq(memcmp(d.x, want, sizeof(want)), 0);
	expect_orthogonal(&d);
	cr_expect_str_eq(aliases(&d), "");
	design_free(&d);
}

/* 2^(7-4) III, the saturated 8-run design: D = AB, E = AC, F = BC,
 * G = ABC; every main effect aliased with three two-factor
 * interactions. */
Test(design, seven_in_eight_resolution_three)
{
	struct design d = make(DESIGN_FRACTIONAL, 7, 3, 0);
	char *a;

	cr_assert_eq(d.n, 8);
	cr_expect_eq(d.kind, DESIGN_FRACTIONAL);
	cr_expect_eq(d.resolution, 3);
	cr_assert_eq(d.n_gen, 4);
	cr_expect_str_eq(d.gen[0], "D = AB");
	cr_expect_str_eq(d.gen[3], "G = ABC");
	expect_orthogonal(&d);
	expect_distinct_rows(&d);
	a = aliases(&d);
	cr_expect(strstr(a, "A = BD = CE = FG\n"), "%s", a);
	cr_expect(strstr(a, "D = AB = CG = EF\n"), "%s", a);
	cr_expect(strstr(a, "G = AF = BE = CD\n"), "%s", a);
	/* seven chains, one per main effect, nothing else */
	int lines = 0;
	for (char *p = a; *p; p++)
		lines += *p == '\n';
	cr_expect_eq(lines, 7, "%s", a);
	free(a);
	design_free(&d);
}

/* 2^(6-2) IV: E = ABC, F = BCD; I = ABCE = BCDF = ADEF. */
Test(design, six_in_sixteen_resolution_four)
{
	struct design d = make(DESIGN_FRACTIONAL, 6, 4, 0);
	char *a;

	cr_assert_eq(d.n, 16);
	cr_expect_eq(d.resolution, 4);
	cr_expect_str_eq(d.gen[0], "E = ABC");
	cr_expect_str_eq(d.gen[1], "F = BCD");
	expect_orthogonal(&d);
	expect_distinct_rows(&d);
	a = aliases(&d);
	cr_expect(strstr(a, "A = BCE = DEF\n"), "%s", a);
	cr_expect(strstr(a, "AB = CE\n"), "%s", a);
	cr_expect(strstr(a, "AE = BC = DF\n"), "%s", a);
	cr_expect(strstr(a, "BF = CD\n"), "%s", a);
	cr_expect(!strstr(a, "CE = AB"), "each chain once: %s", a);
	free(a);
	for (int r = 0; r < d.n; r++) {
		const signed char *x = &d.x[r * 6];

		cr_expect_eq(x[4], x[0] * x[1] * x[2]);
		cr_expect_eq(x[5], x[1] * x[2] * x[3]);
	}
	design_free(&d);
}

/* 2^(5-1) V: E = ABCD; main effects clear of everything shorter than
 * four letters, two-factor interactions aliased with three-factor ones. */
Test(design, five_in_sixteen_resolution_five)
{
	struct design d = make(DESIGN_FRACTIONAL, 5, 5, 0);
	char *a;

	cr_assert_eq(d.n, 16);
	cr_expect_eq(d.resolution, 5);
	cr_expect_str_eq(d.gen[0], "E = ABCD");
	a = aliases(&d);
	cr_expect(!strstr(a, "A = "), "%s", a);
	cr_expect(strstr(a, "AB = CDE\n"), "%s", a);
	cr_expect(strstr(a, "DE = ABC\n"), "%s", a);
	free(a);
	design_free(&d);
}

/* Every table entry has the resolution it is listed at, and the design
 * chosen is the smallest that reaches the one asked for. */
Test(design, smallest_fraction_at_each_resolution)
{
	static const int runs[12][6] = {
		/* k: runs at III, IV, V */
		[3] = { 4, 8, 8 }, [4] = { 8, 8, 16 }, [5] = { 8, 16, 16 },
		[6] = { 8, 16, 32 }, [7] = { 8, 16, 64 },
		[8] = { 16, 16, 64 }, [9] = { 16, 32, 128 },
		[10] = { 16, 32, 128 }, [11] = { 16, 32, 128 },
	};

	for (int k = 3; k <= 11; k++)
		for (int res = 3; res <= 5; res++) {
			struct design d = make(DESIGN_FRACTIONAL, k, res, 0);

			cr_expect_eq(d.n, runs[k][res - 3], "k %d res %d: %d "
				     "runs", k, res, d.n);
			cr_expect(d.kind == DESIGN_FULL || d.resolution >= res,
				  "k %d res %d: got %d", k, res, d.resolution);
			expect_orthogonal(&d);
			expect_distinct_rows(&d);
			design_free(&d);
		}
}

Test(design, plackett_burman_columns_orthogonal)
{
	static const int sizes[][2] = { { 11, 12 }, { 19, 20 }, { 23, 24 },
					{ 5, 12 }, { 12, 20 } };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct design d = make(DESIGN_PB, sizes[i][0], 0, 0);

		cr_expect_eq(d.n, sizes[i][1]);
		expect_orthogonal(&d);
		expect_distinct_rows(&d);
		for (int j = 0; j < d.k; j++)
			cr_expect_eq(d.x[(d.n - 1) * d.k + j], -1);
		design_free(&d);
	}
	struct design d = make(DESIGN_PB, 7, 0, 20);
	cr_expect_eq(d.n, 20);
	design_free(&d);
	cr_expect(refused(DESIGN_PB, 12, 0, 12, "at most 11"));
	cr_expect(refused(DESIGN_PB, 24, 0, 0, "1 to 23"));
	cr_expect(refused(DESIGN_PB, 5, 0, 16, "12, 20 or 24"));
}

Test(design, one_at_a_time)
{
	struct design d = make(DESIGN_OAT, 4, 0, 0);

	cr_assert_eq(d.n, 5);
	for (int r = 0; r < 5; r++)
		for (int j = 0; j < 4; j++)
			cr_expect_eq(d.x[r * 4 + j], r == j + 1 ? 1 : -1);
	design_free(&d);
}

Test(design, limits)
{
	cr_expect(refused(DESIGN_FRACTIONAL, 12, 4, 0, "at most 11"));
	cr_expect(refused(DESIGN_FULL, 12, 0, 0, "at most 11"));
	cr_expect(refused(DESIGN_FRACTIONAL, 5, 6, 0, "3, 4 or 5"));
	cr_expect(refused(DESIGN_FRACTIONAL, 0, 4, 0, "1 to"));
}

Test(design, order_is_a_seeded_permutation)
{
	int a[32], b[32], c[32], seen[32] = { 0 };

	design_order(32, 42, a);
	design_order(32, 42, b);
	design_order(32, 43, c);
	cr_expect_eq(memcmp(a, b, sizeof(a)), 0);
	cr_expect_neq(memcmp(a, c, sizeof(a)), 0);
	for (int i = 0; i < 32; i++)
		seen[a[i]]++;
	for (int i = 0; i < 32; i++)
		cr_expect_eq(seen[i], 1);
}
