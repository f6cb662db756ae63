/* grow: room for more in an array that doubles. */
#include <stdint.h>
#include <stdlib.h>

#include "util/grow.h"

void *grow_array(void *arr, size_t *cap, size_t need, size_t elem,
		 size_t first)
{
	size_t n = *cap ? *cap : first ? first : 1;
	void *p;

	if (need <= *cap)
		return arr;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return NULL;
		n *= 2;
	}
	if (!elem || n > SIZE_MAX / elem || !(p = realloc(arr, n * elem)))
		return NULL;
	*cap = n;
	return p;
}
