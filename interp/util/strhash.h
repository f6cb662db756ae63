/* strhash: the one string-keyed index (open addressing) over an array the
 * caller owns. */
#ifndef FSPLAN_STRHASH_H
#define FSPLAN_STRHASH_H

#include <stddef.h>

/* The key of item i of the caller's array ctx. */
typedef const char *strhash_key_fn(const void *ctx, size_t i);

/* Zeroed, it is empty. */
struct strhash {
	size_t *slot;		/* item index + 1; 0 is empty */
	size_t n_slots;		/* a power of two, or 0 */
};

/* The slot of key: holding its item's index + 1, or 0 where it would go
 * (store index + 1 there to add it). Needs strhash_reserve first. */
size_t *strhash_slot(const struct strhash *h, const char *key,
		     strhash_key_fn *key_of, const void *ctx);

/* The index + 1 of key's item, or 0 (also when the index is empty). */
size_t strhash_find(const struct strhash *h, const char *key,
		    strhash_key_fn *key_of, const void *ctx);

/* Room for n items at most half full, rehashing the items there are.
 * 0, or -1 out of memory (h unchanged). */
int strhash_reserve(struct strhash *h, size_t n, strhash_key_fn *key_of,
		    const void *ctx);

void strhash_free(struct strhash *h);

#endif
