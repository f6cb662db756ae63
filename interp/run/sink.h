/* sink: where a run's results go — rows, bonnie.csv lines, status rows,
 * manifest.json. */
#ifndef FSPLAN_SINK_H
#define FSPLAN_SINK_H

#include <stddef.h>

#include "host/child.h"
#include "results/bonniecsv.h"
#include "results/csv.h"
#include "results/manifest.h"
#include "results/seriescsv.h"
#include "results/results.h"
#include "plan/types.h"
#include "run/timeline.h"

struct sink {
	struct csv *csv;		/* results.csv, the caller's */
	struct manifest *man;		/* the caller's, written in dir */
	const char *dir;		/* the run directory */
	/* What kept values are allocated with, as realloc (NULL: realloc);
	 * memory it returns is released with free(). A test makes it fail. */
	void *(*grow)(void *p, size_t n);
	struct bonnie_metric *kept;	/* the phase run's values so far */
	size_t n_kept, cap_kept;
	int lost;			/* a value could not be kept */
	double written;			/* the Lua phase's written bytes, or
					 * -1 */
	int bonnie_fd;			/* bonnie.csv, or -1 until used */
	struct seriescsv *series;	/* timeseries.csv, or NULL */
	struct seriescsv *hist;		/* histograms.csv, or NULL */
	int write_errors;		/* writes that are not on disk */
	int first_error;		/* the errno of the first of them */
	double saved_at;		/* when manifest.json was written */
	char refused[256];		/* why the phase run's module sent
					 * what cannot be a row (its reason) */
};

/* /sys/block/<dev>/stat's counters (sectors are 512 bytes). */
struct devstat {
	uint64_t rd_ios, rd_sect, wr_ios, wr_sect, io_ticks;
};

/* What surrounded a phase run (run/measure.h), as the sink writes it: ram_*, memory_peak_bytes, dev_*, and the
 * conditions (load_1m, others_cpu_s). Unknown values are < 0. */
struct measured {
	double ram_mib;
	const char *ram_limit;		/* memcg_kind_name */
	const char *loop_io;		/* direct | buffered: the images'
					 * loop devices; NULL: none */
	double peak_bytes;
	int n_dev;			/* devices with counters */
	const char *dev_vol[PLAN_MAX_VOLUMES];	/* their volume, or NULL */
	struct devstat dev[PLAN_MAX_VOLUMES];	/* after minus before */
	double load_1m;
	double others_cpu_s;		/* the machine's busy CPU time outside
					 * the phase child */
	double others_user_s;		/* its user-mode part: not the kernel
					 * threads doing the phase's I/O */
	double others_cores;		/* that over the child's wall time */
	double steal_s;			/* CPU time the hypervisor took from
					 * this machine (in others_cpu_s) */
	double steal_cores;		/* that over the child's wall time */
};

/* One phase run as it ended, for sink_phase_run. */
struct sink_outcome {
	const struct csv_key *key;
	size_t cell;			/* its index in the expansion */
	const char *label;		/* its config's, for bonnie.csv */
	int lua;			/* res->report is a Lua phase's */
	const struct child_result *res;	/* NULL: it never ran */
	const char *parsed;		/* a parser's P lines, or NULL */
	size_t parsed_len;
	const struct measured *measured;	/* NULL: it never ran */
	double fs_used_bytes;		/* < 0: unknown */
	const char *const *vol_names;	/* target.volumes, n_vol of them */
	const double *vol_used;		/* each one's used bytes, < 0: unknown */
	int n_vol;
	const struct timeline *tl;	/* its series and steady test, or
					 * NULL */
	enum res_status status;		/* the sink may turn ok to failed */
	const char *reason;
	/* A stop rule's (stoprule.h): the metric it watches, and what
	 * decides, given its value (NAN: not reported or not ok), the rows
	 * reps_run and stop_reason (when *reason is set). */
	const char *watch;
	void (*decide)(void *ctx, double v, int *reps_run,
		       const char **reason);
	void *decide_ctx;
};

void sink_init(struct sink *s, struct csv *csv, struct manifest *man,
	       const char *dir);
/* timeseries.csv and histograms.csv in the run directory, opened for
 * appending (made with their headers: a run without series or op
 * histograms has them empty of rows). 0, or -1 with d. */
int sink_open_series(struct sink *s, struct diag *d);
/* The kept values, bonnie.csv's fd, timeseries.csv, histograms.csv;
 * csv and man stay the caller's. */
void sink_free(struct sink *s);

/* A config's own figure (mkfs_s, mount_s, umount_s), in seconds: a row,
 * synced, and the config's entry in the manifest (conf counts from 0). */
void sink_conf_metric(struct sink *s, const struct csv_key *k, int conf,
		      const char *metric, double secs);
/* The same of another unit ("%", "B", "" for a count), written as
 * csv_number writes a value. */
void sink_conf_value(struct sink *s, const struct csv_key *k, int conf,
		     const char *metric, const char *unit, double v);

/*
 * The value of a row that supersedes an earlier row of its key (cell,
 * phase, rep, metric) whose figure is not the current one and has none
 * now: lost to a kill (lostrows.h) or never measured (an umount that
 * failed). pandas and R read it as their NA.
 */
#define SINK_LOST RESULTS_LOST	/* the readers know it (results.h) */

/* A row of value SINK_LOST, synced. */
void sink_lost(struct sink *s, const struct csv_key *k, const char *metric,
	       const char *unit);

/*
 * The end of one phase run: its process figures, the Lua phase's report
 * or the parser's metrics, fs_used_bytes (and fs_used_bytes_NAME per
 * volume), its steady rows and its block of timeseries.csv (o->tl),
 * its bonnie.csv line (when ok and its values ask for one), its status
 * row, synced, and its status in the manifest. A malformed Lua report fails it ("the phase's report was
 * malformed"), and so does a value that could not be kept for the bonnie
 * line ("out of memory keeping metrics"): o->status and o->reason then
 * say so.
 */
void sink_phase_run(struct sink *s, struct sink_outcome *o);

/* Rewrite manifest.json now; or only if the last rewrite is a second old
 * (its size grows with the plan's cells: see sink.c). */
void sink_save(struct sink *s);
void sink_save_soon(struct sink *s);

#endif
