/* sha256ni: SHA-256's rounds on the CPU's SHA extensions, where it has them. */
#ifndef FSPLAN_SHA256NI_H
#define FSPLAN_SHA256NI_H

#include <stddef.h>
#include <stdint.h>

/* Whether this CPU has the SHA extensions (and SSE4.1): 1 or 0. */
int sha256ni_have(void);
/* n 64-byte blocks of p into the state h, as FIPS 180-4's compression
 * does with its round constants k; only where sha256ni_have() says so. */
void sha256ni_blocks(uint32_t h[8], const uint32_t k[64],
		     const unsigned char *p, size_t n);

#endif
