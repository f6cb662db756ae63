/* file: whole-file reads, the one way fsplan takes a file or a pipe in, and the
 * one atomic replace. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util/file.h"


char *file_read_all(int fd, size_t max, size_t *len, int *more)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;
	ssize_t r;

	*more = 0;
	for (;;) {
		if (n == cap) {
			size_t want = cap ? cap * 2 : 65536;
			char *nb;

			if (cap >= max) {
				char c;

				*more = pread(fd, &c, 1, (off_t)n) > 0;
				break;
			}
			if (want > max)
				want = max;
			nb = realloc(buf, want);
			if (!nb) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap = want;
		}
		r = pread(fd, buf + n, cap - n, (off_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && !n) {
			free(buf);
			return NULL;
		}
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	*len = n;
	return buf;
}

ssize_t file_read_into(int fd, void *buf, size_t len)
{
	size_t n = 0;

	while (n < len) {
		ssize_t r = pread(fd, (char *)buf + n, len - n, (off_t)n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (!r)
			break;
		n += (size_t)r;
	}
	return (ssize_t)n;
}

int file_open_regular(const char *path)
{
	/* O_NONBLOCK: the open of a FIFO with no writer returns at once */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

ssize_t file_read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = file_read_into(fd, buf, len - 1);
	err = errno;
	close(fd);
	if (n < 0) {
		errno = err;
		return -1;
	}
	buf[n] = '\0';
	return n;
}

int file_replace(const char *dir, const char *name, const char *text,
		 size_t len)
{
	return file_replace_mode(dir, name, text, len, 0644);
}

int file_replaceable(const char *path)
{
	struct stat st;

	/* nothing to stat (or a dangling link): the write's own errors
	 * say what is wrong with the path */
	return stat(path, &st) || S_ISREG(st.st_mode);
}

int file_replace_mode(const char *dir, const char *name, const char *text,
		      size_t len, mode_t mode)
{
	const int how = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	char tmp[PATH_MAX], path[PATH_MAX];
	size_t off = 0;
	int fd, dfd, rc = 0;

	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!file_replaceable(path))
		return -EEXIST;
	fd = open(tmp, how, mode);
	/* one left by a crash, or planted: removed (a link itself, not
	 * what it names), and made anew */
	if (fd < 0 && errno == EEXIST && !unlink(tmp))
		fd = open(tmp, how, mode);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			rc = -errno;
			break;
		}
		off += w;
	}
	if (!rc && fsync(fd))
		rc = -errno;
	close(fd);
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		unlink(tmp);
		return rc;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

int file_write_all(int fd, const void *p, size_t n, size_t *done)
{
	const char *at = p;

	if (done)
		*done = 0;
	while (n) {
		ssize_t w = write(fd, at, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		at += w;
		n -= (size_t)w;
		if (done)
			*done += (size_t)w;
	}
	return 0;
}
