/* test_sysinfo: the machine facts and tool versions a manifest records. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/sysinfo.h"
#include "procwatch.h"

static json_t *info;

static void collect(void)
{
	info = sysinfo_collect();
	cr_assert(info, "sysinfo_collect returned NULL");
	cr_assert(json_is_object(info));
}

static void release(void)
{
	json_decref(info);
}

TestSuite(sysinfo);

Test(sysinfo, every_key_is_there, .init = collect, .fini = release)
{
	static const char *const keys[] = {
		"kernel", "distribution", "cpu_model", "cores", "mem_bytes",
		"hostname", "tools",
	};
	static const char *const tools[] = {
		"mkfs.ext4", "mkfs.xfs", "mkfs.btrfs", "mount", "fio",
		"bonnie++", "dbench", "mariadbd", "sysbench",
	};
	json_t *t = json_object_get(info, "tools");

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		cr_expect(json_object_get(info, keys[i]), "no '%s'", keys[i]);
	cr_expect_eq(json_object_size(info), 7);
	cr_assert(json_is_object(t));
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		json_t *v = json_object_get(t, tools[i]);

		cr_expect(json_is_string(v) || json_is_null(v), "tools.%s",
			  tools[i]);
	}
	cr_expect_eq(json_object_size(t), 9);
}

Test(sysinfo, cores_memory_and_names, .init = collect, .fini = release)
{
	json_t *cores = json_object_get(info, "cores");
	json_t *mem = json_object_get(info, "mem_bytes");
	char host[256] = "";

	cr_assert(json_is_integer(cores));
	cr_expect_geq(json_integer_value(cores), 1);
	cr_assert(json_is_integer(mem));
	cr_expect_gt(json_integer_value(mem), 0);
	cr_expect_eq(json_integer_value(mem) % 1024, 0, "MemTotal is in kB");
	cr_assert_eq(gethostname(host, sizeof(host) - 1), 0);
	cr_expect_str_eq(json_string_value(json_object_get(info, "hostname")),
			 host);
	if (access("/etc/os-release", R_OK) == 0) {
		const char *dist = json_string_value(
			json_object_get(info, "distribution"));

		cr_assert(dist, "os-release exists, distribution is null");
		cr_expect(dist[0] && dist[0] != '"', "'%s'", dist);
	}
}

Test(sysinfo, kernel_matches_uname, .init = collect, .fini = release)
{
	const char *k = json_string_value(json_object_get(info, "kernel"));
	FILE *p = popen("uname -r", "r");
	char rel[256] = "";

	cr_assert(p);
	cr_assert(fgets(rel, sizeof(rel), p));
	pclose(p);
	rel[strcspn(rel, "\n")] = '\0';
	cr_assert(k);
	cr_expect(!strncmp(k, "Linux ", 6), "'%s'", k);
	cr_expect(strstr(k, rel), "'%s' lacks '%s'", k, rel);
}

Test(sysinfo, mkfs_ext4_is_mke2fs, .init = collect, .fini = release)
{
	const char *v = json_string_value(
		json_object_get(json_object_get(info, "tools"), "mkfs.ext4"));

	if (access("/usr/sbin/mkfs.ext4", X_OK) && access("/sbin/mkfs.ext4",
							  X_OK))
		cr_skip_test("mkfs.ext4 is not installed (e2fsprogs)");
	cr_assert(v, "mkfs.ext4 is installed but its version is null");
	cr_expect(strstr(v, "mke2fs"), "'%s'", v);
	cr_expect_null(strchr(v, '\n'));
}

/* bonnie++ has no version option; as root its first line is usage noise. */
Test(sysinfo, bonnie_reports_its_version_line,
	.init = collect, .fini = release)
{
	const char *v = json_string_value(
		json_object_get(json_object_get(info, "tools"), "bonnie++"));

	if (access("/usr/sbin/bonnie++", X_OK))
		cr_skip_test("bonnie++ is not installed");
	cr_assert(v, "bonnie++ is installed but its version is null");
	cr_expect(!strncmp(v, "Version: ", 9), "'%s'", v);
}

Test(sysinfo, a_missing_tool_is_null)
{
	const char *const argv[] = { "fsplan-no-such-tool", "--version", NULL };
	const char *const abs[] = { "/nonexistent/tool", NULL };

	cr_expect_null(sysinfo_tool_version(argv));
	cr_expect_null(sysinfo_tool_version(abs));
}

Test(sysinfo, first_nonempty_line_even_on_failure)
{
	const char *const usage[] = {
		"sh", "-c",
		"printf '\\n \\t\\n  usage: x 1.0  \\r\\nmore\\n' >&2; exit 2",
		NULL
	};
	const char *const stdin_null[] = { "sh", "-c", "cat; echo done", NULL };
	char *v;

	v = sysinfo_tool_version(usage);
	cr_expect_str_eq(v, "usage: x 1.0");
	free(v);
	/* cat sees end of file at once only when stdin is /dev/null */
	v = sysinfo_tool_version(stdin_null);
	cr_expect_str_eq(v, "done");
	free(v);
}

Test(sysinfo, a_hanging_tool_is_killed_with_its_children)
{
	/* sh's child sleep holds the pipe open: the whole group must die. */
	const char *const argv[] = {
		"sh", "-c", "sleep 100 & echo $!; wait; echo late", NULL
	};
	double t0 = watch_seconds();
	char *v = sysinfo_tool_version(argv);
	double dt = watch_seconds() - t0;
	long pid;

	cr_assert(v, "no output");
	pid = atol(v);
	cr_assert_gt(pid, 1, "'%s'", v);
	cr_expect_lt(dt, 30.0, "took %.1f s", dt);
	cr_expect_geq(dt, 4.0, "killed after %.1f s, before the timeout", dt);
	cr_expect(watch_gone(pid), "sleep (pid %ld) outlived the timeout", pid);
	if (!watch_dead(pid))
		kill((pid_t)pid, SIGKILL);
	free(v);
}
