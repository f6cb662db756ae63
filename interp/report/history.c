/* history: the SQLite database of runs: opening it, adding and listing. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/history.h"
#include "report/historydb.h"
#include "report/manifestread.h"
#include "results/manifest.h"
#include "results/results.h"
#include "util/file.h"
#include "util/strbuf.h"

#define KEYS_MAX 16

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS runs(run_id TEXT PRIMARY KEY, "
	"plan_name TEXT, plan_sha256 TEXT, params TEXT, started TEXT, "
	"kernel TEXT, host TEXT, cpu TEXT, rundir TEXT);"
	"CREATE TABLE IF NOT EXISTS cells(run_id TEXT, cell TEXT, "
	"base TEXT, fs_label TEXT, phase TEXT, phase_params TEXT, rep "
	"INTEGER, status TEXT, PRIMARY KEY(run_id, cell));"
	"CREATE TABLE IF NOT EXISTS metrics(run_id TEXT, cell TEXT, "
	"metric TEXT, value REAL, unit TEXT);"
	"CREATE TABLE IF NOT EXISTS keys(run_id TEXT, phase TEXT, ord "
	"INTEGER, metric TEXT);"
	"CREATE INDEX IF NOT EXISTS metrics_cell ON metrics(run_id, cell);"
	"CREATE INDEX IF NOT EXISTS cells_base ON cells(base, fs_label);";

int historydb_fail(struct history *h, const char *what, struct diag *d)
{
	return diag_fail(d, DIAG_INPUT, 0, "%s: %s: %s", h->path, what,
			 sqlite3_errmsg(h->db));
}

int historydb_prepare(struct history *h, const char *sql, sqlite3_stmt **st,
		      struct diag *d)
{
	if (sqlite3_prepare_v2(h->db, sql, -1, st, NULL) != SQLITE_OK)
		return historydb_fail(h, "cannot prepare a query", d);
	return 0;
}

static int mkdir_0700(const char *path, struct diag *d)
{
	if (mkdir(path, 0700) && errno != EEXIST)
		return diag_fail(d, DIAG_SYSTEM, errno, "cannot make %s",
				 path);
	return 0;
}

int history_default_path(char *buf, size_t len, struct diag *d)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	char dir[PATH_MAX];

	if (xdg && *xdg == '/') {
		snprintf(dir, sizeof(dir), "%s", xdg);
	} else if (home && *home) {
		snprintf(dir, sizeof(dir), "%s/.local", home);
		if (mkdir_0700(dir, d))
			return -1;
		snprintf(dir, sizeof(dir), "%s/.local/share", home);
	} else {
		return diag_fail(d, DIAG_INPUT, 0, "neither XDG_DATA_HOME nor "
				 "HOME is set: give --db FILE");
	}
	if (mkdir_0700(dir, d))
		return -1;
	if (strlen(dir) + sizeof("/fsplan/history.db") > len ||
	    strlen(dir) + sizeof("/fsplan/history.db") > sizeof(dir))
		return diag_fail(d, DIAG_INPUT, ENAMETOOLONG, "%s", dir);
	strcat(dir, "/fsplan");
	if (mkdir_0700(dir, d))
		return -1;
	snprintf(buf, len, "%s/history.db", dir);
	return 0;
}

struct history *history_open(const char *path, struct diag *d)
{
	struct history *h = calloc(1, sizeof(*h));

	if (!h || !(h->path = strdup(path))) {
		free(h);
		diag_fail(d, DIAG_SYSTEM, ENOMEM, "out of memory");
		return NULL;
	}
	/* SQLite would write its header onto a blank device */
	if (!file_replaceable(path)) {
		diag_fail(d, DIAG_REFUSED, 0, "%s is not a regular file: the "
			  "history database is one (a device, a fifo or a "
			  "folder is never opened)", path);
		history_close(h);
		return NULL;
	}
	if (sqlite3_open_v2(path, &h->db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE, NULL) != SQLITE_OK ||
	    sqlite3_busy_timeout(h->db, 10000) != SQLITE_OK ||
	    sqlite3_exec(h->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
		historydb_fail(h, "cannot open the history database", d);
		history_close(h);
		return NULL;
	}
	return h;
}

