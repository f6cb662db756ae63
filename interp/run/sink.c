/* sink: where a run's results go — rows, bonnie.csv lines, status rows,
 * manifest.json. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "phase/lparse.h"
#include "results/histcsv.h"
#include "results/metrics.h"
#include "run/runlog.h"
#include "run/sink.h"
#include "util/clock.h"
#include "util/strbuf.h"

void sink_init(struct sink *s, struct csv *csv, struct manifest *man,
	       const char *dir)
{
	memset(s, 0, sizeof(*s));
	s->csv = csv;
	s->man = man;
	s->dir = dir;
	s->bonnie_fd = -1;
	s->written = -1;
}

static void forget(struct sink *s)
{
	for (size_t i = 0; i < s->n_kept; i++)
		free((char *)s->kept[i].name);
	s->n_kept = 0;
	s->lost = 0;
}

void sink_free(struct sink *s)
{
	forget(s);
	free(s->kept);
	s->kept = NULL;
	s->cap_kept = 0;
	/* what bonnie.csv holds was synced line by line */
	if (s->bonnie_fd >= 0)
		close(s->bonnie_fd);
	s->bonnie_fd = -1;
	seriescsv_close(s->series);
	s->series = NULL;
	seriescsv_close(s->hist);
	s->hist = NULL;
}

int sink_open_series(struct sink *s, struct diag *d)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/timeseries.csv", s->dir);
	if (seriescsv_open(&s->series, path, d))
		return -1;
	snprintf(path, sizeof(path), "%s/histograms.csv", s->dir);
	return histcsv_open(&s->hist, path, d);
}

/* A row or line that did not reach the disk: logged, and counted so the
 * run's end can say its results are incomplete. */
static void lost_write(struct sink *s, const char *file, int err)
{
	runlog("%s: %s", file, strerror(err));
	if (!s->write_errors++)
		s->first_error = err;
}

/* Keep a phase run's value for its bonnie.csv line. A value that cannot
 * be kept would leave the line short of a field: the run fails instead. */
static void keep(struct sink *s, const char *metric, double v)
{
	void *(*grow)(void *, size_t) = s->grow ? s->grow : realloc;
	struct bonnie_metric *m;
	size_t len = strlen(metric) + 1;
	char *name;

	if (s->n_kept == s->cap_kept) {
		size_t cap = s->cap_kept ? s->cap_kept * 2 : 64;

		m = grow(s->kept, cap * sizeof(*m));
		if (!m) {
			s->lost = 1;
			return;
		}
		s->kept = m;
		s->cap_kept = cap;
	}
	name = grow(NULL, len);
	if (!name) {
		s->lost = 1;
		return;
	}
	memcpy(name, metric, len);
	s->kept[s->n_kept].name = name;
	s->kept[s->n_kept++].value = v;
}

static void put(struct sink *s, const struct csv_key *k, const char *metric,
		const char *unit, const char *fmt, double v)
{
	char val[64];
	int rc;

	/* NULL: a module's value, as it is (csv_number) */
	if (fmt)
		snprintf(val, sizeof(val), fmt, v);	/* %g of a double fits */
	else
		csv_number(val, sizeof(val), v);
	rc = csv_row(s->csv, k, metric, val, unit);
	if (rc)
		lost_write(s, "results.csv", -rc);
}

/* A row of the phase run under way, its value kept. */
static void row(struct sink *s, const struct csv_key *k, const char *metric,
		const char *unit, const char *fmt, double v)
{
	keep(s, metric, v);
	put(s, k, metric, unit, fmt, v);
}

/* A config's figure, kept for no phase run's line: fmt NULL writes it
 * as csv_number does. */
static void conf_row(struct sink *s, const struct csv_key *k, int conf,
		     const char *metric, const char *unit, const char *fmt,
		     double v)
{
	int rc;

	put(s, k, metric, unit, fmt, v);
	rc = csv_sync(s->csv);
	if (rc)
		lost_write(s, "results.csv", -rc);
	if (k->rep)	/* order: rounds: each round's own */
		manifest_conf_round(s->man, conf, k->rep, metric,
				    json_real(v));
	else
		manifest_conf(s->man, conf, metric, json_real(v));
}

