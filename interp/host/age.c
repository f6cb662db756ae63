/* age: the seeded aging workload (fill, then churn rounds) of DESIGN.md §10. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "host/age.h"
#include "util/clock.h"
#include "util/file.h"
#include "util/grow.h"
#include "util/mix.h"
#include "util/sha256.h"
#include "util/strbuf.h"

#define AGE_CHUNK (1u << 20)	/* the most one write() carries */
#define AGE_SLIDE (1u << 16)	/* the data buffer's extra: start offsets */
#define AGE_FANOUT 8		/* subdirectories a directory holds */
#define AGE_OPEN_DIRS 256	/* directory fds kept open at most */
#define AGE_CREATE_SHARE 0.7	/* of a round's bytes, as new files */

/*
 * By file count, after Agrawal et al., FAST 2007 (their Figure 2, files
 * by size, 2004): a lognormal-like histogram with its median near 4 KiB
 * (46% of the files up to 4 KiB, 66% up to 16 KiB) and a long tail that
 * holds most of the bytes (files of 1 MiB and more: 5% of the files,
 * about four fifths of the bytes; the mean is about 420 KiB).
 */
static const struct age_size age_defaults[] = {
	{ 1ull << 10, 20 },
	{ 4ull << 10, 26 },
	{ 16ull << 10, 20 },
	{ 64ull << 10, 14 },
	{ 256ull << 10, 9 },
	{ 1ull << 20, 6 },
	{ 4ull << 20, 3 },
	{ 16ull << 20, 1.5 },
	{ 64ull << 20, 0.5 },
};

const struct age_size *age_default_sizes(int *n_out)
{
	*n_out = (int)(sizeof(age_defaults) / sizeof(age_defaults[0]));
	return age_defaults;
}

struct age_file {
	uint64_t id;		/* its name: f<id> */
	uint64_t size;
	uint32_t dir;
};

struct ager {
	const char *dir;
	int top;		/* dir's fd */
	const struct age_size *sizes;
	int n_sizes;
	double weight;		/* the sizes' total weight */
	uint64_t rng[4];	/* xoshiro256**: every choice */
	unsigned char *buf;	/* AGE_CHUNK + AGE_SLIDE seeded bytes */
	int *dfd;		/* per directory: its fd or -1 */
	uint32_t ndirs;
	int nopen;
	struct age_file *files;
	size_t nfiles, cap;
	uint64_t next_id;
	int full;		/* ENOSPC met in this phase */
	struct strbuf trace;
	struct age_done *done;
	struct diag *d;
};

static uint64_t rnd(struct ager *a)
{
	return mix_xoshiro(a->rng);
}

/* Uniform in [0, 1). */
static double rnd_unit(struct ager *a)
{
	return (double)(rnd(a) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n), n > 0 (Lemire's multiply; its bias is < n / 2^64). */
static uint64_t rnd_below(struct ager *a, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rnd(a) * n) >> 64);
}

/* A size from bucket i: log-uniform in (its lower bound, its upto]. */
static uint64_t bucket_draw(const struct age_size *sz, int i, double u)
{
	uint64_t lo = i ? sz[i - 1].upto : 0, hi = sz[i].upto, s;
	double l = lo ? (double)lo : 1.0;

	s = (uint64_t)(l * exp(u * log((double)hi / l)));
	if (s <= lo)
		s = lo + 1;
	return s > hi ? hi : s;
}

uint64_t age_size_pick(const struct age_size *sizes, int n, double w,
		       double u)
{
	double total = 0;
	int i = 0;

	for (int k = 0; k < n; k++)
		total += sizes[k].weight;
	w *= total;
	while (i < n - 1 && w >= sizes[i].weight) {
		w -= sizes[i].weight;
		i++;
	}
	return bucket_draw(sizes, i, u);
}

static uint64_t size_draw(struct ager *a)
{
	double w = rnd_unit(a);

	return age_size_pick(a->sizes, a->n_sizes, w, rnd_unit(a));
}

