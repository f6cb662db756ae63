/* outfmt: the --format of report and compare: text, csv or html. */
#ifndef FSPLAN_OUTFMT_H
#define FSPLAN_OUTFMT_H

#include <stddef.h>
#include <stdio.h>

#include "util/diag.h"

enum out_format { FMT_TEXT, FMT_CSV, FMT_HTML };

/* An OPT_CALL for --format: the name into *(enum out_format *)slot, or
 * -1 with d. */
int outfmt_take(const char *arg, void *slot, struct diag *d);

/*
 * -o FILE of report and compare: what is printed goes to memory, and
 * outfmt_close puts it in place as util/file.c's atomic replace does
 * (a new temp file, renamed over FILE): a symbolic link at FILE is
 * replaced, never written through, and a reader never sees half a page.
 * With path NULL, standard output.
 */
struct outfile {
	const char *path;
	FILE *f;
	char *buf;
	size_t len;
};
/* The stream to print to, or NULL with errno. */
FILE *outfmt_open(struct outfile *o, const char *path);
/* Done printing: with keep, FILE put in place (a failed report keeps
 * the old FILE). 0, or -1 with errno (then nothing was put in place). */
int outfmt_close(struct outfile *o, int keep);

#endif
