/* diag: build, format and print errors that name their place. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"

static void copy_line(char *dst, size_t len, const char *src, int line)
{
	const char *p = src;
	size_t n;

	dst[0] = '\0';
	if (!src || line < 1)
		return;
	for (int i = 1; i < line; i++) {
		p = strchr(p, '\n');
		if (!p)
			return;
		p++;
	}
	n = strcspn(p, "\r\n");
	if (n >= len)
		n = len - 1;
	memcpy(dst, p, n);
	dst[n] = '\0';
	/* A NUL byte inside the line would cut it; show it as a space. */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)dst[i] < 0x20 && dst[i] != '\t')
			dst[i] = ' ';
}

/*
 * Format into d->msg; text that does not fit keeps its head and tail with
 * a mark between them saying how many bytes were left out.
 */
static void set_msg(struct diag *d, const char *fmt, va_list ap)
{
	struct strbuf b = { 0 };
	char mark[64];
	size_t head, tail, room = sizeof(d->msg) - 1;

	if (strbuf_vprintf(&b, fmt, ap) < 0 || !b.p) {
		snprintf(d->msg, sizeof(d->msg), "(out of memory)");
		free(b.p);
		return;
	}
	if (b.len <= room) {
		memcpy(d->msg, b.p, b.len + 1);
		free(b.p);
		return;
	}
	snprintf(mark, sizeof(mark), " [... %zu bytes left out ...] ",
		 b.len - room + 64);
	head = (room - strlen(mark)) / 2;
	tail = room - strlen(mark) - head;
	snprintf(mark, sizeof(mark), " [... %zu bytes left out ...] ",
		 b.len - head - tail);
	snprintf(d->msg, sizeof(d->msg), "%.*s%s%s", (int)head, b.p, mark,
		 b.p + b.len - tail);
	free(b.p);
}

int diag_set(struct diag *d, const char *file, const char *src, struct pos pos,
	     const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return -1;
	snprintf(d->file, sizeof(d->file), "%s", file ? file : "");
	d->pos = pos;
	va_start(ap, fmt);
	set_msg(d, fmt, ap);
	va_end(ap);
	copy_line(d->srcline, sizeof(d->srcline), src, pos.line);
	return -1;
}

int diag_fail(struct diag *d, enum diag_kind kind, int err, const char *fmt,
	      ...)
{
	va_list ap;
	size_t n;

	if (!d)
		return -1;
	d->kind = kind;
	d->err = err;
	d->file[0] = '\0';
	d->pos = (struct pos){ 0, 0 };
	d->srcline[0] = '\0';
	va_start(ap, fmt);
	set_msg(d, fmt, ap);
	va_end(ap);
	n = strlen(d->msg);
	if (err && n + 3 < sizeof(d->msg))
		snprintf(d->msg + n, sizeof(d->msg) - n, ": %s", strerror(err));
	return -1;
}

void diag_detail(struct diag *d, const char *text)
{
	if (d && text)
		strbuf_str(&d->detail, text);
}

void diag_release(struct diag *d)
{
	if (!d)
		return;
	free(d->detail.p);
	memset(d, 0, sizeof(*d));
}

const char *diag_kind_name(enum diag_kind kind)
{
	switch (kind) {
	case DIAG_INPUT:
		return "input";
	case DIAG_SYSTEM:
		return "system";
	case DIAG_REFUSED:
		return "refused";
	case DIAG_PHASE:
		return "phase";
	case DIAG_LIMIT:
		return "limit";
	}
	return "input";
}

void diag_format(const struct diag *d, char *buf, size_t len)
{
	size_t n = 0;

	if (d->pos.line > 0)
		n = snprintf(buf, len, "%s:%d:%d: %s", d->file, d->pos.line,
			     d->pos.col, d->msg);
	else if (d->file[0])
		n = snprintf(buf, len, "%s: %s", d->file, d->msg);
	else
		n = snprintf(buf, len, "%s", d->msg);
	if (n >= len || !d->srcline[0] || d->pos.col < 1)
		return;
	n += snprintf(buf + n, len - n, "\n  %s\n  ", d->srcline);
	/* Keep tabs so the caret lines up under the same column. */
	for (int i = 1; i < d->pos.col && n + 2 < len; i++)
		buf[n++] = (i - 1 < (int)strlen(d->srcline) &&
			    d->srcline[i - 1] == '\t') ? '\t' : ' ';
	if (n + 2 < len) {
		buf[n++] = '^';
		buf[n] = '\0';
	}
}

void diag_print(const struct diag *d)
{
	char buf[2048];

	diag_format(d, buf, sizeof(buf));
	fprintf(stderr, "%s\n", buf);
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[64], prev, tmp;

	if (la >= 63 || lb >= 63)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

const char *diag_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	size_t limit = strlen(word) / 3 + 1;

	for (size_t i = 0; i < n; i++) {
		size_t dist = edit_distance(word, cands[i]);

		if (dist < best_d) {
			best_d = dist;
			best = cands[i];
		}
	}
	if (limit > 3)
		limit = 3;
	return best_d <= limit ? best : NULL;
}
