/* test_engine: every engine moves the right bytes and stay beneath the dir. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "helpers.h"

#define NOBODY 65534

/*
 * Every test runs once per engine: a parameter, not a loop, so a machine
 * without io_uring skips the uring half and still runs the sync half.
 */
static const struct engine_ops *const engines[] = {
	&engine_sync, &engine_uring, &engine_auto,
};

static void finish(void);

#define ENGINE_TEST(name)						\
	ParameterizedTestParameters(engine, name)			\
	{								\
		static int ix[] = { 0, 1, 2 };				\
		return cr_make_param_array(int, ix, 3);			\
	}								\
	ParameterizedTest(int *ix, engine, name, .fini = finish, .timeout = 60)

/* The test's engine and its own directory under /tmp. */
static const struct engine_ops *ops;
static struct engine *eng;
static char dir[64];
static int dfd = -1;

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *f)
{
	(void)st;
	(void)type;
	(void)f;
	return remove(path);
}

static void finish(void)
{
	if (eng)
		ops->cleanup(eng);
	eng = NULL;
	if (dfd >= 0)
		close(dfd);
	dfd = -1;
	if (dir[0])
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	dir[0] = '\0';
}

/* init an engine, skipping (with why) where io_uring is not allowed. */
static int make_engine(const struct engine_ops *o, struct engine **e,
		       unsigned depth, char *why, size_t whylen)
{
	struct diag d = { 0 };
	int ret = o->init(e, depth, &d);

	snprintf(why, whylen, "%s", d.msg);
	if (ret && o != &engine_sync && (ret == -EPERM || ret == -ENOSYS))
		cr_skip_test("uring: %s", why);
	return ret;
}

static void start(int ix, unsigned depth)
{
	char why[256] = "";
	int ret;

	ops = engines[ix];
	ret = make_engine(ops, &eng, depth, why, sizeof(why));
	cr_assert_eq(ret, 0, "%s: init: %s (%s)", ops->name, why,
		     strerror(-ret));
	snprintf(dir, sizeof(dir), "/tmp/fsplan-engine-XXXXXX");
	cr_assert(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dfd, 0);
}

static int64_t run(struct engine_req *r)
{
	return engine_do(ops, eng, r);
}

static struct engine_req rw_req(enum engine_op op, int fd, void *buf,
				uint64_t len, uint64_t off)
{
	struct engine_req r = { .op = op, .fd = fd, .buf = buf, .len = len,
				.off = off };
	return r;
}

static struct engine_req path_req(enum engine_op op, const char *path,
				  int flags, mode_t mode)
{
	struct engine_req r = { .op = op, .dirfd = dfd, .path = path,
				.flags = flags, .mode = mode, .fd = -1 };
	return r;
}

/* Open through the engine, beneath the test directory. */
static int64_t eopen(const char *path, int flags, mode_t mode)
{
	struct engine_req r = path_req(ENGINE_OPEN, path, flags, mode);

	return run(&r);
}

static void eclose(int fd)
{
	struct engine_req r = { .op = ENGINE_CLOSE, .fd = fd };

	cr_assert_eq(run(&r), 0, "%s: close: %s", ops->name,
		     strerror((int)-r.res));
}

/* A file made the plain way, for the engine to find. */
static void put_file(const char *name, const char *data, size_t len)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert_geq(fd, 0, "%s: %s", name, strerror(errno));
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static off_t size_of(int fd)
{
	struct stat st;

	cr_assert_eq(fstat(fd, &st), 0);
	return st.st_size;
}

static int exists(const char *name)
{
	struct stat st;

	return !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW);
}

/* Bytes no two blocks share: where a block landed shows in its bytes. */
static void pattern(unsigned char *p, size_t len, uint64_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)((seed * 2654435761u + i * 31 + i / 251)
				       >> 3);
}

Test(engine, find)
{
	cr_expect_eq(engine_find("uring"), &engine_uring);
	cr_expect_eq(engine_find("sync"), &engine_sync);
	cr_expect_null(engine_find("libaio"));
	cr_expect_null(engine_find(""));
	cr_expect(engine_uring.flags & ENGINE_ASYNC);
	cr_expect_not(engine_sync.flags & ENGINE_ASYNC);
}

/* ---- the contract, checked at registration and find (as fio does) ---- */

Test(engine, builtins_keep_the_contract)
{
	struct diag ed = { 0 };

	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		cr_expect_eq(engine_check(engines[i], &ed), 0,
			     "%s", ed.msg);
		cr_expect_eq(engines[i]->version, ENGINE_OPS_VERSION);
	}
}

