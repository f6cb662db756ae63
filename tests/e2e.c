/* e2e: run the real fsplan binary and read what it leaves, for the end-to-end
 * tests. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

char e2e_out[65536], e2e_err[16384];
static char tmpdir[64];

/* The tests call losetup, mkfs and the like by name, as root's shell
 * does: a PATH without the sbin directories (env -i, a bare CI runner)
 * gets them. */
__attribute__((constructor)) static void sbin_on_path(void)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!path || !*path)
		path = "/usr/bin:/bin";
	if (strstr(path, "/usr/sbin"))
		return;
	snprintf(buf, sizeof(buf), "%s:/usr/sbin:/sbin", path);
	setenv("PATH", buf, 1);
}

void e2e_require_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root: makes loop images, mkfs and mounts");
	if (access("/dev/loop-control", R_OK | W_OK))
		cr_skip_test("no /dev/loop-control: loop devices unavailable");
}

/* A test's directory is named after the runner, its parent: what a test
 * that crashed (no .fini) left, the runner removes at its end. */
ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	char cmd[128];

	(void)stats;
	snprintf(cmd, sizeof(cmd), "rm -rf /tmp/fsplan-e2e-%d-*",
		 (int)getpid());
	if (system(cmd))
		fprintf(stderr, "could not remove /tmp/fsplan-e2e-%d-*\n",
			(int)getpid());
}

const char *e2e_tmpdir(void)
{
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/fsplan-e2e-%d-XXXXXX",
			 (int)getppid());
		/* mkdtemp's 0700, kept: a user's home or mktemp -d is
		 * private too, and the phases' runas must not need it */
		cr_assert_not_null(mkdtemp(tmpdir));
	}
	return tmpdir;
}

void e2e_cleanup(void)
{
	char cmd[128];

	if (!tmpdir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tmpdir);
	tmpdir[0] = '\0';
}

char *e2e_write(const char *dir, const char *name, const char *text)
{
	static char path[8][512];
	static int slot;
	char *p = path[slot++ % 8];
	FILE *f;

	snprintf(p, 512, "%s/%s", dir, name);
	f = fopen(p, "w");
	cr_assert_not_null(f, "cannot write %s", p);
	fputs(text, f);
	fclose(f);
	return p;
}

static void slurp_fd(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	lseek(fd, 0, SEEK_SET);
	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += r;
	buf[n] = '\0';
}

static pid_t spawn(const char *const *args, int out, int err)
{
	const char *bin = getenv("FSPLAN_BIN");
	char *argv[64];
	int n = 0;
	pid_t pid;

	cr_assert_not_null(bin, "FSPLAN_BIN is not set (run through make)");
	argv[n++] = (char *)bin;
	while (*args && n < 63)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(out, 1);
		dup2(err, 2);
		setpgid(0, 0);
		execv(bin, argv);
		_exit(127);
	}
	return pid;
}

/* A run that exited 1 says little on stderr under -q: what failed, from
 * its results, goes after it, so that an assertion on the exit status
 * that prints e2e_err names the failure (a CI log is all there is). */
static void add_failures(const char *const *args)
{
	size_t n = strlen(e2e_err);

	if (strcmp(args[0], "run"))
		return;
	for (int i = 1; args[i] && args[i + 1]; i++)
		if (!strcmp(args[i], "-o")) {
			snprintf(e2e_err + n, sizeof(e2e_err) - n,
				 "\n(the run's failed rows:%s)",
				 e2e_failed(args[i + 1]));
			return;
		}
}

int e2e_fsplan(const char *const *args)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	int status, rc;
	pid_t pid = spawn(args, fileno(fo), fileno(fe));

	waitpid(pid, &status, 0);
	slurp_fd(fileno(fo), e2e_out, sizeof(e2e_out));
	slurp_fd(fileno(fe), e2e_err, sizeof(e2e_err));
	fclose(fo);
	fclose(fe);
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (rc == 1)
		add_failures(args);
	return rc;
}

int e2e_check_phase(const char *filesystems, const char *use,
		    const char *with)
{
	char text[2048];
	char *plan;

	snprintf(text, sizeof(text), "fsplan: 1\nfilesystems: %s\n"
		 "phases: [{use: %s, with: {%s}}]\n", filesystems, use, with);
	plan = e2e_write(e2e_tmpdir(), "plan.yaml", text);
	return e2e_fsplan((const char *[]){ "check", plan, NULL });
}

int e2e_run_plan(const char *dir, const char *name, const char *body,
		 char *rd, size_t len)
{
	char text[8192];
	char *plan;

	snprintf(text, sizeof(text), "fsplan: 1\nname: %s\n%s", name, body);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, len, "%s/run", dir);
	return e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					    NULL });
}

pid_t e2e_fsplan_bg(const char *const *args)
{
	int null = open("/dev/null", O_WRONLY);
	pid_t pid = spawn(args, null, null);

	close(null);
	return pid;
}

char *e2e_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rbe");
	char *text;
	long n;

	cr_assert(f, "cannot open %s: %s", path, strerror(errno));
	cr_assert(!fseek(f, 0, SEEK_END));
	n = ftell(f);
	cr_assert(n >= 0);
	rewind(f);
	text = malloc((size_t)n + 1);
	cr_assert(text);
	cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return text;
}

