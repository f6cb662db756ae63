/* memcg: a phase child's memory cgroup, so `ram` limits its page cache too. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/memcg.h"
#include "util/file.h"

const char *memcg_kind_name(enum memcg_kind kind)
{
	return kind == MEMCG_V2 ? "cgroup-v2" : kind == MEMCG_V1 ? "cgroup-v1"
								 : "none";
}

/* Write s to dir/file: 0 or -errno. */
static int put(const char *dir, const char *file, const char *s)
{
	char path[PATH_MAX + 64];
	size_t n = strlen(s);
	int fd, rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, s, n) != (ssize_t)n)
		rc = -errno;
	close(fd);
	return rc;
}

/* dir/file's first bytes, NUL-ended: its length, or -1. */
static ssize_t get(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return file_read_text(path, buf, len);
}

static int has_word(const char *list, const char *word, const char *seps)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || strchr(seps, p[-1])) &&
		    (!p[n] || strchr(seps, p[n])))
			return 1;
	return 0;
}

/*
 * Where the hierarchies are mounted (/proc/self/mountinfo): the unified
 * one (fstype cgroup2) in v2, a v1 one whose super options name the
 * memory controller in v1; "" for what is not there.
 */
static void mounts(char *v2, char *v1, size_t len)
{
	char line[4096], mnt[PATH_MAX], type[64], opts[1024];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	*v2 = *v1 = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");

		/* id parent maj:min root MOUNTPOINT opts ... - TYPE SRC SUPER */
		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(sep + 3, "%63s %*s %1023s", type, opts) != 2)
			continue;
		if (!strcmp(type, "cgroup2") && !*v2)
			snprintf(v2, len, "%s", mnt);
		else if (!strcmp(type, "cgroup") && !*v1 &&
			 has_word(opts, "memory", ","))
			snprintf(v1, len, "%s", mnt);
	}
	fclose(f);
}

/* Our own cgroup in the v1 memory hierarchy (/proc/self/cgroup), "/"
 * when the line is missing. */
static void own_v1(char *rel, size_t len)
{
	char line[4096];
	FILE *f = fopen("/proc/self/cgroup", "re");

	snprintf(rel, len, "/");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;

		if (!b)
			continue;
		*b = '\0';
		if (!has_word(a + 1, "memory", ","))
			continue;
		b[1 + strcspn(b + 1, "\n")] = '\0';
		snprintf(rel, len, "%s", b + 1);
		break;
	}
	fclose(f);
}

/* The directory the run's cgroups go in, and which hierarchy: the
 * unified root with memory available, else our own v1 memory cgroup. */
static enum memcg_kind parent(char *dir, size_t len)
{
	char v2[PATH_MAX], v1[PATH_MAX], rel[PATH_MAX], buf[512];

	mounts(v2, v1, sizeof(v2));
	if (*v2 && get(v2, "cgroup.controllers", buf, sizeof(buf)) > 0 &&
	    has_word(buf, "memory", " \n")) {
		snprintf(dir, len, "%s", v2);
		return MEMCG_V2;
	}
	if (*v1) {
		own_v1(rel, sizeof(rel));
		snprintf(dir, len, "%s%s", v1, strcmp(rel, "/") ? rel : "");
		return MEMCG_V1;
	}
	return MEMCG_NONE;
}

/* The limit of bytes (val) written to m's files: 0, or -errno with what
 * names the file that refused it. */
static int set_limit(const struct memcg *m, const char *val,
		     const char **what)
{
	int rc;

	if (m->kind == MEMCG_V2) {
		if ((rc = put(m->dir, *what = "memory.max", val)))
			return rc;
		/* without swap accounting there is no file, and no swap use
		 * to limit */
		rc = put(m->dir, *what = "memory.swap.max", "0");
		return rc == -ENOENT ? 0 : rc;
	}
	if ((rc = put(m->dir, *what = "memory.limit_in_bytes", val)))
		return rc;
	/* memory+swap no more than memory: swap 0 (after the limit, which
	 * memsw may not be below) */
	rc = put(m->dir, *what = "memory.memsw.limit_in_bytes", val);
	return rc == -ENOENT ? 0 : rc;
}

int memcg_make(struct memcg *m, uint64_t bytes, pid_t owner, unsigned n,
	       struct diag *d)
{
	char top[PATH_MAX], val[32], buf[512];
	const char *what = "";
	int rc;

