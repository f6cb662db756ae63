/* optcheck: the loader's check of mkfs and mount words for devices. */
#ifndef FSPLAN_OPTCHECK_H
#define FSPLAN_OPTCHECK_H

#include "plan/field.h"

/* A device named by a word of the option values v (key "mkfs" or
 * "mount": an entry's alternatives or a factor's levels): -1 with the
 * error at the word. */
int optcheck_devices(struct loader *L, const char *key,
		     const struct pstr *v, int n);

#endif
