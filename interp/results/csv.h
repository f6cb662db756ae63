/* csv: results.csv — tidy rows, RFC 4180, appended and synced per phase run. */
#ifndef FSPLAN_CSV_H
#define FSPLAN_CSV_H

#include <stdio.h>

#include "util/diag.h"

#define CSV_HEADER "run_id,cell,fs_label,fs_type,mkfs_opts,mount_opts," \
		   "phase,phase_params,rep,metric,value,unit"

/* The columns of CSV_HEADER, in order. */
enum { CSV_RUN_ID, CSV_CELL, CSV_LABEL, CSV_TYPE, CSV_MKFS, CSV_MOUNT,
       CSV_PHASE, CSV_PARAMS, CSV_REP, CSV_METRIC, CSV_VALUE, CSV_UNIT,
       CSV_FIELDS };

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

/* A CSV file of the run directory: its name (in messages), its header
 * line, and how many fields a row has. results.csv's is csv_results;
 * timeseries.csv's is seriescsv.c's. */
struct csv_kind {
	const char *name;
	const char *header;
	int fields;
};
#define CSV_MAX_FIELDS 16
extern const struct csv_kind csv_results;

/*
 * Open path of kind k for appending, as every file fsplan appends rows to
 * in a run directory: never through a symbolic link, O_APPEND, created
 * 0644 with the header line (synced, with its directory) when new or
 * empty; an existing file must start with the header, and a torn last
 * row, a crash's, is cut off. The fd into *fd: 0, or -1 with d.
 */
int csv_open_file(const struct csv_kind *k, const char *path, int *fd,
		  struct diag *d);

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
/*
 * A value as results.csv writes a module's figure: an integer as one
 * (12345, not 1.2345e+04) up to 2^53, where doubles stop holding every
 * integer; anything else in the shortest form that reads back to the
 * same double (%.15g, %.16g or %.17g). len of 32 is room for any.
 */
void csv_number(char *buf, size_t len, double v);
/* Whether a spreadsheet would take text for a formula: it begins with
 * = + - @ tab or CR (OWASP's CSV injection). */
int csv_formula(const char *text);
/* fdatasync: called after the rows of each phase run. 0 or -errno. */
int csv_sync(struct csv *c);
void csv_close(struct csv *c);

/*
 * Read a file of kind k back: the header checked, blank lines skipped,
 * and fn(ctx, f, line) called for every row with its k->fields fields
 * unquoted and the line it starts on, or with f NULL for a row of
 * another number of fields; fn returns 0 to go on, or -1 with d filled
 * to stop. A torn last row (no newline: a crash mid-write) is skipped
 * and said in torn; empty says the file had nothing at all, missing that
 * there is no such file (then no row and 0). Returns 0, or -1 with d
 * filled if the file is unreadable or not of kind k, or fn stopped.
 */
struct csv_read {
	int torn;
	int empty;
	int missing;
	size_t nf;	/* the fields of the row fn was just given NULL for */
};
int csv_read_file(const struct csv_kind *k, const char *path,
		  int (*fn)(void *ctx, const char *const *f, int line),
		  void *ctx, struct csv_read *info, struct diag *d);
/* csv_read_file of a results.csv, where a missing file or a row of
 * another number of fields is an error (info may be NULL). */
int csv_read_rows(const char *path,
		  int (*fn)(void *ctx, const char *const *f, int line),
		  void *ctx, struct csv_read *info, struct diag *d);

/*
 * For --resume: call fn(ctx, cell, status) for every `status` row of an
 * existing results.csv (csv_read_rows; an empty file has none).
 */
int csv_read_status(const char *path,
		    void (*fn)(void *ctx, const char *cell, const char *status),
		    void *ctx, struct diag *d);

/* RFC 4180 field quoting into buf (for other writers). */
void csv_quote(const char *s, char *buf, size_t len);
/* The same field, whole, onto f (NULL is empty). 0, or -1 (ENOMEM, I/O). */
int csv_fput(FILE *f, const char *s);

#endif
