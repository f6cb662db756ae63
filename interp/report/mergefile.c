/* mergefile: merge's files besides the rows — a shard's read only when regular
 * and within a cap, never through a link; OUT written, and taken back if merge
 * cannot finish. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/mergefile.h"
#include "util/file.h"

/*
 * The most merge reads of one file of a shard: 1 GiB. fsplan's own
 * exec/ outputs are capped far below (per stream, head and tail), but
 * a run of an older fsplan kept whatever a phase wrote; past this, a
 * file is not a run's record but something put there.
 */
#define MERGE_FILE_MAX ((size_t)1 << 30)

/* What a file that is not a regular one is, for a warning. */
static const char *file_kind(mode_t mode)
{
	return S_ISLNK(mode) ? "a symbolic link" : S_ISFIFO(mode) ? "a FIFO" :
	       S_ISCHR(mode) || S_ISBLK(mode) ? "a device" :
	       S_ISDIR(mode) ? "a directory" : S_ISSOCK(mode) ? "a socket" :
	       "not a regular file";
}

/*
 * name in dirfd, opened for reading only when it is a regular file of
 * at most MERGE_FILE_MAX bytes, never through a symbolic link: a link
 * in a shard to a 0600 file would copy it out, /dev/zero read for ever,
 * a FIFO hang. fd; or -1 with errno (ENOENT: absent) and *why saying
 * what the file is instead.
 */