/* The mean of the distribution: a log-uniform (l, h]'s is (h-l)/ln(h/l). */
static double size_mean(const struct ager *a)
{
	double m = 0;

	for (int i = 0; i < a->n_sizes; i++) {
		double lo = i ? (double)a->sizes[i - 1].upto : 1.0;
		double hi = (double)a->sizes[i].upto;

		m += a->sizes[i].weight *
		     (hi > lo ? (hi - lo) / log(hi / lo) : hi);
	}
	return m / a->weight;
}

static int spec_check(struct ager *a, const struct age_spec *spec)
{
	a->sizes = spec->sizes;
	a->n_sizes = spec->n_sizes;
	if (!a->sizes || a->n_sizes <= 0)
		a->sizes = age_default_sizes(&a->n_sizes);
	if (!(spec->fill >= 0.01 && spec->fill <= 0.95))
		return diag_fail(a->d, DIAG_INPUT, 0, "age: fill %g is not "
				 "between 1%% and 95%%", spec->fill);
	if (!(spec->churn >= 0 && spec->churn <= 1000) || spec->dirs < 0)
		return diag_fail(a->d, DIAG_INPUT, 0, "age: churn %g or dirs "
				 "%d out of range", spec->churn, spec->dirs);
	a->weight = 0;
	for (int i = 0; i < a->n_sizes; i++) {
		if (!(a->sizes[i].weight >= 0) || !a->sizes[i].upto ||
		    (i && a->sizes[i].upto <= a->sizes[i - 1].upto))
			return diag_fail(a->d, DIAG_INPUT, 0, "age: size bucket "
					 "%d: upto must grow, weights be >= 0",
					 i + 1);
		a->weight += a->sizes[i].weight;
	}
	if (!(a->weight > 0))
		return diag_fail(a->d, DIAG_INPUT, 0, "age: every size "
				 "weight is 0");
	return 0;
}

/* Directory k's path under dir: d<k%8> below directory k/8 - 1. */
static void dir_path(uint32_t k, char *p, size_t len)
{
	char up[256] = "";

	if (k >= AGE_FANOUT) {
		dir_path(k / AGE_FANOUT - 1, up, sizeof(up));
		snprintf(p, len, "%s/d%u", up, k % AGE_FANOUT);
	} else {
		snprintf(p, len, "d%u", k);
	}
}

static int sys_fail(struct ager *a, int err, const char *what,
		    const char *rel)
{
	return diag_fail(a->d, DIAG_SYSTEM, err, "age: %s %s/%s", what,
			 a->dir, rel);
}

static void dirs_close(struct ager *a)
{
	for (uint32_t k = 0; k < a->ndirs; k++)
		if (a->dfd[k] >= 0) {
			close(a->dfd[k]);
			a->dfd[k] = -1;
		}
	a->nopen = 0;
}

/* Directory k's fd, opened a component at a time without following a
 * symbolic link; at most about AGE_OPEN_DIRS stay open. -1 with errno. */
static int dir_fd(struct ager *a, uint32_t k)
{
	int up, fd;
	char name[16];

	if (a->dfd[k] >= 0)
		return a->dfd[k];
	if (a->nopen >= AGE_OPEN_DIRS)
		dirs_close(a);
	up = k < AGE_FANOUT ? a->top : dir_fd(a, k / AGE_FANOUT - 1);
	if (up < 0)
		return -1;
	snprintf(name, sizeof(name), "d%u", k % AGE_FANOUT);
	fd = openat(up, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		a->dfd[k] = fd;
		a->nopen++;
	}
	return fd;
}

