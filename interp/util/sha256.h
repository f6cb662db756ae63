/* sha256: FIPS 180-4 SHA-256, for the manifest's plan and module digests. */
#ifndef FSPLAN_SHA256_H
#define FSPLAN_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* A digest over data given in parts: init, update as often as needed,
 * final. */
struct sha256_ctx {
	uint32_t h[8];
	uint64_t bytes;
	unsigned char blk[64];
	size_t used;
};

void sha256_init(struct sha256_ctx *s);
void sha256_update(struct sha256_ctx *s, const void *data, size_t len);
/* hex must hold 65 bytes; s is used up. */
void sha256_final(struct sha256_ctx *s, char hex[65]);

/* hex must hold 65 bytes. */
void sha256_hex(const void *data, size_t len, char hex[65]);
/* The digest of a file's contents; -1 if it cannot be read. */
int sha256_file(const char *path, char hex[65]);

#endif
