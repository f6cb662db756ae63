/* manifest: build manifest.json with jansson and replace it atomically. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cells/fsconf.h"
#include "results/mfage.h"
#include "results/mfdesign.h"
#include "results/manifest.h"
#include "util/strbuf.h"
#include "util/file.h"
#include "util/sha256.h"

#ifndef FSPLAN_VERSION
#define FSPLAN_VERSION "0.0.0"
#endif

static json_t *state_json(enum manifest_state st);

json_t *manifest_now(void)
{
	char buf[64];
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S%z", &tm);
	return json_string(buf);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *plan_json(const struct plan *p)
{
	char sha[65], abs[PATH_MAX];
	json_t *o = json_object(), *params = json_object();

	sha256_hex(p->text, p->text_len, sha);
	json_object_set_new(o, "path", json_string(p->file));
	/* where --resume DIR alone finds it, whatever its working directory */
	if (realpath(p->file, abs))
		json_object_set_new(o, "realpath", json_string(abs));
	json_object_set_new(o, "sha256", json_string(sha));
	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "description", str_or_null(p->description));
	json_object_set_new(o, "text", json_stringn(p->text, p->text_len));
	for (int i = 0; i < p->n_params; i++)
		json_object_set_new(params, p->params[i].key,
				    json_string(p->params[i].val.s));
	json_object_set_new(o, "params", params);
	return o;
}

/* A phase's key metrics, as phasecheck_all found them, for report. */
static json_t *key_json(const struct phase_key *key)
{
	json_t *a = json_array();

	for (int k = 0; k < key->n; k++)
		json_array_append_new(a, json_string(key->name[k]));
	return a;
}

/* DESIGN.md section 8: the interval its series were sampled at (0:
 * none), the warm-up, the steady rule the steady rows came from. */
static void series_json(json_t *o, const struct plan_phase *ph)
{
	const struct plan_steady *st = &ph->steady;
	json_t *r;

	json_object_set_new(o, "interval_s", json_real(ph->interval_s));
	json_object_set_new(o, "warmup_s", json_real(ph->warmup_s));
	if (st->window_s <= 0)
		return;
	r = json_object();
	json_object_set_new(r, "metric", json_string(st->metric));
	json_object_set_new(r, "window_s", json_real(st->window_s));
	json_object_set_new(r, "range", json_real(st->range));
	json_object_set_new(r, "slope", json_real(st->slope));
	json_object_set_new(r, "max_s", json_real(st->max_s));
	json_object_set_new(o, "steady", r);
}

