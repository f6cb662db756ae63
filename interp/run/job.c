/* job: the child job of one phase run — its environment, exec/ files, Lua job,
 * and what it leaves. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "host/execpath.h"
#include "phase/libsrc.h"
#include "phase/lparse.h"
#include "phase/phase.h"
#include "run/job.h"
#include "run/run.h"
#include "run/runlog.h"
#include "util/file.h"
#include "util/mix.h"

/* exec/NNNNNN-<cell id, made a file name>.<ext>, for what the phase
 * prints. The fd, or -1 with errno. */
static int open_output(struct run *r, const struct cell *c, const char *ext)
{
	char path[PATH_MAX], name[200];
	size_t n = 0;

	for (const char *s = c->id; *s && n < sizeof(name) - 1; s++)
		name[n++] = (strchr("/ ,:=#'\"\\", *s) ? '_' : *s);
	name[n] = '\0';
	if (snprintf(path, sizeof(path), "%s/exec/%06zu-%s.%s", r->dir,
		     c->index, name, ext) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(path, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0644);
}

/* What the check found of an exec module (lua/mariadb.lua), or NULL for
 * a Lua module and an exec: phase. */
static const struct phase_checked *exec_module(const struct run *r,
					       const struct cell *c)
{
	const struct phase_checked *chk = r->e->checked ?
					  &r->e->checked[c->phase] : NULL;

	return chk && chk->exec[0] ? chk : NULL;
}

int job_measured(const struct run *r, const struct cell *c)
{
	return r->plan->phases[c->phase].use.s && !exec_module(r, c);
}

static void lua_job(struct run *r, const char *fsdir, const struct cell *c,
		    struct luajob *lj)
{
	const struct plan_phase *ph = &r->plan->phases[c->phase];
	struct statfs sf;
	struct sysinfo si;

	memset(lj, 0, sizeof(*lj));
	lj->e = r->e;
	lj->c = c;
	lj->module = ph->module_path;
	/* unknown sizes stay 0, which ctx shows as such */
	if (!statfs(fsdir, &sf)) {
		lj->fs_size_bytes = (uint64_t)sf.f_blocks * sf.f_bsize;
		lj->fs_block_size = (uint64_t)sf.f_bsize;
	}
	if (!sysinfo(&si))
		lj->ram_bytes = (uint64_t)si.totalram * si.mem_unit;
	lj->timeout_s = ph->timeout_s;
	lj->mem_bytes = ph->memory ? ph->memory : (size_t)1 << 30;
	lj->interval_s = ph->interval_s;
	lj->warmup_s = ph->warmup_s;
	lj->steady = ph->steady;
	/* read as root: runas may not reach the plan's directory; if root
	 * cannot, the child tries as runas and says why it cannot either */
	lj->text = phase_read_source(ph->module_path, &lj->text_len);
	luajob_preread(lj);
}

/* A phase run's seed for a tool's random choices (sysbench --rand-seed,
 * fio --randseed): from the plan's seed and the repetition, as a Lua
 * worker's generator is, 1 to 2^31 - 1 (sysbench takes 0 for the
 * clock). */
static unsigned long run_seed(uint64_t seed, int rep)
{
	return (unsigned long)(mix64(seed ^ ((uint64_t)rep << 48)) %
			       2147483647u) + 1;
}

/* The environment a phase sees: its place, its user, its cell. Each
 * value whole (a cell id of any length); -1 out of memory. */
static int environment(struct job *j, struct run *r, const struct fsconf *fc,
		       const char *work, const struct cell *c)
{
	const char **e = j->env;
	int n = 0;

	if (asprintf(&j->own[n++], "HOME=%s", work) < 0 ||
	    asprintf(&j->own[n++], "TMPDIR=%s", work) < 0 ||
	    asprintf(&j->own[n++], "USER=%s", r->runas.name) < 0 ||
	    asprintf(&j->own[n++], "FSPLAN_CELL=%s", c->id) < 0 ||
	    asprintf(&j->own[n++], "FSPLAN_REP=%d", c->rep) < 0 ||
	    asprintf(&j->own[n++], "FSPLAN_SEED=%lu",
		     run_seed(r->plan->seed, c->rep)) < 0 ||
	    asprintf(&j->own[n++], "FSPLAN_FS_TYPE=%s", fc->fs->type.s) < 0 ||
	    asprintf(&j->own[n++], "FSPLAN_FS_LABEL=%s", fc->label) < 0) {
		j->own[n - 1] = NULL;	/* asprintf leaves it undefined */
		return -1;
	}
	*e++ = execpath_env;
	*e++ = "LANG=C";
	for (int i = 0; i < JOB_ENV_OWN; i++)
		*e++ = j->own[i];
	*e = NULL;
	return 0;
}

int job_open(struct job *j, struct run *r, const struct fsconf *fc,
	     const char *work, const char *fsdir, const struct cell *c,
	     struct diag *d)
{
	const struct plan_phase *ph = &r->plan->phases[c->phase];
	const struct phase_checked *mod = exec_module(r, c);

	memset(j, 0, sizeof(*j));
	j->child.out_fd = open_output(r, c, "out");
	j->child.err_fd = j->child.out_fd < 0 ? -1 : open_output(r, c, "err");
	if (j->child.err_fd < 0) {
		runlog("%s: exec/: %s", c->id, strerror(errno));
		return diag_fail(d, DIAG_SYSTEM, 0, "cannot open exec/ output "
				 "files");
	}
	if (ph->exec.s)
		j->cmd = cell_exec(r->e, c);
	else if (!mod)
		j->cmd = strdup(ph->module_path);
	else
		j->cmd = libsrc_exec_path(ph->module_path, mod->exec);
	if (!j->cmd || environment(j, r, fc, work, c))
		return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
	j->child.out_cap = JOB_OUT_CAP;
	j->child.runas = &r->runas;
	j->child.workdir = work;
	j->child.timeout_s = ph->timeout_s;
	j->child.env = j->env;
	/* every worker's ring is locked memory (engines/uring.c: 128
	 * entries, 16 KiB): room for the cell's workers, eight times over,
	 * besides what the user may already hold elsewhere */
	if (!ph->exec.s && r->e->checked)
		j->child.memlock_bytes = (64ull << 20) +
			((unsigned long long)r->e->checked[c->phase].max_workers
			 + 1) * (128ull << 10);
	if (ph->exec.s) {
		j->child.body = child_exec_body;
		j->child.arg = j->cmd;
	} else {
		lua_job(r, fsdir, c, &j->lua);
		j->child.body = luaphase_body;
		j->child.arg = &j->lua;
	}
	return 0;
}

void job_close(struct job *j)
{
	free(j->cmd);
	j->cmd = NULL;
	for (int i = 0; i < JOB_ENV_OWN; i++) {
		free(j->own[i]);
		j->own[i] = NULL;
	}
	luajob_free(&j->lua);		/* nothing in an exec phase's */
	if (j->child.out_fd >= 0)
		close(j->child.out_fd);
	if (j->child.err_fd >= 0)
		close(j->child.err_fd);
	j->child.out_fd = j->child.err_fd = -1;
}

/* What a command printed, up to 16 MiB: enough for any report; past
 * that the parser reads the first 16 MiB, and the log says so. NULL
 * with errno if it cannot be read. */
static char *slurp(int fd, const struct cell *c, const char *what,
		   size_t *len)
{
	int more = 0;
	char *buf = file_read_all(fd, 16u << 20, len, &more);

	if (buf && more)
		runlog("%s: its %s is over 16 MiB: the parser reads the first "
		       "16 MiB", c->id, what);
	return buf;
}

/* parse: the library's parser reads what the command printed, in a
 * dropped child of its own; its metrics join the phase run's rows. */
static void parse_output(struct run *r, const struct cell *c,
			 const char *name, const struct child_job *exec_job,
			 struct child_result *res)
{
	struct lparse_job pj = { .parser = NULL };
	struct child_job job = *exec_job;
	struct child_result pres;
	char *parser = NULL;
	char *out = slurp(exec_job->out_fd, c, "stdout", &pj.out_len);
	char *err = out ? slurp(exec_job->err_fd, c, "stderr", &pj.err_len)
			: NULL;

	if (!out || !err) {
		child_set_reason(res, "cannot read the command's output: %s",
				 strerror(errno));
		goto out;
	}
	if (asprintf(&parser, "%s/parse/%s.lua", libsrc_dir(), name) < 0) {
		parser = NULL;
		child_set_reason(res, "out of memory");
		goto out;
	}
	pj.parser = parser;
	pj.out = out;
	pj.err = err;
	job.body = lparse_body;
	job.arg = &pj;
	job.cgroup = NULL;	/* the phase's limit is not the parser's */
	job.out_cap = 0;	/* it writes after the command's output */
	job.timeout_s = 120;
	if (child_run(&job, &r->stop, &pres)) {
		child_set_reason(res, "cannot fork the parser");
		goto out;
	}
	if (!pres.ok) {
		child_set_reason(res, "parse %s: %s", name,
				 child_reason(&pres));
	} else {
		free(r->parsed);
		r->parsed = pres.report;
		r->parsed_len = pres.report_len;
		pres.report = NULL;
	}
	child_result_free(&pres);
out:
	free(parser);
	free(out);
	free(err);
}

/* Whether a line of a tool's stderr reads as its complaint. */
static int complaint(const char *line, size_t n)
{
	static const char *const words[] = {
		"error", "Error", "ERROR", "can't", "Can't", "cannot",
		"Cannot", "failed", "Failed", "not found", "No such",
		"denied", "nvalid", "should", "must ", "nknown", "No space",
		"Killed", "Segmentation", "Aborted",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (memmem(line, n, words[i], strlen(words[i])))
			return 1;
	return 0;
}

/* A failed command's stderr joins its exit status in the reason: the
 * first line of its last 4 KiB that reads as a complaint, and its last
 * line when that is another ("exit status 1: Can't stat file 170M;
 * last: Cleaning up test directory after error."): tools put the cause
 * first and a usage text or a summary after it as often as the other
 * way round. With no complaint, the last line ("sh: 1: bonie++: not
 * found"); if stderr cannot be read, the status alone says it. A line
 * longer than those 4 KiB is marked where it is cut. 1 when it added
 * something; a stderr with nothing has its stdout read so. */
static int say_why(int err_fd, struct strbuf *reason)
{
	char tail[4096];
	off_t end = lseek(err_fd, 0, SEEK_END), from;
	const char *first = NULL, *last, *p;
	const char *cut = "[... the line's start is left out ...] ";
	size_t first_n = 0;
	ssize_t n;

	from = end > (off_t)sizeof(tail) - 1 ? end - (off_t)sizeof(tail) + 1
					     : 0;
	n = end > 0 ? pread(err_fd, tail, sizeof(tail) - 1, from) : 0;
	if (n <= 0)
		return 0;
	tail[n] = '\0';
	while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
		tail[--n] = '\0';
	/* a cut first line is no line: start after it */
	p = from > 0 && strchr(tail, '\n') ? strchr(tail, '\n') + 1 : tail;
	while (*p && !first) {
		size_t m = strcspn(p, "\n");

		if (complaint(p, m)) {
			first = p;
			first_n = strcspn(p, "\r\n");
		}
		p += m + (p[m] == '\n');
	}
	last = strrchr(tail, '\n');
	last = last ? last + 1 : tail;
	if (!*last)
		return 0;
	if (last != tail || from == 0)
		cut = "";
	if (first && first != last)
		strbuf_printf(reason, ": %.*s; last: %s%s", (int)first_n, first,
			      cut, last);
	else
		strbuf_printf(reason, ": %s%s", cut, last);
	return 1;
}

/*
 * A Lua phase's w:log lines ("[worker N] ...", on its stderr) and its
 * steady stop's ("steady: ...") go to the run log too, marked with the
 * cell (DESIGN.md section 4): at most LOG_LINES of them, the rest are
 * in exec/.
 */
#define LOG_LINES 200

static void copy_log_lines(int err_fd, const struct cell *c)
{
	struct strbuf line = { 0 };
	char buf[8192];
	off_t off = 0;
	int lines = 0, more = 0;
	ssize_t got;

	while ((got = pread(err_fd, buf, sizeof(buf), off)) > 0) {
		const char *p = buf, *end = buf + got, *nl;

		off += got;
		/* a line as long as it is: the log cuts none */
		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			strbuf_add(&line, p, (size_t)(nl - p));
			p = nl + 1;
			if (line.p && (!strncmp(line.p, "[worker ", 8) ||
				       !strncmp(line.p, "steady: ", 8))) {
				if (lines < LOG_LINES)
					runlog("%s: %s", c->id, line.oom ?
					       "(out of memory)" : line.p);
				else
					more++;
				lines++;
			}
			free(line.p);
			memset(&line, 0, sizeof(line));
		}
		strbuf_add(&line, p, (size_t)(end - p));
	}
	free(line.p);
	if (more)
		runlog("%s: %d more w:log lines in exec/", c->id, more);
}

void job_after(struct job *j, struct run *r, const struct cell *c,
	       struct child_result *res)
{
	const struct plan_phase *ph = &r->plan->phases[c->phase];
	const struct phase_checked *mod = exec_module(r, c);
	const char *parser = ph->parse.s ? ph->parse.s :
			     mod ? mod->parse : NULL;

	for (int i = 0; i < 2; i++)
		if (res->left_out[i])
			runlog("%s: its %s passed %u MiB: exec/ keeps its first "
			       "and last %u MiB, and says where %llu bytes "
			       "were left out", c->id, i ? "stderr" : "stdout",
			       JOB_OUT_CAP >> 20, JOB_OUT_CAP >> 21,
			       res->left_out[i]);
	if (!ph->exec.s)
		copy_log_lines(j->child.err_fd, c);

	/* a tool that says why on stdout (dbench's "write failed ... (No
	 * space left on device)") when its stderr has nothing */
	if (!res->ok && (ph->exec.s || mod) &&
	    !strncmp(child_reason(res), "exit status", 11) &&
	    !say_why(j->child.err_fd, &res->reason))
		say_why(j->child.out_fd, &res->reason);
	if (res->ok && parser)
		parse_output(r, c, parser, &j->child, res);
}
