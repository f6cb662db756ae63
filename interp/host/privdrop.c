/* privdrop: turn a forked root child into an unprivileged one, provably. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "host/privdrop.h"

static const char *const cap_fields[] = {
	"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
};

/* A decimal id, digits only; (uid_t)-1 is "no change" to set*id, so not. */
static int parse_id(const char *s, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v >= (uid_t)-1)
		return -1;
	*out = v;
	return 0;
}

int privdrop_may(const struct runas *who, const struct stat *st, int want)
{
	int shift = st->st_uid == who->uid ? 6 : st->st_gid == who->gid ? 3 : 0;
	int have = (int)(st->st_mode >> shift) & 7;

	return (have & want) == want;
}

int privdrop_can_reach(const struct runas *who, const char *path)
{
	char walk[PATH_MAX];
	struct stat st;
	size_t n = strlen(path);

	if (path[0] != '/' || n >= sizeof(walk))
		return 0;
	memcpy(walk, path, n + 1);
	/* from the path itself up to /: each directory needs search */
	for (;;) {
		char *slash;

		if (!stat(walk[0] ? walk : "/", &st) && S_ISDIR(st.st_mode) &&
		    !privdrop_may(who, &st, X_OK))
			return 0;
		if (!walk[0])
			return 1;
		slash = strrchr(walk, '/');
		*slash = '\0';
	}
}

int privdrop_resolve(const char *runas, struct runas *out, struct diag *d)
{
	static const struct pos nopos;
	const struct passwd *pw;
	const char *name;
	unsigned long id;
	uid_t uid;
	gid_t gid;

	if (!runas || !*runas)
		return diag_set(d, NULL, NULL, nopos, "runas: empty user name");
	if (strlen(runas) >= sizeof(out->name))
		return diag_set(d, NULL, NULL, nopos,
				"runas: '%.40s...' is too long", runas);
	errno = 0;
	pw = getpwnam(runas);
	if (pw) {
		uid = pw->pw_uid;
		gid = pw->pw_gid;
		name = pw->pw_name;
	} else if (!parse_id(runas, &id)) {
		/* A bare uid needs no passwd entry; use it if there is one. */
		uid = (uid_t)id;
		errno = 0;
		pw = getpwuid(uid);
		gid = pw ? pw->pw_gid : (gid_t)id;
		name = pw ? pw->pw_name : runas;
	} else if (errno && errno != ENOENT && errno != ESRCH &&
		   errno != EBADF && errno != EPERM) {
		/* getpwnam(3): these four mean "not found", others fail. */
		return diag_set(d, NULL, NULL, nopos,
				"runas: cannot look up '%s': %s", runas,
				strerror(errno));
	} else {
		return diag_set(d, NULL, NULL, nopos,
				"runas: unknown user '%s'", runas);
	}
	if (uid == 0)
		return diag_set(d, NULL, NULL, nopos,
				"runas: '%s' is refused: phases never run with privileges",
				runas);
	/* Group root would keep root's group access, and setgid(0) would
	 * still succeed, so the drop could never verify. */
	if (gid == 0)
		return diag_set(d, NULL, NULL, nopos,
				"runas: '%s' has primary group 0 (root), which is refused: phases never run with privileges",
				runas);
	if (gid == (gid_t)-1)
		return diag_set(d, NULL, NULL, nopos,
				"runas: '%s' has an invalid primary group",
				runas);
	if (strlen(name) >= sizeof(out->name))
		name = runas;
	memset(out, 0, sizeof(*out));
	out->uid = uid;
	out->gid = gid;
	snprintf(out->name, sizeof(out->name), "%s", name);
	return 0;
}