/* Make the tree of ndirs directories, breadth first. 0, 1 on ENOSPC, -1. */
static int dirs_make(struct ager *a)
{
	char name[16], rel[256];

	a->dfd = malloc(a->ndirs * sizeof(*a->dfd));
	if (!a->dfd)
		return diag_fail(a->d, DIAG_SYSTEM, ENOMEM, "age: directories");
	for (uint32_t k = 0; k < a->ndirs; k++)
		a->dfd[k] = -1;
	for (uint32_t k = 0; k < a->ndirs; k++) {
		int up = k < AGE_FANOUT ? a->top :
			 dir_fd(a, k / AGE_FANOUT - 1);

		snprintf(name, sizeof(name), "d%u", k % AGE_FANOUT);
		if (up >= 0 && !mkdirat(up, name, 0755)) {
			a->done->dirs++;
			continue;
		}
		if (errno == ENOSPC || errno == EDQUOT) {
			a->ndirs = k;	/* files go to those made */
			return 1;
		}
		dir_path(k, rel, sizeof(rel));
		return sys_fail(a, errno, "mkdir", rel);
	}
	return 0;
}

/* The file's path under dir, for the trace and messages. */
static void file_path(const struct age_file *f, char *p, size_t len)
{
	char rel[256];

	dir_path(f->dir, rel, sizeof(rel));
	snprintf(p, len, "%s/f%" PRIu64, rel, f->id);
}

/* size bytes of the seeded data to fd; *wrote how many went. 0, 1 on
 * ENOSPC (or a quota's EDQUOT): the file is left as it is; or -errno. */