void sink_conf_metric(struct sink *s, const struct csv_key *k, int conf,
		      const char *metric, double secs)
{
	conf_row(s, k, conf, metric, "s", "%.6f", secs);
}

void sink_conf_value(struct sink *s, const struct csv_key *k, int conf,
		     const char *metric, const char *unit, double v)
{
	conf_row(s, k, conf, metric, unit, NULL, v);
}

void sink_lost(struct sink *s, const struct csv_key *k, const char *metric,
	       const char *unit)
{
	int rc = csv_row(s->csv, k, metric, SINK_LOST, unit);

	if (!rc)
		rc = csv_sync(s->csv);
	if (rc)
		lost_write(s, "results.csv", -rc);
}

struct sink_target {
	struct sink *s;
	const struct csv_key *k;
};

/*
 * A row a module sent (report(), a parser): the child refuses what must
 * not be one (metrics_refuse), so one arriving here was forged past it —
 * left out, and the first such is the phase run's reason to fail.
 */
static int refused(struct sink *s, const char *what, const char *name,
		   double v, const char *unit)
{
	struct diag d = { 0 };

	if (!metrics_refuse(name, v, unit, &d))
		return 0;
	if (!s->refused[0])
		snprintf(s->refused, sizeof(s->refused), "%s: %.199s", what,
			 d.msg);
	return 1;
}

static void report_row(void *ctx, const char *name, double v,
		       const char *unit)
{
	struct sink_target *rep = ctx;

	if (!refused(rep->s, "report", name, v, unit))
		row(rep->s, rep->k, name, unit, NULL, v);
}

static void parsed_row(void *ctx, const char *name, double v,
		       const char *unit)
{
	struct sink_target *rep = ctx;

	if (!refused(rep->s, "parse", name, v, unit))
		row(rep->s, rep->k, name, unit, NULL, v);
}

/* Whether the ops and counters of m make a row fsplan writes itself: a
 * counter by its name (but the child's own rss_peak_kib), an op by the
 * rows it makes (metrics_op_refuse). */
static int forged(struct sink *s, const struct metrics *m)
{
	struct diag d = { 0 };

	for (int i = 0; i < m->n_counters; i++)
		if (strcmp(m->counters[i].name, METRICS_RSS_PEAK) &&
		    refused(s, "counter", m->counters[i].name, 0, NULL))
			return 1;
	for (int i = 0; i < m->n_ops; i++)
		if (metrics_op_refuse(m->ops[i].name, &d)) {
			if (!s->refused[0])
				snprintf(s->refused, sizeof(s->refused),
					 "%.199s", d.msg);
			return 1;
		}
	return 0;
}

/* Whether kept values [from, to) hold name. */
static int kept_has(const struct sink *s, size_t from, size_t to,
		    const char *name)
{
	for (size_t i = from; i < to; i++)
		if (!strcmp(s->kept[i].name, name))
			return 1;
	return 0;
}

/* A Lua phase run's op histograms, a block of histograms.csv synced
 * before its status row, so the report can draw their distributions. */
static void hist_rows(struct sink *s, const struct csv_key *k,
		      const struct metrics *m)
{
	int rc;

	if (!s->hist)
		return;
	rc = histcsv_block(s->hist, k->run_id, k->cell, m);
	if (!rc)
		rc = seriescsv_sync(s->hist);
	if (rc)
		lost_write(s, "histograms.csv", -rc);
}

/* A Lua phase's report: report()'s values, then the workers' metrics
 * but those report() gave anew (a counter with its unit, say). -1 if
 * it is malformed. */