/* Read a small /proc file whole into buf, NUL-terminated: 0 or -errno. */
static int read_proc(const char *path, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (n + 1 < len) {
		r = read(fd, buf + n, len - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	/* A full buffer means the file was cut: its last lines are unread. */
	return n + 1 < len ? 0 : -EFBIG;
}

static int cap_last_cap(unsigned long *last)
{
	char buf[32];
	char *end;
	int r;

	r = read_proc("/proc/sys/kernel/cap_last_cap", buf, sizeof(buf));
	if (r)
		return r;
	errno = 0;
	*last = strtoul(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || *last > 255)
		return -EINVAL;
	return 0;
}

/* The value of "key:" at the start of a line of /proc/self/status. */
static const char *status_field(const char *buf, const char *key)
{
	size_t n = strlen(key);
	const char *p = buf;

	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ':')
			return p + n + 1 + strspn(p + n + 1, " \t");
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* A number of the given base that ends at a blank or the end of line. */
static int field_num(const char **p, int base, unsigned long long *v)
{
	char *end;

	*p += strspn(*p, " \t");
	errno = 0;
	*v = strtoull(*p, &end, base);
	if (errno || end == *p || (*end && !strchr(" \t\n", *end)))
		return -1;
	*p = end;
	return 0;
}

/* "Uid:" or "Gid:": real, effective, saved and filesystem id all == id. */
static int check_ids(const char *st, const char *key, unsigned long id,
		     struct diag *d)
{
	const char *p = status_field(st, key);
	unsigned long long v;

	if (!p)
		return diag_fail(d, DIAG_SYSTEM, 0, "verify: no %s line in "
				 "/proc/self/status", key);
	for (int i = 0; i < 4; i++)
		if (field_num(&p, 10, &v) || v != id)
			return diag_fail(d, DIAG_SYSTEM, 0, "verify: "
					 "/proc/self/status %s field %d is "
					 "not %lu", key, i + 1, id);
	return 0;
}

static int check_status(const struct runas *r, struct diag *d)
{
	char st[8192];
	unsigned long long v;
	const char *p;
	int e;

	e = read_proc("/proc/self/status", st, sizeof(st));
	if (e)
		return diag_fail(d, DIAG_SYSTEM, -e, "verify: read "
				 "/proc/self/status");
	for (size_t i = 0; i < sizeof(cap_fields) / sizeof(cap_fields[0]);
	     i++) {
		p = status_field(st, cap_fields[i]);
		if (!p || field_num(&p, 16, &v))
			return diag_fail(d, DIAG_SYSTEM, 0, "verify: no %s in "
					 "/proc/self/status", cap_fields[i]);
		if (v)
			return diag_fail(d, DIAG_SYSTEM, 0, "verify: %s is "
					 "%016llx, not all zero", cap_fields[i],
					 v);
	}
	p = status_field(st, "NoNewPrivs");
	if (!p || field_num(&p, 10, &v) || v != 1)
		return diag_fail(d, DIAG_SYSTEM, 0, "verify: NoNewPrivs is "
				 "not 1");
	if (check_ids(st, "Uid", r->uid, d) ||
	    check_ids(st, "Gid", r->gid, d))
		return -1;
	p = status_field(st, "Groups");
	if (!p || *p != '\n')
		return diag_fail(d, DIAG_SYSTEM, 0, "verify: supplementary "
				 "groups left: %.40s",
				 p ? p : "(no Groups line)");
	return 0;
}

/*
 * Every way back to root must be refused with EPERM. Should one succeed,
 * the process is root again: the caller exits on our -1 regardless.
 */
static int check_no_way_back(struct diag *d)
{
	const gid_t root_group = 0;

	errno = 0;
	if (setuid(0) != -1 || errno != EPERM)
		return diag_fail(d, DIAG_SYSTEM, errno, "verify: setuid(0) "
				 "was not refused");
	errno = 0;
	if (setresuid(0, 0, 0) != -1 || errno != EPERM)
		return diag_fail(d, DIAG_SYSTEM, errno, "verify: setresuid(0, "
				 "0, 0) was not refused");
	errno = 0;
	if (setgid(0) != -1 || errno != EPERM)
		return diag_fail(d, DIAG_SYSTEM, errno, "verify: setgid(0) "
				 "was not refused");
	errno = 0;
	if (setgroups(1, &root_group) != -1 || errno != EPERM)
		return diag_fail(d, DIAG_SYSTEM, errno, "verify: "
				 "setgroups([0]) was not refused");
	return 0;
}

static int verify(const struct runas *r, struct diag *d)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	int sig = 0;

	if (check_status(r, d))
		return -1;
	if (getresuid(&ru, &eu, &su))
		return diag_fail(d, DIAG_SYSTEM, errno, "verify: getresuid");
	if (ru != r->uid || eu != r->uid || su != r->uid)
		return diag_fail(d, DIAG_SYSTEM, 0, "verify: uids are "
				 "%u/%u/%u, not %u", (unsigned)ru, (unsigned)eu,
				 (unsigned)su, (unsigned)r->uid);
	if (getresgid(&rg, &eg, &sg))
		return diag_fail(d, DIAG_SYSTEM, errno, "verify: getresgid");
	if (rg != r->gid || eg != r->gid || sg != r->gid)
		return diag_fail(d, DIAG_SYSTEM, 0, "verify: gids are "
				 "%u/%u/%u, not %u", (unsigned)rg, (unsigned)eg,
				 (unsigned)sg, (unsigned)r->gid);
	if (getgroups(0, NULL) != 0)
		return diag_fail(d, DIAG_SYSTEM, errno, "verify: "
				 "supplementary groups remain");
	if (prctl(PR_GET_PDEATHSIG, &sig, 0, 0, 0) || sig != SIGKILL)
		return diag_fail(d, DIAG_SYSTEM, errno, "verify: "
				 "PR_GET_PDEATHSIG is %d", sig);
	return check_no_way_back(d);
}

static int drop_caps(struct diag *d)
{
	unsigned long last;
	int e;

	e = cap_last_cap(&last);
	if (e)
		return diag_fail(d, DIAG_SYSTEM, -e, "read "
				 "/proc/sys/kernel/cap_last_cap");
	for (unsigned long cap = 0; cap <= last; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0))
			return diag_fail(d, DIAG_SYSTEM, errno,
					 "prctl(PR_CAPBSET_DROP, "
					 "%lu)", cap);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		return diag_fail(d, DIAG_SYSTEM, errno, "prctl(PR_CAP_AMBIENT, "
				 "PR_CAP_AMBIENT_CLEAR_ALL)");
	return 0;
}

