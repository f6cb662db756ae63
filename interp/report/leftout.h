/* leftout: what compare did not compare: one-sided cells, runs not ok. */
#ifndef FSPLAN_REPORT_LEFTOUT_H
#define FSPLAN_REPORT_LEFTOUT_H

#include <stdio.h>

#include "report/pairing.h"

/* The cells of pg on one side only and the runs not ok, a line each (at
 * most 20 of each kind, then how many more), as compare's footer. */
void leftout_print(FILE *f, const struct pairing *pg);

#endif