void history_close(struct history *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	free(h->path);
	free(h);
}

/* Bind the NULL-ended texts of v to st's parameters 1, 2, ..., step it
 * and reset it. 0, or -1 with d filled. */
static int put(struct history *h, sqlite3_stmt *st, const char *const *v,
	       struct diag *d)
{
	for (int i = 0; v[i] != (const char *)-1; i++)
		sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		return historydb_fail(h, "cannot insert", d);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return 0;
}

#define END ((const char *)-1)

struct add {
	struct history *h;
	const char *id;
	sqlite3_stmt *cell, *metric;
	long n;
};

/* The rows of one phase run: its cell and its numeric metrics. */
static int add_run(struct add *a, const struct res_run *run, struct diag *d)
{
	char rep[24];

	snprintf(rep, sizeof(rep), "%d", run->rep);
	if (put(a->h, a->cell, (const char *[]){ a->id, run->cell, run->base,
		run->fs_label, run->phase, run->params, rep,
		results_status_name(run->status), END }, d))
		return -1;
	for (size_t i = 0; i < run->n_m; i++) {
		const struct res_metric *m = &run->m[i];

		if (!m->numeric)
			continue;
		sqlite3_bind_text(a->metric, 1, a->id, -1, SQLITE_STATIC);
		sqlite3_bind_text(a->metric, 2, run->cell, -1, SQLITE_STATIC);
		sqlite3_bind_text(a->metric, 3, m->name, -1, SQLITE_STATIC);
		sqlite3_bind_double(a->metric, 4, m->v);
		sqlite3_bind_text(a->metric, 5, m->unit, -1, SQLITE_STATIC);
		if (put(a->h, a->metric, (const char *[]){ END }, d))
			return -1;
		a->n++;
	}
	return 0;
}

/* The keys of each phase of the manifest, in order. */
static int add_keys(struct history *h, const char *id, json_t *man,
		    struct diag *d)
{
	json_t *phases = json_object_get(man, "phases"), *p;
	const char *names[KEYS_MAX + 1];
	sqlite3_stmt *st;
	size_t k;
	int rc = 0;

	if (historydb_prepare(h, "INSERT INTO keys VALUES(?1, ?2, ?3, ?4)",
			      &st, d))
		return -1;
	json_array_foreach(phases, k, p) {
		const char *name = json_string_value(json_object_get(p,
								     "name"));
		int n = name ? manifestread_key(phases, name, names,
						KEYS_MAX) : 0;

		for (int i = 0; i < n && !rc; i++) {
			char ord[12];

			snprintf(ord, sizeof(ord), "%d", i);
			rc = put(h, st, (const char *[]){ id, name, ord,
				 names[i], END }, d);
		}
	}
	sqlite3_finalize(st);
	return rc;
}

int historydb_load(const char *rundir, json_t **man, struct results *r,
		   struct diag *d)
{
	struct diag ld = { 0 };
	json_error_t err;
	char path[PATH_MAX], msg[1024];

	*man = manifest_load(rundir, &err);
	if (!*man)
		return diag_fail(d, DIAG_INPUT, 0, "%s/manifest.json: %s",
				 rundir, err.text);
	snprintf(path, sizeof(path), "%s/results.csv", rundir);
	if (results_load(r, path, &ld)) {
		diag_format(&ld, msg, sizeof(msg));
		diag_release(&ld);
		json_decref(*man);
		*man = NULL;
		return diag_fail(d, DIAG_INPUT, 0, "%s", msg);
	}
	return 0;
}

/* The id run_id (started then) goes in as: run_id, or "run_id@started"
 * when another run (another start: two studies' "-o run") has that
 * run_id; the same run (id and start) is refused. 0, or -1 with d. */
static int id_for(struct history *h, const char *run_id, const char *started,
		  struct strbuf *id, struct diag *d)
{
	sqlite3_stmt *st;
	int rc, other = 0;

