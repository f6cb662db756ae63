/* csvrecord: RFC 4180 records read one at a time, their fields unquoted. */
#ifndef FSPLAN_CSVRECORD_H
#define FSPLAN_CSVRECORD_H

#include <stddef.h>
#include <sys/types.h>

#define CSVRECORD_MAX	(16u << 20)	/* a longer record is not ours */

/* What csvrecord_next found. */
enum { CSVRECORD_EOF, CSVRECORD_OK, CSVRECORD_TORN };

struct csvrecord {
	int fd;
	int line;	/* the line the current record starts on */
	int next_line;
	off_t off;	/* file offset of buf[pos] */
	off_t rec_end;	/* just past the last whole record */
	size_t pos, len;
	char *text;	/* the record's fields, each NUL-terminated */
	size_t tlen, tcap;
	size_t *start;	/* field i is text + start[i] */
	size_t nf, fcap;
	char buf[65536];
};

/* A reader of path (a regular file), or NULL with *err (-errno). */
struct csvrecord *csvrecord_open(const char *path, int *err);
void csvrecord_close(struct csvrecord *r);

/*
 * The next record, RFC 4180: a field that starts with '"' runs to the
 * matching '"', "" inside it is one '"', and commas, CR and LF inside it
 * are data; records end in LF or CRLF. A stray quote inside an unquoted
 * field is kept as data, as Python's csv does. CSVRECORD_TORN: the file
 * ends inside a record, which is what a crash in the middle of a write
 * leaves. -errno, or -E2BIG past CSVRECORD_MAX.
 */
int csvrecord_next(struct csvrecord *r);
/* Field i (below r->nf) of the record, NUL-ended. */
const char *csvrecord_field(const struct csvrecord *r, size_t i);

#endif
