/* age: the aging workload of DESIGN.md section 10, seeded, run as runas. */
#ifndef FSPLAN_AGE_H
#define FSPLAN_AGE_H

#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

/* A bucket of file sizes: (the previous bucket's upto, upto] bytes,
 * log-uniform within; weight relative to the others' (by file count). */
struct age_size {
	uint64_t upto;
	double weight;
};

/*
 * The default distribution, by file count, after Agrawal, Bolosky,
 * Douceur and Lorch, "A Five-Year Study of File-System Metadata" (FAST
 * 2007): most files are small (median about 4 KiB), most bytes are in
 * large ones. n_out gets its bucket count.
 */
const struct age_size *age_default_sizes(int *n_out);

/*
 * A size from sizes (n buckets): w (in [0, 1)) picks the bucket by
 * weight, u (in [0, 1)) the size within it, log-uniform and whole, at
 * least 1. What age_run draws with its seeded generator.
 */
uint64_t age_size_pick(const struct age_size *sizes, int n, double w,
		       double u);

struct age_spec {
	double fill;		/* the share of the filesystem's size to
				 * fill with file data, 0.01 to 0.95 */
	double churn;		/* rewrite churn x the filled bytes; 0: no
				 * churn */
	uint64_t seed;
	const struct age_size *sizes;	/* NULL: age_default_sizes */
	int n_sizes;
	int dirs;		/* 0: one per 32 files the fill makes */
};

struct age_done {
	uint64_t files;		/* files at the end */
	uint64_t dirs;
	uint64_t bytes_written;	/* every byte written: fill and churn */
	uint64_t fill_bytes;	/* the file bytes the fill wrote */
	uint64_t ops;		/* creates, deletes and appends */
	double seconds;
	int rounds;		/* churn rounds */
	int full;		/* ENOSPC met (and the file cut short) */
	/* sha256 of the operation list (each op, path and size, in order):
	 * the same seed, spec and filesystem size give the same list */
	char trace_sha256[65];
};

/*
 * Age the filesystem of dir (a directory on it that this process owns,
 * empty): the fill, then the churn rounds, each round deleting a random
 * share of the files and writing as many bytes again, part as new
 * files, part appended to files that stay; then syncfs. The operations
 * depend only on spec and the filesystem's size (statvfs of dir), never
 * on timing. Runs in the calling process: the run calls it in a child
 * that holds no privileges. 0, or -1 with d (ENOSPC is not a failure:
 * the file is cut short and done->full set).
 */
int age_run(const char *dir, const struct age_spec *spec,
	    struct age_done *done, struct diag *d);

#endif
