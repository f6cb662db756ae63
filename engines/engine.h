/* engine: the I/O engine contract (queue, commit, reap) of every phase op. */
#ifndef FSPLAN_ENGINE_H
#define FSPLAN_ENGINE_H

#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/stat.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/diag.h"

/*
 * What a request asks. Data ops take fd/buf/len/off; path ops take dirfd
 * and path (and path2/dirfd2 for rename and link, path as the link's
 * target for symlink). Path ops are always relative to a directory fd the
 * caller opened beneath the work directory; the caller has checked that
 * `path` is a single component (no '/', not "." or "..") except for
 * ENGINE_OPEN, which the engine resolves with RESOLVE_BENEATH.
 */
enum engine_op {
	ENGINE_READ,
	ENGINE_WRITE,
	ENGINE_FSYNC,
	ENGINE_FDATASYNC,
	ENGINE_FALLOCATE,	/* off, len; mode in flags */
	ENGINE_FTRUNCATE,	/* off is the new size */
	ENGINE_OPEN,		/* dirfd, path, flags, mode: res is the fd */
	ENGINE_CLOSE,		/* fd */
	ENGINE_STATX,		/* dirfd, path ("" with AT_EMPTY_PATH), stx */
	ENGINE_UNLINK,		/* dirfd, path, flags (AT_REMOVEDIR: rmdir) */
	ENGINE_MKDIR,		/* dirfd, path, mode */
	ENGINE_RENAME,		/* dirfd, path -> dirfd2, path2 */
	ENGINE_LINK,		/* dirfd, path -> dirfd2, path2 */
	ENGINE_SYMLINK,		/* target path -> dirfd2, path2 */
	ENGINE_NOPS
};

struct engine_req {
	/* in */
	enum engine_op op;
	int fd;
	void *buf;
	uint64_t len;
	uint64_t off;
	int dirfd, dirfd2;
	const char *path, *path2;
	int flags;		/* open(2) flags, AT_* flags, fallocate mode */
	mode_t mode;
	struct statx *stx;
	void *user;		/* the caller's; the engine never touches it */
	uint64_t t_now;		/* 0, or a clock read (ns) the caller shares
				 * over a batch: queue takes it as t_submit
				 * instead of reading the clock again */
	unsigned char untimed;	/* 1: the caller times the loop around it
				 * (bonnie's per-char bytes): an engine may
				 * leave t_submit and t_done 0, no clock */
	/* out */
	int64_t res;		/* bytes moved (READ/WRITE), fd, 0, or -errno */
	uint64_t t_submit;	/* ns, CLOCK_MONOTONIC: when queued */
	uint64_t t_done;	/* ns: when reaped complete */
	unsigned char ring;	/* 1: it went through io_uring, 0: a syscall */
	/* the engine's: bytes done so far of a transfer it split */
	uint64_t done;
};

/*
 * What every engine's own state begins with: an engine embeds it as the
 * first member of a struct of its own (struct sync_engine, ...), and its
 * hooks get back to that struct with engine_of (engine_impl.h).
 */
struct engine {
	const struct engine_ops *ops;	/* the table that made it */
};

/* The version of struct engine_ops an engine is written for: a table of
 * another version is refused, never half-used. */
#define ENGINE_OPS_VERSION	1

/* Flags of an engine. */
#define ENGINE_ASYNC	1u	/* requests really overlap (depth > 1 helps) */
/* reap submits what is queued before it waits (one syscall for both):
 * engine_do then has no commit of its own */
#define ENGINE_REAP_SUBMITS 2u
/* a lone read or write (run, with nothing in flight) is engine_plain_rw:
 * a caller timing a loop of them itself may call that directly */
#define ENGINE_LONE_PLAIN 4u

/* Every hook but run is required (checked when an engine is registered or
 * found). */
