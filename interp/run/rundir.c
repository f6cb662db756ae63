/* rundir: the run directory — where it goes, made new or checked for a resume,
 * locked for one writer, or discarded. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "results/csv.h"
#include "results/manifest.h"
#include "run/rundir.h"
#include "util/file.h"
#include "util/lockfile.h"
#include "util/sha256.h"

static const struct pos nowhere;

/* The lock file of a run directory: the run that holds it writes there. */
#define LOCK_NAME ".lock"
/* How long a lock whose holder is gone is waited for. */
#define LOCK_WAIT_S 10

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

/* Whether path is a symbolic link: a run directory is never one, so
 * that what fsplan writes lands where -o or --resume says. */
static int refuse_link(const char *path, struct diag *d)
{
	struct stat st;

	if (lstat(path, &st) || !S_ISLNK(st.st_mode))
		return 0;
	return diag_set(d, path, NULL, nowhere, "is a symbolic link: fsplan "
			"writes a run directory's files, and the directory, "
			"never through one");
}

/* Whether a file a resume reads and writes in dir is a symbolic link:
 * fsplan never writes through one (its opens say O_NOFOLLOW), and a
 * resume says so before it begins rather than when it meets one. */
static int refuse_links_in(const char *dir, struct diag *d)
{
	static const char *const files[] = { "results.csv", "manifest.json",
					     "log.txt", "bonnie.csv" };
	char path[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (snprintf(path, sizeof(path), "%s/%s", dir, files[i]) <
		    (int)sizeof(path) && refuse_link(path, d))
			return -1;
	return 0;
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
	if (refuse_link(path, d))
		return -1;
	if (!resume)
		return 0;
	if (refuse_links_in(path, d))
		return -1;
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
		return diag_set(d, path, NULL, nowhere, "plan %s changed since "
				"the run started: sha256 %s in the manifest, "
				"%s now: cannot resume it", p->file, old, sha);
	return 0;
}

/* fd's lock taken (1), or held by another run (0: d says whose), or
 * -1 with d filled. A run whose fsplan is dead lets go as soon as its
 * namespace is gone (a SIGKILL then at once a --resume): waited for. */
static int try_lock(int fd, const char *dir, struct diag *d)
{
	pid_t other;
	int taken = lockfile_take(fd, LOCK_EX, LOCK_WAIT_S, &other);

	if (taken < 0)
		return diag_set(d, dir, NULL, nowhere, "cannot lock it: %s",
				strerror(-taken));
	if (taken == LOCKFILE_TAKEN)
		return 1;
	if (taken == LOCKFILE_LEFT)
		diag_set(d, dir, NULL, nowhere, "is in use by what is left of "
			 "fsplan run (pid %d), which is gone: try again when "
			 "its processes are", (int)other);
	else if (other > 0)
		diag_set(d, dir, NULL, nowhere, "is in use by fsplan run "
			 "(pid %d)", (int)other);
	else
		diag_set(d, dir, NULL, nowhere, "is in use by fsplan run");
	return 0;
}

/* Whether fd is still the file at path: a run that ends removes its
 * lock file, and a lock taken on the removed one locks nothing. */
static int still_there(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !lstat(path, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/*
 * Take dir's lock, or say which run holds it. An flock on dir/.lock, open
 * with O_CLOEXEC: shared by the forks that do the run (the namespace and
 * its init), closed in every tool and phase (exec, privdrop's
 * close_range), released by the kernel when the last of them exits, by
 * whatever means. Returns the fd, or -1 with d filled.
 */
static int lock_dir(const char *dir, struct diag *d)
{
	char path[PATH_MAX + 32];
	int fd, err;

	if (snprintf(path, sizeof(path), "%s/%s", dir, LOCK_NAME) >=
	    (int)sizeof(path))
		return diag_set(d, dir, NULL, nowhere, "its name is too long");
	for (;;) {
		fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
			  0644);
		if (fd < 0)
			return diag_set(d, path, NULL, nowhere, "cannot lock "
					"the run directory: %s", errno == ELOOP
					? "it is a symbolic link" :
					strerror(errno));
		if (try_lock(fd, dir, d) != 1) {
			close(fd);
			return -1;
		}
		if (still_there(fd, path))
			break;
		close(fd);
	}
	err = lockfile_say(fd, getpid(), "");
	if (err) {
		close(fd);
		return diag_set(d, path, NULL, nowhere, "cannot write it: %s",
				strerror(-err));
	}
	return fd;
}

/* Whether a run holds dir's lock now (d says whose), leaving nothing
 * made or written there: a fresh -o onto a run's directory says so. */
static int in_use(const char *dir, struct diag *d)
{
	char path[PATH_MAX + 32];
	int fd, rc;

	if (snprintf(path, sizeof(path), "%s/%s", dir, LOCK_NAME) >=
	    (int)sizeof(path))
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	rc = try_lock(fd, dir, d);
	close(fd);
	return rc == 0;
}

int rundir_make(const struct plan *p, const char *out, const char *resume,
		char *dir, int *lock, struct diag *d)
{
	char path[PATH_MAX + 32];
	struct stat st;

	*lock = -1;
	if (choose(p, out, resume, path, sizeof(path), d))
		return -1;
	if (!resume && (mkdir_parents(path) || mkdir(path, 0755))) {
		int err = errno;

		if (err == EEXIST && in_use(path, d))
			return -1;
		return diag_set(d, path, NULL, nowhere, "cannot make it: %s%s",
				strerror(err), err == EEXIST ?
				" (use --resume to continue a run)" : "");
	}
	if (!realpath(path, dir))
		return diag_set(d, path, NULL, nowhere, "cannot resolve it: %s",
				strerror(errno));
	*lock = lock_dir(dir, d);
	if (*lock < 0)
		return -1;
	/* dir is under PATH_MAX, so the name is not cut short */
	snprintf(path, sizeof(path), "%s/exec", dir);
	if (mkdir(path, 0755) && errno != EEXIST)
		return diag_set(d, path, NULL, nowhere, "cannot make it: %s",
				strerror(errno));
	if (lstat(path, &st) || !S_ISDIR(st.st_mode))
		return diag_set(d, path, NULL, nowhere, "is not a directory "
				"(a symbolic link?): the phases' output goes "
				"there");
	return 0;
}

int rundir_plan(const char *dir, char **path, struct diag *d)
{
	json_t *plan = manifest_read_key(dir, "plan");
	const char *file = json_string_value(json_object_get(plan,
							     "realpath"));
	const char *was = json_string_value(json_object_get(plan, "sha256"));
	char sha[65];
	int rc = 0;

	*path = NULL;
	if (!file)
		file = json_string_value(json_object_get(plan, "path"));
	if (!file || !was)
		rc = diag_fail(d, DIAG_INPUT, 0, "%s: no manifest.json naming "
			       "the run's plan here: give the plan too (fsplan "
			       "run PLAN --resume %s)", dir, dir);
	else if (sha256_file(file, sha))
		rc = diag_fail(d, DIAG_INPUT, 0, "the run's plan %s is gone "
			       "(%s): its text is in %s/manifest.json, "
			       "plan.text (jq -j .plan.text %s/manifest.json "
			       "> %s writes it back)", file, strerror(errno),
			       dir, dir, file);
	else if (strcmp(sha, was))
		rc = diag_fail(d, DIAG_INPUT, 0, "the run's plan %s changed "
			       "since the run started: sha256 %s in the "
			       "manifest, %s now: cannot resume it (the text "
			       "it ran is %s/manifest.json's plan.text)", file,
			       was, sha, dir);
	else if (!(*path = strdup(file)))
		rc = diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	json_decref(plan);
	return rc;
}

void rundir_unlock(const char *dir, int lock)
{
	char path[PATH_MAX + 32];

	if (lock < 0)
		return;
	/* removed while held: whoever opened it before takes a lock on a
	 * file that is gone, sees so (still_there) and opens the new one */
	if (snprintf(path, sizeof(path), "%s/%s", dir, LOCK_NAME) <
	    (int)sizeof(path))
		(void)unlink(path);
	close(lock);
}

void rundir_discard(const char *dir)
{
	static const char *const files[] = { "results.csv", "log.txt",
					     LOCK_NAME };
	static const char *const dirs[] = { "exec", "" };
	char path[PATH_MAX + 32];

	/* best effort: what cannot go stays, as an empty run directory */
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		(void)unlink(path);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, dirs[i]);
		(void)rmdir(path);
	}
}