Test(engine, a_table_without_a_hook_is_refused_by_name)
{
	struct engine_ops bad = engine_sync;
	struct diag ed = { 0 };

	bad.name = "fsplan-test-noreap";
	bad.reap = NULL;
	cr_expect_eq(engine_check(&bad, &ed), -1);
	cr_expect(strstr(ed.msg, "'fsplan-test-noreap'") &&
		  strstr(ed.msg, "no reap hook"), "%s", ed.msg);
	cr_expect_eq(engine_register(&bad, &ed), -1);
	cr_expect_null(engine_find("fsplan-test-noreap"), "refused, so not "
		       "found");
	bad = engine_sync;
	bad.name = "fsplan-test-nocleanup";
	bad.cleanup = NULL;
	cr_expect_eq(engine_register(&bad, &ed), -1);
	cr_expect(strstr(ed.msg, "no cleanup hook"), "%s", ed.msg);
}

Test(engine, another_version_or_no_name_is_refused)
{
	struct engine_ops bad = engine_sync;
	struct diag ed = { 0 };

	bad.name = "fsplan-test-v2";
	bad.version = ENGINE_OPS_VERSION + 1;
	cr_expect_eq(engine_register(&bad, &ed), -1);
	cr_expect(strstr(ed.msg, "'fsplan-test-v2'") && strstr(ed.msg, "version"),
		  "%s", ed.msg);
	bad = engine_sync;
	bad.name = "";
	cr_expect_eq(engine_check(&bad, &ed), -1);
	cr_expect(strstr(ed.msg, "without a name"), "%s", ed.msg);
	cr_expect_eq(engine_check(NULL, &ed), -1);
}

Test(engine, a_good_table_registers_once)
{
	static struct engine_ops mine;
	struct diag ed = { 0 };

	mine = engine_sync;
	mine.name = "fsplan-test-mine";
	cr_assert_eq(engine_register(&mine, &ed), 0, "%s", ed.msg);
	cr_expect_eq(engine_find("fsplan-test-mine"), &mine);
	cr_expect_eq(engine_register(&mine, &ed), -1);
	cr_expect(strstr(ed.msg, "already registered"), "%s", ed.msg);
	mine.name = "sync";
	cr_expect_eq(engine_register(&mine, &ed), -1,
		     "a built-in's name is taken");
}

/* ---- a registered engine is one the plan takes ---- */

Test(engine, a_registered_engine_is_taken_by_the_plan)
{
	static const char text[] =
		"fsplan: 1\n"
		"filesystems: [{type: ext4}]\n"
		"phases:\n"
		"  - use: bonnie\n"
		"    with: {engine: example, workers: 2}\n";
	struct plan *p = NULL;
	struct diag d = { 0 };
	struct diag ed = { 0 };
	char names[256] = "";

	cr_expect_not(engine_known("example", names, sizeof(names)));
	cr_expect_str_eq(names, "auto, uring or sync");
	cr_expect_eq(plan_load_text(&p, "t.yaml", text, strlen(text), NULL,
				    0, &d), -1, "refused before it registers");
	cr_expect(strstr(d.msg, "'engine' is auto, uring or sync, not "
			 "'example'"), "%s", d.msg);
	plan_free(p);
	p = NULL;

	cr_assert_eq(engine_register(&engine_example, &ed), 0,
		     "%s", ed.msg);
	cr_expect(engine_known("example", names, sizeof(names)));
	cr_expect_str_eq(names, "auto, uring, sync or example");
	memset(&d, 0, sizeof(d));
	cr_expect_eq(plan_load_text(&p, "t.yaml", text, strlen(text), NULL,
				    0, &d), 0, "%s", d.msg);
	plan_free(p);
	/* an unknown one's message lists the registered one too */
	expect_error("fsplan: 1\n"
		     "filesystems: [{type: ext4}]\n"
		     "phases:\n"
		     "  - use: bonnie\n"
		     "    with: {engine: libaio}\n", 5, 20,
		     "'engine' is auto, uring, sync or example, not 'libaio'");
	/* per cell, once ${} is expanded */
	free_expanded(expand_text("fsplan: 1\n"
				  "filesystems: [{type: ext4}]\n"
				  "matrix: {e: [example, sync]}\n"
				  "phases:\n"
				  "  - use: bonnie\n"
				  "    with: {engine: '${e}'}\n", NULL, 0));
	expect_error("fsplan: 1\n"
		     "filesystems: [{type: ext4}]\n"
		     "matrix: {e: [example, libaio]}\n"
		     "phases:\n"
		     "  - use: bonnie\n"
		     "    with: {engine: '${e}'}\n", 6, 20,
		     "auto, uring, sync or example");
}

/* The example engine keeps the contract and completes a round of ops at
 * once, each read and write with its full length. */