struct engine_ops {
	const char *name;
	int version;			/* ENGINE_OPS_VERSION */
	unsigned flags;
	/*
	 * Make an engine for one worker thread that keeps up to depth
	 * requests in flight. uring: creates the ring here — in the worker,
	 * after the privilege drop, never before — and probes the opcodes it
	 * needs; a missing one is an error naming it. 0 or -errno, with d
	 * (may be NULL) saying why, e.g. io_uring disabled by
	 * kernel.io_uring_disabled.
	 */
	int (*init)(struct engine **out, unsigned depth, struct diag *d);
	/* Add a request; -EBUSY when depth requests are already queued or
	 * in flight. Sets t_submit (to t_now when the caller gave one). */
	int (*queue)(struct engine *e, struct engine_req *r);
	/* Submit everything queued. 0 or -errno. */
	int (*commit)(struct engine *e);
	/*
	 * Wait until at least min requests completed (0: do not wait) and
	 * return up to max of them in done[]; their res and t_done are set
	 * (the completions one look at the ring finds share a clock read).
	 * A short read or write is resubmitted for the rest (res counts all
	 * of it) until it completes, hits EOF (a read returning 0: res is
	 * what was read) or fails; -EAGAIN is requeued. Returns the count,
	 * or -errno.
	 */
	int (*reap)(struct engine *e, unsigned min, struct engine_req **done,
		    unsigned max);
	/* How many requests are queued or in flight. */
	unsigned (*inflight)(struct engine *e);
	void (*cleanup)(struct engine *e);
	/*
	 * Optional (NULL: engine_do queues, commits and reaps through the
	 * hooks above): one request alone, queued to completed, as those
	 * would take it, in fewer steps. Called with nothing in flight;
	 * returns res (r->res too) or -errno.
	 */
	int64_t (*run)(struct engine *e, struct engine_req *r);
};

/*
 * A whole read or write of r (op, fd, buf, len, off; done 0) on plain
 * system calls, as the sync engine makes it: short transfers continue,
 * EINTR and EAGAIN retry, a read of 0 is EOF. Bytes moved, or -errno;
 * r->done counts them. Sets no time and nothing else of r.
 */
int64_t engine_plain_rw(struct engine_req *r);

extern const struct engine_ops engine_uring;
extern const struct engine_ops engine_sync;
extern const struct engine_ops engine_auto;
/* example.c's null engine, to copy: not built in, tests register it */
extern const struct engine_ops engine_example;

/*
 * What the filesystem of fd answers to a non-blocking read and write
 * (RWF_NOWAIT), the question io_uring asks before it hands an op to a
 * kernel worker thread: ENGINE_PROBE_READ and/or ENGINE_PROBE_WRITE
 * when it serves them without one. Moves no data and changes no file.
 */
#define ENGINE_PROBE_READ	1u
#define ENGINE_PROBE_WRITE	2u
unsigned engine_probe_fd(int fd);

/*
 * Whether ops keeps the contract: a name, version ENGINE_OPS_VERSION and
 * every hook. 0, or -1 with d (an input error) saying which engine lacks
 * what.
 */
int engine_check(const struct engine_ops *ops, struct diag *d);

/*
 * Add an engine besides the built-in ones (before any worker starts: the
 * list is not locked). Refused (-1, d) if engine_check refuses it or its
 * name is taken.
 */
int engine_register(const struct engine_ops *ops, struct diag *d);

/*
 * The engine named name (a built-in one or a registered one), or NULL.
 * A built-in one that breaks the contract is not found, and stderr says
 * why.
 */
const struct engine_ops *engine_find(const char *name);

/*
 * Whether name is an engine engine_find finds (1) or not (0). Either way,
 * when names is not NULL it receives the registry's names as a message
 * takes them ("auto, uring or sync", registered ones included), so no
 * validator repeats the list.
 */
int engine_known(const char *name, char *names, size_t len);

/* How many worker threads a phase may run, each with its own engine: the
 * one range the plan, each cell and each phase check 'workers' against. */
#define ENGINE_WORKERS_MIN	1
#define ENGINE_WORKERS_MAX	65536

/* Do one request start to finish: queue, commit, reap it. Returns res. */
int64_t engine_do(const struct engine_ops *ops, struct engine *e,
		  struct engine_req *r);


#endif
