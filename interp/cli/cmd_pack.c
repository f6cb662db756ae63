/* cmd_pack: fsplan pack — a run directory and its code files in one tar.gz. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/packfiles.h"
#include "results/manifest.h"
#include "util/exitcode.h"
#include "util/sha256.h"

struct pack_opts {
	const char *rundir;
	const char *out;
};

static const char pack_help[] =
"Pack the run directory RUNDIR with every file its manifest names by\n"
"sha256 (the plan, its Lua modules, exec scripts, parsers, input files,\n"
"files:) into one gzipped tar FILE, which `fsplan rerun` runs again\n"
"anywhere. The archive holds:\n"
"\n"
"  run/        the run directory: results.csv, manifest.json, log.txt,\n"
"              timeseries.csv, histograms.csv, bonnie.csv, exec/ (regular\n"
"              files only: a link is left out; never aged/ images)\n"
"  files/      each file: plan/REL beside the plan, lib/REL in the phase\n"
"              library, abs/PATH elsewhere\n"
"  pack.json   each file's path when it ran, its place and its sha256\n"
"\n"
"Each file's sha256 is checked against the manifest while packing: a\n"
"file changed since the run is refused with its name.\n"
"\n"
"  -o, --output FILE  the archive to write (GNU tar, gzip)\n"
"\n"
"Exit 0, 2 on a usage error or a run directory that cannot be read, 3\n"
"when a file changed since the run.\n";

static const struct opt pack_opts_table[] = {
	OPT_STRING_OF("output", 'o', struct pack_opts, out),
	OPT_END
};

const struct opts_cmd pack_cmd = {
	"pack", "pack RUNDIR -o FILE.tar.gz", pack_help, pack_opts_table,
	"a RUNDIR", 0, offsetof(struct pack_opts, rundir),
	"pack a run directory and the files it ran into one archive"
};

static const char *const run_files[] = {
	"results.csv", "manifest.json", "log.txt", "timeseries.csv",
	"histograms.csv", "bonnie.csv", NULL
};

/* Copy the regular file src/name (not a link) into dst/name, unchecked. */
static int copy_plain(const char *src, const char *dst, const char *name,
		      struct diag *d)
{
	char from[PATH_MAX], sha[65] = "";
	struct packfile f = { from, (char *)name, sha, "run file" };
	struct stat st;

	snprintf(from, sizeof(from), "%s/%s", src, name);
	if (lstat(from, &st) || !S_ISREG(st.st_mode))
		return 0;
	if (sha256_file(from, sha))
		return diag_fail(d, DIAG_INPUT, errno, "%s", from);
	return packfiles_copy(&f, from, dst, d);
}

/* The run directory's own files and exec/ into stage/run. */
static int copy_run(const char *rundir, const char *stage, struct diag *d)
{
	char dst[PATH_MAX], src[PATH_MAX], name[NAME_MAX + 8];
	struct dirent *de;
	DIR *dir;
	int rc = 0;

	snprintf(dst, sizeof(dst), "%s/run", stage);
	if (mkdir(dst, 0755))
		return diag_fail(d, DIAG_SYSTEM, errno, "%s", dst);
	for (int i = 0; !rc && run_files[i]; i++)
		rc = copy_plain(rundir, dst, run_files[i], d);
	snprintf(src, sizeof(src), "%s/exec", rundir);
	if (rc || !(dir = opendir(src)))
		return rc;
	while (!rc && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "exec/%s", de->d_name);
		rc = copy_plain(rundir, dst, name, d);
	}
	closedir(dir);
	return rc;
}

/* The code files under stage/files and their index, stage/pack.json. */
static int copy_code(json_t *man, const char *stage, struct diag *d)
{
	struct packlist l;
	char files[PATH_MAX], lib[PATH_MAX] = "";
	json_t *idx, *a = json_array();
	int rc;

	packfiles_libdir(man, lib, sizeof(lib));
	rc = packfiles_list(man, lib, &l, d);

	snprintf(files, sizeof(files), "%s/files", stage);
	for (size_t i = 0; !rc && i < l.n; i++) {
		char in[PATH_MAX];

		rc = packfiles_copy(&l.f[i], l.f[i].path, files, d);
		snprintf(in, sizeof(in), "files/%s", l.f[i].rel);
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s}",
			"path", l.f[i].path, "archive", in,
			"sha256", l.f[i].sha, "kind", l.f[i].kind));
	}
	idx = json_pack("{s:s, s:s, s:s, s:s?, s:o}", "root", l.root,
			"lib", lib,
			"plan", l.plan_rel ?: "", "run_id",
			json_string_value(json_object_get(man, "run_id")),
			"files", a);
	snprintf(files, sizeof(files), "%s/pack.json", stage);
	if (!rc && (!idx || json_dump_file(idx, files, JSON_INDENT(1))))
		rc = diag_fail(d, DIAG_SYSTEM, errno, "%s", files);
	json_decref(idx);
	packfiles_free(&l);
	return rc;
}

static int pack_run(const struct pack_opts *o, struct diag *d)
{
	char stage[] = "/tmp/fsplan-pack.XXXXXX", part[PATH_MAX];
	json_error_t err;
	struct stat st;
	json_t *man = manifest_load(o->rundir, &err);
	int rc;

	if (!man)
		return diag_fail(d, DIAG_INPUT, 0, "%s: no manifest.json to "
				 "read: %s", o->rundir, err.text);
	if (!lstat(o->out, &st) && !S_ISREG(st.st_mode)) {
		json_decref(man);
		return diag_fail(d, DIAG_REFUSED, 0, "%s is not a regular "
				 "file: pack writes a new archive or replaces "
				 "one, nothing else", o->out);
	}
	if (snprintf(part, sizeof(part), "%s.part-%d", o->out,
		     (int)getpid()) >= (int)sizeof(part)) {
		json_decref(man);
		return diag_fail(d, DIAG_INPUT, 0, "%s: too long", o->out);
	}
	if (!mkdtemp(stage)) {
		json_decref(man);
		return diag_fail(d, DIAG_SYSTEM, errno, "mkdtemp");
	}
	rc = copy_run(o->rundir, stage, d) || copy_code(man, stage, d);
	if (!rc) {
		/* written aside and renamed: tar never opens o->out, and
		 * --force-local keeps a name with a colon a local file */
		const char *tar[] = { "tar", "--force-local", "--sort=name",
			"--owner=0", "--group=0", "--numeric-owner", "-czf",
			part, "-C", stage, "pack.json", "run", "files", NULL };

		if (packfiles_spawn(tar, NULL, -1) || rename(part, o->out))
			rc = diag_fail(d, DIAG_SYSTEM, errno, "could not "
				       "write %s", o->out);
		unlink(part);
	}
	packfiles_rmtree(stage);
	json_decref(man);
	return rc ? -1 : 0;
}

int cmd_pack(int argc, char **argv)
{
	struct pack_opts o = { NULL, NULL };
	struct diag d = { 0 };
	int rc = opts_parse(&pack_cmd, argc, argv, &o);

	if (rc == OPTS_GO && !o.out)
		rc = opts_usage("pack", "%s", "-o FILE is required: the "
				"archive to write");
	if (rc == OPTS_GO && pack_run(&o, &d))
		rc = d.kind == DIAG_REFUSED ? EXIT_REFUSED : EXIT_USAGE;
	else if (rc == OPTS_GO)
		rc = EXIT_OK;
	if (rc && d.msg[0])
		cmd_fail_named(stderr, "pack", &d);
	diag_release(&d);
	opts_free(&pack_cmd, &o);
	return rc;
}
