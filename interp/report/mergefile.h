/* mergefile: merge's files besides the rows, read safely from the shards and
 * written to OUT. */
#ifndef FSPLAN_MERGEFILE_H
#define FSPLAN_MERGEFILE_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "report/mergemanifest.h"
#include "util/diag.h"
#include "util/strbuf.h"

/*
 * The whole of a shard's own file (bonnie.csv, log.txt), "" and *len 0
 * when there is none. It is the run's record: anything but a regular
 * file of at most 1 GiB (a link, FIFO, device) fails the merge: NULL,
 * with d saying why.
 */
char *mergefile_slurp(const char *dir, const char *name, size_t *len,
		      struct diag *d);

/* What merge wrote, to take back if it cannot finish; the functions
 * below that take it fail by filling d and add warnings to notes (lines
 * for the user's stderr, each ended). */
struct merge_written {
	char out[PATH_MAX];
	int made_out, made_exec;
	char **files;
	size_t n;
	struct diag *d;
	struct strbuf *notes;
};

/* OUT made, or an empty directory that is not a symbolic link; -1 (d
 * says why) otherwise. */
int mergefile_make_out(struct merge_written *w, const char *out);
/* path is merge's: take_back removes it. 0, or -1 out of memory. */
int mergefile_record(struct merge_written *w, const char *path);
/* OUT/name (exec/x too) replaced with n bytes of s, at most mode. */
int mergefile_write(struct merge_written *w, const char *name, const char *s,
		    size_t n, mode_t mode);
/* Each shard's exec/ files into OUT/exec: regular files only, of at
 * most 1 GiB, never through a link (the rest is left out with a
 * warning); a name two shards share must hold the same bytes. */
int mergefile_copy_exec(struct merge_written *w,
			const struct merge_shard *sh, size_t n);
/* Remove what merge wrote. */
void mergefile_take_back(struct merge_written *w);
void mergefile_free(struct merge_written *w);

#endif
