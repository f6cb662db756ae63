/* htmlpage: `fsplan report --format html` — a run directory as one self-
 * contained page. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/classic.h"
#include "report/agetable.h"
#include "report/configs.h"
#include "report/effects.h"
#include "report/audit.h"
#include "report/html.h"
#include "report/htmlcdf.h"
#include "report/htmlchart.h"
#include "report/htmlpage.h"
#include "report/htmlscale.h"
#include "report/htmltime.h"
#include "report/htmlused.h"
#include "report/manifestread.h"
#include "results/manifest.h"
#include "report/rank.h"
#include "report/study.h"
#include "util/strbuf.h"

/* ---- the manifest ------------------------------------------------------- */

/* A row: prefix and name (a key of the manifest's), then value. */
static void keyed_fact(FILE *f, const char *prefix, const char *name,
		  const char *value)
{
	fputs("<tr><th>", f);
	html_text(f, prefix);
	html_text(f, name);
	fputs("</th><td>", f);
	html_text(f, value);
	fputs("</td></tr>\n", f);
}

static void fact(FILE *f, const char *name, const char *value)
{
	keyed_fact(f, "", name, value);
}

/* A JSON scalar as text into buf; NULL for anything else. */
static const char *scalar(json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
	else
		return NULL;
	return buf;
}

/* Every scalar of o as a row, its key after prefix. */
static void facts_of(FILE *f, json_t *o, const char *prefix)
{
	const char *key;
	json_t *v;
	char buf[64];

	json_object_foreach(o, key, v) {
		const char *s = scalar(v, buf, sizeof(buf));
		size_t n = strlen(key);
		char human[96];

		/* a size as one reads it: "512 MiB (536870912)" */
		if (s && json_is_integer(v) && n > 6 &&
		    !strcmp(key + n - 6, "_bytes")) {
			html_fmt_bytes(human, 48, (double)json_integer_value(v));
			snprintf(human + strlen(human), 48, " (%s)", s);
			s = human;
		}
		if (s)
			keyed_fact(f, prefix, key, s);
	}
}

/* What the page says of the run and the machine: a row per fact that
 * the manifest has, {name, dotted path}. */
static const char *const run_facts[][2] = {
	{ "plan", "plan.path" }, { "plan sha256", "plan.sha256" },
	{ "description", "plan.description" }, { "status", "status" },
	{ "started", "started" }, { "ended", "ended" },
	{ "fsplan", "fsplan_version" }, { "phases run as", "runas" },
	{ "repeat", "repeat" }, { "order", "order" }, { "seed", "seed" },
	{ NULL, NULL },
};
static const char *const machine_facts[][2] = {
	{ "kernel", "system.kernel" }, { "host", "system.hostname" },
	{ "distribution", "system.distribution" },
	{ "CPU", "system.cpu_model" }, { "cores", "system.cores" },
	{ NULL, NULL },
};

static void facts(FILE *f, json_t *m, const char *const (*list)[2])
{
	char buf[64];

	for (; (*list)[0]; list++) {
		const char *s = scalar(manifestread_get(m, (*list)[1]), buf,
				       sizeof(buf));

		if (s)
			fact(f, (*list)[0], s);
	}
}

static void header(FILE *f, const char *rundir, const struct results *r,
		   json_t *m)
{
	fputs("<h1>fsplan report: ", f);
	html_text(f, manifestread_str(m, "plan.name", rundir));
	fputs("</h1>\n<table>\n", f);
	fact(f, "run directory", rundir);
	fact(f, "run", r->run_id ? r->run_id : "?");
	if (!m) {
		fputs("</table>\n<p class=\"note\">no readable manifest.json: "
		      "no machine facts</p>\n", f);
		return;
	}
	facts(f, m, run_facts);
	fputs("</table>\n", f);
}

/* The version of each tool of the manifest's that the run used
 * (htmlused_tool): a page of an ext4 run has no mkfs.btrfs. */
static void tools_used(FILE *f, json_t *m, const struct results *r)
{
	json_t *v, *tools = manifestread_get(m, "system.tools");
	const char *key;
	char buf[64];
	int rows = 0;

	json_object_foreach(tools, key, v) {
		const char *s = scalar(v, buf, sizeof(buf));

		if (!s || !htmlused_tool(m, r, key))
			continue;
		if (!rows++)
			fputs("<h3>Versions of the tools the run used</h3>\n"
			      "<table>\n", f);
		keyed_fact(f, "", key, s);
	}
	if (rows)
		fputs("</table>\n", f);
}

