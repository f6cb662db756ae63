/* groups: which configs a report cannot tell apart — Welch, Holm, letters. */
#ifndef FSPLAN_REPORT_GROUPS_H
#define FSPLAN_REPORT_GROUPS_H

#include <stddef.h>

#include "results/results.h"

/*
 * Holm's step-down correction of m p-values at alpha: reject[i] = 1
 * for the tests it rejects (the smallest p against alpha/m, the next
 * against alpha/(m-1), ..., stopping at the first that holds). Returns
 * 0, or -1 out of memory.
 */
int groups_holm(const double *p, size_t m, double alpha, char *reject);

/*
 * The compact letter display of configs s[0..n-1] (best first): every
 * pair with n >= 2 on both sides tested by Welch's t-test, the tests
 * corrected by Holm's at alpha; configs that share a letter do not
 * differ significantly, the best's group is 'a'. letters[i] (room for
 * GROUPS_LEN) gets config i's letters, or "-" when its n < 2. Returns
 * how many configs had no letter, or -1 out of memory.
 */
#define GROUPS_LEN 64
int groups_letters(const struct res_stats *s, size_t n, double alpha,
		   char (*letters)[GROUPS_LEN]);

#endif