static int data_write(struct ager *a, int fd, uint64_t size, uint64_t *wrote)
{
	*wrote = 0;
	while (*wrote < size) {
		size_t n = size - *wrote > AGE_CHUNK ? AGE_CHUNK :
			   (size_t)(size - *wrote), got = 0;
		size_t off = (size_t)((a->done->bytes_written + *wrote) %
				      AGE_SLIDE);
		int rc = file_write_all(fd, a->buf + off, n, &got);

		*wrote += got;
		if (rc == -ENOSPC || rc == -EDQUOT)
			return 1;
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int trace_op(struct ager *a, char op, const char *path, uint64_t size)
{
	int rc = op == 'd' ? strbuf_printf(&a->trace, "d %s\n", path) :
		 strbuf_printf(&a->trace, "%c %s %" PRIu64 "\n", op, path,
			       size);

	a->done->ops++;
	if (rc < 0)
		return diag_fail(a->d, DIAG_SYSTEM, ENOMEM, "age: the trace");
	return 0;
}

/* Write size bytes to file i, made anew (create) or appended to. */
static int file_io(struct ager *a, size_t i, uint64_t size, int create)
{
	struct age_file *f = &a->files[i];
	char name[32], path[300];
	int dfd = dir_fd(a, f->dir), fd, rc, err;
	uint64_t wrote = 0;

	file_path(f, path, sizeof(path));
	snprintf(name, sizeof(name), "f%" PRIu64, f->id);
	fd = dfd < 0 ? -1 : openat(dfd, name, O_WRONLY | O_CLOEXEC |
				   O_NOFOLLOW | (create ? O_CREAT | O_EXCL :
						 O_APPEND), 0644);
	if (fd < 0) {
		if (create && (errno == ENOSPC || errno == EDQUOT)) {
			a->full = 1;
			a->nfiles--;	/* never made */
			return 0;
		}
		return sys_fail(a, errno, "open", path);
	}
	rc = data_write(a, fd, size, &wrote);
	err = -rc;
	if (close(fd) && rc >= 0 && errno != EINTR) {
		err = errno;
		rc = err == ENOSPC || err == EDQUOT ? 1 : -1;
	}
	f->size += wrote;
	a->done->bytes_written += wrote;
	if (rc == 1)
		a->full = 1;
	if (rc < 0)
		return sys_fail(a, err, "write", path);
	return trace_op(a, create ? 'c' : 'a', path, wrote);
}

/* A new file of size bytes in a random directory; *wrote its bytes. */
static int file_create(struct ager *a, uint64_t size, uint64_t *wrote)
{
	struct age_file *p;
	size_t i = a->nfiles;

	p = grow_array(a->files, &a->cap, i + 1, sizeof(*p), 1024);
	if (!p)
		return diag_fail(a->d, DIAG_SYSTEM, ENOMEM, "age: files");
	a->files = p;
	a->nfiles++;
	p[i].id = a->next_id++;
	p[i].size = 0;
	p[i].dir = (uint32_t)rnd_below(a, a->ndirs);
	if (file_io(a, i, size, 1))
		return -1;
	*wrote = i < a->nfiles ? a->files[i].size : 0;
	return 0;
}

static int file_append(struct ager *a, uint64_t size, uint64_t *wrote)
{
	size_t i = (size_t)rnd_below(a, a->nfiles);
	uint64_t was = a->files[i].size;

	if (file_io(a, i, size, 0))
		return -1;
	*wrote = a->files[i].size - was;
	return 0;
}

/* Delete file i; the last takes its place. *freed: its size. */
static int file_delete(struct ager *a, size_t i, uint64_t *freed)
{
	struct age_file *f = &a->files[i];
	char name[32], path[300];
	int dfd = dir_fd(a, f->dir);

	file_path(f, path, sizeof(path));
	snprintf(name, sizeof(name), "f%" PRIu64, f->id);
	if (dfd < 0 || unlinkat(dfd, name, 0))
		return sys_fail(a, errno, "unlink", path);
	*freed = f->size;
	*f = a->files[--a->nfiles];
	return trace_op(a, 'd', path, 0);
}

/* Files until their bytes reach target (the last one cut to it). */
static int fill(struct ager *a, uint64_t target)
{
	uint64_t left = target, s, wrote;

	while (left && !a->full) {
		s = size_draw(a);
		if (s > left)
			s = left;
		if (file_create(a, s, &wrote))
			return -1;
		a->done->fill_bytes += wrote;
		left -= s;
	}
	return 0;
}

/* One round's writes, w bytes: new files and appends, mixed in the
 * proportion of what each has left to write. *wrote: what went. */
static int round_write(struct ager *a, uint64_t w, uint64_t *wrote)
{
	uint64_t cb = (uint64_t)((double)w * AGE_CREATE_SHARE), ab = w - cb;
	uint64_t s, got;

	*wrote = 0;
	while (cb + ab && !a->full) {
		int create = !a->nfiles ||
			     rnd_unit(a) * (double)(cb + ab) < (double)cb;
		uint64_t *left = create ? &cb : &ab;

		if (!a->nfiles) {
			cb += ab;
			ab = 0;
		}
		s = size_draw(a);
		if (s > *left)
			s = *left;
		if (create ? file_create(a, s, &got) : file_append(a, s, &got))
			return -1;
		*wrote += got;
		*left -= s;
	}
	return 0;
}

/* A round's deletes: random files, up to a quarter of them, none that
 * would free more than left (the bytes still to rewrite: the last round
 * never lowers the fill); a few tries per file for one that fits. */
static int round_delete(struct ager *a, uint64_t left, uint64_t *freed)
{
	size_t k = (a->nfiles + 3) / 4, tries = 8 * k + 64, i;
	uint64_t f = 0;

	*freed = 0;
	while (k && tries-- && a->nfiles && *freed < left) {
		i = (size_t)rnd_below(a, a->nfiles);
		if (a->files[i].size > left - *freed)
			continue;
		if (file_delete(a, i, &f))
			return -1;
		*freed += f;
		k--;
	}
	return 0;
}

/* Rounds of deleting files and writing their bytes again until target
 * bytes are rewritten; a round that frees or writes nothing (no file
 * small enough for what is left, or the filesystem full) ends them. */
static int churn(struct ager *a, uint64_t target)
{
	uint64_t done = 0, freed, wrote;

	while (done < target && a->nfiles) {
		if (round_delete(a, target - done, &freed))
			return -1;
		if (!freed)
			break;
		a->done->rounds++;
		a->full = 0;
		if (round_write(a, freed, &wrote))
			return -1;
		if (a->full)
			a->done->full = 1;
		if (!wrote)
			break;
		done += wrote;
	}
	return 0;
}

/* The generator's state from the seed (splitmix64), and the data: a
 * stream of its own, so what is written never changes a choice. */
static int ager_init(struct ager *a, uint64_t seed)
{
	uint64_t x = seed, *w;

	for (int i = 0; i < 4; i++)
		a->rng[i] = mix64(x += 0x9e3779b97f4a7c15ull);
	a->buf = malloc(AGE_CHUNK + AGE_SLIDE);
	if (!a->buf)
		return diag_fail(a->d, DIAG_SYSTEM, ENOMEM, "age: buffer");
	w = (uint64_t *)(void *)a->buf;
	x = mix64(seed ^ 0x6461746164617461ull);
	for (size_t i = 0; i < (AGE_CHUNK + AGE_SLIDE) / 8; i++)
		w[i] = mix64(x += 0x9e3779b97f4a7c15ull);
	return 0;
}

static void ager_free(struct ager *a)
{
	if (a->dfd)
		dirs_close(a);
	if (a->top >= 0)
		close(a->top);
	free(a->dfd);
	free(a->files);
	free(a->buf);
	free(a->trace.p);
}

/* The fill's target and the directory count from the fs's size. */
static int plan_sizes(struct ager *a, const struct age_spec *spec,
		      uint64_t *target)
{
	struct statvfs v;
	double files;

	if (fstatvfs(a->top, &v))
		return sys_fail(a, errno, "statvfs", ".");
	*target = (uint64_t)(spec->fill * (double)v.f_blocks *
			     (double)v.f_frsize);
	files = (double)*target / size_mean(a);
	if (spec->dirs > 0)
		a->ndirs = (uint32_t)spec->dirs;
	else
		a->ndirs = files / 32 < 1 ? 1 : files / 32 > 1e6 ? 1000000 :
			   (uint32_t)lround(files / 32);
	return 0;
}

static int age_steps(struct ager *a, const struct age_spec *spec)
{
	uint64_t target = 0;
	int rc;

	if (plan_sizes(a, spec, &target))
		return -1;
	rc = dirs_make(a);
	if (rc < 0)
		return -1;
	if (rc > 0 || !a->ndirs) {
		a->done->full = 1;
		return 0;
	}
	if (fill(a, target))
		return -1;
	a->done->full = a->full;
	if (spec->churn > 0 &&
	    churn(a, (uint64_t)(spec->churn * (double)a->done->fill_bytes)))
		return -1;
	if (syncfs(a->top))
		return sys_fail(a, errno, "syncfs", ".");
	return 0;
}

int age_run(const char *dir, const struct age_spec *spec,
	    struct age_done *done, struct diag *d)
{
	struct ager a = { .dir = dir, .top = -1, .done = done, .d = d };
	double t0 = clock_now();

	memset(done, 0, sizeof(*done));
	if (spec_check(&a, spec) || ager_init(&a, spec->seed))
		goto fail;
	a.top = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (a.top < 0) {
		diag_fail(d, DIAG_SYSTEM, errno, "age: open %s", dir);
		goto fail;
	}
	if (age_steps(&a, spec))
		goto fail;
	if (a.trace.oom) {
		diag_fail(d, DIAG_SYSTEM, ENOMEM, "age: the trace");
		goto fail;
	}
	sha256_hex(a.trace.p ? a.trace.p : "", a.trace.len,
		   done->trace_sha256);
	done->files = a.nfiles;
	done->seconds = clock_now() - t0;
	ager_free(&a);
	return 0;
fail:
	done->files = a.nfiles;
	done->seconds = clock_now() - t0;
	ager_free(&a);
	return -1;
}