Test(engine, the_example_engine_does_a_round)
{
	struct engine_req r[4], *done[4];
	struct engine *e = NULL;
	struct diag ed = { 0 };
	char buf[512];
	int got = 0, fd;

	cr_assert_eq(engine_check(&engine_example, &ed), 0, "%s",
		     ed.msg);
	cr_assert_eq(engine_register(&engine_example, &ed), 0,
		     "%s", ed.msg);
	cr_assert_eq(engine_find("example"), &engine_example);
	cr_assert_eq(engine_example.init(&e, 4, &ed), 0, "%s",
		     ed.msg);
	for (int i = 0; i < 4; i++) {
		r[i] = (struct engine_req){ .op = i % 2 ? ENGINE_READ :
						 ENGINE_WRITE,
					    .fd = -1, .buf = buf,
					    .len = 100 * (i + 1) };
		cr_expect_eq(engine_example.queue(e, &r[i]), 0);
	}
	r[0].op = ENGINE_FSYNC;
	cr_expect_eq(engine_example.queue(e, &r[0]), -EBUSY, "depth 4");
	cr_expect_eq(engine_example.inflight(e), 4);
	cr_expect_eq(engine_example.commit(e), 0);
	while (got < 4) {
		int n = engine_example.reap(e, 1, done + got, 4 - got);

		cr_assert_gt(n, 0);
		got += n;
	}
	for (int i = 1; i < 4; i++) {
		cr_expect_eq(done[i], &r[i], "in order");
		cr_expect_eq(r[i].res, 100 * (i + 1), "its full length");
		cr_expect_geq(r[i].t_done, r[i].t_submit);
	}
	cr_expect_eq(engine_example.inflight(e), 0);
	/* an open is a real fd the caller closes through the engine */
	dfd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dfd, 0);
	r[0] = (struct engine_req){ .op = ENGINE_OPEN, .dirfd = dfd,
				    .path = "." };
	fd = (int)engine_do(&engine_example, e, &r[0]);
	close(dfd);
	dfd = -1;
	cr_expect_geq(fd, 0);
	r[0] = (struct engine_req){ .op = ENGINE_CLOSE, .fd = fd };
	cr_expect_eq(engine_do(&engine_example, e, &r[0]), 0);
	cr_expect_eq(fcntl(fd, F_GETFD), -1, "closed");
	engine_example.cleanup(e);
}

ENGINE_TEST(bad_depth)
{
	struct engine *e = NULL;
	char why[128] = "";

	ops = engines[*ix];
	cr_expect_eq(make_engine(ops, &e, 0, why, sizeof(why)), -EINVAL);
	cr_expect(strstr(why, "depth"), "%s: why is '%s'", ops->name, why);
	cr_expect_null(e);
}