static int open_regular(int dirfd, const char *name, struct stat *st,
			const char **why)
{
	struct stat at;
	int fd;

	*why = NULL;
	if (fstatat(dirfd, name, &at, AT_SYMLINK_NOFOLLOW)) {
		*why = strerror(errno);
		return -1;
	}
	if (!S_ISREG(at.st_mode)) {
		*why = file_kind(at.st_mode);
		errno = EINVAL;
		return -1;
	}
	if ((size_t)at.st_size > MERGE_FILE_MAX) {
		*why = "larger than 1 GiB";
		errno = EFBIG;
		return -1;
	}
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
	if (fd < 0) {
		*why = errno == ELOOP ? "a symbolic link" : strerror(errno);
		return -1;
	}
	/* the same file fstatat saw, not one swapped in since */
	if (fstat(fd, st) || st->st_dev != at.st_dev ||
	    st->st_ino != at.st_ino || !S_ISREG(st->st_mode)) {
		close(fd);
		*why = "replaced while merge read it";
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* fd's bytes, at most MERGE_FILE_MAX; NULL with *why when not. */
static char *read_capped(int fd, size_t *len, const char **why)
{
	char *buf;
	int more;

	*len = 0;
	buf = file_read_all(fd, MERGE_FILE_MAX, len, &more);
	if (!buf && *len == 0 && errno != ENOMEM)
		buf = strdup("");
	*why = buf ? NULL : "out of memory";
	if (buf && more) {
		free(buf);
		buf = NULL;
		*why = "larger than 1 GiB";
	}
	return buf;
}

/* The whole of a shard's own file (bonnie.csv, log.txt), "" and *len 0
 * when there is none. It is the run's record: anything but a regular
 * file within MERGE_FILE_MAX there fails the merge (NULL, d says). */
char *mergefile_slurp(const char *dir, const char *name, size_t *len,
		      struct diag *d)
{
	char path[PATH_MAX];
	const char *why;
	struct stat st;
	char *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open_regular(AT_FDCWD, path, &st, &why);
	*len = 0;
	if (fd < 0 && errno == ENOENT)
		return strdup("");
	if (fd < 0) {
		diag_fail(d, DIAG_INPUT, 0, "%s: %s (merge reads only regular "
			  "files of at most 1 GiB)", path, why);
		return NULL;
	}
	buf = read_capped(fd, len, &why);
	close(fd);
	if (!buf)
		diag_fail(d, DIAG_INPUT, 0, "%s: %s", path, why);
	return buf;
}

int mergefile_record(struct merge_written *w, const char *path)
{
	char **nf = realloc(w->files, (w->n + 1) * sizeof(*nf));

	if (!nf || !(nf[w->n] = strdup(path))) {
		if (nf)
			w->files = nf;
		return diag_fail(w->d, DIAG_SYSTEM, 0, "out of memory");
	}
	w->files = nf;
	w->n++;
	return 0;
}

void mergefile_take_back(struct merge_written *w)
{
	char path[PATH_MAX + 8];

	for (size_t i = 0; i < w->n; i++)
		unlink(w->files[i]);
	if (w->made_exec) {
		snprintf(path, sizeof(path), "%s/exec", w->out);
		rmdir(path);
	}
	if (w->made_out)
		rmdir(w->out);
}

int mergefile_write(struct merge_written *w, const char *name, const char *s,
		      size_t n, mode_t mode)
{
	char path[PATH_MAX + 64], dir[PATH_MAX + 64];
	const char *slash = strrchr(name, '/');
	int rc;

	snprintf(path, sizeof(path), "%s/%s", w->out, name);
	snprintf(dir, sizeof(dir), "%s/%.*s", w->out,
		 slash ? (int)(slash - name) : 0, name);
	if (mergefile_record(w, path))
		return -1;
	rc = file_replace_mode(dir, slash ? slash + 1 : name, s, n, mode);
	return rc ? diag_fail(w->d, DIAG_SYSTEM, -rc, "%s", path) : 0;
}

/* One file of a shard's exec/ (dfd) into out/exec, with its mode bits
 * but never more than 0644; one another shard has given must hold the
 * same bytes. Not a regular file within MERGE_FILE_MAX: warned about and
 * left out, as merge copies nothing else (*skipped counts it). */
static int copy_one(struct merge_written *w, const char *shard, int dfd,
		    const char *name, size_t *skipped)
{
	char out[2 * PATH_MAX + 16], path[PATH_MAX + 8];
	const char *why;
	struct stat st;
	size_t la, lb;
	char *a, *b = NULL;
	int fd = open_regular(dfd, name, &st, &why), rc = 0;

	if (fd < 0 && errno == ENOENT)
		return 0;
	a = fd < 0 ? NULL : read_capped(fd, &la, &why);
	if (fd >= 0)
		close(fd);
	if (!a) {
		strbuf_printf(w->notes, "warning: %s/exec/%s is %s: not copied "
			      "(merge copies only regular files of at most 1 "
			      "GiB)\n", shard, name, why);
		(*skipped)++;
		return 0;
	}
	snprintf(path, sizeof(path), "exec/%s", name);
	snprintf(out, sizeof(out), "%s/%s", w->out, path);
	if (!lstat(out, &(struct stat){ 0 })) {
		b = mergefile_slurp(w->out, path, &lb, w->d);
		if (!b)
			rc = -1;
		else if (la != lb || memcmp(a, b, la))
			rc = diag_fail(w->d, DIAG_INPUT, 0, "%s/%s differs "
				       "from another shard's file of that name",
				       shard, path);
	} else {
		rc = mergefile_write(w, path, a, la, st.st_mode & 0644);
	}
	free(a);
	free(b);
	return rc;
}

/* Each shard's exec/ files into out/exec. An exec/ that is a symbolic
 * link is not followed: none of its files are copied. */
int mergefile_copy_exec(struct merge_written *w,
			const struct merge_shard *sh, size_t n)
{
	char src[PATH_MAX], dst[PATH_MAX + 8];
	size_t skipped = 0;
	int rc = 0;

	snprintf(dst, sizeof(dst), "%s/exec", w->out);
	for (size_t s = 0; s < n && !rc; s++) {
		struct dirent *e;
		DIR *d;
		int dfd;

		snprintf(src, sizeof(src), "%s/exec", sh[s].dir);
		dfd = open(src, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			   O_CLOEXEC);
		if (dfd < 0 && errno != ENOENT) {
			strbuf_printf(w->notes, "warning: %s is %s: nothing in "
				      "it is copied\n", src, errno == ELOOP ?
				      "a symbolic link" : strerror(errno));
			skipped++;
		}
		if (dfd < 0 || !(d = fdopendir(dfd))) {
			if (dfd >= 0)
				close(dfd);
			continue;
		}
		if (!w->made_exec) {
			/* made once; one there already was not made here */
			if (mkdir(dst, 0755)) {
				closedir(d);
				return diag_fail(w->d, DIAG_SYSTEM, errno,
						 "%s", dst);
			}
			w->made_exec = 1;
		}
		while (!rc && (e = readdir(d)))
			if (e->d_name[0] != '.')
				rc = copy_one(w, sh[s].dir, dfd, e->d_name,
					      &skipped);
		closedir(d);
	}
	if (!rc && skipped)
		strbuf_printf(w->notes, "%zu file%s of the shards' exec/ left "
			      "out (see above)\n", skipped,
			      skipped == 1 ? "" : "s");
	return rc;
}

int mergefile_make_out(struct merge_written *w, const char *out)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd;

	snprintf(w->out, sizeof(w->out), "%s", out);
	if (!mkdir(out, 0755)) {
		w->made_out = 1;
		return 0;
	}
	if (errno != EEXIST)
		return diag_fail(w->d, DIAG_SYSTEM, errno, "-o %s", out);
	/* never through a link: the files would land where it points */
	fd = open(out, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ELOOP || (!lstat(out, &st) &&
					  S_ISLNK(st.st_mode))))
		return diag_fail(w->d, DIAG_INPUT, 0, "-o %s is a symbolic "
				 "link: merge writes a new run directory, or "
				 "into an empty one, never through a link",
				 out);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return diag_fail(w->d, DIAG_SYSTEM, errno, "-o %s", out);
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			closedir(d);
			return diag_fail(w->d, DIAG_INPUT, 0, "-o %s exists "
					 "and is not empty: merge writes a new "
					 "run directory", out);
		}
	closedir(d);
	return 0;
}

void mergefile_free(struct merge_written *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->files[i]);
	free(w->files);
	w->files = NULL;
	w->n = 0;
}
