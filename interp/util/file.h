/* file: whole-file reads, the one way fsplan takes a file or a pipe in. */
#ifndef FSPLAN_FILE_H
#define FSPLAN_FILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Read fd from offset 0 to its end, up to max bytes, into a malloc'd
 * NUL-terminated buffer (its length in *len); *more says whether bytes
 * beyond max were left. NULL with errno on failure.
 */
char *file_read_all(int fd, size_t max, size_t *len, int *more);

/*
 * Read fd from offset 0 into buf, up to len bytes (memory the caller
 * owns: a Lua userdata, a stack buffer). How many, or -1 with errno.
 */
ssize_t file_read_into(int fd, void *buf, size_t len);

#endif