ENGINE_TEST(write_read_back)
{
	enum { LEN = 300 * 1024 };
	unsigned char *out = malloc(LEN), *in = calloc(1, LEN);
	struct engine_req r;
	int64_t fd;

	start(*ix, 4);
	cr_assert(out && in);
	pattern(out, LEN, 7);
	fd = eopen("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0, "%s: open: %s", ops->name, strerror((int)-fd));
	cr_expect(fcntl((int)fd, F_GETFD) & FD_CLOEXEC, "fd not O_CLOEXEC");

	r = rw_req(ENGINE_WRITE, (int)fd, out, LEN, 4096);
	cr_assert_eq(run(&r), LEN, "%s: write: %lld", ops->name,
		     (long long)r.res);
	cr_expect_gt(r.t_submit, 0);
	cr_expect_geq(r.t_done, r.t_submit);
	cr_expect_eq(size_of((int)fd), 4096 + LEN);

	r = rw_req(ENGINE_READ, (int)fd, in, LEN, 4096);
	cr_assert_eq(run(&r), LEN, "%s: read: %lld", ops->name,
		     (long long)r.res);
	cr_expect_geq(r.t_done, r.t_submit);
	cr_expect_eq(memcmp(in, out, LEN), 0, "%s: read back differs",
		     ops->name);
	eclose((int)fd);
	cr_expect_eq(fcntl((int)fd, F_GETFD), -1, "fd still open");
	free(out);
	free(in);
}

ENGINE_TEST(read_at_eof)
{
	static char buf[64 * 1024];
	struct engine_req r;
	int64_t fd;

	start(*ix, 4);
	put_file("ten", "0123456789", 10);
	fd = eopen("ten", O_RDONLY, 0);
	cr_assert_geq(fd, 0);

	/* More than there is: the short count, not an error or a hang. */
	r = rw_req(ENGINE_READ, (int)fd, buf, sizeof(buf), 0);
	cr_expect_eq(run(&r), 10, "%s: read 64k of 10: %lld", ops->name,
		     (long long)r.res);
	cr_expect_eq(memcmp(buf, "0123456789", 10), 0);
	cr_expect_geq(r.t_done, r.t_submit);

	r = rw_req(ENGINE_READ, (int)fd, buf, 4, 8);
	cr_expect_eq(run(&r), 2, "%s: read across EOF: %lld", ops->name,
		     (long long)r.res);
	cr_expect_eq(memcmp(buf, "89", 2), 0);

	r = rw_req(ENGINE_READ, (int)fd, buf, 4, 10);
	cr_expect_eq(run(&r), 0, "%s: read at EOF", ops->name);
	r = rw_req(ENGINE_READ, (int)fd, buf, 4, 1 << 20);
	cr_expect_eq(run(&r), 0, "%s: read beyond EOF", ops->name);
	eclose((int)fd);
}

/* The writer end of a pipe that sends its bytes in two bursts. */
static void *two_bursts(void *arg)
{
	int fd = *(int *)arg;
	struct timespec gap = { 0, 50 * 1000 * 1000 };

	if (write(fd, "hello", 5) != 5)
		abort();
	nanosleep(&gap, NULL);
	if (write(fd, "world", 5) != 5)
		abort();
	close(fd);
	return NULL;
}

/* A read that the kernel answers in pieces is put back together. */
ENGINE_TEST(short_reads_join)
{
	static char buf[64 * 1024];
	struct engine_req r;
	pthread_t t;
	int p[2];

	start(*ix, 4);
	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(pthread_create(&t, NULL, two_bursts, &p[1]), 0);
	r = rw_req(ENGINE_READ, p[0], buf, sizeof(buf), 0);
	cr_expect_eq(run(&r), 10, "%s: pipe read: %lld", ops->name,
		     (long long)r.res);
	cr_expect_eq(memcmp(buf, "helloworld", 10), 0, "%s: got '%.10s'",
		     ops->name, buf);
	pthread_join(t, NULL);
	close(p[0]);
}

/* 1 MiB as 4 KiB writes at random offsets, 32 in flight, then read back. */
ENGINE_TEST(random_depth32)
{
	enum { BLK = 4096, NBLK = 256, DEPTH = 32 };
	static unsigned char data[NBLK * BLK], back[NBLK * BLK];
	static struct engine_req req[NBLK];
	static int order[NBLK], seen[NBLK];
	struct engine_req *got[5];
	unsigned peak = 0;
	int pass, fd, i, n;

	start(*ix, DEPTH);
	pattern(data, sizeof(data), 3);
	for (i = 0; i < NBLK; i++)
		order[i] = i;
	srand(42);
	for (i = NBLK - 1; i > 0; i--) {
		int j = rand() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	fd = openat(dfd, "big", O_RDWR | O_CREAT, 0644);
	cr_assert_geq(fd, 0);

	for (pass = 0; pass < 2; pass++) {
		enum engine_op op = pass ? ENGINE_READ : ENGINE_WRITE;
		unsigned char *buf = pass ? back : data;
		int next = 0, finished = 0;

		memset(seen, 0, sizeof(seen));
		while (finished < NBLK) {
			while (next < NBLK) {
				int b = order[next];

				req[b] = rw_req(op, fd, buf + b * BLK, BLK,
						(uint64_t)b * BLK);
				req[b].user = &seen[b];
				if (ops->queue(eng, &req[b]) == -EBUSY)
					break;
				next++;
			}
			if (ops->inflight(eng) > peak)
				peak = ops->inflight(eng);
			cr_assert_eq(ops->commit(eng), 0);
			/* max 5 < depth: reap must keep the rest for later */
			n = ops->reap(eng, 1, got, 5);
			cr_assert_geq(n, 1, "%s: reap: %d", ops->name, n);
			for (i = 0; i < n; i++) {
				cr_expect_eq(got[i]->res, BLK, "%s: res %lld",
					     ops->name,
					     (long long)got[i]->res);
				cr_expect_geq(got[i]->t_done,
					      got[i]->t_submit);
				++*(int *)got[i]->user;
			}
			finished += n;
		}
		for (i = 0; i < NBLK; i++)
			cr_assert_eq(seen[i], 1, "%s: block %d reaped %d "
				     "times", ops->name, i, seen[i]);
		cr_expect_eq(ops->inflight(eng), 0);
	}
	cr_expect_eq(peak, DEPTH, "%s: only %u in flight", ops->name, peak);
	cr_expect_eq(size_of(fd), sizeof(data));
	cr_expect_eq(memcmp(back, data, sizeof(data)), 0,
		     "%s: engine read back differs", ops->name);
	memset(back, 0, sizeof(back));
	cr_assert_eq(pread(fd, back, sizeof(back), 0), (ssize_t)sizeof(back));
	cr_expect_eq(memcmp(back, data, sizeof(data)), 0,
		     "%s: file differs from what was written", ops->name);
	close(fd);
}

ENGINE_TEST(sync_allocate_truncate)
{
	struct engine_req r;
	struct stat st;
	int fd;

	start(*ix, 4);
	fd = openat(dfd, "f", O_RDWR | O_CREAT, 0644);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "abc", 3), 3);

	r = rw_req(ENGINE_FSYNC, fd, NULL, 0, 0);
	cr_expect_eq(run(&r), 0, "%s: fsync", ops->name);
	r = rw_req(ENGINE_FDATASYNC, fd, NULL, 0, 0);
	cr_expect_eq(run(&r), 0, "%s: fdatasync", ops->name);

	r = rw_req(ENGINE_FALLOCATE, fd, NULL, 1 << 20, 0);
	cr_expect_eq(run(&r), 0, "%s: fallocate: %s", ops->name,
		     strerror((int)-r.res));
	cr_assert_eq(fstat(fd, &st), 0);
	cr_expect_eq(st.st_size, 1 << 20);
	cr_expect_geq(st.st_blocks * 512, 1 << 20, "not allocated");

	r = rw_req(ENGINE_FALLOCATE, fd, NULL, 1 << 20, 4 << 20);
	r.flags = FALLOC_FL_KEEP_SIZE;
	cr_expect_eq(run(&r), 0, "%s: fallocate keep size", ops->name);
	cr_expect_eq(size_of(fd), 1 << 20);

	r = rw_req(ENGINE_FTRUNCATE, fd, NULL, 0, 12345);
	cr_expect_eq(run(&r), 0, "%s: ftruncate: %s", ops->name,
		     strerror((int)-r.res));
	cr_expect_eq(size_of(fd), 12345);
	cr_expect_geq(r.t_done, r.t_submit);
	r = rw_req(ENGINE_FTRUNCATE, fd, NULL, 0, 0);
	cr_expect_eq(run(&r), 0);
	cr_expect_eq(size_of(fd), 0);

	r = rw_req(ENGINE_FSYNC, -1, NULL, 0, 0);
	cr_expect_eq(run(&r), -EBADF, "%s: fsync of -1", ops->name);
	close(fd);
}

