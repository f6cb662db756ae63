/* report: `fsplan report` — a run directory as the classic studies' tables. */
#include <errno.h>
#include <fnmatch.h>
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/agetable.h"
#include "report/audit.h"
#include "report/configs.h"
#include "report/effects.h"
#include "report/html.h"
#include "report/htmlpage.h"
#include "report/manifestread.h"
#include "report/outfmt.h"
#include "report/overtime.h"
#include "report/pivot.h"
#include "report/rank.h"
#include "report/report.h"
#include "report/study.h"
#include "report/view.h"
#include "report/where.h"
#include "results/manifest.h"
#include "results/csv.h"
#include "results/results.h"
#include "util/diag.h"
#include "util/exitcode.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))


/* ---- text --------------------------------------------------------------- */

/* The machine, as "kernel; distribution; cpu, N cores". A fact the
 * shards of a merge do not share (the top-level system keeps only what
 * every host shares) is "?", and a line per host then says it. */
static void machine_line(FILE *f, json_t *o)
{
	fprintf(f, "%s; %s; %s, %lld cores\n",
		manifestread_str(o, "system.kernel", "?"),
		manifestread_str(o, "system.distribution", "?"),
		manifestread_str(o, "system.cpu_model", "?"),
		(long long)json_integer_value(json_object_get(
			json_object_get(o, "system"), "cores")));
}

static void system_lines(FILE *f, json_t *m)
{
	json_t *merged = json_object_get(m, "merged"), *sh;
	size_t i;

	if (!json_array_size(merged) ||
	    (json_object_get(json_object_get(m, "system"), "cores") &&
	     manifestread_str(m, "system.cpu_model", NULL))) {
		fputs("system: ", f);
		machine_line(f, m);
		return;
	}
	fprintf(f, "system: %s; %s; the hosts differ:\n",
		manifestread_str(m, "system.kernel", "?"),
		manifestread_str(m, "system.distribution", "?"));
	json_array_foreach(merged, i, sh) {
		fprintf(f, "  host %s: ", manifestread_str(sh, "host", "?"));
		machine_line(f, sh);
	}
}

/* A merged run: how many shards it joins, from how many hosts. */
static void merged_line(FILE *f, json_t *m)
{
	json_t *merged = json_object_get(m, "merged"), *sh, *o;
	size_t i, hosts = 0;
	struct strbuf names = { 0 };

	if (!json_array_size(merged))
		return;
	json_array_foreach(merged, i, sh) {
		const char *h = manifestread_str(sh, "host", "?");
		size_t j;

		json_array_foreach(merged, j, o)
			if (j >= i || !strcmp(manifestread_str(o, "host",
							       "?"), h))
				break;
		if (j < i)
			continue;	/* a host named before */
		strbuf_printf(&names, "%s%s", hosts++ ? ", " : "", h);
	}
	fprintf(f, "merged: %zu shard%s from %zu host%s (%s)\n",
		json_array_size(merged), json_array_size(merged) == 1 ? "" :
		"s", hosts, hosts == 1 ? "" : "s", names.p ? names.p : "");
	free(names.p);
}

/* Who ran what where, from manifest.json (m) when there is one. */
static void text_header(FILE *f, const char *rundir, const struct results *r,
			json_t *m)
{
	struct strbuf target = { 0 };

	fprintf(f, "fsplan report: %s\n", rundir);
	if (!m) {
		fprintf(f, "run %s (no readable manifest.json)\n",
			r->run_id ? r->run_id : "?");
		return;
	}
	/* a run of no rows yet (an empty shard) has its id in the manifest */
	fprintf(f, "run %s: plan %s (%s), %s", r->run_id ? r->run_id :
		manifestread_str(m, "run_id", "?"),
		manifestread_str(m, "plan.name", "?"),
		manifestread_str(m, "plan.path", "?"), manifestread_str(m, "status", "?"));
	/* a merge whose shards lack cells of the plan */
	if (!strcmp(manifestread_str(m, "status", ""), "partial"))
		fprintf(f, " (%zu of the plan's %lld cells)",
			json_array_size(json_object_get(m, "cells")),
			(long long)json_integer_value(json_object_get(m,
							"cells_in_plan")));
	fprintf(f, ", started %s, ended %s\n", manifestread_str(m, "started", "?"),
		manifestread_str(m, "ended", "-"));
	system_lines(f, m);
	merged_line(f, m);
	manifestread_target(m, &target);
	if (target.len)
		fprintf(f, "target: %s\n", target.p);
	free(target.p);
	if (!strcmp(manifestread_str(m, "order", ""), "rounds"))
		fputs("order: rounds (repetition k of every config in round k, "
		      "each made anew, the configs rotating)\n", f);
}

