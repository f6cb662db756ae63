/* cmd_rerun: fsplan rerun — a packed or kept run again, compared. */
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
#include "report/compare.h"
#include "results/manifest.h"
#include "util/exitcode.h"
#include "util/file.h"

struct rerun_opts {
	const char *src;
	const char *out;
	const char *destroy;
	struct opt_list defs;
};

static const char rerun_help[] =
"Run a study again: SRC is a run directory, or an archive from fsplan\n"
"pack (unpacked into a private directory, kept as DIR/packed; a member\n"
"with an absolute path or .., or a link, is refused). Every file the manifest names by sha256 (the\n"
"plan, modules, exec scripts, parsers, input files) is checked and laid\n"
"out in DIR at the same places (DIR/plan/, DIR/lib/, the phase library\n"
"then being DIR/lib); a file whose sha256 differs from the manifest's\n"
"is refused with its name. Then the plan runs with the manifest's -D\n"
"parameters, --only and --shard into DIR/run, fsplan compare shows the\n"
"original against the new run, and one line gives the verdict:\n"
"\"reproduced: no key metric differs significantly\" or \"differs on N of\n"
"M metrics: ...\", or \"cannot tell\" when no key metric has 2\n"
"repetitions on both sides, with where the machines differ (kernel,\n"
"CPU, tool versions, target).\n"
"\n"
"  -o, --output DIR   the work directory (new); rerun-RUNID by default\n"
"  -D name=value      a parameter over the recorded one (a what-if)\n"
"  --destroy DEV      as fsplan run's, for a plan on a device\n"
"\n"
"Exit 0 when reproduced, 1 when it differs, cannot tell or the run\n"
"failed, 2 on a usage error, 3 when a file's sha256 differs from the\n"
"manifest's.\n";

static const struct opt rerun_opts_table[] = {
	OPT_STRING_OF("output", 'o', struct rerun_opts, out),
	OPT_STRING_OF("destroy", 0, struct rerun_opts, destroy),
	OPT_LIST_OF("define", 'D', struct rerun_opts, defs),
	OPT_END
};

const struct opts_cmd rerun_cmd = {
	"rerun", "rerun RUNDIR|FILE.tar.gz [-o DIR] [-D name=value]...\n"
	"[--destroy DEV]", rerun_help, rerun_opts_table,
	"a RUNDIR or FILE.tar.gz", 0, offsetof(struct rerun_opts, src),
	"run a packed or kept run again and compare it with the original"
};

/* Whether tar's member list (in the file at fd's path) is safe. */
static int members_safe(FILE *f, struct diag *d)
{
	char line[PATH_MAX + 2];

	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '/' || !strcmp(line, "..") ||
		    !strncmp(line, "../", 3) || strstr(line, "/../") ||
		    (strlen(line) >= 3 &&
		     !strcmp(line + strlen(line) - 3, "/..")))
			return diag_fail(d, DIAG_REFUSED, 0, "the archive has "
					 "a member outside it: %s", line);
	}
	return 0;
}

/* tar's listing (-tzf, or -tvzf when verbose) of file into a tmpfile. */
static FILE *listing(const char *file, int verbose, struct diag *d)
{
	/* --force-local: an archive named host:path is a file, not rsh's */
	const char *list[] = { "tar", "--force-local", verbose ? "-tvzf" :
			       "-tzf", file, NULL };
	FILE *f = tmpfile();

	if (!f) {
		diag_fail(d, DIAG_SYSTEM, errno, "tmpfile");
		return NULL;
	}
	if (packfiles_spawn(list, NULL, fileno(f))) {
		fclose(f);
		diag_fail(d, DIAG_INPUT, 0, "%s: not an archive tar reads",
			  file);
		return NULL;
	}
	return f;
}

/* Only regular files and folders: a link could lead a later member out. */
static int members_plain(FILE *f, struct diag *d)
{
	char line[PATH_MAX + 128];

	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (line[0] != '-' && line[0] != 'd')
			return diag_fail(d, DIAG_REFUSED, 0, "the archive has "
					 "a member that is not a file or a "
					 "folder: %.*s", (int)strcspn(line,
					 "\n"), line);
	return 0;
}

/* Unpack the archive into the fresh private directory dir. */
static int unpack(const char *file, const char *dir, struct diag *d)
{
	const char *x[] = { "tar", "--force-local", "--no-same-owner",
		"--no-same-permissions", "-xzf", file, "-C", dir, NULL };
	FILE *f = listing(file, 0, d), *v = f ? listing(file, 1, d) : NULL;
	int rc = !v ? -1 : members_safe(f, d) || members_plain(v, d);

	if (f)
		fclose(f);
	if (v)
		fclose(v);
	if (!rc && packfiles_spawn(x, NULL, -1))
		rc = diag_fail(d, DIAG_INPUT, 0, "%s: tar could not unpack it",
			       file);
	return rc ? -1 : 0;
}