/* Nothing above the directory: not by "..", "/", nor a symlink. */
ENGINE_TEST(open_stays_beneath)
{
	int64_t fd;

	start(*ix, 4);
	put_file("inner", "x", 1);
	cr_assert_eq(mkdirat(dfd, "sub", 0755), 0);
	put_file("sub/deep", "y", 1);
	cr_assert_eq(symlinkat("/etc/passwd", dfd, "abs"), 0);
	cr_assert_eq(symlinkat("../inner", dfd, "sub/up"), 0);
	cr_assert_eq(symlinkat("../../etc/passwd", dfd, "sub/out"), 0);
	cr_assert_eq(symlinkat("/proc/self/fd/0", dfd, "magic"), 0);

	cr_expect_eq(eopen("../x", O_RDONLY, 0), -EXDEV, "%s: ../x",
		     ops->name);
	cr_expect_eq(eopen("/etc/passwd", O_RDONLY, 0), -EXDEV,
		     "%s: /etc/passwd", ops->name);
	fd = eopen("abs", O_RDONLY, 0);
	cr_expect(fd == -EXDEV || fd == -ELOOP, "%s: symlink to /etc/passwd "
		  "gave %lld", ops->name, (long long)fd);
	fd = eopen("sub/out", O_RDONLY, 0);
	cr_expect(fd == -EXDEV || fd == -ELOOP, "%s: ../../ symlink gave %lld",
		  ops->name, (long long)fd);
	fd = eopen("magic", O_RDONLY, 0);
	cr_expect(fd == -EXDEV || fd == -ELOOP, "%s: magic link gave %lld",
		  ops->name, (long long)fd);
	cr_expect_eq(eopen("../x", O_WRONLY | O_CREAT, 0644), -EXDEV);

	/* ... while what stays inside still opens. */
	fd = eopen("sub/deep", O_RDONLY, 0);
	cr_expect_geq(fd, 0, "%s: sub/deep: %lld", ops->name, (long long)fd);
	if (fd >= 0)
		eclose((int)fd);
	fd = eopen("sub/up", O_RDONLY, 0);
	cr_expect_geq(fd, 0, "%s: sub/up -> ../inner: %lld", ops->name,
		      (long long)fd);
	if (fd >= 0)
		eclose((int)fd);
}

