/* test_strhash: the one string index — every key found after growing, absent
 * keys not. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "util/strhash.h"

#define N 5000

static char keys[N][16];

static const char *key_of(const void *ctx, size_t i)
{
	return ((const char (*)[16])ctx)[i];
}

Test(strhash, keys_survive_growing_and_absent_ones_are_not_found)
{
	struct strhash h = { 0 };

	cr_expect_eq(strhash_find(&h, "x", key_of, keys), 0, "empty");
	for (size_t i = 0; i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "cell#%zu", i);
		cr_assert_eq(strhash_reserve(&h, i + 1, key_of, keys), 0);
		cr_assert_eq(*strhash_slot(&h, keys[i], key_of, keys), 0,
			     "%s is new", keys[i]);
		*strhash_slot(&h, keys[i], key_of, keys) = i + 1;
	}
	cr_expect_geq(h.n_slots, 2 * N, "at most half full");
	cr_expect_eq(h.n_slots & (h.n_slots - 1), 0, "a power of two");
	for (size_t i = 0; i < N; i++)
		cr_expect_eq(strhash_find(&h, keys[i], key_of, keys), i + 1,
			     "%s", keys[i]);
	cr_expect_eq(strhash_find(&h, "cell#5000", key_of, keys), 0);
	cr_expect_eq(strhash_find(&h, "", key_of, keys), 0);
	strhash_free(&h);
	cr_expect_null(h.slot);
	cr_expect_eq(h.n_slots, 0);
}