/* Lay the plan and its files out in work: from the archive's files/
 * (files not NULL; lib the packer's library) or from where they were. */
static int lay_out(json_t *man, const char *files, const char *lib,
		   const char *work, struct packlist *l, struct diag *d)
{
	char src[PATH_MAX];

	if (packfiles_list(man, lib, l, d))
		return -1;
	for (size_t i = 0; i < l->n; i++) {
		int n = snprintf(src, sizeof(src), "%s/%s", files ?: "",
				 l->f[i].rel);

		if (n < 0 || (size_t)n >= sizeof(src))
			return diag_fail(d, DIAG_INPUT, ENAMETOOLONG, "%s",
					 l->f[i].path);
		if (packfiles_copy(&l->f[i], files ? src : l->f[i].path, work,
				   d))
			return -1;
	}
	return 0;
}

/* Whether def (name=value) names a parameter one of over sets. */
static int overridden(const char *def, const struct opt_list *over)
{
	size_t n = strcspn(def, "=");

	for (int i = 0; i < over->n; i++)
		if (!strncmp(over->v[i], def, n) && over->v[i][n] == '=')
			return 1;
	return 0;
}

/* fsplan run of the laid-out plan with the recorded selection. */
static int run_again(json_t *man, const struct rerun_opts *o,
		     const char *plan, const char *newrun, const char *env)
{
	json_t *sel = json_object_get(man, "selection"), *v;
	const char *argv[256];
	int n = 0;
	size_t i;

	argv[n++] = "/proc/self/exe";
	argv[n++] = "run";
	argv[n++] = plan;
	argv[n++] = "-o";
	argv[n++] = newrun;
	argv[n++] = "-q";
	json_array_foreach(json_object_get(sel, "defines"), i, v)
		if (n < 200 && json_is_string(v) &&
		    !overridden(json_string_value(v), &o->defs)) {
			argv[n++] = "-D";
			argv[n++] = json_string_value(v);
		}
	for (int k = 0; k < o->defs.n && n < 220; k++) {
		argv[n++] = "-D";
		argv[n++] = o->defs.v[k];
	}
	json_array_foreach(json_object_get(sel, "only"), i, v)
		if (n < 240 && json_is_string(v)) {
			argv[n++] = "--only";
			argv[n++] = json_string_value(v);
		}
	if (json_is_string(json_object_get(sel, "shard"))) {
		argv[n++] = "--shard";
		argv[n++] = json_string_value(json_object_get(sel, "shard"));
	}
	if (o->destroy) {
		argv[n++] = "--destroy";
		argv[n++] = o->destroy;
	}
	argv[n] = NULL;
	return packfiles_spawn(argv, env, -1);
}

/* A line under "reproduced" when compare marks more metrics at 0.05
 * each than chance would (compare_family_leans): no one metric holds for
 * them all, but the runs may differ as a whole (a machine's state, its
 * caches), and the reader should know which way. */
static void leaning(const struct compare_family *fam)
{
	size_t tested = fam->compared - fam->untold;

	if (!compare_family_leans(fam))
		return;
	printf("but: compare marks %zu of the %zu tested at 0.05 each "
	       "(%zu better, %zu worse), %.0f%% where chance marks 5%%: "
	       "the new run may differ as a whole, which no one metric "
	       "shows\n", fam->marked, tested, fam->marked_better,
	       fam->marked - fam->marked_better,
	       100.0 * (double)fam->marked / (double)tested);
}

/* compare ORIG NEW, shown, and the verdict line: Holm's correction over
 * the key metrics, so that "reproduced" is said at 0.05 for them all
 * together. 0 reproduced, 1 not (a difference, or nothing that could be
 * tested). */
static int compare_runs(const char *orig, const char *newrun)
{
	const char *dirs[] = { orig, newrun, NULL };
	struct compare_opts o = { .dirs = { dirs, 2 },
				  .alpha = 0.05, .fmt = FMT_TEXT };
	struct compare_family fam;
	struct strbuf notes = { 0 };
	struct diag d = { 0 };
	int rc = compare_run(&o, &notes, &d);

	cmd_notes(stderr, "compare", &notes);
	free(notes.p);
	fflush(stdout);
	if (rc < 0 || compare_family(&o, &fam, &d)) {
		cmd_fail_named(stderr, "compare", &d);
		diag_release(&d);
		printf("cannot tell: compare gave no verdict\n");
		return 1;
	}
	if (!fam.differ && fam.untold == fam.compared)
		printf("cannot tell: none of the %zu key metrics has 2 "
		       "repetitions on both sides to test (repeat: 2 or "
		       "more)\n", fam.compared);
	else if (!fam.differ)
		printf("reproduced: no key metric differs significantly "
		       "(%zu compared, %zu of them cannot tell; 0.05 for "
		       "them all, Holm's correction%s)\n", fam.compared,
		       fam.untold, fam.marked ? ", which keeps none of the "
		       "differences compare marks at 0.05 each" : "");
	if (!fam.differ && fam.marked)
		leaning(&fam);
	if (fam.differ)
		printf("differs on %zu of %zu metrics (0.05 for them all, "
		       "Holm's correction; compare marks %zu at 0.05 each): "
		       "%s\n", fam.differ, fam.compared, fam.marked,
		       fam.which.p ? fam.which.p : "");
	free(fam.which.p);
	return fam.differ || fam.untold == fam.compared;
}

