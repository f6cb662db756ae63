/* test_worker: the worker core — the path and open policy on both engines, op
 * recording, the seeded bytes. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"
#include "engine.h"
#include "phase/worker.h"
#include "phase/workpath.h"

/* WORKER_TEST runs on the first two; the example engine, last, only
 * where a test says so */
static const struct engine_ops *const engines[] = {
	&engine_sync, &engine_uring, &engine_example,
};

static struct worker w;
static char dir[64];
static unsigned char *src;

static void finish(void)
{
	int fd = w.workfd;

	worker_free(&w);
	if (fd > 0)
		close(fd);
	memset(&w, 0, sizeof(w));
	free(src);
	src = NULL;
	e2e_cleanup();
}

/* A worker on engine ix in a fresh work directory holding sub/f, a
 * symlink out (to /etc), one that stays in (in -> sub), and one to a
 * file above the work directory (up -> ../x). */
static void start(int ix)
{
	struct diag d = { 0 };
	char path[128];
	int fd;

	snprintf(dir, sizeof(dir), "%s", e2e_tmpdir());
	snprintf(path, sizeof(path), "%s/sub", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/sub/f", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/out", dir);
	cr_assert_eq(symlink("/etc", path), 0);
	snprintf(path, sizeof(path), "%s/in", dir);
	cr_assert_eq(symlink("sub", path), 0);
	snprintf(path, sizeof(path), "%s/up", dir);
	cr_assert_eq(symlink("../x", path), 0);
	src = worker_source(7, &w.src_len);
	cr_assert_not_null(src);
	w.id = 1;
	w.workers = 1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	if (worker_init(&w, engines[ix], fd, src, w.src_len, 7, 1, &d)) {
		close(fd);
		w.workfd = -1;
		cr_skip_test("%s: %s", engines[ix]->name, d.msg);
	}
}

#define WORKER_TEST(name)						\
	ParameterizedTestParameters(worker, name)			\
	{								\
		static int ix[] = { 0, 1 };				\
		return cr_make_param_array(int, ix, 2);			\
	}								\
	ParameterizedTest(int *ix, worker, name, .fini = finish, .timeout = 30)

/* Open path for reading as a phase would (w:open): the fd or -errno. */
static int open_r(const char *path)
{
	struct engine_req r = { .op = ENGINE_OPEN, .flags = O_RDONLY };
	int64_t res = workpath_open(&w, &r, path);

	if (res >= 0)
		close((int)res);
	return res < 0 ? (int)res : 0;
}

Test(worker, the_path_policy_refuses_what_leaves_the_work_directory)
{
	static const char *const bad[] = { "", "/etc/passwd", "/", "..",
					   "../x", "a/../b", "a/..", "a//..",
					   "./.." };
	static const char *const good[] = { "a", "a/b", "a/", ".", "./a",
					    "..a", "a..", "a/..b", "a/b.." };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_not_null(workpath_error(bad[i]), "'%s' passed",
				   bad[i]);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		cr_expect_null(workpath_error(good[i]), "'%s' refused: %s",
			       good[i], workpath_error(good[i]));
	cr_expect(strstr(workpath_error("/x"), "relative"));
	cr_expect(strstr(workpath_error("a/../b"), "'..'"));
}

WORKER_TEST(open_refuses_absolute_paths_dotdot_and_symlinks_out)
{
	start(*ix);
	cr_expect_eq(open_r("/etc/passwd"), -EINVAL);
	cr_expect_eq(open_r("../etc/passwd"), -EINVAL);
	cr_expect_eq(open_r("sub/../../etc/passwd"), -EINVAL);
	/* symlinks that lead out: refused by the kernel, on both engines */
	cr_expect_eq(open_r("out/passwd"), -EXDEV);
	cr_expect_eq(open_r("out"), -EXDEV);
	cr_expect_eq(open_r("up"), -EXDEV);
	/* what stays beneath opens, through a symlink too */
	cr_expect_eq(open_r("sub/f"), 0);
	cr_expect_eq(open_r("in/f"), 0);
	cr_expect_eq(open_r("sub/../in/f"), -EINVAL);
}

