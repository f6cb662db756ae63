/* test_auto: engine auto — a lone op is a syscall, several the ring; its
 * probe tells what the kernel does; many workers fit. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/uio.h>
#include <unistd.h>

#include "e2e.h"
#include "engine.h"

/* The directories the unit tests try: /tmp's filesystem and a tmpfs. */
static const char *const dirs[] = { "/tmp", "/dev/shm" };

static char path[PATH_MAX];

static void fini(void)
{
	if (path[0])
		unlink(path);
	path[0] = '\0';
	e2e_cleanup();
}

static int scratch(const char *dir, int flags)
{
	int fd;

	snprintf(path, sizeof(path), "%s/fsplan-auto-XXXXXX", dir);
	fd = mkstemp(path);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	close(fd);
	fd = open(path, O_RDWR | flags);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	return fd;
}

/* How many io_uring instances this process holds. */
static int rings(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	char p[300], l[64];
	int n = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		ssize_t k;

		snprintf(p, sizeof(p), "/proc/self/fd/%s", de->d_name);
		k = readlink(p, l, sizeof(l) - 1);
		if (k > 0) {
			l[k] = '\0';
			n += !strcmp(l, "anon_inode:[io_uring]");
		}
	}
	closedir(d);
	return n;
}

/* The probe's answers are what a real RWF_NOWAIT read and write of the
 * file say (EOPNOTSUPP: io_uring would hand the op to a thread). */
Test(auto, probe_answers_as_a_real_nowait_op_does, .fini = fini)
{
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char b[4096] = "x";
		struct iovec iov = { b, sizeof(b) };
		int fd = scratch(dirs[i], 0);
		unsigned got = engine_probe_fd(fd);
		ssize_t w, r;

		w = pwritev2(fd, &iov, 1, 0, RWF_NOWAIT);
		cr_expect_eq(w < 0 && errno == EOPNOTSUPP,
			     !(got & ENGINE_PROBE_WRITE),
			     "%s: a nowait write gives %zd (%s), the probe %u",
			     dirs[i], w, w < 0 ? strerror(errno) : "", got);
		cr_assert_eq(pwrite(fd, b, sizeof(b), 0), (ssize_t)sizeof(b));
		r = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
		cr_expect_eq(r < 0 && errno == EOPNOTSUPP,
			     !(got & ENGINE_PROBE_READ),
			     "%s: a nowait read gives %zd (%s), the probe %u",
			     dirs[i], r, r < 0 ? strerror(errno) : "", got);
		close(fd);
		unlink(path);
		path[0] = '\0';
	}
}

/* Not a byte moves, not even on an O_APPEND file (which ignores the
 * probe's offset). */
Test(auto, the_probe_changes_no_file, .fini = fini)
{
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char b[16] = "";
		struct stat st;
		int fd = scratch(dirs[i], O_APPEND);

		cr_assert_eq(write(fd, "0123456789", 10), 10);
		engine_probe_fd(fd);
		engine_probe_fd(fd);
		cr_assert_eq(fstat(fd, &st), 0);
		cr_expect_eq(st.st_size, 10, "%s: size %lld", dirs[i],
			     (long long)st.st_size);
		cr_expect_eq(pread(fd, b, sizeof(b), 0), 10);
		cr_expect_str_eq(b, "0123456789");
		close(fd);
		unlink(path);
		path[0] = '\0';
	}
}

static struct engine_req rw(enum engine_op op, int fd, void *buf,
			    uint64_t off)
{
	return (struct engine_req){ .op = op, .fd = fd, .buf = buf,
				    .len = 4096, .off = off };
}

/* Alone, every op is a syscall: a read and a write of any size (a byte,
 * a page) whatever the probe says, an fsync, through engine_do and
 * through queue and commit; two in flight are the ring's. */
