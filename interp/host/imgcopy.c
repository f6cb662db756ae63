/* imgcopy: a sparse image's data copied, its sha256 taken on the way. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "host/imgcopy.h"
#include "util/sha256.h"

#define CHUNK (1u << 20)

/* n zero bytes into s. */
static void hash_zeros(struct sha256_ctx *s, uint64_t n)
{
	static const unsigned char zero[65536];

	while (n) {
		size_t k = n < sizeof(zero) ? (size_t)n : sizeof(zero);

		sha256_update(s, zero, k);
		n -= k;
	}
}

/* [off, end) of from, hashed and written to to. 0, or -errno. */
static int copy_data(int from, int to, uint64_t off, uint64_t end,
		     unsigned char *buf, struct sha256_ctx *s)
{
	while (off < end) {
		size_t want = end - off < CHUNK ? (size_t)(end - off) : CHUNK;
		ssize_t got = pread(from, buf, want, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		sha256_update(s, buf, (size_t)got);
		for (ssize_t done = 0, w; to >= 0 && done < got; done += w) {
			w = pwrite(to, buf + done, (size_t)(got - done),
				   (off_t)(off + (uint64_t)done));
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w <= 0)
				return w < 0 ? -errno : -EIO;
		}
		off += (uint64_t)got;
	}
	return 0;
}

int imgcopy(int from, int to, uint64_t size, const char *what,
	    char sha[65], struct diag *d)
{
	unsigned char *buf = malloc(CHUNK);
	struct sha256_ctx s;
	uint64_t off = 0;
	int rc = 0;

	if (!buf)
		return diag_fail(d, DIAG_SYSTEM, ENOMEM, "%s", what);
	sha256_init(&s);
	while (!rc && off < size) {
		off_t data = lseek(from, (off_t)off, SEEK_DATA), hole;

		if (data < 0 && errno != ENXIO) {
			rc = -errno;
			break;
		}
		/* ENXIO: no data after off, the rest is a hole */
		if (data < 0 || (uint64_t)data > size)
			data = (off_t)size;
		hash_zeros(&s, (uint64_t)data - off);
		off = (uint64_t)data;
		if (off >= size)
			break;
		hole = lseek(from, data, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole > size)
			hole = (off_t)size;
		rc = copy_data(from, to, off, (uint64_t)hole, buf, &s);
		off = (uint64_t)hole;
	}
	free(buf);
	if (rc)
		return diag_fail(d, DIAG_SYSTEM, -rc, "%s", what);
	sha256_final(&s, sha);
	return 0;
}