int e2e_occurrences(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

const char *e2e_read(const char *path)
{
	static char buf[1 << 20];
	int fd = open(path, O_RDONLY);

	buf[0] = '\0';
	if (fd >= 0) {
		slurp_fd(fd, buf, sizeof(buf));
		close(fd);
	}
	return buf;
}

/* One RFC 4180 record from *p into fields; advances *p. */
static int record(const char **p, char f[12][1024])
{
	const char *s = *p;
	int n = 0;
	size_t k = 0;
	int quoted = 0;

	if (!*s)
		return 0;
	memset(f, 0, 12 * 1024);
	for (; *s; s++) {
		if (quoted) {
			if (*s == '"' && s[1] == '"')
				f[n][k++] = *s++;
			else if (*s == '"')
				quoted = 0;
			else if (k < 1023)
				f[n][k++] = *s;
		} else if (*s == '"') {
			quoted = 1;
		} else if (*s == ',') {
			if (n < 11)
				n++;
			k = 0;
		} else if (*s == '\n') {
			s++;
			break;
		} else if (k < 1023) {
			f[n][k++] = *s;
		}
	}
	*p = s;
	return n + 1;
}

static const char *find(const char *rundir, const char *cell,
			const char *metric, int col)
{
	static char f[12][1024], val[1024];
	char path[512];
	const char *p;

	snprintf(path, sizeof(path), "%s/results.csv", rundir);
	p = e2e_read(path);
	while (record(&p, f))
		if (!strcmp(f[1], cell) && !strcmp(f[9], metric)) {
			snprintf(val, sizeof(val), "%s", f[col]);
			return val;
		}
	return NULL;
}

const char *e2e_metric(const char *rundir, const char *cell,
		       const char *metric)
{
	return find(rundir, cell, metric, 10);
}

const char *e2e_reason(const char *rundir, const char *cell)
{
	return find(rundir, cell, "status", 11);
}

const char *e2e_unit(const char *rundir, const char *cell,
		     const char *metric)
{
	return find(rundir, cell, metric, 11);
}

const char *e2e_failed(const char *rundir)
{
	static char f[12][1024], out[4096];
	char path[512];
	const char *p;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/results.csv", rundir);
	p = e2e_read(path);
	out[0] = '\0';
	while (record(&p, f) && n < sizeof(out) - 1)
		if (!strcmp(f[9], "status") && strcmp(f[10], "ok"))
			n += (size_t)snprintf(out + n, sizeof(out) - n,
					      "\n%s: %s %s", f[1], f[10],
					      f[11]);
	return out;
}

int e2e_count(const char *rundir, const char *metric)
{
	static char f[12][1024];
	char path[512];
	const char *p;
	int n = 0;

	snprintf(path, sizeof(path), "%s/results.csv", rundir);
	p = e2e_read(path);
	while (record(&p, f))
		n += !strcmp(f[9], metric);
	return n;
}

int e2e_mounted_under(const char *prefix)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	int hit = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char mnt[2048];

		if (sscanf(line, "%*s %*s %*s %*s %2047s", mnt) == 1 &&
		    !strncmp(mnt, prefix, strlen(prefix)))
			hit++;
	}
	if (f)
		fclose(f);
	return hit;
}

int e2e_loops_under(const char *prefix)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	int hit = 0;

	while (d && (de = readdir(d))) {
		char path[512];
		const char *back;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file",
			 de->d_name);
		back = e2e_read(path);
		if (back[0] && !strncmp(back, prefix, strlen(prefix)))
			hit++;
	}
	if (d)
		closedir(d);
	return hit;
}

/* The processes with token in their command line (not the tests'):
 * how many, and the first one's pid in *first. */
static int scan_processes(const char *token, pid_t *first)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int hit = 0;

	while (d && (de = readdir(d))) {
		char path[300], buf[4096];
		ssize_t n;
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		for (ssize_t i = 0; i < n; i++)
			if (!buf[i])
				buf[i] = ' ';
		buf[n] = '\0';
		if (strstr(buf, token) && !strstr(buf, "fsplan-tests") &&
		    !hit++ && first)
			*first = (pid_t)atoi(de->d_name);
	}
	if (d)
		closedir(d);
	return hit;
}

int e2e_processes_with(const char *token)
{
	return scan_processes(token, NULL);
}

pid_t e2e_process_with(const char *token)
{
	pid_t pid = 0;

	scan_processes(token, &pid);
	return pid;
}

double e2e_num(const char *rundir, const char *cell, const char *metric)
{
	const char *v = e2e_metric(rundir, cell, metric);
	char *end;
	double d;

	cr_assert_not_null(v, "%s: no %s row", cell, metric);
	d = strtod(v, &end);
	cr_assert(end != v && !*end, "%s: %s is '%s'", cell, metric, v);
	return d;
}

void e2e_digest(const char *path, char hex[65])
{
	char cmd[600];
	FILE *f;

	/* sha256sum, not our own: the sanitizer build would take minutes */
	snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(hex, 65, f), "cannot read %s", path);
	pclose(f);
}
