/* e2e: helpers for end-to-end tests that run the real fsplan as root. */
#ifndef FSPLAN_TEST_E2E_H
#define FSPLAN_TEST_E2E_H

#include <sys/types.h>

/* Skip the test (with the reason) unless root with loop devices. */
void e2e_require_root(void);

/* A fresh private (0700) directory under /tmp for this test, as a
 * user's home would be; removed by e2e_cleanup. */
const char *e2e_tmpdir(void);
void e2e_cleanup(void);

/* Write text to dir/name; returns the path (static buffer, per call). */
char *e2e_write(const char *dir, const char *name, const char *text);

/* Run fsplan with args (NULL-ended); output kept in e2e_out/e2e_err. */
int e2e_fsplan(const char *const *args);
/* Write "fsplan: 1", "name: NAME" and body as dir/plan.yaml and run it
 * into dir/run (its path in rd), quietly; fsplan's exit status. */
int e2e_run_plan(const char *dir, const char *name, const char *body,
		 char *rd, size_t len);
/* fsplan check of a plan of filesystems (YAML flow text) and one phase
 * of module use with {with}, written to the tmpdir: its exit status,
 * stderr in e2e_err. */
int e2e_check_phase(const char *filesystems, const char *use,
		    const char *with);
/* Start fsplan in the background; returns its pid. */
pid_t e2e_fsplan_bg(const char *const *args);
extern char e2e_out[65536], e2e_err[16384];

/* The value of metric for cell in rundir/results.csv, or NULL (static). */
const char *e2e_metric(const char *rundir, const char *cell,
		       const char *metric);
/* The value of metric for cell as a number; a missing row or a value
 * that is not a number fails the test. */
double e2e_num(const char *rundir, const char *cell, const char *metric);
/* How many rows of results.csv have this metric. */
int e2e_count(const char *rundir, const char *metric);
/* The unit column of metric's row for cell, or NULL (static). */
const char *e2e_unit(const char *rundir, const char *cell,
		     const char *metric);
/* The unit column of the status row of cell (the reason), or NULL. */
const char *e2e_reason(const char *rundir, const char *cell);
/* The phase runs that did not end ok, "cell: status reason" a line
 * (static; "" when there are none): what a failed run's -q hid. */
const char *e2e_failed(const char *rundir);

/* Whether anything under prefix is mounted, or a loop device is backed
 * by a file under prefix, or a process has token in its command line. */
int e2e_mounted_under(const char *prefix);
int e2e_loops_under(const char *prefix);
int e2e_processes_with(const char *token);
/* A process with token in its command line, or 0. */
pid_t e2e_process_with(const char *token);

/* How many times needle occurs in hay (overlaps counted). */
int e2e_occurrences(const char *hay, const char *needle);

/* Read a whole file (static buffer); "" if missing. */
const char *e2e_read(const char *path);
/* The whole file, malloc'd and NUL-terminated (its length in *len unless
 * len is NULL); fails the test when it cannot be read. */
char *e2e_slurp(const char *path, size_t *len);

/* The sha256 of a whole file or device, in hex: whether it was
 * written. */
void e2e_digest(const char *path, char hex[65]);

#endif
