/* fuzz_workerapi: libFuzzer target — bytes become calls of the worker and file
 * API with hostile arguments, in a sandbox on a tmpfs work directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "engine.h"
#include "phase/sandbox.h"
#include "phase/workerapi.h"
#include "phase/worker.h"
#include "util/clock.h"
#include "../luacall.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void fuzz_workerapi_cleanup(void);

/* What the arguments are drawn from: the campaign's hostile values. */
static const char *const paths[] = {
	"'a'", "'d/a'", "'d'", "'d/e'", "'out/fzesc'", "'../fzesc'",
	"'/tmp/fzesc'", "'a\\0/../../fzesc'", "''", "'.'", "'d/../a'",
	"string.rep('x', 300)", "string.rep('y/', 2100)", "'l'", "'l/fzesc'",
	"'d/l'", "'a/'", "'//a'", "'d//e'", "'dd'",
};
static const char *const sizes[] = {
	"0", "1", "4095", "4096", "'4k'", "-1", "'1G'", "1e30", "'x'",
	"65536", "{}", "nil", "'-4k'", "3.5", "'1T'", "math.maxinteger",
	"0/0", "'64M'", "1048576", "'1M'",
};
/* lengths of data that is written or allocated stay small: the target
 * must not fill the tmpfs */
static const char *const lens[] = {
	"0", "1", "4096", "'4k'", "-1", "65536", "'x'", "nil", "{}",
	"'100k'", "3.5", "1e30",
};
static const char *const modes[] = {
	"'r'", "'w'", "'rw'", "'a'", "'r+'", "'x'", "nil",
	"'w', {excl = true}", "'rw', {create = false}",
	"'w', {direct = true}", "'w', {sync = true, trunc = true}",
	"'w', {bogus = 1}", "'rw', {create = true}",
};
static const char *const stream_ops[] = {
	"'read'", "'write'", "'rewrite'", "'x'", "nil", "1",
};

struct gen {
	const uint8_t *p, *end;
	char *code;
	size_t len, cap;
};

static unsigned take(struct gen *g, unsigned n)
{
	return g->p < g->end ? *g->p++ % n : 0;
}

#define PICK(g, a) (a[take(g, sizeof(a) / sizeof(a[0]))])

static void add(struct gen *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(g->code + g->len, g->cap - g->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < g->cap - g->len)
			break;
		g->cap = g->cap * 2 + (size_t)n;
		g->code = realloc(g->code, g->cap);
		if (!g->code)
			abort();
	}
	g->len += (size_t)n;
}

/* One call, protected: misuse raises, which is fine; what must not
 * happen is a crash, a leak, an escape or a hang. */
static void one_call(struct gen *g)
{
	unsigned f = take(g, 4);

	add(g, "pcall(function() ");
	switch (take(g, 30)) {
	case 0: add(g, "F[%u] = w:open(%s, %s)", f, PICK(g, paths),
		    PICK(g, modes)); break;
	case 1: add(g, "F[%u]:write(%s, %s)", f, PICK(g, sizes),
		    PICK(g, lens)); break;
	case 2: add(g, "F[%u]:write(%s, string.rep('z', %u))", f,
		    PICK(g, sizes), take(g, 250) * 97); break;
	case 3: add(g, "F[%u]:read(%s, %s, %s)", f, PICK(g, sizes),
		    PICK(g, sizes), take(g, 2) ? "true" : "false"); break;
	case 4: add(g, "F[%u]:stream{op = %s, block = %s, bytes = %s, "
		    "depth = %u, pattern = %s, offset = %s}", f,
		    PICK(g, stream_ops), PICK(g, lens), PICK(g, lens),
		    take(g, 140), take(g, 2) ? "'random'" : "'seq'",
		    PICK(g, sizes)); break;
	case 5: add(g, "F[%u]:stream{op = %s, seconds = %s, count = %u, "
		    "span = %s}", f, PICK(g, stream_ops),
		    take(g, 2) ? "0.005" : "-1", take(g, 70), PICK(g, sizes));
		break;
	case 6: add(g, "F[%u]:putc_stream(%u, %s)", f, take(g, 200) * 41,
		    PICK(g, sizes)); break;
	case 7: add(g, "F[%u]:getc_stream(%u)", f, take(g, 200) * 41); break;
	case 8: add(g, "F[%u]:fsync() F[%u]:fdatasync()", f, f); break;
	case 9: add(g, "F[%u]:truncate(%s)", f, PICK(g, sizes)); break;
	case 10: add(g, "F[%u]:allocate(%s, %s)", f, PICK(g, sizes),
		     PICK(g, lens)); break;
	case 11: add(g, "F[%u]:lock(%s, %s) F[%u]:unlock(%s, %s)", f,
		     PICK(g, sizes), PICK(g, sizes), f, PICK(g, sizes),
		     PICK(g, sizes)); break;
	case 12: add(g, "F[%u]:size() F[%u]:stat()", f, f); break;
	case 13: add(g, "F[%u]:close()", f); break;
	case 14: add(g, "w:mkdir(%s, %s)", PICK(g, paths), PICK(g, sizes));
		break;
	case 15: add(g, "w:rmdir(%s)", PICK(g, paths)); break;
	case 16: add(g, "w:unlink(%s)", PICK(g, paths)); break;
	case 17: add(g, "w:rename(%s, %s)", PICK(g, paths), PICK(g, paths));
		break;
	case 18: add(g, "w:link(%s, %s)", PICK(g, paths), PICK(g, paths));
		break;
	case 19: add(g, "w:symlink(%s, %s)", take(g, 2) ? "'/'" : "'..'",
		     PICK(g, paths)); break;
	case 20: add(g, "w:stat(%s)", PICK(g, paths)); break;
	case 21: add(g, "w:utime(%s, %s, %s)", PICK(g, paths),
		     PICK(g, sizes), PICK(g, sizes)); break;
	case 22: add(g, "w:readdir(%s)", PICK(g, paths)); break;
	case 23: add(g, "w:files(%s, {%s, %s}, {dir = %s, tag = %s})",
		     take(g, 2) ? "'create'" : take(g, 2) ? "'stat'"
						      : "'unlink'",
		     PICK(g, paths), PICK(g, paths),
		     take(g, 2) ? "'d'" : "nil",
		     take(g, 2) ? "'t'" : "'bad name!'"); break;
	case 24: add(g, "w:statfs() w:sync(%s)", take(g, 2) ? "nil"
							      : PICK(g, paths));
		break;
	case 25: add(g, "w:time(%s, function() w:open('a', 'w') end)",
		     take(g, 2) ? "'t'" : "'bad name!'"); break;
	case 26: add(g, "w:op(%s, function() w:unlink('a') end)",
		     take(g, 2) ? "'o'" : "false"); break;
	case 27: add(g, "w:count(%s, %s)", take(g, 2) ? "'c'" : "'x y'",
		     PICK(g, sizes)); break;
	case 28: add(g, "w:random(%s, %s) w:done() w:now() w:elapsed()",
		     PICK(g, sizes), PICK(g, sizes)); break;
	default: add(g, "w:sleep(%s) w:cpu() w:identity()",
		     take(g, 2) ? "0.0001" : PICK(g, sizes)); break;
	}
	add(g, " end)\n");
}