	if (historydb_prepare(h, "SELECT run_id, started, rundir FROM runs "
			      "WHERE run_id = ?1 OR run_id = ?1 || '@' || ?2",
			      &st, d))
		return -1;
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, started, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (strcmp(historydb_col(st, 1), started)) {
			other = 1;
			continue;
		}
		diag_fail(d, DIAG_REFUSED, 0, "run %s is in %s already (added "
			  "from %s): not added again", historydb_col(st, 0),
			  h->path, historydb_col(st, 2));
		break;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return -1;
	if (rc != SQLITE_DONE)
		return historydb_fail(h, "cannot read runs", d);
	strbuf_printf(id, other ? "%s@%s" : "%s", run_id, started);
	return id->oom ? diag_fail(d, DIAG_SYSTEM, ENOMEM, "out of memory")
		       : 0;
}

/* The runs row of the manifest man and the rest, in the open transaction. */
static int add_rows(struct add *a, json_t *man, const struct results *r,
		    const char *rundir, struct diag *d)
{
	struct strbuf params = { 0 };
	sqlite3_stmt *st;
	int rc;

	manifestread_params(man, &params);
	if (historydb_prepare(a->h, "INSERT INTO runs VALUES(?1, ?2, ?3, ?4, "
			      "?5, ?6, ?7, ?8, ?9)", &st, d))
		return -1;
	rc = put(a->h, st, (const char *[]){ a->id,
		 manifestread_str(man, "plan.name", ""),
		 manifestread_str(man, "plan.sha256", ""),
		 params.p ? params.p : "", manifestread_str(man, "started", ""),
		 manifestread_str(man, "system.kernel", ""),
		 manifestread_str(man, "system.hostname", ""),
		 manifestread_str(man, "system.cpu_model", ""), rundir, END },
		 d);
	sqlite3_finalize(st);
	free(params.p);
	if (rc || add_keys(a->h, a->id, man, d) ||
	    historydb_prepare(a->h, "INSERT INTO cells VALUES(?1, ?2, ?3, ?4, "
			      "?5, ?6, ?7, ?8)", &a->cell, d) ||
	    historydb_prepare(a->h, "INSERT INTO metrics VALUES(?1, ?2, ?3, "
			      "?4, ?5)", &a->metric, d))
		return -1;
	for (size_t i = 0; i < r->n_runs; i++)
		if (add_run(a, &r->runs[i], d))
			return -1;
	return 0;
}

int history_add(struct history *h, const char *rundir, char *id, size_t len,
		long *n, struct diag *d)
{
	struct results r = { 0 };
	struct add a = { .h = h };
	struct strbuf idb = { 0 };
	const char *run_id;
	json_t *man;
	int rc;

	if (historydb_load(rundir, &man, &r, d))
		return -1;
	run_id = manifestread_str(man, "run_id", r.run_id);
	if (!run_id || !*run_id) {
		rc = diag_fail(d, DIAG_INPUT, 0, "%s names no run_id", rundir);
		goto out;
	}
	rc = -1;
	if (sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) {
		historydb_fail(h, "cannot begin a transaction", d);
		goto out;
	}
	if (id_for(h, run_id, manifestread_str(man, "started", ""), &idb,
		   d) || (a.id = idb.p, add_rows(&a, man, &r, rundir, d))) {
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	snprintf(id, len, "%s", a.id);
	sqlite3_finalize(a.cell);
	sqlite3_finalize(a.metric);
	a.cell = a.metric = NULL;
	if (sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL))
		historydb_fail(h, "cannot commit", d);
	else
		rc = 0;
	*n = a.n;
out:
	sqlite3_finalize(a.cell);
	sqlite3_finalize(a.metric);
	free(idb.p);
	results_free(&r);
	json_decref(man);
	return rc;
}

const char *historydb_col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? s : "";
}

int history_list(struct history *h, FILE *f, struct diag *d)
{
	sqlite3_stmt *st;
	int rc;

	if (historydb_prepare(h, "SELECT r.run_id, r.plan_name, r.started, "
			      "r.kernel, (SELECT count(DISTINCT base) FROM "
			      "cells c WHERE c.run_id = r.run_id AND c.phase "
			      "<> '') FROM runs r ORDER BY r.started, "
			      "r.run_id", &st, d))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fprintf(f, "%s  %s  %s  %s  %d cells\n", historydb_col(st, 0),
			historydb_col(st, 1), historydb_col(st, 2), historydb_col(st, 3),
			sqlite3_column_int(st, 4));
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return historydb_fail(h, "cannot list the runs", d);
	return 0;
}