Test(auto, a_lone_op_is_a_syscall_several_the_ring, .fini = fini)
{
	static char b[2][4096];
	struct engine_req r[2], *done[2];
	struct engine *e;
	struct diag d = { 0 };
	int fd, n = 0;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		fd = scratch(dirs[i], 0);
		cr_assert_eq(engine_auto.init(&e, 4, &d), 0, "%s", d.msg);
		for (uint64_t len = 1; len <= 4096; len *= 64) {
			r[0] = rw(ENGINE_WRITE, fd, b[0], 0);
			r[0].len = len;
			cr_expect_eq(engine_do(&engine_auto, e, &r[0]),
				     (int64_t)len);
			cr_expect_eq(r[0].ring, 0, "%s: a lone %llu-byte "
				     "write", dirs[i], (unsigned long long)len);
			r[0].op = ENGINE_READ;
			cr_expect_eq(engine_do(&engine_auto, e, &r[0]),
				     (int64_t)len);
			cr_expect_eq(r[0].ring, 0, "%s: a lone read",
				     dirs[i]);
		}
		r[0] = (struct engine_req){ .op = ENGINE_FSYNC, .fd = fd };
		cr_expect_eq(engine_do(&engine_auto, e, &r[0]), 0);
		cr_expect_eq(r[0].ring, 0, "%s: a lone fsync", dirs[i]);
		/* queued alone and committed: held, then the syscall */
		r[0] = rw(ENGINE_READ, fd, b[0], 0);
		cr_assert_eq(engine_auto.queue(e, &r[0]), 0);
		cr_assert_eq(engine_auto.commit(e), 0);
		cr_assert_eq(engine_auto.reap(e, 1, done, 2), 1);
		cr_expect_eq(done[0]->res, 4096);
		cr_expect_eq(done[0]->ring, 0, "%s: queued alone", dirs[i]);
		r[0] = rw(ENGINE_WRITE, fd, b[0], 0);
		r[1] = rw(ENGINE_WRITE, fd, b[1], 4096);
		cr_assert_eq(engine_auto.queue(e, &r[0]), 0);
		cr_assert_eq(engine_auto.queue(e, &r[1]), 0);
		cr_assert_eq(engine_auto.commit(e), 0);
		for (n = 0; n < 2;) {
			int k = engine_auto.reap(e, 2 - (unsigned)n, done + n,
						 2 - (unsigned)n);

			cr_assert_gt(k, 0);
			n += k;
		}
		for (int k = 0; k < 2; k++) {
			cr_expect_eq(done[k]->res, 4096);
			cr_expect_eq(done[k]->ring, 1, "%s: two in flight",
				     dirs[i]);
		}
		engine_auto.cleanup(e);
		close(fd);
		unlink(path);
		path[0] = '\0';
	}
}

/* A one-at-a-time engine never makes a ring: a worker of syscalls holds
 * none (each would count against RLIMIT_MEMLOCK). */
Test(auto, a_one_at_a_time_engine_holds_no_ring, .fini = fini)
{
	static char b[4096];
	struct engine_req r;
	struct engine *e;
	struct diag d = { 0 };
	int before = rings(), fd = scratch("/tmp", 0);

	cr_assert_eq(engine_auto.init(&e, 1, &d), 0, "%s", d.msg);
	cr_expect_eq(rings(), before, "init made a ring");
	r = (struct engine_req){ .op = ENGINE_FSYNC, .fd = fd };
	cr_expect_eq(engine_do(&engine_auto, e, &r), 0);
	r = (struct engine_req){ .op = ENGINE_CLOSE, .fd = dup(fd) };
	cr_expect_eq(engine_do(&engine_auto, e, &r), 0);
	cr_expect_eq(r.ring, 0, "a lone close");
	r = rw(ENGINE_READ, fd, b, 0);
	cr_expect_eq(engine_do(&engine_auto, e, &r), 0);
	cr_expect_eq(r.ring, 0, "a lone read");
	cr_expect_eq(rings(), before, "a lone op made a ring");
	engine_auto.cleanup(e);
	cr_expect_eq(rings(), before);
	close(fd);
}

