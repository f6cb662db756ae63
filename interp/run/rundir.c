/* rundir: the run directory — where it goes, made new or checked for a resume, or discarded. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "results/csv.h"
#include "results/manifest.h"
#include "run/rundir.h"
#include "util/sha256.h"

static const struct pos nowhere;

/* mkdir -p of everything above path. */
static int mkdir_parents(const char *path)
{
	char buf[PATH_MAX];

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return 0;
}

static void count_row(void *ctx, const char *cell, const char *status)
{
	(void)cell;
	(void)status;
	++*(int *)ctx;
}

/* Whether dir has a results.csv with no phase run's status in it. */
static int nothing_finished(const char *dir)
{
	char path[PATH_MAX + 32];
	struct diag d;
	int n = 0;

	if (snprintf(path, sizeof(path), "%s/results.csv", dir) >=
	    (int)sizeof(path) || access(path, F_OK) || csv_read_status(path, count_row, &n, &d))
		return 0;
	return n == 0;
}

/* Where the run goes, and for a resume whether it is this plan's. */
static int choose(const struct plan *p, const char *out, const char *resume,
		  char *path, size_t len, struct diag *d)
{
	char stamp[32], sha[65], old[65];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	if (resume)
		n = snprintf(path, len, "%s", resume);
	else if (out)
		n = snprintf(path, len, "%s", out);
	else
		n = snprintf(path, len, "results/%s-%s", p->name,
			     localtime_r(&now, &tm) &&
			     strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S",
				      &tm) ? stamp : "now");
	if (n < 0 || (size_t)n >= len)
		return diag_set(d, NULL, NULL, nowhere, "the run directory's "
				"name is too long: %.200s...", path);
	if (!resume)
		return 0;
	sha256_hex(p->text, p->text_len, sha);
	if (manifest_read_plan_sha(path, old)) {
		/* killed before its manifest was written: nothing finished
		 * there, so there is nothing the plan must match */
		if (nothing_finished(path))
			return 0;
		return diag_set(d, path, NULL, nowhere, "no manifest.json "
				"here to resume from");
	}
	if (strcmp(sha, old))
		return diag_set(d, path, NULL, nowhere, "the plan has changed "
				"since this run (sha256 differs): cannot "
				"resume it");
	return 0;
}

int rundir_make(const struct plan *p, const char *out, const char *resume,
		char *dir, struct diag *d)
{
	char path[PATH_MAX + 32];

	if (choose(p, out, resume, path, sizeof(path), d))
		return -1;
	if (!resume && (mkdir_parents(path) || mkdir(path, 0755)))
		return diag_set(d, path, NULL, nowhere, "cannot make it: %s%s",
				strerror(errno), errno == EEXIST ?
				" (use --resume to continue a run)" : "");
	if (!realpath(path, dir))
		return diag_set(d, path, NULL, nowhere, "cannot resolve it: %s",
				strerror(errno));
	/* dir is under PATH_MAX, so the name is not cut short */
	snprintf(path, sizeof(path), "%s/exec", dir);
	if (mkdir(path, 0755) && errno != EEXIST)
		return diag_set(d, path, NULL, nowhere, "cannot make it: %s",
				strerror(errno));
	return 0;
}

void rundir_discard(const char *dir)
{
	static const char *const files[] = { "results.csv", "log.txt" };
	static const char *const dirs[] = { "exec", "" };
	char path[PATH_MAX + 32];

	/* best effort: what cannot go stays, as an empty run directory */
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		(void)unlink(path);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, dirs[i]);
		(void)rmdir(path);
	}
}