static int clear_cap_sets(struct diag *d)
{
	cap_t none = cap_init();
	int e;

	if (!none)
		return diag_fail(d, DIAG_SYSTEM, errno, "cap_init");
	e = cap_set_proc(none) ? errno : 0;
	cap_free(none);
	if (e)
		return diag_fail(d, DIAG_SYSTEM, e, "cap_set_proc(empty)");
	return 0;
}

int privdrop_apply(const struct runas *r, int keep_fd, struct diag *d)
{
	pid_t parent = getppid();

	if (!r || r->uid == 0 || r->gid == 0 || r->uid == (uid_t)-1 ||
	    r->gid == (gid_t)-1)
		return diag_fail(d, DIAG_REFUSED, 0, "refusing to run as uid "
				 "%d gid %d", r ? (int)r->uid : -1,
				 r ? (int)r->gid : -1);
	if (keep_fd < -1 || keep_fd == INT_MAX)
		return diag_fail(d, DIAG_INPUT, 0, "bad keep_fd %d", keep_fd);

	if (close_range((unsigned)keep_fd + 1, ~0U, 0))
		return diag_fail(d, DIAG_SYSTEM, errno, "close_range(%d, ~0U)",
				 keep_fd + 1);
	/* Needs CAP_SETPCAP, which the uid change below would take away. */
	if (drop_caps(d))
		return -1;
	if (setgroups(0, NULL))
		return diag_fail(d, DIAG_SYSTEM, errno, "setgroups(0, NULL)");
	if (setresgid(r->gid, r->gid, r->gid))
		return diag_fail(d, DIAG_SYSTEM, errno, "setresgid(%u)",
				 (unsigned)r->gid);
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0))
		return diag_fail(d, DIAG_SYSTEM, errno,
				 "prctl(PR_SET_KEEPCAPS, "
				 "0)");
	if (setresuid(r->uid, r->uid, r->uid))
		return diag_fail(d, DIAG_SYSTEM, errno, "setresuid(%u)",
				 (unsigned)r->uid);
	if (clear_cap_sets(d))
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return diag_fail(d, DIAG_SYSTEM, errno,
				 "prctl(PR_SET_NO_NEW_PRIVS, "
				 "1)");
	/* The credential change cleared any earlier death signal. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0))
		return diag_fail(d, DIAG_SYSTEM, errno,
				 "prctl(PR_SET_PDEATHSIG, "
				 "SIGKILL)");
	/* A parent that died before that line left us an orphan. */
	if (getppid() != parent)
		return diag_fail(d, DIAG_SYSTEM, 0, "parent %d exited during "
				 "the drop", (int)parent);
	return verify(r, d);
}
