/* outfmt: the --format of report and compare: text, csv or html. */
#ifndef FSPLAN_OUTFMT_H
#define FSPLAN_OUTFMT_H

#include <stddef.h>

enum out_format { FMT_TEXT, FMT_CSV, FMT_HTML };

/* An OPT_CALL for --format: the name into *(enum out_format *)slot, or
 * -1 with why. */
int outfmt_take(const char *arg, void *slot, char *why, size_t len);

#endif