/*
 * The key metrics' tables, but for what the tiobench (tio) and bonnie++
 * (bon) tables already showed; without a key, those tables alone or the
 * fallback.
 */
static int key_tables(FILE *f, const struct res_run *const *runs, size_t n,
		      const char *phase, const struct pick *pick,
		      unsigned shown)
{
	const char *buf[VIEW_MAX_KEY + 1];
	const char *const *globs;
	char *missing = view_unreported(pick, runs, n, phase, shown);
	int fallback;

	globs = view_tables(pick, runs, n, phase, shown, buf, &fallback);
	if (missing)
		fprintf(f, "\n%s\n", missing);
	free(missing);
	if (fallback)
		fputs("\n(no run reported its key metrics: its seconds, _mbs "
		      "and _iops figures instead)\n", f);
	return *globs ? rank_tables(f, runs, n, globs) : 0;
}

/* Phase runs the rest of the machine disturbed (view_disturbed). */
static void noisy_runs(FILE *f, const struct res_run *const *runs, size_t n)
{
	char *line = view_disturbed(runs, n);

	if (line)
		fprintf(f, "\n! %s\n", line);
	free(line);
}

static int text_phase(FILE *f, const struct results *r, const char *phase,
		      const struct pick *pick)
{
	size_t n, count[4], all;
	const struct res_run **runs = view_ok_runs(r, phase, &n, count);
	struct table_src in = { runs, n, phase, r, pick->phases };
	int rc = -1, shown;

	if (!runs)
		return -1;
	all = count[0] + count[1] + count[2] + count[3];
	if (*phase)
		fprintf(f, "\n== phase %s: %zu of %zu phase runs ok ==\n",
			phase, n, all);
	else
		fputs("\n== filesystem configs: mkfs, mount, umount ==\n", f);
	if (!n) {
		fputs("\nno phase run of it succeeded (see the end)\n", f);
		rc = 0;
		goto out;
	}
	if ((shown = study_text(f, &in, 0)) < 0)
		goto out;
	rc = key_tables(f, runs, n, phase, pick, (unsigned)shown);
	if (!rc && *phase && pick->series)
		rc = overtime_text(f, pick->series, runs, n);
	if (!rc && *phase)
		noisy_runs(f, runs, n);
out:
	free(runs);
	return rc;
}

/* Every filesystem config of the run, with its own metrics. */
static int text_configs(FILE *f, const struct results *r, json_t *m)
{
	const struct res_run **runs = view_all_runs(r);
	int rc, fewest, rounds = view_config_rounds(r, &fewest);

	if (!runs)
		return -1;
	if (rounds > 1 && fewest < rounds)
		fprintf(f, "\n== filesystem configs (made once a round: "
			"means over each config's rounds, up to %d) ==\n",
			rounds);
	else if (rounds > 1)
		fprintf(f, "\n== filesystem configs (made once a round: "
			"means over %d rounds) ==\n", rounds);
	else
		fputs("\n== filesystem configs ==\n", f);
	rc = configs_text(f, runs, r->n_runs, json_object_get(m, "configs"));
	if (!rc)
		rc = agetable_text(f, r, json_object_get(m, "configs"));
	free(runs);
	return rc;
}

/* Runs that did not count, by status, config, phase and reason; the
 * cells of manifest m that did not run. */
