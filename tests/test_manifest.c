/* test_manifest: manifest.json of a small expansion — valid JSON, the plan's
 * sha256, every cell's status, replaced atomically. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cells/expand.h"
#include "cells/select.h"
#include "e2e.h"
#include "plan/plan.h"
#include "run/resolve.h"
#include "results/manifest.h"

static const char plan_text[] =
	"fsplan: 1\n"
	"name: man\n"
	"description: a manifest's plan\n"
	"params: {size: 1M}\n"
	"seed: 7\n"
	"repeat: 2\n"
	"filesystems:\n"
	"  - type: ext4\n"
	"    mkfs: -O ^has_journal\n"
	"    mount: noatime\n"
	"  - type: xfs\n"
	"    setup: echo up\n"
	"phases:\n"
	"  - name: mod\n"
	"    use: mod.lua\n"
	"    timeout: 90s\n"
	"  - name: dd\n"
	"    exec: dd bs=${size} count=${n}\n"
	"    matrix: {n: [1, 2]}\n"
	"    repeat: 1\n";

static const char module_text[] =
	"return { worker = function(w, ctx) end }\n";

static char dir[256], plan_path[PATH_MAX], module_path[PATH_MAX];
static struct plan *plan;
static struct expansion *ex;
static struct manifest *man;

static char *argv_[] = { (char *)"fsplan", (char *)"run",
			 (char *)"plan.yaml", (char *)"-D", (char *)"size=4M",
			 NULL };

/* A temp dir with plan.yaml and mod.lua, loaded with -D size=4M. */
static void setup(void)
{
	static const struct plan_define defs[] = { { "size", "4M" } };
	struct diag d = { 0 };

	snprintf(dir, sizeof(dir), "%s", e2e_tmpdir());
	snprintf(plan_path, sizeof(plan_path), "%s",
		 e2e_write(dir, "plan.yaml", plan_text));
	snprintf(module_path, sizeof(module_path), "%s",
		 e2e_write(dir, "mod.lua", module_text));
	cr_assert_eq(plan_load(&plan, plan_path, defs, 1, &d), 0, "%s", d.msg);
	cr_assert_eq(resolve_plan(plan, &d), 0, "%s", d.msg);
	cr_assert_eq(expand_plan(plan, &ex, &d), 0, "%s", d.msg);
	/* the key phasecheck_all would have found */
	ex->checked[0].key.n = 2;
	strcpy(ex->checked[0].key.name[0], "io_mbs");
	strcpy(ex->checked[0].key.name[1], "seconds");
}

static void teardown(void)
{
	manifest_free(man);
	man = NULL;
	if (ex)
		expansion_free(ex);
	ex = NULL;
	plan_free(plan);
	plan = NULL;
	e2e_cleanup();
}

TestSuite(manifest, .init = setup, .fini = teardown);

static void make(json_t *sysinfo, json_t *target)
{
	man = manifest_new(ex, "20260101-000000", 5, argv_, sysinfo, target);
	cr_assert_not_null(man);
}

/* dir/manifest.json parsed; fails the test if it is not JSON. */
static json_t *read_back(void)
{
	char path[PATH_MAX];
	json_error_t err;
	json_t *root;

	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
	cr_assert_not_null(root, "%s: line %d: %s", path, err.line, err.text);
	return root;
}

/* sha256sum's digest of path: computed apart from fsplan's own. */
static void sha256sum(const char *path, char sha[65])
{
	char cmd[PATH_MAX + 32];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%64s", sha), 1);
	cr_assert_eq(pclose(p), 0);
	cr_assert_eq(strlen(sha), 64);
}

static const char *str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	cr_assert(json_is_string(v), "'%s' is not a string", key);
	return json_string_value(v);
}

static json_int_t num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	cr_assert(json_is_integer(v), "'%s' is not an integer", key);
	return json_integer_value(v);
}

