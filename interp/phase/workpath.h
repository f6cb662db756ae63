/* workpath: a phase's paths, opened beneath the work directory only. */
#ifndef FSPLAN_WORKPATH_H
#define FSPLAN_WORKPATH_H

#include <stddef.h>
#include <stdint.h>

struct worker;
struct engine_req;

/*
 * The path policy: a phase's path is relative to the work directory and
 * never leaves it. NULL if path is one a phase may use, else why not
 * (empty, absolute, a '..' component).
 */
const char *workpath_error(const char *path);

/*
 * The open policy, the engines' own (engine_open_how: RESOLVE_BENEATH,
 * no magic links, O_CLOEXEC): open path beneath dirfd through w's
 * engine, untimed. The fd, or -errno (-EXDEV for a symlink that leads
 * out).
 */
int workpath_openat(struct worker *w, int dirfd, const char *path, int flags);

/*
 * The directory holding path's last component (opened beneath the work
 * directory, the last one kept open) and that component in name. The
 * fd is the caller's to close only when *own; -errno on failure (-EINVAL
 * for a path the policy refuses or that names no entry, such as ".").
 * cache 0: do not replace the kept directory (a second path of the same
 * op may need the first's fd).
 */
int workpath_parent(struct worker *w, const char *path, char *name,
		    size_t len, int *own, int cache);
/*
 * Open path beneath the work directory through the engine, as the
 * request r asks (r->op ENGINE_OPEN, flags, mode), timed in r: from the
 * kept parent directory when there is one (one component per open, as
 * bonnie++ does from its cwd), else from the work directory. The fd,
 * or -errno.
 */
int64_t workpath_open(struct worker *w, struct engine_req *r, const char *path);

#endif