static int text_footer(FILE *f, const struct results *r, json_t *m,
		       const struct overtime *series)
{
	size_t count[4], ng, ended, idle = view_not_run(r, m, &ended);
	struct view_group *group = view_not_ok(r, &ng, count);
	char note[1024];
	int wl = 0, wp = 0;

	if (!group)
		return -1;
	fprintf(f, "\n== phase runs: %zu ok, %zu failed, %zu skipped",
		count[RES_OK], count[RES_FAILED], count[RES_SKIPPED]);
	if (count[RES_NONE])
		fprintf(f, ", %zu incomplete", count[RES_NONE]);
	if (idle)
		fprintf(f, ", %zu not run", idle);
	if (ended)
		fprintf(f, ", %zu not needed (stop rules met)", ended);
	fputs(" ==\n", f);
	for (size_t g = 0; g < ng; g++) {
		wl = MAX(wl, (int)strlen(r->runs[group[g].first].fs_label));
		wp = MAX(wp, group[g].several ? 5 :
			 (int)strlen(r->runs[group[g].first].phase));
	}
	for (size_t g = 0; g < ng; g++) {
		const struct res_run *y = &r->runs[group[g].first];
		size_t k = group[g].times;

		fprintf(f, "%-10s  %-*s  %-*s  %3zu run%s  %s\n",
			view_status[y->status], wl, y->fs_label, wp,
			group[g].several ? "(all)" : y->phase, k,
			k == 1 ? " " : "s", view_reason(y));
	}
	if (r->n_torn)
		fputs("(the last row of results.csv was cut short and is "
		      "left out)\n", f);
	if (results_left_out_note(r, note, sizeof(note)))
		fprintf(f, "(results.csv: %s)\n", note);
	if (series && series->note.len)
		fprintf(f, "(%s)\n", series->note.p);
	free(group);
	return 0;
}

static int write_text(FILE *f, const char *rundir, const struct results *r,
		      struct pick *pick)
{
	const char **names = view_phases(r);
	struct table_src in = { 0 };
	struct audit audit;
	json_t *m;
	int configs = 0, rc = -1;

	if (!names)
		return -1;
	m = manifest_load(rundir, NULL);
	pick->phases = json_object_get(m, "phases");
	pick->all = r;
	text_header(f, rundir, r, m);
	audit_run(r, m, &audit);
	audit_text(f, &audit);
	if (pick->view == VIEW_KEY)
		fputs("(each phase's key metrics: --metric GLOB for others, "
		      "--all for every one)\n", f);
	if (!r->n_runs)
		fputs("\nresults.csv has no rows yet\n", f);
	else if (text_configs(f, r, m))
		goto out;
	for (size_t i = 0; i < r->n_runs; i++)
		configs |= !*r->runs[i].phase;
	for (size_t i = 0; names[i]; i++)
		if (text_phase(f, r, names[i], pick))
			goto out;
	if (configs && pick->view != VIEW_KEY && text_phase(f, r, "", pick))
		goto out;
	if (effects_report(f, r, m, rundir, pick->view == VIEW_METRIC ?
			   pick->only : NULL, 0))
		goto out;
	in.r = r;
	in.phases = pick->phases;
	rc = study_text(f, &in, 1) < 0 ? -1 : text_footer(f, r, m, pick->series);
out:
	pick->phases = NULL;
	pick->all = NULL;
	json_decref(m);
	free(names);
	return rc;
}

/* ---- wide CSV ----------------------------------------------------------- */

/* One field of the wide CSV, quoted as results.csv quotes. */
static int csv_field(FILE *f, const char *s, int last)
{
	if (csv_fput(f, s))
		return -1;
	return fputc(last ? '\n' : ',', f) == EOF ? -1 : 0;
}

