/* manifest: manifest.json — everything needed to reproduce and judge a run. */
#ifndef FSPLAN_MANIFEST_H
#define FSPLAN_MANIFEST_H

#include <jansson.h>

#include "results/results.h"

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

/* What manifest.json says of the run, a config or a cell ("status"). */
enum manifest_state {
	MANIFEST_PENDING,	/* a cell not yet run */
	MANIFEST_RUNNING,	/* the run, or a config (rounds: until its
				 * last round) */
	MANIFEST_OK,		/* a cell's end, as its status row */
	MANIFEST_FAILED,	/* a cell's, or a config that failed whole */
	MANIFEST_SKIPPED,	/* a cell's, or a config fsplan cannot make */
	MANIFEST_INTERRUPTED,	/* a stop cut it short */
	MANIFEST_DONE,		/* a config whose cells all ended */
	MANIFEST_COMPLETE,	/* the run, at its end */
};
#define MANIFEST_N_STATES (MANIFEST_COMPLETE + 1)

/* The word manifest.json has for s. */
const char *manifest_state_name(enum manifest_state s);
/* A phase run's status (results.h) as the manifest says it. */
enum manifest_state manifest_state_of(enum res_status s);

/* The status of the run, of config conf (0-based) or of a cell (its
 * reason, when not empty, beside it). */
void manifest_run_state(struct manifest *m, enum manifest_state st);
void manifest_conf_state(struct manifest *m, int conf,
			 enum manifest_state st);
void manifest_cell(struct manifest *m, size_t cell, enum manifest_state st,
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