Test(manifest, valid_json_with_the_plan_and_its_sha256)
{
	char sha[65];
	json_t *root, *p, *cmd;

	make(NULL, NULL);
	cr_assert_eq(manifest_write(man, dir), 0);
	root = read_back();
	cr_expect_str_eq(str(root, "fsplan_version"), FSPLAN_VERSION);
	cr_expect_str_eq(str(root, "run_id"), "20260101-000000");
	cr_expect_str_eq(str(root, "status"), "running");
	cr_expect_eq(num(root, "seed"), 7);
	cr_expect_eq(num(root, "repeat"), 2);
	cr_expect_str_eq(str(root, "runas"), "nobody");
	cr_expect(json_is_null(json_object_get(root, "system")));
	cr_expect(json_is_null(json_object_get(root, "target")));
	cmd = json_object_get(root, "command");
	cr_assert_eq(json_array_size(cmd), 5);
	for (int i = 0; i < 5; i++)
		cr_expect_str_eq(json_string_value(json_array_get(cmd, i)),
				 argv_[i]);

	p = json_object_get(root, "plan");
	cr_assert(json_is_object(p));
	sha256sum(plan_path, sha);
	cr_expect_str_eq(str(p, "sha256"), sha, "the plan file's sha256");
	cr_expect_str_eq(str(p, "text"), plan_text);
	cr_expect_str_eq(str(p, "name"), "man");
	cr_expect_str_eq(str(p, "description"), "a manifest's plan");
	cr_expect(strstr(str(p, "path"), "plan.yaml"), "%s", str(p, "path"));
	/* parameters after -D */
	cr_expect_str_eq(str(json_object_get(p, "params"), "size"), "4M");
	cr_expect_eq(num(root, "cells_in_plan"), 2 * (2 + 2));
	json_decref(root);
}

Test(manifest, phases_with_modules_keys_and_configs)
{
	char sha[65], real[PATH_MAX];
	json_t *root, *ph, *mod, *dd, *confs, *c;

	make(NULL, NULL);
	cr_assert_eq(manifest_write(man, dir), 0);
	root = read_back();
	ph = json_object_get(root, "phases");
	cr_assert_eq(json_array_size(ph), 2);
	mod = json_array_get(ph, 0);
	dd = json_array_get(ph, 1);
	cr_expect_str_eq(str(mod, "name"), "mod");
	cr_expect_str_eq(str(mod, "use"), "mod.lua");
	cr_assert_not_null(realpath(module_path, real));
	cr_expect_str_eq(str(mod, "module"), real);
	sha256sum(module_path, sha);
	cr_expect_str_eq(str(mod, "module_sha256"), sha);
	cr_expect_eq(json_array_size(json_object_get(mod, "key")), 2);
	cr_expect_str_eq(json_string_value(json_array_get(
		json_object_get(mod, "key"), 0)), "io_mbs");
	cr_expect_eq(json_real_value(json_object_get(mod, "timeout_s")), 90);
	cr_expect_str_eq(str(dd, "exec"), "dd bs=${size} count=${n}");
	cr_expect_null(json_object_get(dd, "key"), "none was found");
	cr_expect_null(json_object_get(dd, "use"));

	confs = json_object_get(root, "configs");
	cr_assert_eq(json_array_size(confs), 2);
	c = json_array_get(confs, 0);
	cr_expect_eq(num(c, "index"), 1);
	cr_expect_str_eq(str(c, "type"), "ext4");
	cr_expect_str_eq(str(c, "mkfs"), "-O ^has_journal");
	cr_expect_str_eq(str(c, "mount_requested"), "noatime");
	cr_expect_str_eq(str(c, "status"), "pending");
	cr_expect(strstr(str(c, "mkfs_cmd"), "mkfs"), "%s", str(c, "mkfs_cmd"));
	cr_expect(strstr(str(c, "mkfs_cmd"), "-O ^has_journal"));
	cr_expect_null(json_object_get(c, "setup"));
	c = json_array_get(confs, 1);
	cr_expect_str_eq(str(c, "type"), "xfs");
	cr_expect_str_eq(str(c, "setup"), "echo up");
	json_decref(root);
}