static int write_csv(FILE *f, const struct results *r)
{
	static const char *const fixed[] = { "cell", "rep", "fs_label",
		"fs_type", "mkfs_opts", "mount_opts", "phase", "phase_params",
		"status", "reason" };
	const struct res_run **runs = view_all_runs(r);
	const char **names = NULL;
	size_t n_names = 0;
	int rc = 0;

	if (!runs)
		return -1;
	names = rank_metric_names(runs, r->n_runs, 0, &n_names);
	free(runs);
	if (!names)
		return -1;
	for (size_t k = 0; k < 10; k++)
		rc |= csv_field(f, fixed[k], k == 9 && !n_names);
	for (size_t k = 0; k < n_names; k++)
		rc |= csv_field(f, names[k], k + 1 == n_names);
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct res_run *x = &r->runs[i];
		const char *v[10];
		char rep[16];

		snprintf(rep, sizeof(rep), "%d", x->rep);
		v[0] = x->cell;
		v[1] = rep;
		v[2] = x->fs_label;
		v[3] = x->fs_type;
		v[4] = x->mkfs_opts;
		v[5] = x->mount_opts;
		v[6] = x->phase;
		v[7] = x->params;
		v[8] = *x->phase || x->status != RES_OK ?
		       view_status[x->status] : "";
		v[9] = x->reason ? x->reason : "";
		for (size_t k = 0; k < 10; k++)
			rc |= csv_field(f, v[k], k == 9 && !n_names);
		for (size_t k = 0; k < n_names; k++) {
			const struct res_metric *m;

			m = results_metric(x, names[k]);
			rc |= csv_field(f, m ? m->value : "",
					k + 1 == n_names);
		}
	}
	free(names);
	return rc;
}

/* ---- the command ------------------------------------------------------- */

/*
 * Whether some --metric glob matches no metric of r (a typo would
 * otherwise print the default tables, as if no --metric were given):
 * the message, with the nearest name, in msg.
 */
static int unmatched(const struct results *r, const struct opt_list *globs,
		     struct diag *d)
{
	const struct res_run **runs = view_all_runs(r);
	const char **names = NULL, *hint;
	size_t n = 0;
	int bad = 0;

	if (runs)
		names = rank_metric_names(runs, r->n_runs, 0, &n);
	free(runs);
	if (!names) {
		diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
		return 1;
	}
	for (int g = 0; g < globs->n && !bad; g++) {
		size_t i;

		for (i = 0; i < n && fnmatch(globs->v[g], names[i], 0); i++)
			;
		if (i < n)
			continue;
		bad = 1;
		hint = diag_suggest(globs->v[g], names, n);
		diag_fail(d, DIAG_INPUT, 0, "--metric '%s' matches no metric "
			  "of the run%s%s%s", globs->v[g], hint ?
			  " (did you mean '" : "", hint ? hint : "",
			  hint ? "'?)" : "");
	}
	free(names);
	return bad;
}

/* --by: a pivot table per phase, as text (under the header), csv or
 * a page. */
static int write_by(FILE *f, const struct report_opts *o,
		    const struct results *r)
{
	json_t *m = manifest_load(o->rundir, NULL);
	struct tables ts = { 0 };
	int rc = pivot_tables(r, m, o->by, o->fmt == FMT_CSV, &ts) ||
		 tables_failed(&ts);

	if (!rc && o->fmt == FMT_TEXT)
		text_header(f, o->rundir, r, m);
	if (!rc && o->fmt == FMT_HTML)
		html_begin(f, "fsplan report");
	if (!rc && !ts.n && o->fmt == FMT_TEXT)
		fprintf(f, "\nno phase's key metric has runs with %s\n", o->by);
	for (size_t i = 0; !rc && i < ts.n; i++) {
		const struct table *t = ts.t[i];

		if (o->fmt == FMT_CSV) {
			rc = (i && fputc('\n', f) == EOF) || table_csv(f, t);
			continue;
		}
		if (o->fmt == FMT_TEXT) {
			fprintf(f, "\n== %s ==\n", t->sect[0].title);
			table_text(f, t);
		} else {
			table_html(f, t);
		}
	}
	if (!rc && o->fmt == FMT_HTML)
		html_end(f);
	tables_free(&ts);
	json_decref(m);
	return rc ? -1 : 0;
}

/* --audit: the audit alone; *o->audit_failed set when a check fails. */
static int write_audit(FILE *f, const struct report_opts *o,
		       const struct results *r)
{
	json_t *m = manifest_load(o->rundir, NULL);
	struct audit a;

	audit_run(r, m, &a);
	fprintf(f, "fsplan audit: %s\n", o->rundir);
	audit_text(f, &a);
	if (a.worst == AUDIT_FAIL && o->audit_failed)
		*o->audit_failed = 1;
	json_decref(m);
	return 0;
}

