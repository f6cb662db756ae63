/* results: results.csv read back (RFC 4180), its rows grouped by phase run. */
#ifndef FSPLAN_RESULTS_H
#define FSPLAN_RESULTS_H

#include <stddef.h>

#include "util/diag.h"
#include "util/strhash.h"

enum res_status { RES_NONE, RES_OK, RES_FAILED, RES_SKIPPED };

/* A phase run's status as results.csv's status row writes it: "ok",
 * "failed", "skipped" ("" for RES_NONE). */
const char *results_status_name(enum res_status s);
/* The status a status row's value names; RES_NONE for any other word. */
enum res_status results_status_parse(const char *word);

struct res_metric {
	char *name;
	char *value;		/* as written */
	char *unit;
	double v;
	int numeric;		/* value parsed whole as a finite number */
};

/*
 * One phase run (cell id with "#rep"), or one filesystem config's own
 * rows (mkfs_s, mount_s, umount_s: phase "", no status row; counted ok).
 */
struct res_run {
	char *cell;
	char *base;		/* the cell id without "#rep" */
	char *fs_label, *fs_type, *mkfs_opts, *mount_opts;
	char *phase;		/* "" for a config's own rows */
	char *params;		/* "k=v;k=v" */
	int rep;
	enum res_status status;
	char *reason;		/* the status row's unit, when not ok */
	struct res_metric *m;
	size_t n_m, cap_m;
	struct strhash m_index;	/* of the metrics' names */
};

struct results {
	char *run_id;		/* of the first row; NULL if none */
	struct res_run *runs;	/* in order of first appearance */
	size_t n_runs, cap_runs;
	struct strhash index;	/* of the runs' cell ids */
	size_t n_torn;		/* rows cut short at the end (a crash) */
	size_t n_left_out;	/* values that are not numbers: not read */
	char *left_out;		/* the first few, "line L (cell, metric:
				 * 'value')", or NULL */
};

/*
 * Read path (RFC 4180: quoted fields, "" escapes, CRLF or LF). The
 * header must be results.csv's. Rows of one cell id form one phase run
 * (or a config's own rows). One current value per key: of the rows of
 * one cell id (cell, phase, rep) and metric, the last in the file is
 * current and the earlier are superseded — a phase run or a config
 * made again by --resume, whatever rows it did not write again stay as
 * they were. A value that is not a finite decimal number (units_decimal)
 * is left out and counted in n_left_out, except the text metrics
 * (status, ram_limit, loop_io, stop_reason). Returns 0, or -1 with d
 * filled.
 */
int results_load(struct results *r, const char *path, struct diag *d);
/* Keep the runs i of r with keep[i] set (in order), free the others.
 * 0, or -1 out of memory (r then has no index: free it). */
int results_keep(struct results *r, const char *keep);

void results_free(struct results *r);

/* The value a resume writes for a figure a killed run lost (a config's
 * umount_s, the rows of a phase run cut short): current, but no number. */
#define RESULTS_LOST "NA"

/* "N rows left out (not a finite decimal number): line L (cell, metric:
 * 'value'), ..." and "N values lost (NA ...)" into buf, for report,
 * compare and merge to say; 0 when there is neither, else 1. */
int results_left_out_note(const struct results *r, char *buf, size_t len);

/* The metric named name of run, or NULL. */
const struct res_metric *results_metric(const struct res_run *run,
					const char *name);
/* The numeric value of name in *v: 1 found, 0 absent or not a number. */
int results_value(const struct res_run *run, const char *name, double *v);

/*
 * The mean of metric over the runs of phase in config label (only the ok
 * ones, for a phase other than "": the config's own rows), narrowed to
 * the parameters params and to `threads` threads where those are not
 * NULL, in *out; how many runs it took (0: none, *out untouched).
 */
int results_mean(const struct results *r, const char *label,
		 const char *phase, const char *params, const double *threads,
		 const char *metric, double *out);

/* Whether run timed test name too fast to give a value: its name_fast
 * row is nonzero (bonnie++'s "+++++", its test_fast); for T_cpu, T's
 * (bonnie++'s "+++"). */
int results_fast(const struct res_run *run, const char *name);

/* The numeric value of name that counts, or NULL: none when absent, not
 * a number, or too fast to count (results_fast). Report's tables,
 * bonnie++'s blocks and compare all take a sample through this. */
const struct res_metric *results_measured(const struct res_run *run,
					  const char *name);

/*
 * The value of key in a "k=v;k=v" string, copied into buf; NULL if the
 * key is absent.
 */
const char *results_param(const char *params, const char *key, char *buf,
			  size_t len);

/* Sample statistics over repetitions. */
struct res_stats {
	int n;
	double mean;
	double sd;		/* sample standard deviation (n - 1) */
	double ci;		/* 95% half-width: t(0.975, n-1) sd/sqrt(n) */
	double hi, lo;
};

void results_stats(const double *v, int n, struct res_stats *s);
/* Student's t quantile t(0.975, df), df >= 1. */
double results_t975(int df);

#endif
