/* packfiles: what pack and rerun share — the files a manifest names. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/packfiles.h"
#include "util/file.h"
#include "util/sha256.h"

#define PACKFILES_MAX (1u << 30)

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* rel of path under dir ("dir/" a prefix of path), or NULL. */
static const char *under(const char *path, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;

	if (!n || strncmp(path, dir, n) || path[n] != '/' || !path[n + 1])
		return NULL;
	return path + n + 1;
}

static int place(struct packlist *l, const char *libdir, const char *path,
		 const char *sha, const char *kind, struct diag *d)
{
	struct packfile *f;
	const char *r;
	int n;

	if (!path || !sha || path[0] != '/' || strstr(path, "/../") ||
	    strstr(path, "/./"))
		return diag_fail(d, DIAG_INPUT, 0, "the manifest names a file "
				 "without an absolute path or a sha256: %s",
				 path ? path : "(none)");
	f = realloc(l->f, (l->n + 1) * sizeof(*f));
	if (!f)
		return diag_fail(d, DIAG_SYSTEM, ENOMEM, "the file list");
	l->f = f;
	f = &l->f[l->n];
	if ((r = under(path, l->root)))
		n = asprintf(&f->rel, "plan/%s", r);
	else if ((r = under(path, libdir)))
		n = asprintf(&f->rel, "lib/%s", r);
	else
		n = asprintf(&f->rel, "abs%s", path);
	if (n < 0)
		return diag_fail(d, DIAG_SYSTEM, ENOMEM, "the file list");
	f->path = path;
	f->sha = sha;
	f->kind = kind;
	l->n++;
	return 0;
}

/* The root of the plan's tree: from its directory up to the deepest
 * that holds every file of the code list but the library's too, so a
 * module named "../mods/x.lua" is laid out where the plan finds it; the
 * plan's own directory when only / would hold them (those go under
 * abs/). */
static void tree_root(struct packlist *l, json_t *man, const char *libdir,
		      const char *plan)
{
	char root[sizeof(l->root)];
	json_t *o;
	size_t i;

	memcpy(root, l->root, sizeof(root));
	json_array_foreach(json_object_get(man, "code"), i, o) {
		const char *p = str(o, "path") ?: "";

		if (!strcmp(p, plan) || under(p, libdir) || *p != '/')
			continue;
		while (*root && !under(p, root))
			*strrchr(root, '/') = 0;	/* "/a/b" to "/a" */
		if (!*root)
			return;		/* only / holds them both */
	}
	memcpy(l->root, root, sizeof(root));
}

int packfiles_list(json_t *man, const char *libdir, struct packlist *l,
		   struct diag *d)
{
	json_t *plan = json_object_get(man, "plan"), *o;
	const char *real = str(plan, "realpath"), *slash;
	size_t i;

	memset(l, 0, sizeof(*l));
	if (!real || !(slash = strrchr(real, '/')) ||
	    (size_t)(slash - real) >= sizeof(l->root))
		return diag_fail(d, DIAG_INPUT, 0, "the manifest has no "
				 "plan.realpath: not a run of this fsplan");
	memcpy(l->root, real, (size_t)(slash - real));
	l->root[slash - real] = 0;
	tree_root(l, man, libdir, real);
	if (place(l, libdir, real, str(plan, "sha256"), "plan", d))
		return -1;
	l->plan_rel = l->f[0].rel;
	json_array_foreach(json_object_get(man, "code"), i, o)
		if (strcmp(str(o, "path") ?: "", real) &&
		    place(l, libdir, str(o, "path"), str(o, "sha256"),
			  str(o, "kind") ?: "file", d))
			return -1;
	return 0;
}

int packfiles_libdir(json_t *man, char *buf, size_t len)
{
	json_t *o;
	size_t i;

	json_array_foreach(json_object_get(man, "code"), i, o) {
		const char *p = str(o, "path") ?: "";
		const char *kind = str(o, "kind") ?: "";
		const char *end = strrchr(p, '/');
		size_t n = end ? (size_t)(end - p) : 0;

		if (!strcmp(kind, "parser") && n > 6 &&
		    !strncmp(end - 6, "/parse", 6))
			n -= 6;
		else if (!strcmp(kind, "module") && end &&
			 !strcmp(end, "/fsplan.lua"))
			;
		else
			continue;
		if (n && n < len) {
			memcpy(buf, p, n);
			buf[n] = 0;
			return 0;
		}
	}
	return -1;
}

void packfiles_free(struct packlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->f[i].rel);
	free(l->f);
	memset(l, 0, sizeof(*l));
}

int packfiles_mkdirs(const char *dir, const char *rel)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/%s", dir, rel);

	if (n < 0 || (size_t)n >= sizeof(path))
		return errno = ENAMETOOLONG, -1;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	for (char *s = path + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return 0;
}

int packfiles_copy(const struct packfile *f, const char *src,
		   const char *dir, struct diag *d)
{
	int fd = file_open_regular(src), more = 0, out, rc;
	char sha[65], path[PATH_MAX];
	size_t len = 0;
	char *text;

	if (fd < 0)
		return diag_fail(d, DIAG_REFUSED, -fd, "%s %s cannot be read",
				 f->kind, f->path);
	text = file_read_all(fd, PACKFILES_MAX, &len, &more);
	close(fd);
	if (!text || more) {
		free(text);
		return diag_fail(d, DIAG_REFUSED, 0, "%s %s cannot be read "
				 "whole", f->kind, f->path);
	}
	sha256_hex(text, len, sha);
	if (strcmp(sha, f->sha)) {
		free(text);
		return diag_fail(d, DIAG_REFUSED, 0, "%s %s changed since the "
				 "run: sha256 %s in the manifest, %s now",
				 f->kind, f->path, f->sha, sha);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, f->rel);
	if (packfiles_mkdirs(dir, f->rel)) {
		free(text);
		return diag_fail(d, DIAG_SYSTEM, errno, "%s", path);
	}
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		   0644);
	rc = out < 0 ? -errno : file_write_all(out, text, len, NULL);
	if (out >= 0 && close(out) && !rc)
		rc = -errno;
	free(text);
	if (rc)
		return diag_fail(d, DIAG_SYSTEM, -rc, "%s", path);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void packfiles_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int packfiles_spawn(const char *const *argv, const char *env, int out_fd)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (env)
			putenv((char *)env);
		if (out_fd >= 0 && dup2(out_fd, 1) < 0)
			_exit(127);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
