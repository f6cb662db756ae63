/* memcg: a phase child's memory cgroup, so `ram` limits its page cache too. */
#ifndef FSPLAN_MEMCG_H
#define FSPLAN_MEMCG_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/diag.h"

enum memcg_kind { MEMCG_NONE, MEMCG_V2, MEMCG_V1 };

struct memcg {
	enum memcg_kind kind;
	char dir[PATH_MAX];	/* the cgroup's directory, "" when none */
	uint64_t limit;		/* bytes */
};

/* "cgroup-v2", "cgroup-v1" or "none": the ram_limit row. */
const char *memcg_kind_name(enum memcg_kind kind);

/*
 * Make the cgroup fsplan-<owner>-<n> limited to bytes, swap 0: cgroup v2
 * memory.max and memory.swap.max at the root of the unified hierarchy
 * when it has the memory controller (enabled in the root's
 * subtree_control if it is not), else a child of our own cgroup of a v1
 * memory hierarchy with memory.limit_in_bytes (and memsw, when the
 * kernel accounts swap), so a limit the caller is under still applies.
 * owner is the pid that names the run (its host pid). 0, or -1 with d.
 */
int memcg_make(struct memcg *m, uint64_t bytes, pid_t owner, unsigned n,
	       struct diag *d);

/* In the child, still root, before the privilege drop: move the calling
 * process into dir (its threads and later children follow). 0 or -errno. */
int memcg_join(const char *dir);

/* The most the cgroup held (memory.peak, memory.max_usage_in_bytes), in
 * bytes, or -1 if the kernel does not say. */
double memcg_peak(const struct memcg *m);

/* What it holds now (memory.current, memory.usage_in_bytes), in bytes,
 * or -1 if unknown. */
double memcg_usage(const struct memcg *m);

/* The CPU its processes used, all they ever were (a v2 cgroup's cpu.stat
 * usage_usec), in seconds; -1 on v1 or if unknown. */
double memcg_cpu_s(const struct memcg *m);

/* How many times the limit's OOM killer killed in it (memory.events
 * oom_kill, memory.oom_control oom_kill), or -1 if unknown. */
long memcg_oom_kills(const struct memcg *m);

/* The page cache charged to it now (memory.stat: v2 file, v1 cache), in
 * bytes, or -1 if unknown. After an OOM kill, what is left says whether
 * the phase's own memory filled the limit or unreclaimed cache did. */
double memcg_cache_bytes(const struct memcg *m);

/* Remove it, once its last process has gone (a killed child's exit can
 * lag its reaping a little). 0, or -errno if it is still there. */
int memcg_remove(struct memcg *m);

/*
 * Remove the cgroups that runs killed by SIGKILL left: fsplan-<pid>-*
 * where memcg_make puts them, whose pid is no running fsplan (an empty
 * cgroup is all rmdir removes). Returns how many.
 */
int memcg_clean_stale(void);

#endif