Test(manifest, every_selected_cell_with_its_status)
{
	const char *only[] = { "type=xfs" };
	struct diag d = { 0 };
	json_t *root, *cells;
	size_t xfs_first = (size_t)-1;

	/* --only type=xfs: the ext4 cells are not this run's */
	cr_assert_eq(select_cells(ex, only, 1, 0, 0, &d), 0, "%s", d.msg);
	make(NULL, NULL);
	for (size_t i = 0; i < ex->n_cells; i++)
		if (ex->cells[i].selected && xfs_first == (size_t)-1)
			xfs_first = i;
	cr_assert_neq(xfs_first, (size_t)-1);
	manifest_cell(man, xfs_first, MANIFEST_OK, NULL);
	manifest_cell(man, xfs_first + 1, MANIFEST_FAILED, "exit status 1");
	manifest_cell(man, xfs_first + 2, MANIFEST_FAILED, "first");
	manifest_cell(man, xfs_first + 2, MANIFEST_SKIPPED, "");	/* no reason */
	manifest_cell(man, 0, MANIFEST_OK, NULL);	/* not selected: ignored */
	cr_assert_eq(manifest_write(man, dir), 0);

	root = read_back();
	cells = json_object_get(root, "cells");
	cr_assert_eq(json_array_size(cells), ex->n_selected);
	cr_assert_eq(json_array_size(cells), 4);
	cr_expect_eq(num(root, "cells_in_plan"), 8, "every cell of the plan "
		     "is counted");
	for (size_t k = 0; k < json_array_size(cells); k++) {
		json_t *c = json_array_get(cells, k);
		const struct cell *ec = &ex->cells[xfs_first + k];

		cr_expect_eq(num(c, "index"), (json_int_t)ec->index);
		cr_expect_str_eq(str(c, "id"), ec->id);
		cr_expect_eq(num(c, "config"), ex->confs[ec->conf].index);
		cr_expect_str_eq(str(c, "phase"),
				 plan->phases[ec->phase].name);
		cr_expect_eq(num(c, "rep"), ec->rep);
		cr_expect(!strncmp(ec->id, "xfs", 3), "%s", ec->id);
	}
	cr_expect_str_eq(str(json_array_get(cells, 0), "status"), "ok");
	cr_expect_null(json_object_get(json_array_get(cells, 0), "reason"));
	cr_expect_str_eq(str(json_array_get(cells, 1), "status"), "failed");
	cr_expect_str_eq(str(json_array_get(cells, 1), "reason"),
			 "exit status 1");
	cr_expect_str_eq(str(json_array_get(cells, 2), "status"), "skipped");
	cr_expect_null(json_object_get(json_array_get(cells, 2), "reason"),
		       "an empty reason removes the old one");
	cr_expect_str_eq(str(json_array_get(cells, 3), "status"), "pending");
	json_decref(root);
}

/* The names in dir other than plan.yaml and mod.lua, space-separated. */
static void others(char *buf, size_t len)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	cr_assert_not_null(dp);
	buf[0] = '\0';
	while ((de = readdir(dp)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, "plan.yaml") &&
		    strcmp(de->d_name, "mod.lua"))
			n += snprintf(buf + n, len - n, "%s%s", n ? " " : "",
				      de->d_name);
	closedir(dp);
}

Test(manifest, replaced_atomically)
{
	char path[PATH_MAX], names[512], old[65536];
	struct stat st1, st2;
	json_t *root;
	mode_t mask;
	ssize_t n;
	int fd;

	make(json_pack("{s:s}", "kernel", "6.1"), json_pack("{s:s}", "kind",
							     "image"));
	cr_assert_eq(manifest_write(man, dir), 0);
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	cr_assert_eq(stat(path, &st1), 0);
	mask = umask(0);
	umask(mask);
	cr_expect_eq(st1.st_mode & 0777, 0644 & ~mask);
	/* a reader that has it open keeps the whole old one */
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);

	manifest_set(man, "status", json_string("complete"));
	manifest_set(man, "finished", manifest_now());
	manifest_conf(man, 1, "status", json_string("done"));
	cr_assert_eq(manifest_write(man, dir), 0);
	cr_assert_eq(stat(path, &st2), 0);
	cr_expect_neq(st1.st_ino, st2.st_ino, "a new file renamed over, not "
		      "rewritten in place");
	n = read(fd, old, sizeof(old) - 1);
	close(fd);
	cr_assert_gt(n, 0);
	old[n] = '\0';
	cr_expect(strstr(old, "\"status\": \"running\""), "the old one whole");
	cr_expect_eq(old[n - 1], '\n', "ends with a newline");

	root = read_back();
	cr_expect_str_eq(str(root, "status"), "complete");
	cr_expect_eq(strlen(str(root, "finished")), strlen("2026-01-01T00:00:"
		     "00+0000"), "%s", str(root, "finished"));
	cr_expect_str_eq(str(json_array_get(json_object_get(root, "configs"),
					    1), "status"), "done");
	cr_expect_str_eq(str(json_object_get(root, "system"), "kernel"),
			 "6.1");
	cr_expect_str_eq(str(json_object_get(root, "target"), "kind"),
			 "image");
	json_decref(root);
	/* no temp file left behind */
	others(names, sizeof(names));
	cr_expect_str_eq(names, "manifest.json");
}

