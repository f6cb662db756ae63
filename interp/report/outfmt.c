/* outfmt: --format and -o FILE, once for every command that prints a run. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <libgen.h>
#include <string.h>
#include <sys/stat.h>

#include "report/outfmt.h"
#include "util/file.h"

int outfmt_take(const char *arg, void *slot, struct diag *d)
{
	static const char *const names[] = { [FMT_TEXT] = "text",
		[FMT_CSV] = "csv", [FMT_HTML] = "html" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(arg, names[i])) {
			*(enum out_format *)slot = (enum out_format)i;
			return 0;
		}
	return diag_fail(d, DIAG_INPUT, 0, "--format takes text, csv or html, "
			 "not '%s'", arg);
}

FILE *outfmt_open(struct outfile *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	/* found now, before a report is made for nothing */
	if (path && !file_replaceable(path)) {
		errno = EEXIST;
		return NULL;
	}
	o->path = path;
	o->f = path ? open_memstream(&o->buf, &o->len) : stdout;
	return o->f;
}

int outfmt_close(struct outfile *o, int keep)
{
	char dir[PATH_MAX];
	const char *slash, *name;
	int rc;

	if (!o->path)
		return fflush(o->f) ? -1 : 0;
	rc = fclose(o->f);
	o->f = NULL;
	slash = strrchr(o->path, '/');
	name = slash ? slash + 1 : o->path;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - o->path) +
		 (slash == o->path) : 1, slash ? o->path : ".");
	if (!keep) {
		free(o->buf);
		o->buf = NULL;
		return rc ? -1 : 0;
	}
	if (!rc && !*name) {
		errno = EISDIR;
		rc = -1;
	}
	if (!rc && (rc = file_replace(dir, name, o->buf, o->len))) {
		errno = -rc;
		rc = -1;
	}
	free(o->buf);
	o->buf = NULL;
	return rc ? -1 : 0;
}

int outfmt_clobbers(const char *out, const char *rundir)
{
	static const char *const own[] = { "results.csv", "manifest.json",
		"bonnie.csv", "log.txt", "timeseries.csv", "histograms.csv" };
	struct stat a, b;
	char path[PATH_MAX + 16];

	if (stat(out, &a))
		return 0;
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", rundir, own[i]);
		if (!stat(path, &b) && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			return 1;
	}
	return 0;
}

int outfmt_inside(const char *out, const char *const *dirs, int n)
{
	char *copy = strdup(out), *dir, real_dir[PATH_MAX], real[PATH_MAX];
	int in = 0;

	if (!copy)
		return 0;
	dir = dirname(copy);
	if (realpath(dir, real_dir))
		for (int i = 0; i < n && !in; i++)
			in = realpath(dirs[i], real) && !strcmp(real, real_dir);
	free(copy);
	return in;
}
