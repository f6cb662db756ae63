/* manifest: manifest.json — everything needed to reproduce and judge a run. */
#ifndef FSPLAN_MANIFEST_H
#define FSPLAN_MANIFEST_H

#include <jansson.h>

#include "cells/expand.h"

struct manifest {
	json_t *root;
	json_t *configs;	/* one object per config, by index - 1 */
	json_t *cells;		/* one object per selected cell */
	size_t *cell_slot;	/* expansion cell -> index in cells, or -1 */
};

/*
 * Build the manifest of a run: fsplan version, the plan (path, sha256,
 * text), parameters after -D, seed, the command line, the configs and
 * the selected cells (status "pending"), phase modules with sha256s
 * and each phase's "key" (the metrics report shows; e->keys).
 * sysinfo and target are taken over (may be NULL).
 */
struct manifest *manifest_new(const struct expansion *e, const char *run_id,
			      int argc, char **argv, json_t *sysinfo,
			      json_t *target);
void manifest_free(struct manifest *m);

/* Set a key of the run, a config (0-based), a phase (plan order) or a
 * cell (expansion index, 0-based); the value is taken over. */
void manifest_set(struct manifest *m, const char *key, json_t *v);
void manifest_conf(struct manifest *m, int conf, const char *key, json_t *v);
/* A config's figure of round (order: rounds, from 1): in its "rounds"
 * array, one object a round, as each round makes the config anew. */
void manifest_conf_round(struct manifest *m, int conf, int round,
			 const char *key, json_t *v);
void manifest_phase(struct manifest *m, int phase, const char *key,
		    json_t *v);
void manifest_cell(struct manifest *m, size_t cell, const char *status,
		   const char *reason);

/* Write dir/manifest.json atomically: temp file, fsync, rename, fsync of
 * the directory. 0 or -errno. */
int manifest_write(struct manifest *m, const char *dir);

/* The plan sha256 recorded in an existing dir/manifest.json, for
 * --resume; 0 or -1. */
int manifest_read_plan_sha(const char *dir, char sha[65]);

/*
 * --resume: carry over what dir/manifest.json says of the earlier runs —
 * the first start time, "runs" (each run's started, ended, status; this
 * one appended, its end and status mirrored from the run's as they are
 * set), the status of every cell that finished then, and "device_fs"
 * (what the run last made on its target.device). 0, or -1 when
 * there is no readable manifest (nothing changes).
 */
int manifest_resume(struct manifest *m, const char *dir);

/*
 * dir/manifest.json read for report, compare, merge and --resume: a
 * regular file of at most 256 MiB (never a FIFO, a device or a file
 * without end), or NULL with err's text (unless err is NULL) saying why.
 */
json_t *manifest_load(const char *dir, json_error_t *err);

/* A copy of what an existing dir/manifest.json holds at key, or NULL. */
json_t *manifest_read_key(const char *dir, const char *key);

/* Local time now as ISO 8601 with offset. */
json_t *manifest_now(void);

#endif