static json_t *phases_json(const struct expansion *e)
{
	const struct plan *p = e->plan;
	json_t *a = json_array();

	for (int i = 0; i < p->n_phases; i++) {
		const struct plan_phase *ph = &p->phases[i];
		json_t *o = json_object();
		char sha[65];

		json_object_set_new(o, "name", json_string(ph->name));
		if (ph->use.s) {
			json_object_set_new(o, "use", json_string(ph->use.s));
			json_object_set_new(o, "module",
					    json_string(ph->module_path));
			if (!sha256_file(ph->module_path, sha))
				json_object_set_new(o, "module_sha256",
						    json_string(sha));
		} else {
			json_object_set_new(o, "exec", json_string(ph->exec.s));
		}
		if (ph->parse.s)
			json_object_set_new(o, "parse",
					    json_string(ph->parse.s));
		/* an exec module: its script (lua/exec/) and its parser */
		if (e->checked && e->checked[i].exec[0]) {
			json_object_set_new(o, "exec_script",
					    json_string(e->checked[i].exec));
			json_object_set_new(o, "parse",
					    json_string(e->checked[i].parse));
		}
		if (e->checked && e->checked[i].key.n)
			json_object_set_new(o, "key",
					    key_json(&e->checked[i].key));
		json_object_set_new(o, "timeout_s", json_real(ph->timeout_s));
		series_json(o, ph);
		/* as written: ${name} stays, plan.params says its value */
		if (ph->n_with) {
			json_t *w = json_object();

			for (int k = 0; k < ph->n_with; k++)
				json_object_set_new(w, ph->with[k].key,
					json_string(ph->with[k].val.s ?
						    ph->with[k].val.s : ""));
			json_object_set_new(o, "with", w);
		}
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *conf_json(const struct expansion *e, const struct fsconf *fc)
{
	const struct plan *p = e->plan;
	json_t *o = json_object(), *axes = json_object();
	struct strbuf cmd = { 0 };

	json_object_set_new(o, "index", json_integer(fc->index));
	json_object_set_new(o, "label", json_string(fc->label));
	json_object_set_new(o, "type", json_string(fc->fs->type.s));
	json_object_set_new(o, "mkfs", json_string(fc->mkfs));
	json_object_set_new(o, "mount_requested", json_string(fc->mount));
	for (int i = 0; i < p->n_matrix; i++)
		json_object_set_new(axes, p->matrix[i].name, json_string(
			p->matrix[i].values[fc->axis[i]].s));
	json_object_set_new(o, "axes", axes);
	if (fc->levels)
		json_object_set_new(o, "design", mfdesign_conf(e, fc));
	if (fc->age)
		json_object_set_new(o, "age", mfage_conf(fc));
	/* out of memory, jansson leaves a value out: so does this */
	if (!fsconf_mkfs_cmd(p, fc, NULL, &cmd))
		json_object_set_new(o, "mkfs_cmd", json_string(cmd.p));
	free(cmd.p);
	if (fc->setup)
		json_object_set_new(o, "setup", json_string(fc->setup));
	if (fc->teardown)
		json_object_set_new(o, "teardown", json_string(fc->teardown));
	json_object_set_new(o, "status", state_json(MANIFEST_PENDING));
	return o;
}

struct manifest *manifest_new(const struct expansion *e, const char *run_id,
			      int argc, char **argv, json_t *sysinfo,
			      json_t *target)
{
	const struct plan *p = e->plan;
	struct manifest *m = calloc(1, sizeof(*m));
	json_t *cmd = json_array(), *designs;

	if (!m || !cmd)
		goto fail;
	m->cell_slot = malloc((e->n_cells + 1) * sizeof(size_t));
	m->root = json_object();
	m->configs = json_array();
	m->cells = json_array();
	if (!m->cell_slot || !m->root || !m->configs || !m->cells)
		goto fail;
	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	json_object_set_new(m->root, "fsplan_version",
			    json_string(FSPLAN_VERSION));
	json_object_set_new(m->root, "run_id", json_string(run_id));
	json_object_set_new(m->root, "command", cmd);
	cmd = NULL;
	json_object_set_new(m->root, "status", state_json(MANIFEST_RUNNING));
	json_object_set_new(m->root, "started", manifest_now());
	json_object_set_new(m->root, "plan", plan_json(p));
	json_object_set_new(m->root, "seed", json_integer((json_int_t)p->seed));
	json_object_set_new(m->root, "runas", json_string(p->runas));
	json_object_set_new(m->root, "repeat", json_integer(p->repeat));
	json_object_set_new(m->root, "order",
			    json_string(p->rounds ? "rounds" : "configs"));
	if (p->repeat_ci > 0)	/* the plan's stop rule; repeat is its max */
		json_object_set_new(m->root, "stop_rule", json_pack(
			"{s:i, s:i, s:f}", "min", p->repeat_min, "max",
			p->repeat, "ci", p->repeat_ci));
	json_object_set_new(m->root, "system", sysinfo ? sysinfo
							: json_null());
	json_object_set_new(m->root, "target", target ? target : json_null());
	sysinfo = target = NULL;
	json_object_set_new(m->root, "phases", phases_json(e));
	if ((designs = mfdesign_designs(e)))
		json_object_set_new(m->root, "designs", designs);
	for (int i = 0; i < e->n_confs; i++)
		json_array_append_new(m->configs, conf_json(e, &e->confs[i]));
	for (size_t i = 0; i < e->n_cells; i++) {
		const struct cell *c = &e->cells[i];
		json_t *o;

		m->cell_slot[i] = (size_t)-1;
		if (!c->selected)
			continue;
		o = json_object();
		json_object_set_new(o, "index", json_integer(c->index));
		json_object_set_new(o, "id", json_string(c->id));
		json_object_set_new(o, "config",
				    json_integer(e->confs[c->conf].index));
		json_object_set_new(o, "phase",
				    json_string(p->phases[c->phase].name));
		json_object_set_new(o, "rep", json_integer(c->rep));
		json_object_set_new(o, "status", state_json(MANIFEST_PENDING));
		m->cell_slot[i] = json_array_size(m->cells);
		json_array_append_new(m->cells, o);
	}
	json_object_set(m->root, "configs", m->configs);
	json_object_set(m->root, "cells", m->cells);
	json_object_set_new(m->root, "cells_in_plan",
			    json_integer((json_int_t)e->n_cells));
	return m;
fail:
	json_decref(cmd);
	json_decref(sysinfo);
	json_decref(target);
	manifest_free(m);
	return NULL;
}

void manifest_free(struct manifest *m)
{
	if (!m)
		return;
	json_decref(m->configs);
	json_decref(m->cells);
	json_decref(m->root);
	free(m->cell_slot);
	free(m);
}

void manifest_set(struct manifest *m, const char *key, json_t *v)
{
	json_object_set_new(m->root, key, v);
}

void manifest_phase(struct manifest *m, int phase, const char *key,
		    json_t *v)
{
	json_object_set_new(json_array_get(json_object_get(m->root, "phases"),
					   (size_t)phase), key, v);
}

void manifest_conf(struct manifest *m, int conf, const char *key, json_t *v)
{
	json_object_set_new(json_array_get(m->configs, conf), key, v);
}

void manifest_conf_round(struct manifest *m, int conf, int round,
			 const char *key, json_t *v)
{
	json_t *o = json_array_get(m->configs, conf), *rounds;

	if (!(rounds = json_object_get(o, "rounds"))) {
		rounds = json_array();
		json_object_set_new(o, "rounds", rounds);
	}
	while (json_array_size(rounds) < (size_t)round)
		json_array_append_new(rounds, json_object());
	json_object_set_new(json_array_get(rounds, (size_t)round - 1), key, v);
}

static const char *const state_names[MANIFEST_N_STATES] = {
	[MANIFEST_PENDING] = "pending", [MANIFEST_RUNNING] = "running",
	[MANIFEST_OK] = "ok", [MANIFEST_FAILED] = "failed",
	[MANIFEST_SKIPPED] = "skipped", [MANIFEST_INTERRUPTED] = "interrupted",
	[MANIFEST_DONE] = "done", [MANIFEST_COMPLETE] = "complete",
};

const char *manifest_state_name(enum manifest_state s)
{
	return (unsigned)s < MANIFEST_N_STATES ? state_names[s] : "";
}

/* The state a word of an earlier manifest names; -1 for none. */
static int state_parse(const char *word)
{
	for (int s = 0; word && s < MANIFEST_N_STATES; s++)
		if (!strcmp(word, state_names[s]))
			return s;
	return -1;
}

enum manifest_state manifest_state_of(enum res_status s)
{
	switch (s) {
	case RES_OK:
		return MANIFEST_OK;
	case RES_SKIPPED:
		return MANIFEST_SKIPPED;
	case RES_NONE:
		return MANIFEST_PENDING;
	case RES_FAILED:
		break;
	}
	return MANIFEST_FAILED;
}

static json_t *state_json(enum manifest_state st)
{
	return json_string(manifest_state_name(st));
}

void manifest_run_state(struct manifest *m, enum manifest_state st)
{
	manifest_set(m, "status", state_json(st));
}

void manifest_conf_state(struct manifest *m, int conf,
			 enum manifest_state st)
{
	manifest_conf(m, conf, "status", state_json(st));
}

void manifest_cell(struct manifest *m, size_t cell, enum manifest_state st,
		   const char *reason)
{
	json_t *o;

	if (m->cell_slot[cell] == (size_t)-1)
		return;
	o = json_array_get(m->cells, m->cell_slot[cell]);
	json_object_set_new(o, "status", state_json(st));
	if (reason && reason[0])
		json_object_set_new(o, "reason", json_string(reason));
	else
		json_object_del(o, "reason");
}

/* A run entry of "runs": its start, end and status. */
static json_t *run_entry(json_t *from)
{
	json_t *o = json_object();
	static const char *const keys[] = { "started", "ended", "status" };

	for (size_t i = 0; i < 3; i++) {
		json_t *v = json_object_get(from, keys[i]);

		if (v)
			json_object_set_new(o, keys[i], json_deep_copy(v));
	}
	return o;
}

static int finished(const char *status)
{
	int s = state_parse(status);

	return s == MANIFEST_OK || s == MANIFEST_FAILED ||
	       s == MANIFEST_SKIPPED;
}

/* Whether every cell of config index the old manifest lists finished (a
 * stop can come between a config's last cell and its status). */
static int conf_finished(json_t *cells, json_t *index)
{
	json_t *c;
	size_t i;

	json_array_foreach(cells, i, c)
		if (json_equal(json_object_get(c, "config"), index) &&
		    !finished(json_string_value(json_object_get(c, "status"))))
			return 0;
	return 1;
}

/* A resume remakes only the configs it has cells of: the others keep
 * what the run that made them recorded (status, applied options,
 * figures, probe), and those it remakes have it replaced as they go. */
static void carry_configs(struct manifest *m, json_t *old)
{
	json_t *was, *now, *v;
	const char *key;
	size_t i;

	json_array_foreach(json_object_get(old, "configs"), i, was) {
		int st;

		now = json_array_get(m->configs, i);
		if (!json_equal(json_object_get(was, "label"),
				json_object_get(now, "label")))
			continue;
		json_object_foreach(was, key, v)
			if (!json_object_get(now, key) ||
			    !strcmp(key, "status"))
				json_object_set_new(now, key,
						    json_deep_copy(v));
		st = state_parse(json_string_value(json_object_get(was,
								   "status")));
		if ((st == MANIFEST_INTERRUPTED || st == MANIFEST_RUNNING) &&
		    conf_finished(json_object_get(old, "cells"),
				  json_object_get(was, "index")))
			json_object_set_new(now, "status",
					    state_json(MANIFEST_DONE));
	}
}

int manifest_resume(struct manifest *m, const char *dir)
{
	json_error_t err;
	json_t *old, *runs, *cell;
	size_t i;

	old = manifest_load(dir, &err);
	if (!json_is_object(old)) {
		json_decref(old);
		return -1;
	}
	runs = json_deep_copy(json_object_get(old, "runs"));
	if (!json_is_array(runs)) {
		json_decref(runs);
		runs = json_array();
		json_array_append_new(runs, run_entry(old));
	}
	json_array_append_new(runs, run_entry(m->root));
	json_object_set_new(m->root, "runs", runs);
	if (json_object_get(old, "started"))
		json_object_set_new(m->root, "started", json_deep_copy(
			json_object_get(old, "started")));
	if (json_object_get(old, "device_fs"))
		json_object_set_new(m->root, "device_fs", json_deep_copy(
			json_object_get(old, "device_fs")));
	carry_configs(m, old);
	/* what finished then keeps its status (results.csv has its rows) */
	json_array_foreach(json_object_get(old, "cells"), i, cell) {
		const char *id = json_string_value(json_object_get(cell, "id"));
		const char *st = json_string_value(json_object_get(cell,
								   "status"));
		json_t *mine;
		size_t k;

		if (!id || !finished(st))
			continue;
		json_array_foreach(m->cells, k, mine)
			if (!strcmp(json_string_value(json_object_get(mine,
				"id")) ?: "", id)) {
				json_object_set_new(mine, "status",
						    json_string(st));
				if (json_object_get(cell, "reason"))
					json_object_set_new(mine, "reason",
						json_deep_copy(json_object_get(
							cell, "reason")));
				break;
			}
	}
	json_decref(old);
	return 0;
}

/* The current run's entry of "runs" says what the run's own keys say. */
static void mirror_run(struct manifest *m)
{
	json_t *runs = json_object_get(m->root, "runs");
	json_t *last = json_array_get(runs, json_array_size(runs) - 1);
	static const char *const keys[] = { "ended", "status" };

	if (!json_is_object(last))
		return;
	for (size_t i = 0; i < 2; i++) {
		json_t *v = json_object_get(m->root, keys[i]);

		if (v)
			json_object_set_new(last, keys[i], json_deep_copy(v));
	}
}

int manifest_write(struct manifest *m, const char *dir)
{
	char *text;
	size_t len;
	int rc;

	mirror_run(m);
	text = json_dumps(m->root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);

	if (!text)
		return -ENOMEM;
	len = strlen(text);
	text[len++] = '\n';	/* json_dumps leaves room: replaces the NUL */
	rc = file_replace(dir, "manifest.json", text, len);
	free(text);
	return rc;
}

#define MANIFEST_MAX ((off_t)256 << 20)

json_t *manifest_load(const char *dir, json_error_t *err)
{
	json_error_t none;
	char path[PATH_MAX];
	struct stat st;
	json_t *root;
	int fd;

	if (!err)
		err = &none;
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	fd = file_open_regular(path);
	if (fd < 0) {
		snprintf(err->text, sizeof(err->text), "%s",
			 fd == -EINVAL ? "not a regular file" : strerror(-fd));
		return NULL;
	}
	if (fstat(fd, &st) || st.st_size > MANIFEST_MAX) {
		snprintf(err->text, sizeof(err->text),
			 "larger than a manifest is (256 MiB)");
		close(fd);
		return NULL;
	}
	root = json_loadfd(fd, 0, err);
	close(fd);
	return root;
}

json_t *manifest_read_key(const char *dir, const char *key)
{
	json_error_t err;
	json_t *root, *v;

	root = manifest_load(dir, &err);
	v = json_deep_copy(json_object_get(root, key));
	json_decref(root);
	return v;
}

int manifest_read_plan_sha(const char *dir, char sha[65])
{
	json_t *plan = manifest_read_key(dir, "plan");
	json_t *s = json_object_get(plan, "sha256");
	int rc = -1;

	if (json_is_string(s) && strlen(json_string_value(s)) == 64) {
		memcpy(sha, json_string_value(s), 65);
		rc = 0;
	}
	json_decref(plan);
	return rc;
}