	memset(m, 0, sizeof(*m));
	m->kind = parent(top, sizeof(top));
	if (m->kind == MEMCG_NONE)
		return diag_fail(d, DIAG_SYSTEM, 0, "no memory cgroup "
				 "controller (neither a cgroup v2 hierarchy "
				 "with memory nor a v1 memory hierarchy is "
				 "mounted)");
	if (m->kind == MEMCG_V2 &&
	    get(top, "cgroup.subtree_control", buf, sizeof(buf)) >= 0 &&
	    !has_word(buf, "memory", " \n") &&
	    (rc = put(top, "cgroup.subtree_control", "+memory"))) {
		m->kind = MEMCG_NONE;
		return diag_fail(d, DIAG_SYSTEM, -rc, "cannot enable the "
				 "memory controller in "
				 "%s/cgroup.subtree_control", top);
	}
	if (snprintf(m->dir, sizeof(m->dir), "%s/fsplan-%d-%u", top,
		     (int)owner, n) >= (int)sizeof(m->dir) ||
	    mkdir(m->dir, 0755)) {
		diag_fail(d, DIAG_SYSTEM, errno, "cannot make the memory "
			  "cgroup %s", m->dir);
		m->dir[0] = '\0';
		m->kind = MEMCG_NONE;
		return -1;
	}
	m->limit = bytes;
	snprintf(val, sizeof(val), "%llu", (unsigned long long)bytes);
	rc = set_limit(m, val, &what);
	if (!rc)
		return 0;
	if (rmdir(m->dir) && errno != ENOENT)
		diag_fail(d, DIAG_SYSTEM, 0, "memory cgroup %s: %s: %s (and it "
			  "could not be removed: %s)", m->dir, what,
			  strerror(-rc), strerror(errno));
	else
		diag_fail(d, DIAG_SYSTEM, 0, "memory cgroup %s: %s: %s", m->dir,
			  what, strerror(-rc));
	if (d)
		d->err = -rc;	/* its text is in the middle of the message */
	m->dir[0] = '\0';
	m->kind = MEMCG_NONE;
	return -1;
}

int memcg_join(const char *dir)
{
	/* 0 is the writer itself, whatever PID namespace it is in */
	return put(dir, "cgroup.procs", "0");
}

double memcg_peak(const struct memcg *m)
{
	char buf[64];

	if (m->kind == MEMCG_NONE ||
	    get(m->dir, m->kind == MEMCG_V2 ? "memory.peak"
					    : "memory.max_usage_in_bytes",
		buf, sizeof(buf)) <= 0)
		return -1;
	return strtod(buf, NULL);
}

/* The value of the line "key value" of a flat-keyed cgroup file's text
 * (memory.events, memory.stat), or NULL. */
static const char *keyed(const char *buf, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return p + klen + 1;
	return NULL;
}

long memcg_oom_kills(const struct memcg *m)
{
	char buf[2048];
	const char *v;

	if (m->kind == MEMCG_NONE ||
	    get(m->dir, m->kind == MEMCG_V2 ? "memory.events"
					    : "memory.oom_control",
		buf, sizeof(buf)) <= 0)
		return -1;
	v = keyed(buf, "oom_kill");
	return v ? strtol(v, NULL, 10) : -1;
}

double memcg_usage(const struct memcg *m)
{
	char buf[64];

	if (m->kind == MEMCG_NONE ||
	    get(m->dir, m->kind == MEMCG_V2 ? "memory.current"
					    : "memory.usage_in_bytes",
		buf, sizeof(buf)) <= 0)
		return -1;
	return strtod(buf, NULL);
}

double memcg_cpu_s(const struct memcg *m)
{
	char buf[1024];
	const char *v;

	if (m->kind != MEMCG_V2 || get(m->dir, "cpu.stat", buf,
					   sizeof(buf)) <= 0)
		return -1;
	v = keyed(buf, "usage_usec");
	return v ? strtod(v, NULL) / 1e6 : -1;
}

double memcg_cache_bytes(const struct memcg *m)
{
	char buf[8192];
	const char *v;

	if (m->kind == MEMCG_NONE ||
	    get(m->dir, "memory.stat", buf, sizeof(buf)) <= 0)
		return -1;
	v = keyed(buf, m->kind == MEMCG_V2 ? "file" : "cache");
	return v ? strtod(v, NULL) : -1;
}

int memcg_remove(struct memcg *m)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };

	if (!m->dir[0])
		return 0;
	/* up to 5 s: the processes of a killed group leave the cgroup as
	 * they finish exiting, which can lag their parent's wait */
	for (int i = 0; i < 500; i++) {
		if (!rmdir(m->dir) || errno == ENOENT) {
			m->dir[0] = '\0';
			return 0;
		}
		if (errno != EBUSY)
			break;
		nanosleep(&tick, NULL);
	}
	return -errno;
}

/* Whether pid is a running fsplan (its comm, which exec sets). */
static int live_fsplan(long pid)
{
	char path[64], comm[32];

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (file_read_text(path, comm, sizeof(comm)) < 0)
		return errno != ENOENT;	/* unknown: leave its cgroups be */
	comm[strcspn(comm, "\n")] = '\0';
	return !strncmp(comm, "fsplan", 6);
}

int memcg_clean_stale(void)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	char top[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *de;
	int count = 0;
	DIR *d;

	if (parent(top, sizeof(top)) == MEMCG_NONE || !(d = opendir(top)))
		return 0;
	while ((de = readdir(d))) {
		long pid;

		if (fnmatch("fsplan-[0-9]*-[0-9]*", de->d_name, 0))
			continue;
		pid = strtol(de->d_name + 7, NULL, 10);
		if (pid <= 0 || pid == getpid() || live_fsplan(pid))
			continue;
		snprintf(path, sizeof(path), "%s/%s", top, de->d_name);
		/* the processes of a run killed a moment ago may still be
		 * on their way out: up to a second for them; a cgroup with
		 * processes in it is not removed (EBUSY) */
		for (int i = 0; i < 100; i++) {
			if (!rmdir(path)) {
				count++;
				break;
			}
			if (errno != EBUSY)
				break;
			nanosleep(&tick, NULL);
		}
	}
	closedir(d);
	return count;
}
