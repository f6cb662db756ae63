/* test_grow: util/grow — an array that doubles, and what it refuses. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/grow.h"

Test(grow, doubles_from_first_and_keeps_what_it_held)
{
	size_t cap = 0;
	int *a = NULL, *p;

	for (int i = 0; i < 1000; i++) {
		p = grow_array(a, &cap, (size_t)i + 1, sizeof(*a), 8);
		cr_assert_not_null(p);
		a = p;
		a[i] = i;
		cr_assert_geq(cap, (size_t)i + 1);
	}
	cr_expect_eq(cap, 1024, "8 doubled 7 times: %zu", cap);
	for (int i = 0; i < 1000; i++)
		cr_expect_eq(a[i], i);
	/* room already: the same array, the same cap */
	cr_expect_eq(grow_array(a, &cap, 1000, sizeof(*a), 8), a);
	cr_expect_eq(cap, 1024);
	/* a jump past double: as far as it needs */
	a = grow_array(a, &cap, 5000, sizeof(*a), 8);
	cr_assert_not_null(a);
	cr_expect_eq(cap, 8192);
	free(a);
}

Test(grow, refuses_what_a_size_cannot_count)
{
	size_t cap = 4;
	char *a = malloc(4);

	cr_assert_not_null(a);
	cr_expect_null(grow_array(a, &cap, SIZE_MAX / 2 + 2, 1, 4));
	cr_expect_null(grow_array(a, &cap, SIZE_MAX / 8, 16, 4));
	cr_expect_eq(cap, 4, "unchanged on failure");
	free(a);
}