ENGINE_TEST(create_and_statx)
{
	static char block[3000];
	struct statx stx;
	struct engine_req r;
	struct stat st;
	int64_t fd, fd2;

	start(*ix, 4);
	umask(022);
	cr_expect_not(exists("new"));
	fd = eopen("new", O_WRONLY | O_CREAT | O_EXCL, 0640);
	cr_assert_geq(fd, 0, "%s: create: %s", ops->name, strerror((int)-fd));
	cr_assert_eq(fstatat(dfd, "new", &st, 0), 0, "the file is not there");
	cr_expect(S_ISREG(st.st_mode));
	cr_expect_eq(st.st_mode & 07777, 0640, "mode %o", st.st_mode & 07777);
	cr_expect_eq(eopen("new", O_WRONLY | O_CREAT | O_EXCL, 0640), -EEXIST);
	/* a mode without O_CREAT is the caller's default, not an error */
	fd2 = eopen("new", O_RDONLY, 0644);
	cr_expect_geq(fd2, 0, "%s: open with a stray mode: %lld", ops->name,
		      (long long)fd2);
	if (fd2 >= 0)
		eclose((int)fd2);
	cr_assert_eq(write((int)fd, block, sizeof(block)),
		     (ssize_t)sizeof(block));

	memset(&stx, 0, sizeof(stx));
	r = path_req(ENGINE_STATX, "new", 0, 0);
	r.stx = &stx;
	cr_expect_eq(run(&r), 0, "%s: statx: %s", ops->name,
		     strerror((int)-r.res));
	cr_expect(stx.stx_mask & STATX_SIZE);
	cr_expect_eq(stx.stx_size, sizeof(block));
	cr_expect_eq(stx.stx_mode & 07777, 0640);

	memset(&stx, 0, sizeof(stx));
	r = path_req(ENGINE_STATX, "", AT_EMPTY_PATH, 0);
	r.dirfd = (int)fd;
	r.stx = &stx;
	cr_expect_eq(run(&r), 0, "%s: statx of the fd", ops->name);
	cr_expect_eq(stx.stx_size, sizeof(block));

	r = path_req(ENGINE_STATX, "missing", 0, 0);
	r.stx = &stx;
	cr_expect_eq(run(&r), -ENOENT);
	eclose((int)fd);
}

ENGINE_TEST(names)
{
	struct engine_req r;
	struct stat st;
	char target[16] = "";
	int subfd;

	start(*ix, 4);
	put_file("f", "data", 4);

	r = path_req(ENGINE_MKDIR, "d", 0, 0750);
	cr_expect_eq(run(&r), 0, "%s: mkdir: %s", ops->name,
		     strerror((int)-r.res));
	cr_assert_eq(fstatat(dfd, "d", &st, 0), 0);
	cr_expect(S_ISDIR(st.st_mode));
	cr_expect_eq(run(&r), -EEXIST);

	r = path_req(ENGINE_RENAME, "f", 0, 0);
	r.dirfd2 = dfd;
	r.path2 = "g";
	cr_expect_eq(run(&r), 0, "%s: rename: %s", ops->name,
		     strerror((int)-r.res));
	cr_expect_not(exists("f"));
	cr_expect(exists("g"));

	r = path_req(ENGINE_LINK, "g", 0, 0);
	r.dirfd2 = dfd;
	r.path2 = "h";
	cr_expect_eq(run(&r), 0, "%s: link: %s", ops->name,
		     strerror((int)-r.res));
	cr_assert_eq(fstatat(dfd, "h", &st, 0), 0);
	cr_expect_eq(st.st_nlink, 2);
	cr_expect_eq(st.st_size, 4);

	r = path_req(ENGINE_SYMLINK, "g", 0, 0);
	r.dirfd2 = dfd;
	r.path2 = "s";
	cr_expect_eq(run(&r), 0, "%s: symlink: %s", ops->name,
		     strerror((int)-r.res));
	cr_expect_eq(readlinkat(dfd, "s", target, sizeof(target)), 1);
	cr_expect_str_eq(target, "g");

	/* into another directory through dirfd2 */
	subfd = openat(dfd, "d", O_RDONLY | O_DIRECTORY);
	cr_assert_geq(subfd, 0);
	r = path_req(ENGINE_RENAME, "h", 0, 0);
	r.dirfd2 = subfd;
	r.path2 = "moved";
	cr_expect_eq(run(&r), 0);
	cr_expect(exists("d/moved"));
	close(subfd);

	r = path_req(ENGINE_UNLINK, "d", 0, 0);
	cr_expect_eq(run(&r), -EISDIR, "%s: unlink of a dir", ops->name);
	r = path_req(ENGINE_UNLINK, "d", AT_REMOVEDIR, 0);
	cr_expect_eq(run(&r), -ENOTEMPTY);
	r = path_req(ENGINE_UNLINK, "d/moved", 0, 0);
	cr_expect_eq(run(&r), 0);
	r = path_req(ENGINE_UNLINK, "d", AT_REMOVEDIR, 0);
	cr_expect_eq(run(&r), 0, "%s: rmdir: %s", ops->name,
		     strerror((int)-r.res));
	cr_expect_not(exists("d"));
	r = path_req(ENGINE_UNLINK, "s", 0, 0);
	cr_expect_eq(run(&r), 0);
	cr_expect_not(exists("s"));
	cr_expect(exists("g"), "unlink of a symlink removed its target");
	r = path_req(ENGINE_UNLINK, "s", 0, 0);
	cr_expect_eq(run(&r), -ENOENT);
}