/* The machine's facts, the target's and the tools' versions. */
static void machine(FILE *f, json_t *m, const struct results *r)
{
	json_t *mem = manifestread_get(m, "system.mem_bytes");
	struct strbuf target = { 0 };
	char buf[64];

	if (!m)
		return;
	fputs("<h2 id=\"machine\">Machine</h2>\n<table>\n", f);
	facts(f, m, machine_facts);
	if (json_is_integer(mem)) {
		snprintf(buf, sizeof(buf), "%.1f GiB",
			 (double)json_integer_value(mem) / (1 << 30));
		fact(f, "memory", buf);
	}
	manifestread_target(m, &target);
	if (target.len)
		fact(f, "target", target.p);
	free(target.p);
	facts_of(f, json_object_get(m, "target"), "target ");
	fputs("</table>\n", f);
	tools_used(f, m, r);
}

/* The configs as the manifest has them: options requested, and what the
 * kernel made of them. 0, or -1 out of memory. */
static int manifest_configs(FILE *f, json_t *m)
{
	static const char *const col[][2] = { { "label", "config" },
		{ "type", "type" }, { "mkfs", "mkfs options" },
		{ "mkfs_cmd", "mkfs command" },
		{ "mount_requested", "mount options requested" },
		{ "mount_applied", "what the kernel changed" },
		{ "loop_io", "loop image I/O" }, { "status", "status" } };
	json_t *o, *configs = json_object_get(m, "configs");
	size_t i;

	if (!json_array_size(configs))
		return 0;
	fputs("<table>\n<thead><tr>", f);
	for (size_t c = 0; c < sizeof(col) / sizeof(col[0]); c++)
		fprintf(f, "<th>%s</th>", col[c][1]);
	fputs("</tr></thead>\n<tbody>\n", f);
	json_array_foreach(configs, i, o) {
		fputs("<tr>", f);
		for (size_t c = 0; c < sizeof(col) / sizeof(col[0]); c++) {
			const char *s = manifestread_str(o, col[c][0], "-");

			/* option words break anywhere: a long one has no
			 * space to wrap at */
			fputs(strncmp(col[c][0], "mount_", 6) &&
			      strcmp(col[c][0], "mkfs_cmd") ? "<td>" :
			      "<td class=\"opts\">", f);
			if (!strcmp(col[c][0], "mount_applied")) {
				if (htmlused_mount_change(f, o))
					return -1;
			} else {
				html_text(f, *s ? s : "-");
			}
			if (!strcmp(col[c][0], "status") &&
			    json_is_string(json_object_get(o, "reason"))) {
				fputs(": ", f);
				html_text(f, manifestread_str(o, "reason", ""));
			}
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
	return 0;
}

static int configs(FILE *f, const struct results *r, json_t *m)
{
	const struct res_run **runs = view_all_runs(r);
	struct table g = { 0 };
	int rc, fewest, rounds = view_config_rounds(r, &fewest);

	if (!runs)
		return -1;
	fputs("<h2 id=\"configs\">Filesystem configs</h2>\n", f);
	if (manifest_configs(f, m)) {
		free(runs);
		return -1;
	}
	rc = configs_table(&g, runs, r->n_runs, json_object_get(m, "configs"));
	if (!rc && r->n_runs) {
		fputs(g.ncol > 3 && !strcmp(g.col[3].name, "mkfs made") ?
		      "<h3>What mkfs made; mkfs, mount and umount times "
		      "(means" : "<h3>mkfs, mount and umount times (means", f);
		if (rounds > 1 && fewest < rounds)
			fprintf(f, " over each config's rounds, up to %d, "
				"each config made once a round", rounds);
		else if (rounds > 1)
			fprintf(f, " over %d rounds, each config made once a "
				"round", rounds);
		fputs(")</h3>\n", f);
		table_html(f, &g);
	}
	if (!rc)
		rc = agetable_html(f, r, json_object_get(m, "configs"));
	table_free(&g);
	free(runs);
	return rc;
}

/* ---- a metric's table -------------------------------------------------- */

static int metric_table(void *ctx, const struct rank_table *t,
			const struct table *g)
{
	FILE *f = ctx;

	fputs("<h3>", f);
	html_text(f, t->name);
	if (strcmp(t->title, t->name)) {
		fputs(": ", f);
		html_text(f, t->title);
	}
	fprintf(f, " <span class=\"note\">(%s is better)</span></h3>\n",
		t->lower ? "lower" : "higher");
	table_html(f, g);
	return 0;
}

/* ---- a phase ------------------------------------------------------------ */

/* The metrics to chart: the key's (but what tiobench's charts show),
 * or the tables' when there is no key or the view is not the key's. */
static const char *const *chart_globs(const struct pick *pick,
				      const struct res_run *const *runs,
				      size_t n, const char *phase, int tio,
				      const char *const *tables,
				      int fallback, const char **buf)
{
	const char *key[VIEW_MAX_KEY + 1];
	int n_key, k = 0;

	if (pick->view != VIEW_KEY || fallback)
		return tables;
	/* room for write_amp */
	n_key = manifestread_key(pick->phases, phase, key, VIEW_MAX_KEY - 1);
	if (!n_key)
		return tables;
	for (int i = 0; i < n_key; i++)
		if (!tio || !classic_tio_shows(key[i]))
			buf[k++] = key[i];
	/* what the device wrote per byte the phase wrote, charted too */
	for (size_t i = 0; i < n; i++)
		if (results_measured(runs[i], "write_amp")) {
			buf[k++] = "write_amp";
			break;
		}
	buf[k] = NULL;
	return buf;
}

static int phase_section(FILE *f, const struct results *r, size_t index,
			 const char *phase, const struct pick *pick,
			 const struct htmlcdf *hist)
{
	const char *buf[VIEW_MAX_KEY + 1], *cbuf[VIEW_MAX_KEY + 1];
	const char *const *tables, *const *charts;
	size_t n, count[4];
	const struct res_run **runs = view_ok_runs(r, phase, &n, count);
	struct table_src in = { runs, n, phase, r, pick->phases };
	const char *mode = NULL;
	char *studies = NULL, *line;
	size_t len = 0;
	FILE *m;
	int rc = -1, tio, shown, fallback;

	if (!runs)
		return -1;
	if (*phase) {
		fprintf(f, "<h2 id=\"phase-%zu\">phase ", index + 1);
		html_text(f, phase);
		fprintf(f, ": %zu of %zu phase runs ok</h2>\n", n,
			count[0] + count[1] + count[2] + count[3]);
	} else {
		fputs("<h2 id=\"config-metrics\">filesystem configs: mkfs, "
		      "mount, umount</h2>\n", f);
	}
	if (!n) {
		fputs("<p>no phase run of it succeeded (see the end)</p>\n",
		      f);
		rc = 0;
		goto out;
	}
	/* the study tables into memory: the charts come first */
	if (!(m = open_memstream(&studies, &len)))
		goto out;
	mode = classic_tio_mode(pick->phases, phase);
	shown = study_html(m, &in, 0);
	if (fclose(m) || shown < 0)
		goto out;
	tio = (shown & study_bit("tiobench")) != 0;
	tables = view_tables(pick, runs, n, phase, (unsigned)shown, buf,
			     &fallback);
	charts = chart_globs(pick, runs, n, phase, tio, tables, fallback,
			     cbuf);
	if ((line = view_unreported(pick, runs, n, phase, (unsigned)shown))) {
		fputs("<p class=\"warn\">", f);
		html_text(f, line);
		fputs("</p>\n", f);
		free(line);
	}
	if (fallback)
		fputs("<p class=\"note\">no run reported its key metrics: "
		      "its seconds, _mbs and _iops figures instead</p>\n", f);
	if ((tio && htmlchart_tio(f, runs, n, mode)) ||
	    (!tio && *phase && *charts && htmlscale_phase(f, runs, n,
							  charts)) ||
	    (*charts && htmlchart_bars(f, runs, n, charts)) ||
	    (*phase && hist && htmlcdf_phase(f, hist, runs, n)) ||
	    (*phase && pick->series && htmltime_phase(f, pick->series, runs,
						      n, pick->phases, phase)))
		goto out;
	fputs(studies, f);
	if (*tables && rank_each(runs, n, tables, metric_table, f))
		goto out;
	if (*phase && (line = view_disturbed(runs, n))) {
		fputs("<p class=\"warn\">! ", f);
		html_text(f, line);
		fputs("</p>\n", f);
		free(line);
	}
	rc = 0;
out:
	free(studies);
	free(runs);
	return rc;
}

/* ---- what did not count ------------------------------------------------- */

static int not_ok(FILE *f, const struct results *r, json_t *m,
		  const struct overtime *series)
{
	size_t count[4], ng, ended, idle = view_not_run(r, m, &ended);
	struct view_group *group = view_not_ok(r, &ng, count);
	char note[1024];

	if (!group)
		return -1;
	fprintf(f, "<h2 id=\"not-ok\">Phase runs: %zu ok, %zu failed, %zu "
		"skipped", count[RES_OK], count[RES_FAILED],
		count[RES_SKIPPED]);
	if (count[RES_NONE])
		fprintf(f, ", %zu incomplete", count[RES_NONE]);
	if (idle)
		fprintf(f, ", %zu not run", idle);
	if (ended)
		fprintf(f, ", %zu not needed (stop rules met)", ended);
	fputs("</h2>\n", f);
	if (ng) {
		fputs("<table>\n<thead><tr><th>status</th><th>config</th>"
		      "<th>phase</th><th>runs</th><th>reason</th></tr>"
		      "</thead>\n<tbody>\n", f);
		for (size_t g = 0; g < ng; g++) {
			const struct res_run *y = &r->runs[group[g].first];

			fprintf(f, "<tr><td>%s</td><td>",
				view_status[y->status]);
			html_text(f, y->fs_label);
			fputs("</td><td>", f);
			html_text(f, group[g].several ? "(all)" : y->phase);
			fprintf(f, "</td><td class=\"num\">%zu</td><td>",
				group[g].times);
			html_text(f, view_reason(y));
			fputs("</td></tr>\n", f);
		}
		fputs("</tbody>\n</table>\n", f);
	}
	if (r->n_torn)
		fputs("<p class=\"note\">the last row of results.csv was cut "
		      "short and is left out</p>\n", f);
	if (results_left_out_note(r, note, sizeof(note))) {
		fputs("<p class=\"note\">results.csv: ", f);
		html_text(f, note);
		fputs("</p>\n", f);
	}
	if (series && series->note.len) {
		fputs("<p class=\"note\">", f);
		html_text(f, series->note.p);
		fputs("</p>\n", f);
	}
	free(group);
	return 0;
}

/* Links to the sections: the page of a big plan is long. */
static void contents(FILE *f, json_t *m, const char *const *names)
{
	fputs("<nav>\n<p>", f);
	if (m)
		fputs("<a href=\"#machine\">Machine</a> | ", f);
	fputs("<a href=\"#configs\">Filesystem configs</a>", f);
	for (size_t i = 0; names[i]; i++) {
		fprintf(f, " | <a href=\"#phase-%zu\">", i + 1);
		html_text(f, names[i]);
		fputs("</a>", f);
	}
	if (effects_has_design(m))
		fputs(" | <a href=\"#effects\">Effects</a>", f);
	fputs(" | <a href=\"#not-ok\">Failed and skipped</a></p>\n</nav>\n",
	      f);
}

/* ---- the page ----------------------------------------------------------- */

int htmlpage_write(FILE *f, const char *rundir, const struct results *r,
		   struct pick *pick)
{
	const char **names = view_phases(r);
	struct strbuf title = { 0 };
	struct htmlcdf hist;
	struct audit audit;
	json_t *m;
	int rc = -1, configs_rows = 0;

	if (!names)
		return -1;
	if (htmlcdf_load(&hist, rundir)) {
		free(names);
		return -1;
	}
	m = manifest_load(rundir, NULL);
	pick->phases = json_object_get(m, "phases");
	pick->all = r;
	if (strbuf_printf(&title, "fsplan report: %s",
			  manifestread_str(m, "plan.name", rundir)))
		goto out;
	if (htmlused_configs(m, r))
		goto out;
	html_begin(f, title.p);
	header(f, rundir, r, m);
	audit_run(r, m, &audit);
	audit_html(f, &audit);
	contents(f, m, names);
	machine(f, m, r);
	if (!r->n_runs)
		fputs("<p>results.csv has no rows yet</p>\n", f);
	if (configs(f, r, m))
		goto out;
	for (size_t i = 0; names[i]; i++)
		if (phase_section(f, r, i, names[i], pick, &hist))
			goto out;
	/* with --metric or --all, the configs' own figures too, as text */
	for (size_t i = 0; i < r->n_runs; i++)
		configs_rows |= !*r->runs[i].phase;
	if (configs_rows && pick->view != VIEW_KEY &&
	    phase_section(f, r, 0, "", pick, NULL))
		goto out;
	if (effects_report(f, r, m, rundir, pick->view == VIEW_METRIC ?
			   pick->only : NULL, 1))
		goto out;
	if (study_html(f, &(struct table_src){ NULL, 0, "", r, pick->phases },
		       1) < 0 || not_ok(f, r, m, pick->series))
		goto out;
	html_end(f);
	rc = 0;
out:
	htmlcdf_free(&hist);
	html_configs_reset();
	pick->phases = NULL;
	pick->all = NULL;
	free(title.p);
	json_decref(m);
	free(names);
	return rc;
}
