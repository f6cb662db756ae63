/* mix: the seeded generators' parts: splitmix64's finalizer, xoshiro256**. */
#ifndef FSPLAN_MIX_H
#define FSPLAN_MIX_H

#include <stdint.h>

/* Every bit of z spread over every bit of the result (Stafford's mix13,
 * as splitmix64 ends). */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t mix_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* The next number of xoshiro256** (Blackman and Vigna) from its state s,
 * which it advances: the generator the workers and the aging draw from. */
static inline uint64_t mix_xoshiro(uint64_t s[4])
{
	uint64_t r = mix_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = mix_rotl(s[3], 45);
	return r;
}

#endif
