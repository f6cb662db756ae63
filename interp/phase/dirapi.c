/* dirapi: w:readdir, w:scandir and w:lookup: a directory's names, timed. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <lauxlib.h>

#include "phase/dirapi.h"
#include "phase/worker.h"
#include "phase/workerlua.h"
#include "phase/workpath.h"
#include "util/clock.h"

/*
 * A directory's entries read with getdents64 into the caller's buffer:
 * no DIR (fdopendir's fcntl, fstat and 32 KiB malloc per directory),
 * which is most of what a dbench resolve costs. each(name, arg) for
 * every entry but "." and ".."; a nonzero return stops the scan early.
 * 0 or -errno.
 */
struct dirent64_raw {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static int scan_dir(int fd, int (*each)(const char *name, void *arg),
		    void *arg)
{
	char buf[8192] __attribute__((aligned(8)));

	for (;;) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));

		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		for (long off = 0; off < n;) {
			struct dirent64_raw *de = (void *)(buf + off);
			const char *name = de->d_name;

			off += de->d_reclen;
			if (name[0] == '.' && (!name[1] ||
					       (name[1] == '.' && !name[2])))
				continue;
			if (each(name, arg))
				return 0;
		}
	}
}

/* The directory path (beneath the work directory) opened for a scan. */
static int open_dir(lua_State *L, struct worker *w, const char *path)
{
	if (strcmp(path, "."))
		workerlua_check_path(L, path);
	return workpath_openat(w, w->workfd, path, O_RDONLY | O_DIRECTORY);
}

/*
 * The fd w:readdir reads, owned by a userdata made before the directory
 * is opened: a raise while the names go into the table (no memory)
 * leaves it to the collector, which closes it. The phase never sees
 * this userdata.
 */
static const char dirfd_mt;

static int dirfd_gc(lua_State *L)
{
	int *fd = lua_touserdata(L, 1);

	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	return 0;
}

static int *new_dirfd(lua_State *L)
{
	int *fd = lua_newuserdatauv(L, sizeof(*fd), 0);

	*fd = -1;
	if (lua_rawgetp(L, LUA_REGISTRYINDEX, &dirfd_mt) == LUA_TNIL) {
		lua_pop(L, 1);
		lua_createtable(L, 0, 1);
		lua_pushcfunction(L, dirfd_gc);
		lua_setfield(L, -2, "__gc");
		lua_pushvalue(L, -1);
		lua_rawsetp(L, LUA_REGISTRYINDEX, &dirfd_mt);
	}
	lua_setmetatable(L, -2);
	return fd;
}

struct names {
	lua_State *L;
	int n;
};

static int add_name(const char *name, void *arg)
{
	struct names *a = arg;

	lua_pushstring(a->L, name);
	lua_rawseti(a->L, -2, ++a->n);
	return 0;
}

int dirapi_readdir(lua_State *L)
{
	struct worker *w = worker_get(L);
	const char *path = lua_isnoneornil(L, 2) ? "."
						 : workerlua_path_arg(L, 2);
	struct names a = { L, 0 };
	uint64_t t0 = clock_ns();
	int *fd = new_dirfd(L), rc;

	*fd = open_dir(L, w, path);
	if (*fd < 0)
		return workerlua_fail_resolve(L, "readdir", path, -*fd);
	lua_newtable(L);
	rc = scan_dir(*fd, add_name, &a);
	close(*fd);
	*fd = -1;
	worker_record_span(w, "readdir", t0, clock_ns(), 0);
	if (rc < 0)
		return workerlua_fail_op(L, "readdir", 0, path, -rc);
	return 1;
}

struct lookup {
	const char *want;	/* NULL: count only */
	char found[256];
	int n, hit;
};

static int match_name(const char *name, void *arg)
{
	struct lookup *a = arg;

	a->n++;
	if (a->want && !a->hit && !strcasecmp(name, a->want) &&
	    strlen(name) < sizeof(a->found)) {
		strcpy(a->found, name);
		a->hit = 1;
	}
	return 0;
}

/*
 * w:scandir(path [, name]) -> n, match: the directory read through, as
 * a search of it does (dbench's case-insensitive resolve, FIND_FIRST),
 * without making a table: n entries (not "." and ".."), and the first
 * one equal to name ignoring ASCII case, or nil. Timed as "readdir".
 */
int dirapi_scandir(lua_State *L)
{
	struct worker *w = worker_get(L);
	const char *path = workerlua_path_arg(L, 2);
	struct lookup a = { .want = luaL_optstring(L, 3, NULL) };
	uint64_t t0 = clock_ns();
	int fd, rc;

	fd = open_dir(L, w, path);
	if (fd < 0)
		return workerlua_fail_resolve(L, "readdir", path, -fd);
	rc = scan_dir(fd, match_name, &a);
	close(fd);
	worker_record_span(w, "readdir", t0, clock_ns(), 0);
	if (rc < 0)
		return workerlua_fail_op(L, "readdir", 0, path, -rc);
	lua_pushinteger(L, a.n);
	if (a.hit)
		lua_pushstring(L, a.found);
	else
		lua_pushnil(L);
	return 2;
}

/*
 * w:lookup(path) -> true | name | nil: whether path names an entry, as
 * an SMB server resolves a client's name (dbench's fileio backend): a
 * stat of it (not following a last symlink), and when that finds
 * nothing, a scan of its directory for an entry equal to its last
 * component ignoring ASCII case — that entry's name, or nil when there
 * is none (no message: not finding is an answer). Both timed: "stat"
 * and "readdir".
 */
int dirapi_lookup(lua_State *L)
{
	struct worker *w = worker_get(L);
	const char *path = workerlua_path_arg(L, 2);
	struct statx st;
	struct engine_req r = { .op = ENGINE_STATX, .stx = &st,
				.flags = AT_SYMLINK_NOFOLLOW };
	struct lookup a = { 0 };
	char name[256];
	uint64_t t0;
	int64_t res;
	int fd, dir, own, rc;

	workerlua_check_path(L, path);
	fd = workpath_parent(w, path, name, sizeof(name), &own, 1);
	if (fd == -ENOENT || fd == -ENOTDIR) {	/* no such directory */
		lua_pushnil(L);
		return 1;
	}
	if (fd == -EINVAL) {	/* "." and the like: the directory itself */
		lua_pushboolean(L, 1);
		return 1;
	}
	if (fd < 0)
		return workerlua_fail_resolve(L, "stat", path, -fd);
	r.dirfd = fd;
	r.path = name;
	res = engine_do(w->eng, w->e, &r);
	worker_record_req(w, "stat", &r, 0);
	if (res == 0 || (res != -ENOENT && res != -ENOTDIR)) {
		if (own)
			close(fd);
		if (res < 0)
			return workerlua_fail_op(L, "stat", 0, path, (int)-res);
		lua_pushboolean(L, 1);
		return 1;
	}
	/* a fresh fd of the directory: the kept one's offset stays put */
	t0 = clock_ns();
	dir = workpath_openat(w, fd, ".", O_RDONLY | O_DIRECTORY);
	if (own)
		close(fd);
	if (dir < 0)
		return workerlua_fail_resolve(L, "readdir", path, -dir);
	a.want = name;
	rc = scan_dir(dir, match_name, &a);
	close(dir);
	worker_record_span(w, "readdir", t0, clock_ns(), 0);
	if (rc < 0)
		return workerlua_fail_op(L, "readdir", 0, path, -rc);
	if (a.hit)
		lua_pushstring(L, a.found);
	else
		lua_pushnil(L);
	return 1;
}
