/* sha256: FIPS 180-4 SHA-256, for the manifest's plan and module digests. */
#ifndef FSPLAN_SHA256_H
#define FSPLAN_SHA256_H

#include <stddef.h>

/* hex must hold 65 bytes. */
void sha256_hex(const void *data, size_t len, char hex[65]);
/* The digest of a file's contents; -1 if it cannot be read. */
int sha256_file(const char *path, char hex[65]);

#endif