static char workdir[64];
static unsigned char *src;
static size_t src_len;

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

/* An escape would have made fzesc outside the work directory. */
static void check_no_escape(void)
{
	static const char *const outside[] = {
		"/tmp/fzesc", "/fzesc", "/dev/shm/fzesc",
	};
	char above[128];
	struct stat st;

	snprintf(above, sizeof(above), "%s/../fzesc", workdir);
	for (size_t i = 0; i < 3; i++)
		if (!lstat(outside[i], &st))
			abort();
	if (!lstat(above, &st))
		abort();
}

/* A crash found by the fuzzer skips atexit: the next run removes the
 * work directories of fuzzers that are gone. */
static void clean_dead(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *de;
	char path[300];
	int pid;

	while (d && (de = readdir(d))) {
		if (sscanf(de->d_name, "fsplan-fuzz-%d-", &pid) != 1 ||
		    pid <= 0 || !kill(pid, 0) || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, de->d_name);
		nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		rmdir(path);
	}
	if (d)
		closedir(d);
}

/* The work directory goes at exit: nothing is left behind. */
void fuzz_workerapi_cleanup(void)
{
	if (!workdir[0])
		return;
	nftw(workdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	rmdir(workdir);
	workdir[0] = '\0';
	free(src);
	src = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sandbox_limits lim = { 64u << 20, 0, NULL, "/nonexistent", NULL };
	struct gen g = { data, data + size, NULL, 0, 0 };
	struct worker w = { 0 };
	struct diag d = { 0 };
	char err[2048], out[128];
	lua_State *L;
	int fd, calls;

	if (!workdir[0]) {
		const char *base = access("/dev/shm", W_OK) ? "/tmp"
							    : "/dev/shm";

		clean_dead(base);
		snprintf(workdir, sizeof(workdir), "%s/fsplan-fuzz-%d-XXXXXX",
			 base, (int)getpid());
		if (!mkdtemp(workdir))
			abort();
		src = worker_source(1, &src_len);
		if (!src)
			abort();
		atexit(fuzz_workerapi_cleanup);
	}
	/* a symlink out, to tempt every resolution */
	snprintf(out, sizeof(out), "%s/out", workdir);
	(void)symlink("/tmp", out);
	snprintf(out, sizeof(out), "%s/l", workdir);
	(void)symlink("..", out);
	fd = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		abort();
	w.id = 1;
	w.workers = 1;
	if (worker_init(&w, size && (data[0] & 1) ? &engine_uring
						 : &engine_sync,
			fd, src, src_len, 1, 1, &d) &&
	    worker_init(&w, &engine_sync, fd, src, src_len, 1, 1, &d))
		abort();
	/* as a phase run's timeout would: w:sleep(1e30) ends there */
	lim.deadline = w.deadline = clock_now() + 0.25;
	L = sandbox_new(&lim);
	if (!L)
		abort();
	g.cap = 4096;
	g.code = malloc(g.cap);
	if (!g.code)
		abort();
	g.code[0] = '\0';
	add(&g, "local w = ...\nlocal F = {}\n");
	for (calls = 0; g.p < g.end && calls < 64; calls++)
		one_call(&g);
	if (luaL_loadbuffer(L, g.code, g.len, "=fuzz") == LUA_OK) {
		lua_newtable(L);
		workerapi_push(L, &w, -1);
		lua_remove(L, -2);
		(void)call_text(L, 1, 0, err, sizeof(err));
	}
	sandbox_close(L);
	worker_free(&w);
	close(fd);
	free(g.code);
	check_no_escape();
	nftw(workdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
