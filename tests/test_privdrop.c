/* test_privdrop: a child dropped to nobody keeps no way back to root. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <liburing.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/privdrop.h"

/* The child's report: fd 3 is its pipe, so that is the fd it keeps. */
#define KEEP_FD 3
#define HIGH_FD 200

/* What the child saw after the drop, sent back whole over the pipe. */
struct report {
	int apply_rc;
	char err[1024];
	char status[8192];
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;
	int ngroups;
	int setuid_rc, setuid_errno;
	int setgid_rc, setgid_errno;
	int setgroups_rc, setgroups_errno;
	int setresuid_rc, setresuid_errno;
	int open_errno;		/* 0 if the root-only file opened */
	int open_before[KEEP_FD + 1], open_after[KEEP_FD + 1];
	int high_before, high_errno;	/* fd HIGH_FD */
	int next_before, next_errno;	/* fd KEEP_FD + 1 */
	int groups_before;
	int inherit_before;	/* CAP_CHOWN inheritable and ambient */
	int uring_init;		/* io_uring_queue_init's return */
	int uring_res;		/* the OPENAT completion's res */
	int pdeathsig;
	int second_rc;		/* a second privdrop_apply, as nobody */
	char second_err[1024];
	int second_errno;
};

static void need_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("privilege drop tests need root (euid is %d)",
			     (int)geteuid());
}

static struct runas nobody(void)
{
	struct runas r;
	struct diag d = { 0 };

	cr_assert_eq(privdrop_resolve("nobody", &r, &d), 0, "%s", d.msg);
	return r;
}

/* A 0600 root file in /tmp that nobody may not open. */
static void make_root_file(char *path, size_t len)
{
	int fd;

	snprintf(path, len, "/tmp/fsplan-privdrop-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0, "mkstemp: %s", strerror(errno));
	cr_assert_eq(fchmod(fd, 0600), 0);
	cr_assert_eq(write(fd, "secret\n", 7), 7);
	close(fd);
}

/* Put CAP_CHOWN in the inheritable and ambient sets: 1 if it took. */
static int inherit_a_cap(void)
{
	const cap_value_t chown_cap = CAP_CHOWN;
	cap_t c = cap_get_proc();
	int ok;

	if (!c)
		return 0;
	ok = !cap_set_flag(c, CAP_INHERITABLE, 1, &chown_cap, CAP_SET) &&
	     !cap_set_proc(c) &&
	     !prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_CHOWN, 0, 0);
	cap_free(c);
	return ok;
}

static int fd_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