/*
 * A user whose RLIMIT_MEMLOCK has no room for a ring (nobody with a
 * limit of 0): engine uring fails naming the limit and the fix; auto's
 * one-at-a-time engine, which needs none, goes on through syscalls.
 */
Test(auto, no_room_for_a_ring, .fini = fini)
{
	struct {
		int uring_ret, auto_ret, ring;
		int64_t res;
		char why[1024];
	} rep = { 0 };
	int p[2], status, fd;
	pid_t pid;

	if (geteuid() != 0)
		cr_skip_test("needs root to become nobody");
	fd = scratch("/tmp", 0);
	cr_assert_eq(pwrite(fd, "x", 1, 0), 1);
	cr_assert_eq(fchmod(fd, 0644), 0);
	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct rlimit none = { 0, 0 };
		struct engine *e = NULL;
		struct engine_req r;
		struct diag d = { 0 };
		char b[16];

		close(p[0]);
		if (setrlimit(RLIMIT_MEMLOCK, &none) || setgroups(0, NULL) ||
		    setgid(65534) || setuid(65534))
			_exit(2);
		rep.uring_ret = engine_uring.init(&e, 8, &d);
		snprintf(rep.why, sizeof(rep.why), "%s", d.msg);
		if (e)
			engine_uring.cleanup(e);
		e = NULL;
		rep.auto_ret = engine_auto.init(&e, 1, NULL);
		if (!rep.auto_ret) {
			r = (struct engine_req){ .op = ENGINE_READ, .fd = fd,
						 .buf = b, .len = 1 };
			rep.res = engine_do(&engine_auto, e, &r);
			rep.ring = r.ring;
			engine_auto.cleanup(e);
		}
		if (write(p[1], &rep, sizeof(rep)) != sizeof(rep))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	cr_assert_eq(read(p[0], &rep, sizeof(rep)), (ssize_t)sizeof(rep));
	close(p[0]);
	close(fd);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && !WEXITSTATUS(status), "child %d",
		  status);
	cr_expect_eq(rep.uring_ret, -ENOMEM, "uring init gave %d",
		     rep.uring_ret);
	cr_expect(strstr(rep.why, "RLIMIT_MEMLOCK"), "why: '%s'", rep.why);
	cr_expect(strstr(rep.why, "ulimit -l"), "why: '%s'", rep.why);
	cr_expect_eq(rep.auto_ret, 0);
	cr_expect_eq(rep.res, 1, "the read gave %lld", (long long)rep.res);
	cr_expect_eq(rep.ring, 0, "a ring that cannot be made was used");
}

/* ---- end to end: the rows and the manifest say the same ---- */

/* Run the plan body (after "fsplan: 1") in the test's directory, where
 * lua/ links to the fixtures; the run directory in rd. Must succeed. */
static void run_plan(const char *body, char *rd, size_t len)
{
	const char *dir = e2e_tmpdir();
	char cwd[PATH_MAX], link[400], text[2048];
	char *plan;
	int rc;

	e2e_require_root();
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	snprintf(link, sizeof(link), "%s/lua", dir);
	strcat(cwd, "/fixtures/lua");
	cr_assert_eq(symlink(cwd, link), 0);
	snprintf(text, sizeof(text), "fsplan: 1\n%s", body);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, len, "%s/run", dir);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q", NULL });
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
}