/* depth is a hard limit, and inflight counts queued and submitted. */
ENGINE_TEST(busy_and_inflight)
{
	static char buf[4][8];
	struct engine_req req[5], *got[4];
	int i, fd, n;

	start(*ix, 4);
	put_file("f", "0123456789abcdef", 16);
	fd = openat(dfd, "f", O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_expect_eq(ops->inflight(eng), 0);
	cr_expect_eq(ops->reap(eng, 0, got, 4), 0, "reap of nothing");
	cr_expect_eq(ops->reap(eng, 1, got, 4), 0, "waited for nothing");

	for (i = 0; i < 4; i++) {
		req[i] = rw_req(ENGINE_READ, fd, buf[i], 4, (uint64_t)i * 4);
		cr_assert_eq(ops->queue(eng, &req[i]), 0);
		cr_expect_eq(ops->inflight(eng), (unsigned)i + 1);
	}
	req[4] = rw_req(ENGINE_READ, fd, buf[0], 4, 0);
	cr_expect_eq(ops->queue(eng, &req[4]), -EBUSY, "%s: depth+1 queued",
		     ops->name);
	cr_assert_eq(ops->commit(eng), 0);
	cr_expect_eq(ops->inflight(eng), 4);
	cr_expect_eq(ops->queue(eng, &req[4]), -EBUSY);

	n = ops->reap(eng, 2, got, 2);
	cr_assert_eq(n, 2, "%s: reap(2, 2) gave %d", ops->name, n);
	cr_expect_eq(ops->inflight(eng), 2);
	cr_assert_eq(ops->queue(eng, &req[4]), 0, "room again after reap");
	cr_expect_eq(ops->inflight(eng), 3);
	cr_assert_eq(ops->commit(eng), 0);
	for (n = 2; n < 5;) {
		int got_n = ops->reap(eng, 1, got, 4);

		cr_assert_gt(got_n, 0);
		n += got_n;
	}
	cr_expect_eq(ops->inflight(eng), 0);
	for (i = 0; i < 5; i++)
		cr_expect_eq(req[i].res, 4, "request %d: %lld", i,
			     (long long)req[i].res);
	cr_expect_eq(memcmp(buf[3], "cdef", 4), 0);

	req[0].op = ENGINE_NOPS;
	cr_expect_eq(ops->queue(eng, &req[0]), -EINVAL);
	cr_expect_eq(ops->inflight(eng), 0);
	close(fd);
}

/* queue only queues: nothing happens before commit (or a waiting reap). */
ENGINE_TEST(queue_waits_for_commit)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	struct engine_req r, *got;
	int fd;

	start(*ix, 4);
	fd = openat(dfd, "f", O_RDWR | O_CREAT, 0644);
	cr_assert_geq(fd, 0);
	r = rw_req(ENGINE_WRITE, fd, (char[]){ "abc" }, 3, 0);
	cr_assert_eq(ops->queue(eng, &r), 0);
	nanosleep(&pause, NULL);
	cr_expect_eq(size_of(fd), 0, "%s: written before commit", ops->name);
	cr_assert_eq(ops->commit(eng), 0);
	cr_assert_eq(ops->reap(eng, 1, &got, 1), 1);
	cr_expect_eq(got, &r);
	cr_expect_eq(r.res, 3);
	cr_expect_eq(size_of(fd), 3);
	close(fd);
}

/*
 * cleanup with requests still out returns, and they write nothing after:
 * a pipe read that nothing will answer (uring only: sync would block in
 * commit) and file writes, one of them never committed.
 */
ENGINE_TEST(cleanup_with_requests_out)
{
	static char buf[64], data[3][4096];
	struct engine_req rd, wr[3];
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	int p[2], fd, i;

	start(*ix, 8);
	cr_assert_eq(pipe(p), 0);
	fd = openat(dfd, "f", O_RDWR | O_CREAT, 0644);
	cr_assert_geq(fd, 0);
	if (ops->flags & ENGINE_ASYNC) {
		rd = rw_req(ENGINE_READ, p[0], buf, sizeof(buf), 0);
		cr_assert_eq(ops->queue(eng, &rd), 0);
	}
	for (i = 0; i < 3; i++) {
		if (i == 2)
			cr_assert_eq(ops->commit(eng), 0);
		wr[i] = rw_req(ENGINE_WRITE, fd, data[i], sizeof(data[i]),
			       (uint64_t)i * sizeof(data[i]));
		cr_assert_eq(ops->queue(eng, &wr[i]), 0);
	}
	ops->cleanup(eng);
	eng = NULL;
	cr_assert_eq(write(p[1], "late", 4), 4);
	nanosleep(&pause, NULL);
	cr_expect_eq(buf[0], 0, "%s: a read landed after cleanup", ops->name);
	close(p[0]);
	close(p[1]);
	close(fd);
}

