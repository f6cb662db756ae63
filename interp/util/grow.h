/* grow: room for more in an array that doubles, the one way fsplan grows its
 * arrays of records. */
#ifndef FSPLAN_GROW_H
#define FSPLAN_GROW_H

#include <stddef.h>

/*
 * Room for need elements of elem bytes in arr, which has room for *cap:
 * arr itself when it has it; else arr reallocated to double (first at
 * the least, and need at the least) with *cap updated. NULL out of memory
 * or past what a size_t counts; then arr and *cap are as they were.
 */
void *grow_array(void *arr, size_t *cap, size_t need, size_t elem,
		 size_t first);

#endif
