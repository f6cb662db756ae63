/* csvrecord: RFC 4180 records read one at a time, their fields unquoted. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "results/csvrecord.h"
#include "util/file.h"
#include "util/grow.h"

struct csvrecord *csvrecord_open(const char *path, int *err)
{
	struct csvrecord *r = calloc(1, sizeof(*r));

	if (!r) {
		*err = -ENOMEM;
		return NULL;
	}
	r->fd = file_open_regular(path);
	if (r->fd < 0) {
		*err = r->fd;
		free(r);
		return NULL;
	}
	r->next_line = 1;
	return r;
}

void csvrecord_close(struct csvrecord *r)
{
	if (!r)
		return;
	close(r->fd);
	free(r->text);
	free(r->start);
	free(r);
}

const char *csvrecord_field(const struct csvrecord *r, size_t i)
{
	return r->text + r->start[i];
}

static int add_byte(struct csvrecord *r, char ch)
{
	if (r->tlen == r->tcap) {
		size_t cap = r->tcap ? r->tcap * 2 : 256;
		char *nt;

		if (r->tcap >= CSVRECORD_MAX)
			return -E2BIG;
		nt = realloc(r->text, cap);
		if (!nt)
			return -ENOMEM;
		r->text = nt;
		r->tcap = cap;
	}
	r->text[r->tlen++] = ch;
	return 0;
}

/* Close the field that began at text + from. */
static int end_field(struct csvrecord *r, size_t from)
{
	size_t *start = grow_array(r->start, &r->fcap, r->nf + 1,
				   sizeof(*start), 16);

	if (!start)
		return -ENOMEM;
	r->start = start;
	r->start[r->nf++] = from;
	return add_byte(r, '\0');
}

static int fill(struct csvrecord *r)
{
	ssize_t n;

	do
		n = read(r->fd, r->buf, sizeof(r->buf));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	r->pos = 0;
	r->len = (size_t)n;
	return n > 0;
}

int csvrecord_next(struct csvrecord *r)
{
	enum { START, PLAIN, QUOTED, QUOTE } st = START;
	size_t from = 0;
	int cr = 0;	/* the last byte kept is a CR outside quotes */
	int any = 0, rc;

	r->tlen = r->nf = 0;
	r->line = r->next_line;
	for (;;) {
		char ch;

		if (r->pos == r->len) {
			rc = fill(r);
			if (rc < 0)
				return rc;
			if (!rc)
				return any ? CSVRECORD_TORN : CSVRECORD_EOF;
		}
		ch = r->buf[r->pos++];
		r->off++;
		any = 1;
		if (ch == '\n')
			r->next_line++;
		if (st == QUOTED) {
			if (ch == '"')
				st = QUOTE;
			else if ((rc = add_byte(r, ch)))
				return rc;
			continue;
		}
		if ((st == START || st == QUOTE) && ch == '"') {
			if (st == QUOTE && (rc = add_byte(r, '"')))
				return rc;
			st = QUOTED;
			continue;
		}
		if (ch == ',' || ch == '\n') {
			if (ch == '\n' && cr)
				r->tlen--;
			if ((rc = end_field(r, from)))
				return rc;
			from = r->tlen;
			cr = 0;
			st = START;
			if (ch == ',')
				continue;
			r->rec_end = r->off;
			return CSVRECORD_OK;
		}
		if ((rc = add_byte(r, ch)))
			return rc;
		cr = ch == '\r';
		st = PLAIN;
	}
}
