/* imgcopy: a sparse image's data copied, its sha256 taken on the way. */
#ifndef FSPLAN_IMGCOPY_H
#define FSPLAN_IMGCOPY_H

#include <stdint.h>

#include "util/diag.h"

/*
 * The first size bytes of from written to to at the same offsets, data
 * only: from's holes (SEEK_DATA, SEEK_HOLE) are skipped, so to must read
 * zero there already (a new sparse file, a new image's loop device).
 * sha gets the sha256 of all size bytes as read, holes as zeros. to may
 * be -1: the digest alone. 0, or -1 with d (what, the copy's name, in
 * its message).
 */
int imgcopy(int from, int to, uint64_t size, const char *what,
	    char sha[65], struct diag *d);

#endif