static void try_uring(struct report *rep, const char *path)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;

	rep->uring_init = io_uring_queue_init(4, &ring, 0);
	if (rep->uring_init)
		return;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_openat(sqe, AT_FDCWD, path, O_RDONLY, 0);
	if (io_uring_submit(&ring) != 1 || io_uring_wait_cqe(&ring, &cqe)) {
		rep->uring_res = 1;	/* neither an fd nor an error */
	} else {
		rep->uring_res = cqe->res;
		if (cqe->res >= 0)
			close(cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
}

/* In the forked child: drop, look around, report on fd KEEP_FD. */
static void child(const struct runas *r, int wfd, const char *path)
{
	static struct report rep;
	static struct diag d;
	static const gid_t groups[] = { 0, 6 };	/* root, disk */
	const gid_t zero = 0;
	size_t off = 0;
	ssize_t n;
	int fd;

	if (wfd != KEEP_FD && dup2(wfd, KEEP_FD) != KEEP_FD)
		_exit(2);
	/* Something to lose just above keep_fd, and groups to shed. */
	if (dup2(KEEP_FD, KEEP_FD + 1) != KEEP_FD + 1)
		_exit(2);
	if (setgroups(2, groups))
		_exit(2);
	rep.groups_before = getgroups(0, NULL);
	rep.inherit_before = inherit_a_cap();
	for (int i = 0; i <= KEEP_FD; i++)
		rep.open_before[i] = fd_open(i);
	rep.high_before = fd_open(HIGH_FD);
	rep.next_before = fd_open(KEEP_FD + 1);

	rep.apply_rc = privdrop_apply(r, KEEP_FD, &d);
	snprintf(rep.err, sizeof(rep.err), "%s", d.msg);
	if (rep.apply_rc)
		goto send;

	for (int i = 0; i <= KEEP_FD; i++)
		rep.open_after[i] = fd_open(i);
	errno = 0;
	fcntl(HIGH_FD, F_GETFD);
	rep.high_errno = errno;
	errno = 0;
	fcntl(KEEP_FD + 1, F_GETFD);
	rep.next_errno = errno;

	fd = open("/proc/self/status", O_RDONLY);
	if (fd >= 0) {
		n = read(fd, rep.status, sizeof(rep.status) - 1);
		rep.status[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	getresuid(&rep.ruid, &rep.euid, &rep.suid);
	getresgid(&rep.rgid, &rep.egid, &rep.sgid);
	rep.ngroups = getgroups(0, NULL);
	prctl(PR_GET_PDEATHSIG, &rep.pdeathsig, 0, 0, 0);

	fd = open(path, O_RDONLY);
	rep.open_errno = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	try_uring(&rep, path);

	rep.second_rc = privdrop_apply(r, KEEP_FD, &d);
	snprintf(rep.second_err, sizeof(rep.second_err), "%s", d.msg);
	rep.second_errno = d.err;

	/* Last: should one of these succeed, we are root from here on. */
	errno = 0;
	rep.setuid_rc = setuid(0);
	rep.setuid_errno = errno;
	errno = 0;
	rep.setgid_rc = setgid(0);
	rep.setgid_errno = errno;
	errno = 0;
	rep.setgroups_rc = setgroups(1, &zero);
	rep.setgroups_errno = errno;
	errno = 0;
	rep.setresuid_rc = setresuid(0, 0, 0);
	rep.setresuid_errno = errno;
send:
	while (off < sizeof(rep)) {
		n = write(KEEP_FD, (char *)&rep + off, sizeof(rep) - off);
		if (n <= 0)
			_exit(3);
		off += n;
	}
	_exit(0);
}

/*
 * Fork a child that drops to nobody and reports; the parent holds an fd
 * at HIGH_FD the child must not see. The child is always reaped, and
 * killed first if it has not reported within 10 s.
 */
static void drop_in_child(struct report *rep)
{
	struct runas r = nobody();
	struct pollfd pfd;
	char path[64];
	size_t off = 0;
	int p[2], high, st;
	ssize_t n;
	pid_t pid;

	make_root_file(path, sizeof(path));
	high = open("/dev/null", O_RDONLY);
	cr_assert_geq(high, 0);
	cr_assert_eq(dup2(high, HIGH_FD), HIGH_FD);
	close(high);
	cr_assert_eq(pipe(p), 0);

	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		child(&r, p[1], path);
	}
	close(p[1]);
	close(HIGH_FD);
	memset(rep, 0, sizeof(*rep));
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	while (off < sizeof(*rep) && poll(&pfd, 1, 10000) == 1) {
		n = read(p[0], (char *)rep + off, sizeof(*rep) - off);
		if (n <= 0)
			break;
		off += n;
	}
	close(p[0]);
	if (off < sizeof(*rep))
		kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	unlink(path);
	cr_assert_eq(off, sizeof(*rep),
		     "child sent %zu of %zu bytes, status %#x", off,
		     sizeof(*rep), st);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x",
		  st);
	cr_assert_eq(rep->apply_rc, 0, "privdrop_apply: %s", rep->err);
}

/* The value after "key:" in a /proc/self/status text, parsed here. */
static const char *field(const char *status, const char *key)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), "\n%s:", key);
	p = strstr(status, pat);
	cr_assert(p, "no %s line in /proc/self/status", key);
	p += strlen(pat);
	return p + strspn(p, "\t ");
}

Test(privdrop, resolve_nobody)
{
	const struct passwd *pw = getpwnam("nobody");
	struct runas r;
	struct diag d = { 0 };

	if (!pw)
		cr_skip_test("no 'nobody' in the passwd database");
	cr_assert_eq(privdrop_resolve("nobody", &r, &d), 0, "%s", d.msg);
	cr_expect_eq(r.uid, pw->pw_uid);
	cr_expect_eq(r.gid, pw->pw_gid);
	cr_expect_neq(r.uid, 0);
	cr_expect_str_eq(r.name, "nobody");
}