/* The page or text or CSV of r as o asks, to f. 0, or -1 out of memory. */
static int write_as(FILE *f, const struct report_opts *o,
		    const struct results *r, const struct overtime *series)
{
	struct pick pick = { VIEW_KEY, o->metric.v, NULL, NULL, series };

	pick.view = o->all ? VIEW_ALL : o->metric.n ? VIEW_METRIC : VIEW_KEY;
	if (o->audit)
		return write_audit(f, o, r);
	if (o->by)
		return write_by(f, o, r);
	return o->fmt == FMT_CSV ? write_csv(f, r) :
	       o->fmt == FMT_HTML ? htmlpage_write(f, o->rundir, r, &pick) :
	       write_text(f, o->rundir, r, &pick);
}

/* A line more in d's detail. */
static void report_detail(struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report_detail(struct diag *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vprintf(&d->detail, fmt, ap);
	va_end(ap);
}

/* Written to f and put in place, or d says why. */
static int put(const struct report_opts *o, const struct results *r,
	       const struct overtime *series, struct diag *d)
{
	const char *out = o->out;
	struct outfile of;
	FILE *f = outfmt_open(&of, out);
	int rc, bad;

	if (!f)
		return diag_fail(d, DIAG_SYSTEM, errno, "cannot write %s",
				 out);
	rc = write_as(f, o, r, series);
	bad = ferror(f);
	if (rc && !bad)
		diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	if (outfmt_close(&of, !rc && !bad) || bad) {
		int err = errno;

		out = out ? out : "standard output";
		if (rc && !bad)		/* both said, as they happened */
			report_detail(d, "fsplan report: cannot write %s: %s\n",
				      out, strerror(err));
		else
			diag_fail(d, DIAG_SYSTEM, err, "cannot write %s", out);
		rc = -1;
	}
	return rc ? -1 : 0;
}

/* --where's runs of r, and a --by that names a coordinate. */
static int coords(const struct report_opts *o, struct results *r,
		  struct diag *d)
{
	json_t *m = manifest_load(o->rundir, NULL);
	int rc = o->where.n ? where_apply(r, m, &o->where, d) : 0;

	if (!rc && o->by)
		rc = where_known(r, m, o->by, "--by", d);
	json_decref(m);
	return rc;
}

int report_run(const struct report_opts *o, struct strbuf *notes,
	       struct diag *d)
{
	struct results r;
	struct overtime series;
	struct diag ld = { 0 };
	char path[4096], msg[1024];
	int rc = -1;

	if ((size_t)snprintf(path, sizeof(path), "%s/results.csv",
			     o->rundir) >= sizeof(path))
		return diag_fail(d, DIAG_INPUT, ENAMETOOLONG, "RUNDIR of %zu "
				 "bytes", strlen(o->rundir));
	if (results_load(&r, path, &ld)) {
		diag_format(&ld, msg, sizeof(msg));
		diag_release(&ld);
		diag_fail(d, DIAG_INPUT, 0, "%s", msg);
		diag_detail(d, "(RUNDIR is a directory that 'fsplan run' "
			    "wrote)\n");
		return -1;
	}
	if (results_left_out_note(&r, msg, sizeof(msg)))
		strbuf_printf(notes, "%s: %s\n", path, msg);
	if (o->metric.n && unmatched(&r, &o->metric, d))
		goto out;
	if ((o->where.n || o->by) && coords(o, &r, d))
		goto out;
	if (o->out && outfmt_clobbers(o->out, o->rundir)) {
		diag_fail(d, DIAG_INPUT, 0, "-o %s would overwrite the run's "
			  "own record", o->out);
		goto out;
	}
	if (overtime_load(&series, o->rundir, &r)) {
		diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
		goto out;
	}
	/* the series of the runs --where left out are not a loss to say */
	if (o->where.n && series.note.len)
		series.note.p[series.note.len = 0] = '\0';
	if (series.note.len)
		strbuf_printf(notes, "%s\n", series.note.p);
	rc = put(o, &r, &series, d);
	overtime_free(&series);
out:
	results_free(&r);
	return rc;
}