/* What the child saw once it was nobody. */
struct nobody_report {
	int init;
	char why[1024];
	uid_t euid;
	int64_t secret, public;
};

/*
 * The engine (and so the ring) is made after the drop to nobody, as a
 * phase's worker makes it: a root-only file must then be out of reach.
 */
ENGINE_TEST(dropped_creds_apply)
{
	struct nobody_report rep = { 0 };
	int p[2], status, subfd;
	pid_t pid;

	if (geteuid() != 0)
		cr_skip_test("needs root to drop to nobody (euid %d)",
			     (int)geteuid());
	start(*ix, 4);
	ops->cleanup(eng);	/* the root engine is not the one under test */
	eng = NULL;
	cr_assert_eq(mkdirat(dfd, "in", 0711), 0);
	cr_assert_eq(fchmodat(dfd, "in", 0711, 0), 0);	/* under umask 077 */
	put_file("in/secret", "root only\n", 10);
	put_file("in/public", "anyone\n", 7);
	cr_assert_eq(fchmodat(dfd, "in/secret", 0600, 0), 0);
	cr_assert_eq(fchmodat(dfd, "in/public", 0644, 0), 0);
	subfd = openat(dfd, "in", O_PATH | O_DIRECTORY);
	cr_assert_geq(subfd, 0);
	cr_assert_eq(pipe(p), 0);

	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct engine *e = NULL;
		struct engine_req r = { .op = ENGINE_OPEN, .dirfd = subfd,
					.flags = O_RDONLY };
		struct diag d = { 0 };

		close(p[0]);
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(2);
		rep.euid = geteuid();
		rep.init = ops->init(&e, 4, &d);
		snprintf(rep.why, sizeof(rep.why), "%s", d.msg);
		if (!rep.init) {
			r.path = "secret";
			rep.secret = engine_do(ops, e, &r);
			r.path = "public";
			rep.public = engine_do(ops, e, &r);
			ops->cleanup(e);
		}
		if (write(p[1], &rep, sizeof(rep)) != sizeof(rep))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	cr_assert_eq(read(p[0], &rep, sizeof(rep)), (ssize_t)sizeof(rep),
		     "no report from the child");
	close(p[0]);
	close(subfd);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "child status %#x", status);
	cr_assert_eq(rep.euid, NOBODY);
	if (rep.init && ops == &engine_uring &&
	    (rep.init == -EPERM || rep.init == -ENOSYS))
		cr_skip_test("uring as nobody: %s", rep.why);
	cr_assert_eq(rep.init, 0, "%s: init as nobody: %s", ops->name,
		     rep.why);
	cr_expect_eq(rep.secret, -EACCES, "%s: nobody opened a root-only "
		     "file: %lld", ops->name, (long long)rep.secret);
	cr_expect_geq(rep.public, 0, "%s: nobody could not open a public "
		      "file: %lld", ops->name, (long long)rep.public);
}

/* In a child: make io_uring_setup fail with err, as a container would. */
static void refuse_io_uring(int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K,
			 SECCOMP_RET_ERRNO | ((unsigned)err & 0xffff)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		_exit(2);
}

/* Refused io_uring is an error that says why and names the way out. */
Test(engine, uring_refused_says_why)
{
	static const int errs[] = { EPERM, ENOSYS };
	size_t i;

	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		struct { int ret; char why[1024]; } rep = { 0, "" };
		int p[2], status;
		pid_t pid;

		cr_assert_eq(pipe(p), 0);
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			struct engine *e = NULL;
			struct diag d = { 0 };

			close(p[0]);
			refuse_io_uring(errs[i]);
			rep.ret = engine_uring.init(&e, 8, &d);
			snprintf(rep.why, sizeof(rep.why), "%s", d.msg);
			if (e)
				engine_uring.cleanup(e);
			if (write(p[1], &rep, sizeof(rep)) != sizeof(rep))
				_exit(3);
			_exit(0);
		}
		close(p[1]);
		cr_assert_eq(read(p[0], &rep, sizeof(rep)),
			     (ssize_t)sizeof(rep));
		close(p[0]);
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_assert(WIFEXITED(status) && !WEXITSTATUS(status));
		cr_expect_eq(rep.ret, -errs[i], "init gave %d", rep.ret);
		cr_expect(strstr(rep.why, "io_uring"), "why: '%s'", rep.why);
		cr_expect(strstr(rep.why, "use engine: sync"), "why: '%s'",
			  rep.why);
		if (errs[i] == EPERM)
			cr_expect(strstr(rep.why, "kernel.io_uring_disabled="),
				  "why: '%s'", rep.why);
		cr_log_info("%s: %s", strerror(errs[i]), rep.why);
	}
}