static int lua_rows(struct sink *s, const struct csv_key *k,
		    const struct child_result *res)
{
	struct metrics m = { 0 };
	struct sink_target rep = { s, k };
	struct metric_row *rows;
	size_t first = s->n_kept, last;
	int n = 0, rc = 0;

	if (metrics_decode(&m, res->report, res->report_len, report_row,
			   &rep)) {
		metrics_free(&m);
		return -1;
	}
	last = s->n_kept;
	row(s, k, "seconds", "s", "%.6f", m.seconds);
	s->written = (double)m.written;
	rows = metrics_rows(&m, NULL, 0, &n);
	if (!rows && errno == ENOMEM)
		s->lost = 1;
	else if (!rows)
		rc = -1;	/* what decoded is not what it can carry */
	if (rows && forged(s, &m))
		n = 0;
	else if (rows)
		hist_rows(s, k, &m);
	for (int i = 0; rows && i < n; i++)
		if (!kept_has(s, first, last, rows[i].name))
			row(s, k, rows[i].name, rows[i].unit, NULL,
			    rows[i].value);
	free(rows);
	metrics_free(&m);
	return rc;
}

/* What the process did: how long, how it ended, its CPU. */
static void process_rows(struct sink *s, const struct csv_key *k, int lua,
			 const struct child_result *res)
{
	double cpu = res->user_s + res->sys_s;

	if (!lua)	/* a Lua phase's seconds are its workers' */
		row(s, k, "seconds", "s", "%.6f", res->seconds);
	if (res->signal)
		row(s, k, "signal", "", "%.0f", res->signal);
	else
		row(s, k, "exit_status", "", "%.0f", res->exit_code);
	row(s, k, "cpu_user_s", "s", "%.6f", res->user_s);
	row(s, k, "cpu_sys_s", "s", "%.6f", res->sys_s);
	row(s, k, "cpu_pct", "%", "%.2f",
	    res->seconds > 0 ? 100 * cpu / res->seconds : 0);
}

/* A text row (ram_limit): kept for no bonnie line. */
static void text_row(struct sink *s, const struct csv_key *k,
		     const char *metric, const char *value)
{
	int rc = csv_row(s->csv, k, metric, value, "");

	if (rc)
		lost_write(s, "results.csv", -rc);
}

/* One device's counters as rows, suffixed _NAME for a volume's. */
static void dev_rows(struct sink *s, const struct csv_key *k,
		     const struct devstat *d, const char *vol, double written)
{
	static const char *const names[] = {
		"dev_read_bytes", "dev_write_bytes", "dev_read_ios",
		"dev_write_ios", "dev_busy_ms", "write_amp",
	};
	static const char *const units[] = {
		"bytes", "bytes", "", "", "ms", "",
	};
	double v[6] = {
		512.0 * d->rd_sect, 512.0 * d->wr_sect, (double)d->rd_ios,
		(double)d->wr_ios, (double)d->io_ticks,
		written > 0 ? 512.0 * d->wr_sect / written : -1,
	};
	char name[128];

	for (int i = 0; i < 6; i++) {
		if (v[i] < 0)
			continue;
		snprintf(name, sizeof(name), "%s%s%s", names[i],
			 vol ? "_" : "", vol ? vol : "");
		row(s, k, name, units[i], i == 5 ? "%.4f" : "%.0f", v[i]);
	}
}

/* What surrounded the phase run (measure.h): its memory limit and
 * peak, its devices (their sum, and each volume's), the machine. */
