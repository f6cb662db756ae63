/* csv: append results.csv one whole row per write(), and read it back. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/csv.h"
#include "results/csvrecord.h"
#include "util/file.h"

/*
 * Rows end in LF, not the CRLF RFC 4180 names: our reader, Python's csv
 * module, R, pandas and the tidy-data tools all take LF, and a CR in every
 * line only gets in the way of grep and awk. The reader accepts both.
 */

#define NOPOS ((struct pos){ 0, 0 })

struct csv {
	int fd;
	char *buf;	/* the row being built, kept for the next one */
	size_t cap;
};

/* ---- writing ------------------------------------------------------------ */

static int needs_quotes(const char *s)
{
	return s[strcspn(s, ",\"\r\n")] != '\0';
}

/* The bytes s takes as a field, quotes included. */
static size_t field_len(const char *s)
{
	size_t n = strlen(s);

	if (!needs_quotes(s))
		return n;
	for (n += 2; *s; s++)
		n += *s == '"';
	return n;
}

void csv_quote(const char *s, char *buf, size_t len)
{
	size_t room, used = 0, k;
	int q;
	char *p = buf;

	if (!len)
		return;
	if (!s)
		s = "";
	q = needs_quotes(s);
	if (len < (q ? 3u : 1u)) {
		buf[0] = '\0';
		return;
	}
	/*
	 * A value too long for buf loses its end, never its closing quote or
	 * half of a doubled quote or of a UTF-8 character: what is left still
	 * parses.
	 */
	room = len - 1 - (q ? 2 : 0);
	for (k = 0; s[k]; k++) {
		size_t w = s[k] == '"' ? 2 : 1;

		if (used + w > room)
			break;
		used += w;
	}
	if (s[k])
		while (k && ((unsigned char)s[k] & 0xc0) == 0x80)
			k--;
	if (q)
		*p++ = '"';
	for (size_t i = 0; i < k; i++) {
		if (s[i] == '"')
			*p++ = '"';
		*p++ = s[i];
	}
	if (q)
		*p++ = '"';
	*p = '\0';
}

int csv_fput(FILE *f, const char *s)
{
	char small[256] = "", *buf;
	size_t n;
	int rc;

	if (!s)
		s = "";
	n = field_len(s) + 1;
	buf = n <= sizeof(small) ? small : malloc(n);
	if (!buf)
		return -1;
	csv_quote(s, buf, n);
	rc = fputs(buf, f) < 0 ? -1 : 0;
	if (buf != small)
		free(buf);
	return rc;
}

/*
 * Best effort: a filesystem without flock() still gets whole-row appends;
 * the lock only keeps csv_open's look at the file's end from meeting a row
 * that another handle is writing.
 */
static void lock(int fd, int op)
{
	while (flock(fd, op) < 0 && errno == EINTR)
		;
}

