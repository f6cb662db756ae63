/* mix: splitmix64's finalizer, the bit mixer the seeded generators share. */
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

#endif