Test(privdrop, resolve_refuses_root)
{
	static const char *const names[] = { "root", "0", "00" };
	struct runas r;
	char want[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct diag d = { 0 };

		cr_expect_eq(privdrop_resolve(names[i], &r, &d), -1,
			     "'%s' accepted", names[i]);
		snprintf(want, sizeof(want),
			 "runas: '%s' is refused: phases never run with privileges",
			 names[i]);
		cr_expect_str_eq(d.msg, want);
		cr_expect_eq(d.pos.line, 0);
	}
}

Test(privdrop, resolve_refuses_unknown_and_bad)
{
	static const char *const bad[] = {
		"no-such-user-xyz", "", "12a", "-5", "+5", " 7",
		"4294967295", "99999999999999999999",
	};
	struct runas r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct diag d = { 0 };

		cr_expect_eq(privdrop_resolve(bad[i], &r, &d), -1,
			     "'%s' accepted", bad[i]);
		cr_expect(d.msg[0], "'%s' refused without a message", bad[i]);
	}
	{
		struct diag d = { 0 };

		privdrop_resolve("no-such-user-xyz", &r, &d);
		cr_expect(strstr(d.msg, "unknown user 'no-such-user-xyz'"),
			  "message '%s'", d.msg);
	}
}

Test(privdrop, resolve_bare_uid)
{
	struct runas r;
	struct diag d = { 0 };

	if (getpwuid(12345))
		cr_skip_test("uid 12345 has a passwd entry here");
	cr_assert_eq(privdrop_resolve("12345", &r, &d), 0, "%s", d.msg);
	cr_expect_eq(r.uid, 12345);
	cr_expect_eq(r.gid, 12345);
}

Test(privdrop, apply_refuses_root_without_touching_anything)
{
	struct runas r = { .uid = 0, .gid = 0, .name = "root" };
	struct diag d = { 0 };
	int st, ok;
	pid_t pid;

	need_root();
	/* In a child: were the refusal broken, keep_fd -1 closes everything. */
	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		ok = privdrop_apply(&r, -1, &d) == -1 &&
		     strstr(d.msg, "uid 0") && d.kind == DIAG_REFUSED &&
		     geteuid() == 0 &&
		     fcntl(2, F_GETFD) != -1;
		_exit(ok ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "uid 0 was not refused cleanly (status %#x)", st);
}

Test(privdrop, apply_leaves_no_capabilities)
{
	static const char *const caps[] = {
		"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
	};
	static struct report rep;

	need_root();
	drop_in_child(&rep);
	cr_expect(rep.inherit_before, "the child had no caps to inherit");
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		const char *v = field(rep.status, caps[i]);

		cr_expect(!strncmp(v, "0000000000000000\n", 17), "%s: %.20s",
			  caps[i], v);
	}
	cr_expect(!strncmp(field(rep.status, "NoNewPrivs"), "1\n", 2),
		  "NoNewPrivs: %.4s", field(rep.status, "NoNewPrivs"));
}

Test(privdrop, apply_sets_ids_and_empties_groups)
{
	static struct report rep;
	struct runas r;
	char want[64];

	need_root();
	r = nobody();
	drop_in_child(&rep);
	snprintf(want, sizeof(want), "%u\t%u\t%u\t%u\n", r.uid, r.uid, r.uid,
		 r.uid);
	cr_expect(!strncmp(field(rep.status, "Uid"), want, strlen(want)),
		  "Uid: %.40s", field(rep.status, "Uid"));
	snprintf(want, sizeof(want), "%u\t%u\t%u\t%u\n", r.gid, r.gid, r.gid,
		 r.gid);
	cr_expect(!strncmp(field(rep.status, "Gid"), want, strlen(want)),
		  "Gid: %.40s", field(rep.status, "Gid"));
	cr_expect_eq(*field(rep.status, "Groups"), '\n', "Groups: %.40s",
		     field(rep.status, "Groups"));
	cr_expect(rep.ruid == r.uid && rep.euid == r.uid && rep.suid == r.uid,
		  "uids %u/%u/%u", rep.ruid, rep.euid, rep.suid);
	cr_expect(rep.rgid == r.gid && rep.egid == r.gid && rep.sgid == r.gid,
		  "gids %u/%u/%u", rep.rgid, rep.egid, rep.sgid);
	cr_expect_eq(rep.groups_before, 2, "the child had no groups to shed");
	cr_expect_eq(rep.ngroups, 0);
}