WORKER_TEST(openat_is_the_engines_open_policy)
{
	int fd;

	start(*ix);
	/* beneath dirfd, never above it; no fd leaks into exec */
	cr_expect_eq(workpath_openat(&w, w.workfd, "..", O_PATH), -EXDEV);
	cr_expect_eq(workpath_openat(&w, w.workfd, "/etc", O_PATH), -EXDEV);
	cr_expect_eq(workpath_openat(&w, w.workfd, "out", O_PATH), -EXDEV);
	fd = workpath_openat(&w, w.workfd, "in", O_PATH | O_DIRECTORY);
	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	cr_expect(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

WORKER_TEST(parent_keeps_the_last_directory_and_forgets_it_when_asked)
{
	char name[256];
	int own, a, b;

	start(*ix);
	cr_expect_eq(workpath_parent(&w, "f", name, sizeof(name), &own, 1),
		     w.workfd);
	cr_expect_str_eq(name, "f");
	cr_expect_eq(own, 0);
	a = workpath_parent(&w, "sub/f", name, sizeof(name), &own, 1);
	cr_assert_geq(a, 0);
	cr_expect_eq(own, 0, "the kept directory is the worker's to close");
	b = workpath_parent(&w, "sub/g", name, sizeof(name), &own, 1);
	cr_expect_eq(a, b, "one open per directory, not per file");
	cr_expect_str_eq(name, "g");
	/* cache 0: the kept one stays, the caller owns a new fd */
	b = workpath_parent(&w, "in/f", name, sizeof(name), &own, 0);
	cr_assert_geq(b, 0);
	cr_expect_eq(own, 1);
	cr_expect_eq(w.pdir_fd, a);
	close(b);
	worker_forget_dir(&w);
	cr_expect_eq(w.pdir_fd, -1);
	cr_expect_eq(workpath_parent(&w, "out/passwd", name, sizeof(name),
				     &own, 1), -EXDEV);
	cr_expect_eq(workpath_parent(&w, "../x", name, sizeof(name), &own, 1),
		     -EINVAL);
	cr_expect_eq(workpath_parent(&w, "sub/.", name, sizeof(name), &own, 1),
		     -EINVAL, "'.' names no entry of its directory");
	cr_expect_eq(workpath_parent(&w, "sub/f", name, 1, &own, 1),
		     -ENAMETOOLONG);
}

/* A copy's source and destination directories take turns: both stay
 * open, and a third one lets the older go. */
WORKER_TEST(parent_keeps_two_directories_for_a_copy)
{
	char name[256], path[512];
	int own, a, b, c;

	start(*ix);
	snprintf(path, sizeof(path), "%s/to", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/other", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	a = workpath_parent(&w, "sub/f", name, sizeof(name), &own, 1);
	b = workpath_parent(&w, "to/f", name, sizeof(name), &own, 1);
	cr_assert(a >= 0 && b >= 0 && a != b);
	cr_expect_eq(workpath_parent(&w, "sub/g", name, sizeof(name), &own, 1),
		     a, "the source's directory is still open");
	cr_expect_eq(workpath_parent(&w, "to/g", name, sizeof(name), &own, 1),
		     b, "and the destination's");
	cr_expect_eq(own, 0);
	c = workpath_parent(&w, "other/f", name, sizeof(name), &own, 1);
	cr_assert_geq(c, 0);
	cr_expect_eq(w.pdir_fd, c);
	cr_expect_eq(w.pdir2_fd, b, "the older one (sub) went");
	worker_forget_dir(&w);
	cr_expect(w.pdir_fd == -1 && w.pdir2_fd == -1);
}

/* The example engine, registered as a new one would be, under a worker:
 * its opens give fds, its writes and reads their full length at once,
 * recorded like any engine's. */
Test(worker, the_example_engine_does_a_round, .fini = finish)
{
	char buf[4096];
	struct diag d = { 0 };
	struct engine_req r;
	struct engine *e;
	int64_t fd;

	cr_assert_eq(engine_register(&engine_example, &d), 0, "%s", d.msg);
	start(2);
	cr_assert_eq(w.eng, &engine_example);
	r = (struct engine_req){ .op = ENGINE_OPEN, .flags = O_RDONLY };
	fd = workpath_open(&w, &r, "sub/f");
	cr_assert_geq(fd, 0, "%s", strerror((int)-fd));
	e = worker_engine(&w, 1, &d);
	cr_assert_not_null(e, "%s", d.msg);
	for (int i = 0; i < 3; i++) {
		r = (struct engine_req){ .op = i ? ENGINE_READ : ENGINE_WRITE,
					 .fd = (int)fd, .buf = buf,
					 .len = sizeof(buf),
					 .off = (uint64_t)i * sizeof(buf) };
		cr_expect_eq(engine_do(w.eng, e, &r), (int64_t)sizeof(buf));
		worker_record_req(&w, i ? "read" : "write", &r,
				  (uint64_t)r.res);
	}
	cr_expect_eq(metrics_find_op(&w.m, "read")->lat.count, 2);
	cr_expect_eq(metrics_find_op(&w.m, "read")->bytes, 2 * sizeof(buf));
	r = (struct engine_req){ .op = ENGINE_CLOSE, .fd = (int)fd };
	cr_expect_eq(engine_do(w.eng, e, &r), 0);
}

Test(worker, ops_are_recorded_by_name_with_their_bytes)
{
	char name[40];
	struct op_stat *op;

	worker_record(&w, "read", 1000, 4096);
	worker_record(&w, "read", 3000, 4096);
	worker_record(&w, "write", 500, 0);
	op = metrics_find_op(&w.m, "read");
	cr_assert_not_null(op);
	cr_expect_eq(op->lat.count, 2);
	cr_expect_eq(op->bytes, 8192);
	cr_expect_eq(op->lat.max, 3000);
	cr_expect_eq(metrics_find_op(&w.m, "write")->lat.count, 1);
	/* one buffer, two names: the cache by address must not mix them */
	snprintf(name, sizeof(name), "create");
	worker_record(&w, name, 10, 0);
	snprintf(name, sizeof(name), "unlink");
	worker_record(&w, name, 10, 0);
	cr_expect_eq(metrics_find_op(&w.m, "create")->lat.count, 1);
	cr_expect_eq(metrics_find_op(&w.m, "unlink")->lat.count, 1);
	/* a name the metrics cannot carry is not recorded at all */
	memset(name, 'a', 32);
	name[32] = '\0';
	cr_expect_null(worker_op(&w, name));
	cr_expect_null(worker_op(&w, "no spaces"));
	worker_record(&w, "no spaces", 10, 0);
	cr_expect_eq(w.m.n_ops, 4);
	metrics_free(&w.m);
}

Test(worker, seeded_bytes_are_the_same_for_a_seed_and_differ_by_offset)
{
	size_t la, lb;
	unsigned char *a = worker_source(42, &la), *b = worker_source(42, &lb);
	unsigned char *c = worker_source(43, &lb);
	struct worker v = { .id = 1 };

	cr_assert(a && b && c);
	cr_expect_eq(la, lb);
	cr_expect_eq(memcmp(a, b, la), 0);
	cr_expect_neq(memcmp(a, c, 4096), 0);
	v.src = a;
	v.src_len = la;
	for (uint64_t off = 0; off < (64u << 20); off += 1u << 20) {
		const unsigned char *p = worker_src_at(&v, v.src, v.src_len, off,
							 1u << 20);

		cr_expect_eq(((uintptr_t)p) % 4096, 0);
		cr_expect(p >= a && p + (1u << 20) <= a + la, "off %llu",
			  (unsigned long long)off);
	}
	cr_expect_neq(worker_src_at(&v, a, la, 0, 4096),
		      worker_src_at(&v, a, la, 4096 * 7, 4096));
	free(a);
	free(b);
	free(c);
}

Test(worker, the_rng_is_the_seeds)
{
	struct worker a = { 0 }, b = { 0 };
	int same = 1;

	for (int i = 0; i < 4; i++)
		a.rng[i] = b.rng[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull + 1;
	for (int i = 0; i < 100; i++)
		same &= worker_random(&a) == worker_random(&b);
	cr_expect(same);
	cr_expect_neq(worker_random(&a), worker_random(&a));
}
