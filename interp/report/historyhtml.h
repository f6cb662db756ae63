/* historyhtml: `fsplan history show --format html`, the trend as a page. */
#ifndef FSPLAN_REPORT_HISTORYHTML_H
#define FSPLAN_REPORT_HISTORYHTML_H

#include <sqlite3.h>
#include <stdio.h>

#include "report/history.h"
#include "util/diag.h"

/* The page of the trend query st (historyq.c's show_sql, bound): the
 * runs numbered by start, a chart and a table per cell and metric. 1
 * when it was written, 0 (nothing written) when st has no row, -1 with
 * d filled. */
int historyhtml_show(struct history *h, const struct history_show *o,
		     sqlite3_stmt *st, FILE *f, struct diag *d);

#endif