Test(privdrop, apply_leaves_no_way_back)
{
	static struct report rep;

	need_root();
	drop_in_child(&rep);
	cr_expect(rep.setuid_rc == -1 && rep.setuid_errno == EPERM,
		  "setuid(0): %d, %s", rep.setuid_rc,
		  strerror(rep.setuid_errno));
	cr_expect(rep.setgid_rc == -1 && rep.setgid_errno == EPERM,
		  "setgid(0): %d, %s", rep.setgid_rc,
		  strerror(rep.setgid_errno));
	cr_expect(rep.setgroups_rc == -1 && rep.setgroups_errno == EPERM,
		  "setgroups([0]): %d, %s", rep.setgroups_rc,
		  strerror(rep.setgroups_errno));
	cr_expect(rep.setresuid_rc == -1 && rep.setresuid_errno == EPERM,
		  "setresuid(0, 0, 0): %d, %s", rep.setresuid_rc,
		  strerror(rep.setresuid_errno));
}

Test(privdrop, apply_cannot_open_root_only_file)
{
	static struct report rep;

	need_root();
	drop_in_child(&rep);
	cr_expect_eq(rep.open_errno, EACCES, "open: %s",
		     rep.open_errno ? strerror(rep.open_errno) : "it opened");
}

Test(privdrop, apply_closes_fds_above_keep_fd)
{
	static struct report rep;

	need_root();
	drop_in_child(&rep);
	cr_assert(rep.high_before, "fd %d was not inherited at all", HIGH_FD);
	cr_expect_eq(rep.high_errno, EBADF, "fd %d: %s", HIGH_FD,
		     rep.high_errno ? strerror(rep.high_errno) : "still open");
	cr_expect(rep.next_before);
	cr_expect_eq(rep.next_errno, EBADF, "fd %d: %s", KEEP_FD + 1,
		     rep.next_errno ? strerror(rep.next_errno) : "still open");
	cr_expect(rep.open_before[KEEP_FD]);
	for (int i = 0; i <= KEEP_FD; i++)
		cr_expect_eq(rep.open_after[i], rep.open_before[i],
			     "fd %d: open before %d, after %d", i,
			     rep.open_before[i], rep.open_after[i]);
}

Test(privdrop, io_uring_after_drop_runs_as_nobody)
{
	static struct report rep;

	need_root();
	drop_in_child(&rep);
	if (rep.uring_init == -EPERM || rep.uring_init == -ENOSYS)
		cr_skip_test("io_uring_queue_init as nobody: %s (see kernel.io_uring_disabled)",
			     strerror(-rep.uring_init));
	cr_assert_eq(rep.uring_init, 0, "io_uring_queue_init: %s",
		     strerror(-rep.uring_init));
	cr_expect_eq(rep.uring_res, -EACCES, "OPENAT: %d (%s)", rep.uring_res,
		     rep.uring_res < 0 ? strerror(-rep.uring_res) :
		     "it opened");
}

Test(privdrop, pdeathsig_survives_the_drop)
{
	static struct report rep;

	need_root();
	drop_in_child(&rep);
	cr_expect_eq(rep.pdeathsig, SIGKILL, "PR_GET_PDEATHSIG: %d",
		     rep.pdeathsig);
}

Test(privdrop, second_apply_fails_naming_the_step)
{
	static struct report rep;

	need_root();
	drop_in_child(&rep);
	cr_expect_eq(rep.second_rc, -1);
	cr_expect(strstr(rep.second_err, "PR_CAPBSET_DROP"), "err '%s'",
		  rep.second_err);
	cr_expect_eq(rep.second_errno, EPERM, "err '%s', errno %d",
		     rep.second_err, rep.second_errno);
}
