/* workpath: a phase's paths, opened beneath the work directory only. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "phase/workpath.h"
#include "phase/worker.h"

const char *workpath_error(const char *path)
{
	const char *p = path;

	if (!*path)
		return "an empty path";
	if (*path == '/')
		return "paths are relative to the work directory";
	for (;;) {	/* p: the start of a component */
		if (p[0] == '.' && p[1] == '.' && (!p[2] || p[2] == '/'))
			return "'..' would leave the work directory";
		p = strchr(p, '/');
		if (!p)
			return NULL;
		while (*p == '/')
			p++;
	}
}

int workpath_openat(struct worker *w, int dirfd, const char *path, int flags)
{
	struct engine_req r = { .op = ENGINE_OPEN, .dirfd = dirfd,
				.path = path, .flags = flags };

	return (int)engine_do(w->eng, w->e, &r);
}

/* The kept directories' two places swapped: the last used comes first. */
static void swap_dirs(struct worker *w)
{
	char dir[sizeof(w->pdir)];
	size_t len = w->pdir_len;
	int fd = w->pdir_fd;

	memcpy(dir, w->pdir, len);
	memcpy(w->pdir, w->pdir2, w->pdir2_len);
	w->pdir_len = w->pdir2_len;
	w->pdir_fd = w->pdir2_fd;
	memcpy(w->pdir2, dir, len);
	w->pdir2_len = len;
	w->pdir2_fd = fd;
}

/*
 * The directory holding path's last component, opened beneath the work
 * directory, and that component. Returns the dir fd (the work directory
 * itself is not to be closed: *own says), or -errno.
 */
int workpath_parent(struct worker *w, const char *path, char *name,
		    size_t len, int *own, int cache)
{
	char dir[4096];
	const char *slash, *base;
	size_t n = strlen(path), dlen;
	int fd;

	*own = 0;
	if (workpath_error(path))
		return -EINVAL;
	while (n > 1 && path[n - 1] == '/')
		n--;
	slash = memrchr(path, '/', n);
	base = slash ? slash + 1 : path;
	if ((size_t)(path + n - base) >= len)
		return -ENAMETOOLONG;
	memcpy(name, base, (size_t)(path + n - base));
	name[path + n - base] = '\0';
	if (!strcmp(name, ".") || !name[0])
		return -EINVAL;
	if (!slash)
		return w->workfd;
	/*
	 * The last two directories resolved are kept open: a loop over the
	 * files of one directory (bonnie's create, stat, delete), or a copy
	 * from one into another, then costs one syscall per file, as the
	 * classic tools' do. This worker's renames and rmdirs drop them;
	 * another worker renaming a directory meanwhile is not seen (its
	 * ops would follow the directory).
	 */
	dlen = (size_t)(slash - path);
	if (cache && w->pdir_fd >= 0 && dlen == w->pdir_len &&
	    !memcmp(path, w->pdir, dlen))
		return w->pdir_fd;
	if (cache && w->pdir2_fd >= 0 && dlen == w->pdir2_len &&
	    !memcmp(path, w->pdir2, dlen)) {
		swap_dirs(w);
		return w->pdir_fd;
	}
	if (dlen >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, dlen);
	dir[dlen] = '\0';
	fd = workpath_openat(w, w->workfd, dir, O_PATH | O_DIRECTORY);
	if (fd < 0)
		return fd;
	if (cache && dlen < sizeof(w->pdir)) {
		/* the older one goes, the last one becomes the older */
		if (w->pdir2_fd >= 0)
			close(w->pdir2_fd);
		w->pdir2_fd = -1;
		swap_dirs(w);
		memcpy(w->pdir, dir, dlen);
		w->pdir_len = dlen;
		w->pdir_fd = fd;
		return fd;
	}
	*own = 1;
	return fd;
}

/*
 * Beneath the parent directory implies beneath the work directory; the
 * converse does not hold — a symlink to ../other/file is refused there
 * with EXDEV — so that is tried again from the work directory, which
 * decides.
 */
int64_t workpath_open(struct worker *w, struct engine_req *r, const char *path)
{
	size_t len = strlen(path);
	char name[256];
	int64_t res = -EXDEV;
	int own = 0, fd = -1;

	if (workpath_error(path))
		return -EINVAL;
	if (len && path[len - 1] != '/' && strchr(path, '/'))
		fd = workpath_parent(w, path, name, sizeof(name), &own, 1);
	if (fd >= 0) {
		r->dirfd = fd;
		r->path = name;
		res = engine_do(w->eng, w->e, r);
		if (own)
			close(fd);
	}
	if (res == -EXDEV) {
		r->dirfd = w->workfd;
		r->path = path;
		r->res = 0;
		res = engine_do(w->eng, w->e, r);
	}
	return res;
}
