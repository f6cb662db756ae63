/* file: whole-file reads, the one way fsplan takes a file or a pipe in, and the
 * one atomic replace. */
#ifndef FSPLAN_FILE_H
#define FSPLAN_FILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * fd's bytes from offset 0 (pread: its offset is left alone), up to max,
 * in a malloc'd buffer, not NUL-terminated (its length in *len); *more
 * says bytes remain past max. NULL with errno set when nothing could be
 * read or allocated; an error after some bytes ends the read there.
 */
char *file_read_all(int fd, size_t max, size_t *len, int *more);

/*
 * Read fd from offset 0 into buf, up to len bytes (memory the caller
 * owns: a Lua userdata, a stack buffer). How many, or -1 with errno.
 */
ssize_t file_read_into(int fd, void *buf, size_t len);
/* All n bytes of p to fd, across short writes and EINTR: 0, or -errno
 * (-EIO for a write of nothing). done (may be NULL): how much was
 * written, also when it fails. */
int file_write_all(int fd, const void *p, size_t n, size_t *done);

/*
 * Open path to read only if it is a regular file: a FIFO would hang the
 * reader, a device (/dev/zero) feed it without end. The fd, or -errno
 * (-EINVAL: not a regular file).
 */
int file_open_regular(const char *path);

/* The file at path (a proc, sysfs or cgroup value), up to len - 1 bytes,
 * NUL-ended in buf. Its length, or -1 with errno. */
ssize_t file_read_text(const char *path, char *buf, size_t len);

/*
 * Replace dir/name with len bytes of text atomically: dir/.name.tmp
 * made anew (O_EXCL|O_NOFOLLOW: a link planted there is removed, never
 * written through), written and fsync'd, renamed over dir/name (a
 * symbolic link there is replaced, not followed), dir fsync'd. 0644, or
 * mode (less the umask). 0 or -errno (the temp file removed); -EEXIST,
 * nothing written, when dir/name is not file_replaceable.
 */
int file_replace(const char *dir, const char *name, const char *text,
		 size_t len);
/* Whether file_replace may put a file at path: nothing is there (or a
 * link to nothing), or a regular file, or a link to one. A device, a
 * fifo, a socket or a folder, or a link to one, never is: file_replace
 * refuses it with -EEXIST (an -o naming /dev/sdb would otherwise swap
 * the device's node for a file). */
int file_replaceable(const char *path);
int file_replace_mode(const char *dir, const char *name, const char *text,
		      size_t len, mode_t mode);

#endif