static void measured_rows(struct sink *s, const struct csv_key *k,
			  const struct measured *ms)
{
	struct devstat sum = { 0 };

	if (ms->ram_mib >= 0)
		row(s, k, "ram_mib", "MiB", "%.0f", ms->ram_mib);
	text_row(s, k, "ram_limit", ms->ram_limit);
	if (ms->loop_io)
		text_row(s, k, "loop_io", ms->loop_io);
	if (ms->peak_bytes >= 0)
		row(s, k, "memory_peak_bytes", "bytes", "%.0f",
		    ms->peak_bytes);
	for (int i = 0; i < ms->n_dev; i++) {
		sum.rd_ios += ms->dev[i].rd_ios;
		sum.rd_sect += ms->dev[i].rd_sect;
		sum.wr_ios += ms->dev[i].wr_ios;
		sum.wr_sect += ms->dev[i].wr_sect;
		sum.io_ticks += ms->dev[i].io_ticks;
	}
	if (ms->n_dev)
		dev_rows(s, k, &sum, NULL, s->written);
	for (int i = 0; ms->n_dev > 1 && i < ms->n_dev; i++)
		if (ms->dev_vol[i])
			dev_rows(s, k, &ms->dev[i], ms->dev_vol[i], -1);
	if (ms->load_1m >= 0)
		row(s, k, "load_1m", "", "%.2f", ms->load_1m);
	if (ms->others_cpu_s >= 0)
		row(s, k, "others_cpu_s", "s", "%.3f", ms->others_cpu_s);
	if (ms->others_user_s >= 0)
		row(s, k, "others_user_cpu_s", "s", "%.3f", ms->others_user_s);
	if (ms->others_cores >= 0)
		row(s, k, "others_cores", "", "%.3f", ms->others_cores);
	if (ms->steal_s >= 0)
		row(s, k, "steal_s", "s", "%.3f", ms->steal_s);
	if (ms->steal_cores >= 0)
		row(s, k, "steal_cores", "", "%.3f", ms->steal_cores);
}

/* A bonnie-style phase run's line in bonnie.csv: one write, synced. Its
 * 50 fields are numbers but the name, the plan's label: the line has
 * room for both. */
static void bonnie_line(struct sink *s, const char *label)
{
	size_t len = (label ? strlen(label) : 0) + 2048;
	char *line = malloc(len), path[PATH_MAX + 16];
	int n = line ? bonniecsv_line(label, s->kept, s->n_kept, line,
				      len - 1) : -1;
	ssize_t w;

	if (!line)
		lost_write(s, "bonnie.csv", ENOMEM);
	if (n < 0)
		goto out;	/* its values ask for no line */
	line[n++] = '\n';
	if (s->bonnie_fd < 0) {
		snprintf(path, sizeof(path), "%s/bonnie.csv", s->dir);
		s->bonnie_fd = open(path, O_WRONLY | O_APPEND | O_CREAT |
				    O_NOFOLLOW | O_CLOEXEC, 0644);
		if (s->bonnie_fd < 0) {
			lost_write(s, "bonnie.csv", errno);
			goto out;
		}
	}
	w = write(s->bonnie_fd, line, n);
	if (w != n)	/* short: the disk is full */
		lost_write(s, "bonnie.csv", w < 0 ? errno : ENOSPC);
	else if (fdatasync(s->bonnie_fd))
		lost_write(s, "bonnie.csv", errno);
out:
	free(line);
}

/* The steady rows of the key series (DESIGN.md section 8) of a phase
 * run that is ok (a failed one's would pass for a result), and its
 * block of timeseries.csv (what the machine did, either way), synced
 * before its status row. */
static void series_rows(struct sink *s, const struct csv_key *k,
			const struct timeline *tl, int ok)
{
	const struct steady_out *o = &tl->o;
	char name[METRICS_METRIC_LEN + 16];
	int rc;

	/* a run too short for one window (two intervals) has no verdict:
	 * "never steady" would be said of a run nobody could judge */
	if (tl->tested && tl->whole && ok) {
		row(s, k, "steady", tl->key, "%.0f", o->steady);
		if (o->steady)
			row(s, k, "steady_at_s", "s", "%.3f", o->at_s);
		row(s, k, "steady_range_pct", "%", "%.2f", o->range_pct);
		row(s, k, "steady_slope_pct", "%", "%.2f", o->slope_pct);
		snprintf(name, sizeof(name), "%s_steady", tl->key);
		row(s, k, name, tl->key_unit, NULL, o->mean);
	}
	if (!s->series || !tl->s.n)
		return;
	rc = seriescsv_block(s->series, k->run_id, k->cell, &tl->s);
	if (!rc)
		rc = seriescsv_sync(s->series);
	if (rc)
		lost_write(s, "timeseries.csv", -rc);
}