/* Whether the new run (now) read a file the original (was) did not, by
 * sha256: a module the plan names by its absolute path reads this
 * machine's copy, not the packed one. Each such file said. */
static int other_code(json_t *was, json_t *now)
{
	json_t *a, *b;
	size_t i, j;
	int other = 0;

	json_array_foreach(json_object_get(now, "code"), i, a) {
		const char *sha = json_string_value(json_object_get(a,
							"sha256"));
		int found = 0;

		json_array_foreach(json_object_get(was, "code"), j, b)
			found |= sha && json_equal(json_object_get(b, "sha256"),
						   json_object_get(a, "sha256"));
		if (found)
			continue;
		printf("the new run read %s (sha256 %.12s...), which the "
		       "original did not read\n", json_string_value(
		       json_object_get(a, "path")) ?: "?", sha ?: "none");
		other++;
	}
	return other;
}

/* One fact of the two manifests' machines, printed when it differs. */
static int fact(const char *what, json_t *a, json_t *b)
{
	char *sa, *sb;

	if (json_equal(a, b) || (!a && !b))
		return 0;
	sa = json_is_string(a) ? strdup(json_string_value(a)) :
	     a ? json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	sb = json_is_string(b) ? strdup(json_string_value(b)) :
	     b ? json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	printf("machines differ: %s: %s then, %s now\n", what,
	       sa ?: "(none)", sb ?: "(none)");
	free(sa);
	free(sb);
	return 1;
}

static void machines(json_t *was, json_t *now)
{
	static const char *const sys[] = { "kernel", "cpu_model", "cores",
		"mem_bytes", "distribution", NULL };
	json_t *a = json_object_get(was, "system"),
	       *b = json_object_get(now, "system"), *v;
	json_t *ta = json_object_get(a, "tools"), *tb = json_object_get(b,
								  "tools");
	const char *k;
	char what[160];
	int n = 0;

	for (int i = 0; sys[i]; i++)
		n += fact(sys[i], json_object_get(a, sys[i]),
			  json_object_get(b, sys[i]));
	json_object_foreach(ta, k, v) {
		snprintf(what, sizeof(what), "tool %s", k);
		n += fact(what, v, json_object_get(tb, k));
	}
	json_object_foreach(tb, k, v)
		if (!json_object_get(ta, k)) {
			snprintf(what, sizeof(what), "tool %s", k);
			n += fact(what, NULL, v);
		}
	/* the target without its workdir: each run's own directory */
	ta = json_deep_copy(json_object_get(was, "target"));
	tb = json_deep_copy(json_object_get(now, "target"));
	json_object_del(ta, "workdir");
	json_object_del(tb, "workdir");
	n += fact("target", ta, tb);
	json_decref(ta);
	json_decref(tb);
	if (!n)
		printf("machines: the same kernel, CPU, memory, tools and "
		       "target\n");
}

/* Where the original run and its files are: SRC itself, or SRC unpacked
 * into tmp. orig, files and lib are set (files NULL for a directory). */
static int find_source(const char *src, char *tmp, char *orig, char *files,
		       char *lib, struct diag *d)
{
	struct stat st;
	json_t *idx;

	if (stat(src, &st))
		return diag_fail(d, DIAG_INPUT, errno, "%s", src);
	if (S_ISDIR(st.st_mode)) {
		snprintf(orig, PATH_MAX, "%s", src);
		files[0] = 0;
		lib[0] = 0;
		return 0;
	}
	if (!mkdtemp(tmp))
		return diag_fail(d, DIAG_SYSTEM, errno, "mkdtemp");
	if (unpack(src, tmp, d))
		return -1;
	snprintf(orig, PATH_MAX, "%s/run", tmp);
	snprintf(files, PATH_MAX, "%s/files", tmp);
	snprintf(lib, PATH_MAX, "%s/pack.json", tmp);
	idx = json_load_file(lib, 0, NULL);
	if (!idx)
		return diag_fail(d, DIAG_INPUT, 0, "%s: no pack.json: not "
				 "made by fsplan pack", src);
	snprintf(lib, PATH_MAX, "%s",
		 json_string_value(json_object_get(idx, "lib")) ?: "");
	json_decref(idx);
	return 0;
}