void csv_number(char *buf, size_t len, double v)
{
	if (v == floor(v) && fabs(v) <= 9007199254740992.0) {
		snprintf(buf, len, "%.0f", v == 0 ? 0.0 : v);	/* not -0 */
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

int csv_formula(const char *text)
{
	return *text && strchr("=+-@\t\r", *text);
}

int csv_row(struct csv *c, const struct csv_key *k, const char *metric,
	    const char *value, const char *unit)
{
	char rep[16];
	const char *f[CSV_FIELDS];
	size_t flen[CSV_FIELDS], n = 0;
	char *p;
	size_t done;
	struct stat st;
	int rc;

	if (!c || !k)
		return -EINVAL;
	snprintf(rep, sizeof(rep), "%d", k->rep);
	f[0] = k->run_id;
	f[1] = k->cell;
	f[2] = k->fs_label;
	f[3] = k->fs_type;
	f[4] = k->mkfs_opts;
	f[5] = k->mount_opts;
	f[6] = k->phase;
	f[7] = k->phase_params;
	f[8] = rep;
	f[9] = metric;
	f[10] = value;
	f[11] = unit;
	for (int i = 0; i < CSV_FIELDS; i++) {
		if (!f[i])
			f[i] = "";
		flen[i] = field_len(f[i]);
		n += flen[i] + 1;	/* and its ',' or '\n' */
	}
	if (n + 1 > c->cap) {
		size_t cap = c->cap * 2 > n + 1 ? c->cap * 2 : n + 1;
		char *nb = realloc(c->buf, cap);

		if (!nb)
			return -ENOMEM;
		c->buf = nb;
		c->cap = cap;
	}
	p = c->buf;
	for (int i = 0; i < CSV_FIELDS; i++) {
		csv_quote(f[i], p, flen[i] + 1);
		p += flen[i];
		*p++ = i + 1 < CSV_FIELDS ? ',' : '\n';
	}
	/* One write() on O_APPEND: rows from any writer meet only at '\n'. */
	lock(c->fd, LOCK_SH);
	rc = file_write_all(c->fd, c->buf, n, &done);
	/*
	 * Cut short (disk full): the next row would join this fragment, so
	 * take it back. Rows come from one writer, the end of file is ours.
	 */
	if (rc && done && fstat(c->fd, &st) == 0 &&
	    st.st_size >= (off_t)done &&
	    ftruncate(c->fd, st.st_size - (off_t)done) < 0)
		rc = -errno;
	lock(c->fd, LOCK_UN);
	return rc;
}

int csv_sync(struct csv *c)
{
	if (!c)
		return -EINVAL;
	return fdatasync(c->fd) < 0 ? -errno : 0;
}

void csv_close(struct csv *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c->buf);
	free(c);
}

/* ---- reading ------------------------------------------------------------ */

const struct csv_kind csv_results = { "results.csv", CSV_HEADER,
					CSV_FIELDS };

static int is_header(const struct csv_kind *k, const struct csvrecord *r)
{
	const char *h = k->header;

	if (r->nf != (size_t)k->fields)
		return 0;
	for (size_t i = 0; i < r->nf; i++) {
		size_t n = strlen(csvrecord_field(r, i));

		if (strncmp(h, csvrecord_field(r, i), n))
			return 0;
		h += n;
		if (i + 1 < r->nf && *h++ != ',')
			return 0;
	}
	return *h == '\0';
}

static int read_fail(struct diag *d, const char *path, int line, int err)
{
	if (err == -E2BIG)
		return diag_set(d, path, NULL, (struct pos){ line, 1 },
				"record longer than %u MiB", CSVRECORD_MAX >> 20);
	return diag_set(d, path, NULL, NOPOS, "cannot read: %s",
			strerror(-err));
}

/* Open a file of kind k and read its header: 0 with the reader at the
 * first row (*empty when the file has nothing at all), or -1 with d. */
static int open_checked(const struct csv_kind *k, const char *path,
			struct csvrecord **out, int *empty, struct diag *d)
{
	struct csvrecord *r;
	int rc;

	*out = NULL;
	*empty = 0;
	r = csvrecord_open(path, &rc);
	if (!r)
		return diag_set(d, path, NULL, NOPOS, "cannot open: %s",
				rc == -EINVAL ? "not a regular file" :
				strerror(-rc));
	rc = csvrecord_next(r);
	if (rc == CSVRECORD_EOF)
		*empty = 1;
	else if (rc < 0)
		rc = read_fail(d, path, r->line, rc);
	else if (rc != CSVRECORD_OK || !is_header(k, r))
		rc = diag_set(d, path, NULL, NOPOS,
			      "not a %s (header differs)", k->name);
	else
		rc = 0;
	if (rc < 0 && !*empty) {
		csvrecord_close(r);
		return -1;
	}
	*out = r;
	return 0;
}

int csv_read_file(const struct csv_kind *k, const char *path,
		  int (*fn)(void *ctx, const char *const *f, int line),
		  void *ctx, struct csv_read *info, struct diag *d)
{
	struct csvrecord *r;
	struct stat st;
	int rc;

	memset(info, 0, sizeof(*info));
	if (lstat(path, &st) < 0 && errno == ENOENT) {
		info->missing = 1;
		return 0;
	}
	if (open_checked(k, path, &r, &info->empty, d))
		return -1;
	if (info->empty) {
		rc = 0;
		goto out;
	}
	while ((rc = csvrecord_next(r)) == CSVRECORD_OK) {
		const char *f[CSV_MAX_FIELDS];
		int good = r->nf == (size_t)k->fields;

		if (r->nf == 1 && !*csvrecord_field(r, 0))
			continue;	/* a blank line */
		for (size_t i = 0; good && i < r->nf; i++)
			f[i] = csvrecord_field(r, i);
		info->nf = r->nf;
		if (fn && fn(ctx, good ? f : NULL, r->line)) {
			rc = -1;
			goto out;
		}
	}
	info->torn = rc == CSVRECORD_TORN;
	rc = rc < 0 ? read_fail(d, path, r->line, rc) : 0;
out:
	csvrecord_close(r);
	return rc;
}

/* results.csv's rows: one of another number of fields stops the read. */
struct strict {
	int (*fn)(void *ctx, const char *const *f, int line);
	void *ctx;
	const char *path;
	struct diag *d;
	const struct csv_read *info;
};

static int strict_row(void *ctx, const char *const *f, int line)
{
	struct strict *s = ctx;

	if (!f)
		return diag_set(s->d, s->path, NULL, (struct pos){ line, 1 },
				"row has %zu fields, expected %d",
				s->info->nf, CSV_FIELDS);
	return s->fn ? s->fn(s->ctx, f, line) : 0;
}

int csv_read_rows(const char *path,
		  int (*fn)(void *ctx, const char *const *f, int line),
		  void *ctx, struct csv_read *info, struct diag *d)
{
	struct strict s = { fn, ctx, path, d, NULL };
	struct csv_read dummy;

	if (!info)
		info = &dummy;
	s.info = info;
	if (csv_read_file(&csv_results, path, strict_row, &s, info, d))
		return -1;
	if (info->missing)
		return diag_set(d, path, NULL, NOPOS, "cannot open: %s",
				strerror(ENOENT));
	return 0;
}

struct status_fn {
	void (*fn)(void *ctx, const char *cell, const char *status);
	void *ctx;
};

static int status_row(void *ctx, const char *const *f, int line)
{
	struct status_fn *s = ctx;

	(void)line;
	if (!strcmp(f[CSV_METRIC], "status"))
		s->fn(s->ctx, f[CSV_CELL], f[CSV_VALUE]);
	return 0;
}

int csv_read_status(const char *path,
		    void (*fn)(void *ctx, const char *cell, const char *status),
		    void *ctx, struct diag *d)
{
	struct status_fn s = { fn, ctx };

	return csv_read_rows(path, fn ? status_row : NULL, &s, NULL, d);
}

/* ---- opening ------------------------------------------------------------ */

/* A new file's name is only durable once its directory is synced. */
static int sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd, rc = 0;

	if (!slash)
		dir = strdup(".");
	else
		dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -errno;
	/* Some filesystems cannot sync a directory: nothing more to do. */
	if (fsync(fd) < 0 && errno != EINVAL)
		rc = -errno;
	close(fd);
	return rc;
}

