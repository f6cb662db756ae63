/* sysinfo: the machine and tool versions a manifest records, as JSON. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/sysinfo.h"
#include "util/clock.h"

#define TOOL_TIMEOUT_MS	5000
#define TOOL_OUTPUT_MAX	65536	/* more is drained, not kept */

extern char **environ;

/* ---- running a tool ----------------------------------------------------- */

/*
 * The environment with LC_ALL=C, so that a version line reads the same
 * whatever the operator's locale (util-linux translates "mount from").
 */
static char **c_locale_env(void)
{
	static char c_all[] = "LC_ALL=C";
	size_t n = 0, j = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = malloc((n + 2) * sizeof(*env));
	if (!env)
		return NULL;
	env[j++] = c_all;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LC_ALL=", 7))
			env[j++] = environ[i];
	env[j] = NULL;
	return env;
}

/* dup2, or clear close-on-exec when fd is already where it belongs. */
static int move_fd(int fd, int to)
{
	return fd == to ? fcntl(to, F_SETFD, 0) : dup2(fd, to);
}

/*
 * Between fork and exec only async-signal-safe calls: everything the child
 * needs (paths, environment) is built before the fork.
 */
static void child(int out, int nul, const char *const argv[], char **env,
		  char alt[][256], int n_alt)
{
	sigset_t none;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (move_fd(nul, 0) < 0 || move_fd(out, 1) < 0 || move_fd(out, 2) < 0)
		_exit(127);
	execvpe(argv[0], (char *const *)argv, env);
	/* mkfs.* live in sbin, which a user's PATH on Debian lacks. */
	for (int i = 0; i < n_alt && errno == ENOENT; i++)
		execve(alt[i], (char *const *)argv, env);
	_exit(127);
}

/* Wait for pid until the deadline, then kill its process group. */
static void reap(pid_t pid, long long deadline)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	pid_t w;

	while ((w = waitpid(pid, NULL, WNOHANG)) == 0 && (long long)(clock_ns() / 1000000) < deadline)
		nanosleep(&tick, NULL);
	if (w == pid || (w < 0 && errno == ECHILD))
		return;
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/*
 * What argv prints on stdout and stderr together, with stdin from
 * /dev/null, for at most TOOL_TIMEOUT_MS. NULL if it cannot be run.
 */
static char *tool_output(const char *const argv[])
{
	char alt[2][256];
	char **env = NULL;
	char *out = NULL;
	size_t len = 0;
	int p[2] = { -1, -1 }, nul = -1, n_alt = 0;
	long long deadline;
	pid_t pid;

	if (!argv || !argv[0] || !argv[0][0])
		return NULL;
	for (int i = 0; i < 2 && !strchr(argv[0], '/'); i++)
		if (snprintf(alt[n_alt], sizeof(alt[0]), "%s/%s",
			     i ? "/sbin" : "/usr/sbin", argv[0]) <
		    (int)sizeof(alt[0]))
			n_alt++;
	out = malloc(TOOL_OUTPUT_MAX + 1);
	env = c_locale_env();
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (!out || !env || nul < 0 || pipe2(p, O_CLOEXEC) < 0)
		goto fail;
	pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0)
		child(p[1], nul, argv, env, alt, n_alt);
	/* Here too, so kill(-pid) finds the group before the child runs. */
	setpgid(pid, pid);
	close(p[1]);
	close(nul);
	free(env);
	deadline = (long long)(clock_ns() / 1000000) + TOOL_TIMEOUT_MS;
	for (;;) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		long long left = deadline - (long long)(clock_ns() / 1000000);
		char tmp[4096];
		ssize_t r;

		if (left <= 0)
			break;
		r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		r = read(p[0], tmp, sizeof(tmp));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (len < TOOL_OUTPUT_MAX) {
			size_t k = (size_t)r;

			if (k > TOOL_OUTPUT_MAX - len)
				k = TOOL_OUTPUT_MAX - len;
			memcpy(out + len, tmp, k);
			len += k;
		}
	}
	close(p[0]);
	/* The exit status does not matter: usage output often exits 1. */
	reap(pid, deadline);
	out[len] = '\0';
	return out;
fail:
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
	if (nul >= 0)
		close(nul);
	free(env);
	free(out);
	return NULL;
}

/*
 * The first non-empty line of text that contains want (any line if want
 * is NULL or no line has it), trimmed; malloc'd, or NULL if none.
 */
static char *pick_line(const char *text, const char *want)
{
	const char *first = NULL, *hit = NULL;
	size_t first_n = 0, hit_n = 0;

	for (const char *s = text; *s && !hit && !(first && !want); ) {
		size_t n = strcspn(s, "\n");
		const char *next = s + n + (s[n] == '\n');

		while (n && strchr(" \t\r\f\v", *s)) {
			s++;
			n--;
		}
		while (n && strchr(" \t\r\f\v", s[n - 1]))
			n--;
		if (n && !first) {
			first = s;
			first_n = n;
		}
		if (n && want && memmem(s, n, want, strlen(want))) {
			hit = s;
			hit_n = n;
		}
		s = next;
	}
	if (hit)
		return strndup(hit, hit_n);
	return first ? strndup(first, first_n) : NULL;
}

