/* outfmt: --format parsed once for every command that prints a run. */
#include <stdio.h>
#include <string.h>

#include "report/outfmt.h"

int outfmt_take(const char *arg, void *slot, char *why, size_t len)
{
	static const char *const names[] = { [FMT_TEXT] = "text",
		[FMT_CSV] = "csv", [FMT_HTML] = "html" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(arg, names[i])) {
			*(enum out_format *)slot = (enum out_format)i;
			return 0;
		}
	snprintf(why, len, "--format takes text, csv or html, not '%s'", arg);
	return -1;
}