/* The probe of a config in manifest.json ("read" or "write"). */
static const char *probed(const char *rd, const char *label, const char *op)
{
	static char want[64];
	char key[160], *text, *at, *end;

	snprintf(key, sizeof(key), "%s/manifest.json", rd);
	text = e2e_slurp(key, NULL);
	snprintf(key, sizeof(key), "\"label\": \"%s\"", label);
	at = strstr(text, key);
	cr_assert_not_null(at, "no config %s in the manifest", label);
	at = strstr(at, "\"engine_probe\"");
	cr_assert_not_null(at, "%s: no engine_probe", label);
	snprintf(key, sizeof(key), "\"%s\": \"", op);
	at = strstr(at, key);
	cr_assert_not_null(at);
	at += strlen(key);
	end = strchr(at, '"');
	snprintf(want, sizeof(want), "%.*s", (int)(end - at), at);
	free(text);
	return want;
}

Test(auto, rows_say_the_path_each_op_took, .fini = fini, .timeout = 180)
{
	static const char *const label[] = { "ext4", "xfs:-f",
					     "tmpfs::size=64M" };
	char rd[300], cell[128];

	run_plan("target: {image: 320M}\n"
		 "filesystems: [{type: ext4}, {type: xfs, mkfs: -f},"
		 " {type: tmpfs, mount: size=64M}]\n"
		 "phases:\n"
		 "  - {use: lua/paths.lua}\n", rd, sizeof(rd));
	for (int i = 0; i < 3; i++) {
		snprintf(cell, sizeof(cell), "%s/paths#1", label[i]);
		cr_expect_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s",
				 cell);
		cr_expect_str_eq(e2e_unit(rd, cell, "write_path"), "syscall",
				 "%s: lone writes", cell);
		cr_expect_str_eq(e2e_unit(rd, cell, "read_path"), "syscall",
				 "%s: lone reads", cell);
		cr_expect_str_eq(e2e_unit(rd, cell, "fsync_path"), "syscall",
				 "%s", cell);
		cr_expect_str_eq(e2e_unit(rd, cell, "unlink_path"), "syscall",
				 "%s", cell);
		cr_expect_str_eq(e2e_unit(rd, cell, "deep_path"), "ring",
				 "%s: eight in flight", cell);
		cr_expect_str_eq(e2e_metric(rd, cell, "deep_path"), "1");
		cr_expect_str_eq(e2e_unit(rd, cell, "rew_path"), "syscall",
				 "%s: a lone rewrite's read and write", cell);
	}
	/* the manifest still says what the ring would do with each: ext4
	 * has no async buffered writes, xfs has (Linux 6.18) */
	cr_expect_str_eq(probed(rd, "ext4", "write"), "kernel thread");
	cr_expect_str_eq(probed(rd, "xfs:-f", "write"), "inline");
}

/* 1024 and 4096 workers in one phase run, all alive at once: what each
 * costs beside the phase's own buffers (none here). */
Test(auto, thousands_of_workers_fit, .fini = fini, .timeout = 300)
{
	char rd[300], cell[128];

	run_plan("target: {image: 64M}\n"
		 "filesystems: [{type: ext4}]\n"
		 "phases:\n"
		 "  - use: lua/idle.lua\n"
		 "    matrix: {workers: [1024, 4096]}\n"
		 "    with: {hold: 6}\n", rd, sizeof(rd));
	for (int i = 0; i < 2; i++) {
		int n = i ? 4096 : 1024;
		double limit = i ? 384 << 10 : 96 << 10, kib;

		snprintf(cell, sizeof(cell), "ext4/idle/workers=%d#1", n);
		cr_assert_str_eq(e2e_metric(rd, cell, "status"), "ok",
				 "%s: %s", cell, e2e_reason(rd, cell));
		kib = e2e_num(rd, cell, "rss_peak_kib");
		cr_expect_gt(kib, 0);
#ifdef __SANITIZE_ADDRESS__
		/* ASan's shadow memory and quarantine are not fsplan's: the
		 * bound is the plain build's (bench/workers.sh measures it) */
		(void)limit;
		cr_log_info("%s: peak RSS %.0f KiB (sanitizer build)", cell,
			    kib);
#else
		cr_expect_leq(kib, limit, "%s: peak RSS %.0f KiB", cell, kib);
#endif
	}
}
