/* csv: results.csv — tidy rows, RFC 4180, appended and synced per phase run. */
#ifndef FSPLAN_CSV_H
#define FSPLAN_CSV_H

#include "diag.h"

#define CSV_HEADER "run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts," \
		   "phase,phase_params,rep,metric,value,unit"

/* What every row of one phase run repeats. */
struct csv_key {
	const char *run_id;
	const char *cell;	/* the cell id */
	const char *fs_label;
	const char *fs_type;
	const char *mkfs_opts;
	const char *mount_opts;
	const char *phase;
	const char *phase_params;	/* "k=v;k=v" */
	int rep;
};

struct csv;

/*
 * Open path for appending (O_APPEND, created 0644 with the header line if
 * new or empty; an existing file must start with the header). Returns 0
 * or -1 with d filled.
 */
int csv_open(struct csv **out, const char *path, struct diag *d);
/* One row, quoted as RFC 4180 requires, in one write(). 0 or -errno. */
int csv_row(struct csv *c, const struct csv_key *k, const char *metric,
	    const char *value, const char *unit);
/* fdatasync: called after the rows of each phase run. 0 or -errno. */
int csv_sync(struct csv *c);
void csv_close(struct csv *c);

/*
 * For --resume: call fn(ctx, cell, status) for every `status` row in an
 * existing results.csv (fields unquoted). A torn last line (no newline)
 * is ignored. Returns 0, or -1 with d filled if the file is unreadable
 * or not a results.csv.
 */
int csv_read_status(const char *path,
		    void (*fn)(void *ctx, const char *cell, const char *status),
		    void *ctx, struct diag *d);

/* RFC 4180 field quoting into buf (for other writers). */
void csv_quote(const char *s, char *buf, size_t len);

#endif
