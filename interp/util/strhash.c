/* strhash: FNV-1a over the key, linear probing, doubled when half full. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/strhash.h"

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

size_t *strhash_slot(const struct strhash *h, const char *key,
		     strhash_key_fn *key_of, const void *ctx)
{
	size_t mask = h->n_slots - 1;

	for (size_t i = hash(key) & mask;; i = (i + 1) & mask)
		if (!h->slot[i] || !strcmp(key_of(ctx, h->slot[i] - 1), key))
			return &h->slot[i];
}

size_t strhash_find(const struct strhash *h, const char *key,
		    strhash_key_fn *key_of, const void *ctx)
{
	return h->n_slots ? *strhash_slot(h, key, key_of, ctx) : 0;
}

int strhash_reserve(struct strhash *h, size_t n, strhash_key_fn *key_of,
		    const void *ctx)
{
	struct strhash old = *h;
	size_t want = h->n_slots ? h->n_slots : 256;

	while (2 * n > want)
		want *= 2;
	if (want == h->n_slots)
		return 0;
	h->slot = calloc(want, sizeof(*h->slot));
	if (!h->slot) {
		*h = old;
		return -1;
	}
	h->n_slots = want;
	for (size_t i = 0; i < old.n_slots; i++)
		if (old.slot[i])
			*strhash_slot(h, key_of(ctx, old.slot[i] - 1), key_of,
				      ctx) = old.slot[i];
	free(old.slot);
	return 0;
}

void strhash_free(struct strhash *h)
{
	free(h->slot);
	h->slot = NULL;
	h->n_slots = 0;
}