/* The stop rule's verdict after this repetition, from its watched value
 * among those kept. */
static void stop_rows(struct sink *s, const struct csv_key *k,
		      const struct sink_outcome *o, int ok)
{
	const char *reason = NULL;
	double v = NAN;
	int reps = 0;

	for (size_t i = 0; ok && o->watch && i < s->n_kept; i++)
		if (!strcmp(s->kept[i].name, o->watch))
			v = s->kept[i].value;
	o->decide(o->decide_ctx, v, &reps, &reason);
	if (!reason)
		return;
	put(s, k, "reps_run", "", "%.0f", reps);
	text_row(s, k, "stop_reason", reason);
}

/*
 * The status row's reason is free text — a module's error message, a
 * tool's complaint — so one a spreadsheet would take for a formula
 * (csv_formula) is written after a quote, as OWASP advises; in b.
 */
static const char *safe_reason(const char *reason, struct strbuf *b)
{
	if (!csv_formula(reason))
		return reason;
	strbuf_str(b, "'");
	strbuf_str(b, reason);
	return b->oom ? "'" : b->p;
}

void sink_phase_run(struct sink *s, struct sink_outcome *o)
{
	const struct csv_key *k = o->key;
	struct strbuf quoted = { 0 };
	int ok = o->status == RES_OK, rc;

	s->refused[0] = '\0';
	if (o->res && o->lua && ok && lua_rows(s, k, o->res)) {
		o->status = RES_FAILED;
		o->reason = "the phase's report was malformed";
	}
	if (o->res)
		process_rows(s, k, o->lua, o->res);
	if (o->measured)
		measured_rows(s, k, o->measured);
	if (o->parsed) {
		struct sink_target rep = { s, k };

		lparse_rows(o->parsed, o->parsed_len, parsed_row, &rep);
	}
	if (s->refused[0] && o->status == RES_OK) {
		o->status = RES_FAILED;
		o->reason = s->refused;
	}
	if (o->fs_used_bytes >= 0)
		row(s, k, "fs_used_bytes", "bytes", "%.0f", o->fs_used_bytes);
	for (int i = 0; i < o->n_vol; i++) {
		char name[128];

		if (o->vol_used[i] < 0)
			continue;
		snprintf(name, sizeof(name), "fs_used_bytes_%s",
			 o->vol_names[i]);
		row(s, k, name, "bytes", "%.0f", o->vol_used[i]);
	}
	if (o->tl)
		series_rows(s, k, o->tl, o->status == RES_OK);
	ok = o->status == RES_OK;
	if (o->decide)
		stop_rows(s, k, o, ok);
	if (ok && s->lost) {
		o->status = RES_FAILED;
		o->reason = "out of memory keeping metrics";
	} else if (ok) {
		bonnie_line(s, o->label);
	}
	forget(s);
	s->written = -1;
	rc = csv_row(s->csv, k, "status", results_status_name(o->status),
		     safe_reason(o->reason ? o->reason : "", &quoted));
	free(quoted.p);
	if (!rc)
		rc = csv_sync(s->csv);
	if (rc)
		lost_write(s, "results.csv", -rc);
	manifest_cell(s->man, o->cell, manifest_state_of(o->status),
		      o->reason);
}

void sink_save(struct sink *s)
{
	int rc = manifest_write(s->man, s->dir);

	if (rc)
		lost_write(s, "manifest.json", -rc);
	s->saved_at = clock_now();
}

/*
 * After a phase run: rewrite the manifest unless the last rewrite is
 * under a second old. Its size grows with the plan's cells, so a rewrite
 * per phase run would cost O(cells) each time and O(cells^2) in all;
 * results.csv, fsync'd after every phase run, stays the record that
 * --resume reads, and the manifest is rewritten at the end of every
 * config, on interruption and at the end.
 */
void sink_save_soon(struct sink *s)
{
	if (clock_now() - s->saved_at >= 1.0)
		sink_save(s);
}
