/* tables: a study's tables, in order (report/table.h declares them). */
#include <stdlib.h>
#include <string.h>

#include "report/table.h"

/* ---- a study's tables --------------------------------------------------- */

struct table *tables_add(struct tables *ts)
{
	struct table **t = realloc(ts->t, (ts->n + 1) * sizeof(*t));

	if (!t || !(t[ts->n] = calloc(1, sizeof(**t)))) {
		ts->failed = 1;
		if (t)
			ts->t = t;
		return NULL;
	}
	ts->t = t;
	return t[ts->n++];
}

int tables_failed(const struct tables *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->t[i]->failed)
			return -1;
	return ts->failed ? -1 : 0;
}

void tables_free(struct tables *ts)
{
	for (size_t i = 0; i < ts->n; i++) {
		table_free(ts->t[i]);
		free(ts->t[i]);
	}
	free(ts->t);
	memset(ts, 0, sizeof(*ts));
}