/* Lay out, run and compare; 0 reproduced, 1 not, -1 with d. */
static int rerun_in(json_t *man, const struct rerun_opts *o,
		    const char *orig, const char *files, const char *lib,
		    const char *work, struct diag *d)
{
	char plan[2 * PATH_MAX], newrun[2 * PATH_MAX], abs[PATH_MAX];
	char env[2 * PATH_MAX];
	struct packlist l;
	json_t *now;
	int rc, haslib = 0;

	if (lay_out(man, *files ? files : NULL, lib, work, &l, d) ||
	    !realpath(work, abs)) {
		packfiles_free(&l);
		return -1;
	}
	for (size_t i = 0; i < l.n; i++)
		haslib |= !strncmp(l.f[i].rel, "lib/", 4);
	snprintf(plan, sizeof(plan), "%s/%s", abs, l.plan_rel);
	snprintf(newrun, sizeof(newrun), "%s/run", abs);
	snprintf(env, sizeof(env), "FSPLAN_LIB=%s/lib", abs);
	packfiles_free(&l);
	rc = run_again(man, o, plan, newrun, haslib ? env : NULL);
	if (rc && rc != EXIT_FAILED)
		return diag_fail(d, DIAG_PHASE, 0, "the run again failed "
				 "(exit %d)", rc);
	now = manifest_load(newrun, NULL);
	if (now && other_code(man, now)) {
		printf("cannot tell: the new run did not read the code the "
		       "original did (a file the plan names by its absolute "
		       "path is this machine's, not the packed one)\n");
		rc = 1;
	} else {
		rc = compare_runs(orig, newrun);
	}
	machines(man, now);
	json_decref(now);
	return rc;
}

/* The unpacked archive moved into work/packed, where it stays beside
 * the new run (when both are on one filesystem; else it goes at the
 * end): orig and files follow it, and tmp is no longer to remove. */
static void keep_packed(char *tmp, const char *work, char *orig,
			char *files)
{
	char to[PATH_MAX - 16];
	int n = snprintf(to, sizeof(to), "%s/packed", work);

	if (n < 0 || (size_t)n >= sizeof(to) || rename(tmp, to))
		return;
	snprintf(orig, PATH_MAX, "%s/run", to);
	snprintf(files, PATH_MAX, "%s/files", to);
	tmp[0] = 0;
}

static int rerun_go(const struct rerun_opts *o, struct diag *d)
{
	char tmp[] = "/tmp/fsplan-rerun.XXXXXX", orig[PATH_MAX];
	char files[PATH_MAX], lib[PATH_MAX], work[PATH_MAX];
	json_t *man = NULL;
	int rc = find_source(o->src, tmp, orig, files, lib, d);

	if (!rc && !(man = manifest_load(orig, NULL)))
		rc = diag_fail(d, DIAG_INPUT, 0, "%s: no manifest.json to read",
			       orig);
	if (!rc && !files[0])
		packfiles_libdir(man, lib, PATH_MAX);
	if (!rc)
		snprintf(work, sizeof(work), o->out ? "%s" : "rerun-%s",
			 o->out ?: json_string_value(json_object_get(
				 man, "run_id")) ?: "run");
	if (!rc && mkdir(work, 0755))
		rc = diag_fail(d, DIAG_INPUT, errno, "%s", work);
	else if (!rc && files[0])
		keep_packed(tmp, work, orig, files);
	if (rc)
		;
	else if (!rc && (rc = rerun_in(man, o, orig, files, lib, work, d)) < 0)
		packfiles_rmtree(work);
	if (tmp[0] && strcmp(tmp, "/tmp/fsplan-rerun.XXXXXX"))
		packfiles_rmtree(tmp);
	json_decref(man);
	return rc;
}

int cmd_rerun(int argc, char **argv)
{
	struct rerun_opts o = { 0 };
	struct diag d = { 0 };
	int rc = opts_parse(&rerun_cmd, argc, argv, &o);

	if (rc == OPTS_GO) {
		rc = rerun_go(&o, &d);
		if (rc < 0)
			rc = d.kind == DIAG_REFUSED ? EXIT_REFUSED :
			     d.kind == DIAG_INPUT ? EXIT_USAGE : EXIT_FAILED;
	}
	if (rc && d.msg[0])
		cmd_fail_named(stderr, "rerun", &d);
	diag_release(&d);
	opts_free(&rerun_cmd, &o);
	return rc;
}
