/* sysinfo: the machine and tool versions a manifest records, as JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "host/proc.h"
#include "host/sysinfo.h"

#define TOOL_TIMEOUT_MS	5000
#define TOOL_OUTPUT_MAX	65536	/* more is drained, not kept */

/* ---- running a tool ----------------------------------------------------- */

/*
 * What argv prints on stdout and stderr together, with stdin from
 * /dev/null, for at most TOOL_TIMEOUT_MS; its exit status does not
 * matter (usage output often exits 1). NULL if it cannot be run.
 */
static char *tool_output(const char *const argv[])
{
	struct proc_job job = {
		.argv = argv, .out_fd = PROC_PIPE, .err_fd = PROC_PIPE,
		.pipe_at = -1, .timeout_s = TOOL_TIMEOUT_MS / 1000.0,
		.log_fd = -1, .keep = TOOL_OUTPUT_MAX, .drain = 1,
	};
	struct proc_result res;
	char **env;
	int rc;

	if (!argv || !argv[0] || !argv[0][0])
		return NULL;
	env = proc_env_c_locale();
	if (!env)
		return NULL;
	job.env = env;
	rc = proc_run(&job, &res);
	free(env);
	if (rc)
		return NULL;
	if (res.exec_errno)
		proc_result_free(&res);
	return res.out;
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
	/* use: mariadb's */
	{ "mariadbd", { "mariadbd", "--version", NULL }, NULL },
	{ "sysbench", { "sysbench", "--version", NULL }, NULL },
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
