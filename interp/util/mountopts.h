/* mountopts: requested mount words against those the kernel applied. */
#ifndef FSPLAN_MOUNTOPTS_H
#define FSPLAN_MOUNTOPTS_H

#include "util/strbuf.h"

/*
 * What the kernel did to the requested mount words: applied is
 * fs_applied_options' "<per-mount> <superblock>". A requested word it
 * did not keep (or negated, or gave another value) is "dropped" or
 * "became" another; then, when one was, the words it added beyond base
 * (the options of a mount with none; NULL: none named). Aliases are no
 * change: hidden defaults, rw, sizes in other units. The changes
 * ("x dropped, y became z, w added") appended to out: 1, or 0 none.
 */
int mountopts_compare(const char *requested, const char *applied,
		       const char *base, struct strbuf *out);

#endif
