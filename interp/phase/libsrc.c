/* libsrc: the phase library: where it is, its sources read once by root. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "phase/libsrc.h"
#include "util/file.h"
#include "util/strbuf.h"

/*
 * A checkout in a 0700 home holds the library where `nobody` cannot
 * read it; a child that dropped its privileges inherits this table
 * through fork instead. Process-wide on purpose: it is filled before
 * the first fork and only read afterwards.
 */
struct src {
	char *path;
	char *text;
	size_t len;
};

static struct src *srcs;
static size_t n_srcs;

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcmp(s + n - m, suf);
}

/* follow: a symbolic link is read through (a plan's module, which root
 * reads as the plan's author's); else it is left to be read as runas. */
static int add(const char *path, int follow)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW)),
	    more;
	struct src *grown, *s;
	char *text;
	size_t len;

	if (fd < 0)
		return errno == ELOOP ? 0 : -1;	/* a symlink: read as runas */
	text = file_read_all(fd, LIBSRC_MAX, &len, &more);
	close(fd);
	if (!text || more) {
		free(text);
		return more ? 0 : -1;	/* too big for the library: skip */
	}
	grown = realloc(srcs, (n_srcs + 1) * sizeof(*srcs));
	if (!grown) {
		free(text);
		return -1;
	}
	srcs = grown;
	s = &srcs[n_srcs];
	s->path = strdup(path);
	if (!s->path) {
		free(text);
		return -1;
	}
	s->text = text;
	s->len = len;
	n_srcs++;
	return 0;
}

static int add_dir(const char *dir, const char *suffix)
{
	struct strbuf path = { 0 };
	struct dirent *de;
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while (!rc && (de = readdir(d))) {
		if (!has_suffix(de->d_name, suffix))
			continue;
		path.len = 0;
		rc = strbuf_printf(&path, "%s/%s", dir, de->d_name);
		if (!rc)
			rc = add(path.p, 0);
	}
	closedir(d);
	free(path.p);
	if (rc && path.oom)
		errno = ENOMEM;
	return rc;
}

const char *libsrc_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("FSPLAN_LIB");
	char exe[PATH_MAX];
	ssize_t n;

	if (dir[0])
		return dir;
	/* absolute, whatever it was given as: phases chdir */
	if (env && *env && realpath(env, dir))
		return dir;
	/* Beside the binary first, so a build tree runs its own library. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		struct stat st;
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(dir, sizeof(dir), "%.*s/lua", PATH_MAX - 8,
				 exe);
			if (!stat(dir, &st) && S_ISDIR(st.st_mode))
				return dir;
		}
	}
	snprintf(dir, sizeof(dir), "%s", FSPLAN_DATADIR "/lua");
	return dir;
}

int libsrc_load(const char *libdir)
{
	struct strbuf parse = { 0 }, exec = { 0 };
	int rc = 0;

	if (srcs || !libdir)
		return 0;
	if (strbuf_printf(&parse, "%s/parse", libdir) ||
	    strbuf_printf(&exec, "%s/exec", libdir)) {
		errno = ENOMEM;
		rc = -1;
	}
	if (!rc && (add_dir(libdir, ".lua") || add_dir(parse.p, ".lua") ||
		    add_dir(exec.p, ".sh"))) {
		libsrc_free();
		rc = -1;
	}
	free(parse.p);
	free(exec.p);
	return rc;
}

const char *libsrc_get(const char *path, size_t *len)
{
	for (size_t i = 0; i < n_srcs; i++)
		if (!strcmp(srcs[i].path, path)) {
			*len = srcs[i].len;
			return srcs[i].text;
		}
	return NULL;
}

int libsrc_exists(const char *path)
{
	struct stat st;
	size_t n;

	return libsrc_get(path, &n) || (!stat(path, &st) &&
					 S_ISREG(st.st_mode));
}

char *libsrc_exec_path(const char *module, const char *name)
{
	const char *slash = module ? strrchr(module, '/') : NULL;
	const char *lib = libsrc_dir();
	size_t dir = slash ? (size_t)(slash - module) : 0;
	struct strbuf path = { 0 };

	if (slash && !(dir == strlen(lib) && !strncmp(module, lib, dir))) {
		if (strbuf_printf(&path, "%.*s/exec/%s", (int)dir, module,
				  name))
			goto oom;
		if (libsrc_exists(path.p))
			return path.p;
		path.len = 0;
	}
	if (!strbuf_printf(&path, "%s/exec/%s", lib, name))
		return path.p;
oom:
	free(path.p);
	return NULL;
}

int libsrc_keep(const char *path)
{
	size_t n;

	return libsrc_get(path, &n) ? 0 : add(path, 1);
}

void libsrc_each(void (*fn)(void *ctx, const char *path, const char *text,
			    size_t len), void *ctx)
{
	for (size_t i = 0; i < n_srcs; i++)
		fn(ctx, srcs[i].path, srcs[i].text, srcs[i].len);
}

void libsrc_free(void)
{
	for (size_t i = 0; i < n_srcs; i++) {
		free(srcs[i].path);
		free(srcs[i].text);
	}
	free(srcs);
	srcs = NULL;
	n_srcs = 0;
}