static int write_header(const struct csv_kind *k, int fd, const char *path,
			struct diag *d)
{
	size_t n = strlen(k->header);
	int rc;

	rc = file_write_all(fd, k->header, n, NULL);
	if (!rc)
		rc = file_write_all(fd, "\n", 1, NULL);
	if (!rc && fdatasync(fd) < 0)
		rc = -errno;
	if (!rc)
		rc = sync_dir(path);
	if (rc)
		return diag_set(d, path, NULL, NOPOS, "cannot write: %s",
				strerror(-rc));
	return 0;
}

/*
 * An existing file must be one of kind k. If a crash tore its last row,
 * cut that row off: a row appended after it would join it, and an open
 * quote in it would swallow every row that follows.
 */
static int check_existing(const struct csv_kind *k, int fd, const char *path,
			  struct diag *d)
{
	struct csvrecord *r;
	int rc, empty;

	if (open_checked(k, path, &r, &empty, d))
		return -1;
	if (empty) {
		rc = diag_set(d, path, NULL, NOPOS, "not a %s (header "
			      "differs)", k->name);
		goto out;
	}
	while ((rc = csvrecord_next(r)) == CSVRECORD_OK)
		;
	if (rc < 0) {
		rc = read_fail(d, path, r->line, rc);
		goto out;
	}
	rc = 0;
	if (r->off != r->rec_end &&
	    (ftruncate(fd, r->rec_end) < 0 || fdatasync(fd) < 0))
		rc = diag_set(d, path, NULL, NOPOS,
			      "cannot cut the torn last row: %s",
			      strerror(errno));
out:
	csvrecord_close(r);
	return rc;
}

int csv_open_file(const struct csv_kind *k, const char *path, int *fd,
		  struct diag *d)
{
	struct stat st;
	int rc;

	/* never through a symbolic link planted in the run directory */
	*fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
		   O_CLOEXEC, 0644);
	if (*fd < 0) {
		rc = errno;
		return diag_set(d, path, NULL, NOPOS, "cannot open: %s",
				rc == ELOOP ? "it is a symbolic link" :
				strerror(rc));
	}
	/* Exclusive while we look: two openers write one header. */
	lock(*fd, LOCK_EX);
	if (fstat(*fd, &st) < 0)
		rc = diag_set(d, path, NULL, NOPOS, "cannot stat: %s",
			      strerror(errno));
	else if (!S_ISREG(st.st_mode))
		rc = diag_set(d, path, NULL, NOPOS, "not a regular file");
	else if (st.st_size == 0)
		rc = write_header(k, *fd, path, d);
	else
		rc = check_existing(k, *fd, path, d);
	lock(*fd, LOCK_UN);
	if (rc) {
		close(*fd);
		*fd = -1;
		return -1;
	}
	return 0;
}

int csv_open(struct csv **out, const char *path, struct diag *d)
{
	struct csv *c;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return diag_set(d, path, NULL, NOPOS, "out of memory");
	if (csv_open_file(&csv_results, path, &c->fd, d)) {
		free(c);
		return -1;
	}
	*out = c;
	return 0;
}