Test(manifest, a_directory_that_is_not_there)
{
	char missing[300];

	make(NULL, NULL);
	snprintf(missing, sizeof(missing), "%s/nonesuch", dir);
	cr_expect_eq(manifest_write(man, missing), -ENOENT);
	cr_expect_eq(access(missing, F_OK), -1, "nothing made");
}

Test(manifest, plan_sha_read_back)
{
	char want[65], got[65] = "", path[PATH_MAX];
	FILE *f;

	cr_expect_eq(manifest_read_plan_sha(dir, got), -1, "no manifest yet");
	make(NULL, NULL);
	cr_assert_eq(manifest_write(man, dir), 0);
	cr_assert_eq(manifest_read_plan_sha(dir, got), 0);
	sha256sum(plan_path, want);
	cr_expect_str_eq(got, want);

	/* what --resume must not trust */
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("{\"plan\": {\"sha256\": \"abc\"}}\n", f);
	fclose(f);
	cr_expect_eq(manifest_read_plan_sha(dir, got), -1, "a short sha");
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("{\"plan\": {\"sha256\": ", f);
	fclose(f);
	cr_expect_eq(manifest_read_plan_sha(dir, got), -1, "torn JSON");
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("{\"plan\": \"x\"}\n", f);
	fclose(f);
	cr_expect_eq(manifest_read_plan_sha(dir, got), -1, "no sha at all");
}

/* A resume remakes only the configs it has cells of; the manifest keeps
 * what the first run recorded of the others, and says a config whose
 * every cell finished before the stop is done. */
Test(manifest, a_resume_keeps_the_configs_it_does_not_remake)
{
	json_t *root, *confs;

	make(NULL, NULL);
	manifest_conf(man, 0, "status", json_string("done"));
	manifest_conf(man, 0, "mkfs_s", json_real(0.25));
	manifest_conf(man, 0, "mount_applied", json_string("rw,noatime"));
	/* the stop came after config 2's last cell, before its status */
	manifest_conf(man, 1, "status", json_string("interrupted"));
	for (size_t i = 0; i < ex->n_cells; i++)
		manifest_cell(man, i, MANIFEST_OK, NULL);
	cr_assert_eq(manifest_write(man, dir), 0);
	manifest_free(man);

	make(NULL, NULL);
	cr_assert_eq(manifest_resume(man, dir), 0);
	cr_assert_eq(manifest_write(man, dir), 0);
	root = read_back();
	confs = json_object_get(root, "configs");
	cr_expect_str_eq(str(json_array_get(confs, 0), "status"), "done");
	cr_expect_str_eq(str(json_array_get(confs, 0), "mount_applied"),
			 "rw,noatime");
	cr_expect_eq(json_real_value(json_object_get(json_array_get(confs, 0),
						     "mkfs_s")), 0.25);
	cr_expect_str_eq(str(json_array_get(confs, 1), "status"), "done");
	json_decref(root);
}

/* order: rounds makes a config anew each round: each round's figures
 * stay, in the config's "rounds". */
Test(manifest, each_round_keeps_its_own_figures)
{
	json_t *root, *rounds;

	make(NULL, NULL);
	manifest_conf_round(man, 1, 2, "mkfs_s", json_real(0.5));
	manifest_conf_round(man, 1, 1, "mkfs_s", json_real(0.75));
	manifest_conf_round(man, 1, 1, "mount_s", json_real(0.125));
	cr_assert_eq(manifest_write(man, dir), 0);
	root = read_back();
	rounds = json_object_get(json_array_get(json_object_get(root,
		"configs"), 1), "rounds");
	cr_assert_eq(json_array_size(rounds), 2);
	cr_expect_eq(json_real_value(json_object_get(json_array_get(rounds, 0),
						     "mkfs_s")), 0.75);
	cr_expect_eq(json_real_value(json_object_get(json_array_get(rounds, 0),
						     "mount_s")), 0.125);
	cr_expect_eq(json_real_value(json_object_get(json_array_get(rounds, 1),
						     "mkfs_s")), 0.5);
	json_decref(root);
}