static char *tool_line(const char *const argv[], const char *want)
{
	char *out = tool_output(argv);
	char *line = out ? pick_line(out, want) : NULL;

	free(out);
	return line;
}

char *sysinfo_tool_version(const char *const argv[])
{
	return tool_line(argv, NULL);
}

/* ---- the facts ---------------------------------------------------------- */

/* A string, or null when missing; bytes that are not UTF-8 become '?'. */
static json_t *str_or_null(const char *s)
{
	json_t *j;
	char *t;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	t = strdup(s);
	if (!t)
		return NULL;
	for (char *p = t; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(t);
	free(t);
	return j;
}

/* The value after the first line in path that starts with key, trimmed. */
static char *file_value(const char *path, const char *key, char sep)
{
	FILE *f = fopen(path, "re");
	size_t cap = 0, klen = strlen(key);
	char *line = NULL, *val = NULL;

	if (!f)
		return NULL;
	while (!val && getline(&line, &cap, f) > 0) {
		char *p = line + klen, *e;

		if (strncmp(line, key, klen))
			continue;
		p += strspn(p, " \t");
		if (*p++ != sep)
			continue;
		p += strspn(p, " \t");
		e = p + strlen(p);
		while (e > p && strchr(" \t\r\n", e[-1]))
			e--;
		val = strndup(p, (size_t)(e - p));
		if (!val)
			break;
	}
	free(line);
	fclose(f);
	return val;
}

/* os-release values may be shell-quoted: PRETTY_NAME="Debian ... 12". */
static char *distribution(void)
{
	char *v = file_value("/etc/os-release", "PRETTY_NAME", '=');
	char *r, *w;
	char q;

	if (!v)
		v = file_value("/usr/lib/os-release", "PRETTY_NAME", '=');
	if (!v || (v[0] != '"' && v[0] != '\''))
		return v;
	q = v[0];
	for (r = v + 1, w = v; *r && *r != q; r++) {
		if (q == '"' && *r == '\\' && r[1])
			r++;
		*w++ = *r;
	}
	*w = '\0';
	return v;
}

static json_t *mem_bytes(void)
{
	char *v = file_value("/proc/meminfo", "MemTotal", ':');
	long long kb;
	char *end;

	if (!v)
		return json_null();
	errno = 0;
	kb = strtoll(v, &end, 10);
	if (errno || end == v || kb <= 0 || kb > (1LL << 52)) {
		free(v);
		return json_null();
	}
	free(v);
	return json_integer((json_int_t)kb * 1024);
}

static const struct tool {
	const char *name;
	const char *argv[3];
	const char *want;	/* the line to report, if not the first */
} tools[] = {
	{ "mkfs.ext4", { "mkfs.ext4", "-V", NULL }, NULL },
	{ "mkfs.xfs", { "mkfs.xfs", "-V", NULL }, NULL },
	{ "mkfs.btrfs", { "mkfs.btrfs", "--version", NULL }, NULL },
	{ "mount", { "mount", "--version", NULL }, NULL },
	{ "fio", { "fio", "--version", NULL }, NULL },
	/*
	 * bonnie++ has no version option. Without arguments it does not just
	 * print usage: run by a non-root user it starts benchmarking the
	 * current directory. An unknown option prints usage, ending in
	 * "Version: 2.00a", and exits 1; as root the first line is a
	 * complaint about -u, hence the search.
	 */
	{ "bonnie++", { "bonnie++", "--version", NULL }, "Version" },
	/* No version option either; usage starts "dbench version 4.00". */
	{ "dbench", { "dbench", "--help", NULL }, NULL },
};

static json_t *tool_versions(void)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char *line = tool_line(tools[i].argv, tools[i].want);

		if (json_object_set_new(o, tools[i].name, str_or_null(line))) {
			free(line);
			json_decref(o);
			return NULL;
		}
		free(line);
	}
	return o;
}

json_t *sysinfo_collect(void)
{
	struct utsname u;
	char kernel[4 * sizeof(u.release) + 4];
	char *s;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	json_t *o = json_object();
	int bad = 0;

	if (!o)
		return NULL;
	if (uname(&u) == 0) {
		snprintf(kernel, sizeof(kernel), "%s %s %s %s", u.sysname,
			 u.release, u.version, u.machine);
		bad |= json_object_set_new(o, "kernel", str_or_null(kernel));
		bad |= json_object_set_new(o, "hostname",
					   str_or_null(u.nodename));
	} else {
		bad |= json_object_set_new(o, "kernel", json_null());
		bad |= json_object_set_new(o, "hostname", json_null());
	}
	s = distribution();
	bad |= json_object_set_new(o, "distribution", str_or_null(s));
	free(s);
	s = file_value("/proc/cpuinfo", "model name", ':');
	bad |= json_object_set_new(o, "cpu_model", str_or_null(s));
	free(s);
	bad |= json_object_set_new(o, "cores", cores > 0 ?
				   json_integer(cores) : json_null());
	bad |= json_object_set_new(o, "mem_bytes", mem_bytes());
	bad |= json_object_set_new(o, "tools", tool_versions());
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}
