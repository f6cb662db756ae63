/* test_firstrun: what a new user meets first — private directories, tools by
 * name, the classic tools' words. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

/* dir/name made private (0700), as a Debian 12 home or mktemp -d is. */
static const char *private_dir(const char *dir, const char *name)
{
	static char path[4][512];
	static int slot;
	char *p = path[slot++ % 4];

	snprintf(p, 512, "%s/%s", dir, name);
	cr_assert_eq(mkdir(p, 0700), 0, "mkdir %s", p);
	return p;
}

/* The phase library copied where only root can read it, as in a clone
 * in a 0700 home, and fsplan told to use it. */
static void private_library(const char *home)
{
	const char *root = getenv("FSPLAN_ROOT");
	char cmd[1024];

	cr_assert_not_null(root, "FSPLAN_ROOT is not set (run through make)");
	snprintf(cmd, sizeof(cmd), "cp -r '%s/lua' '%s/lib' && "
		 "chmod -R go-rwx '%s/lib'", root, home, home);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	snprintf(cmd, sizeof(cmd), "%s/lib", home);
	setenv("FSPLAN_LIB", cmd, 1);
}

static const char module[] =
	"return {\n"
	"  params = { input = \"words.txt\", other = \"\", size = \"1M\" },\n"
	"  worker = function(w, ctx)\n"
	"    assert(w:identity().uid ~= 0, 'running as root')\n"
	"    local text, msg, errno = ctx.input('input')\n"
	"    assert(text == nil and errno == 13, 'a default is read as runas')\n"
	"    assert(ctx.input('other') == 'more\\n', 'with: input')\n"
	"    local f = assert(w:open('data', 'w'))\n"
	"    f:stream{ op = 'write', block = '64k', bytes = ctx.params.size }\n"
	"    f:close()\n"
	"  end,\n"
	"}\n";

Test(firstrun, run_from_private_directories, .fini = fini, .timeout = 180)
{
	const char *home, *lib_home, *plan, *img;
	char rd[600], log[700];
	int rc;

	e2e_require_root();
	home = private_dir(e2e_tmpdir(), "home");
	lib_home = private_dir(e2e_tmpdir(), "src");
	private_library(lib_home);
	img = private_dir(home, "images");
	e2e_write(home, "words.txt", "private words\n");
	e2e_write(home, "more.txt", "more\n");
	chmod(e2e_write(home, "mine.lua", module), 0600);
	/* the 2xRAM rule speaks in units a person reads, at check */
	plan = e2e_write(home, "small.yaml",
			 "fsplan: 1\n"
			 "filesystems: [{type: ext4}]\n"
			 "phases:\n"
			 "  - use: tiobench\n"
			 "    with: {file_size: 1M, mode: seq_read}\n");
	chmod(plan, 0600);
	rc = e2e_fsplan((const char *[]){ "check", plan, NULL });
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, ":5:23: phase 'tiobench', cell "
			 "ext4/tiobench#1: file_size 1 MiB is less than") &&
		  strstr(e2e_err, " GiB): "), "%s", e2e_err);
	plan = e2e_write(home, "plan.yaml",
			 "fsplan: 1\n"
			 "name: private\n"
			 "target: {image: 300M}\n"
			 "filesystems:\n"
			 "  - type: ext4\n"
			 "phases:\n"
			 "  - use: mine.lua\n"
			 "    with: {other: more.txt}\n"
			 "  - use: bonnie\n"
			 "    with: {size: 8M, files: 1, ram: 0}\n"
			 "  - name: real-bonnie\n"
			 "    exec: bonnie++ -d . -s 8M -r 4 -n 0 -q\n"
			 "    parse: bonnie\n");
	chmod(plan, 0600);
	snprintf(rd, sizeof(rd), "%s/runs/first", home);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "--workdir",
					  img, "-q", NULL });
	snprintf(log, sizeof(log), "%s/log.txt", rd);
	cr_expect_eq(rc, 0, "exit %d: %s\n%s", rc, e2e_err, e2e_read(log));
	cr_expect_str_eq(e2e_metric(rd, "ext4/mine#1", "status"), "ok", "%s",
			 e2e_reason(rd, "ext4/mine#1"));
	cr_expect_not_null(e2e_metric(rd, "ext4/mine#1", "write_mbs"));
	cr_expect_str_eq(e2e_metric(rd, "ext4/bonnie#1", "status"), "ok",
			 "require() of the library as runas: %s",
			 e2e_reason(rd, "ext4/bonnie#1"));
	cr_expect_str_eq(e2e_metric(rd, "ext4/real-bonnie#1", "status"), "ok",
			 "bonnie++ by name: %s",
			 e2e_reason(rd, "ext4/real-bonnie#1"));
	cr_expect_not_null(e2e_metric(rd, "ext4/real-bonnie#1",
				      "putc_latency_us"), "the parser ran");
	cr_expect_eq(e2e_mounted_under("/run/fsplan"), 0);
	cr_expect_eq(e2e_loops_under(home), 0);
}

Test(firstrun, target_dir_in_a_private_directory, .fini = fini,
     .timeout = 60)
{
	const char *home, *scratch, *plan;
	char text[1024], rd[600];
	struct stat st;
	int rc;

	e2e_require_root();
	home = private_dir(e2e_tmpdir(), "home");
	scratch = private_dir(home, "scratch");
	snprintf(text, sizeof(text),
		 "fsplan: 1\n"
		 "target: {dir: %s}\n"
		 "phases:\n"
		 "  - name: touch\n"
		 "    exec: echo hi > f && test \"$(id -u)\" != 0 && cat f\n",
		 scratch);
	plan = e2e_write(home, "plan.yaml", text);
	snprintf(rd, sizeof(rd), "%s/run", home);
	rc = e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q", NULL });
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "dir/touch#1", "status"), "ok", "%s",
			 e2e_reason(rd, "dir/touch#1"));
	cr_expect_eq(stat(scratch, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0700, "the user's directory keeps "
		     "its mode");
	cr_expect_eq(st.st_nlink, 2, "the fresh subdirectory is gone");
	cr_expect_eq(e2e_mounted_under("/run/fsplan"), 0);
}

Test(firstrun, check_warns_of_a_tool_runas_cannot_find)
{
	const char *dir = e2e_tmpdir();
	char *plan = e2e_write(dir, "plan.yaml",
			       "fsplan: 1\n"
			       "filesystems:\n"
			       "  - type: ext4\n"
			       "phases:\n"
			       "  - name: real\n"
			       "    exec: bonnie++ -d . -q\n"
			       "  - name: env\n"
			       "    exec: LANG=C dbench -t 1 2\n"
			       "  - name: typo\n"
			       "    exec: \"bonie++ -d . -q\"\n"
			       "  - name: shell\n"
			       "    exec: cd . && for i in 1; do :; done\n");
	int rc = e2e_fsplan((const char *[]){ "check", plan, NULL });

	cr_expect_eq(rc, 0, "a warning is not an error: %s", e2e_err);
	cr_expect(strstr(e2e_err, "plan.yaml:10:11: warning: 'bonie++' is "
			 "not a program nobody can run"), "%s", e2e_err);
	cr_expect(strstr(e2e_err, "/usr/sbin"), "the PATH is named");
	cr_expect_null(strstr(e2e_err, "'bonnie++'"), "bonnie++ is in "
		       "/usr/sbin: %s", e2e_err);
	cr_expect_null(strstr(e2e_err, "dbench"), "%s", e2e_err);
	cr_expect_null(strstr(e2e_err, "'cd'"), "%s", e2e_err);
	cr_expect_eq(strstr(e2e_err, "warning") ? 1 : 0, 1);
	e2e_cleanup();
}

Test(firstrun, threads_and_clients_teach_workers)
{
	const char *dir = e2e_tmpdir();
	static const char *const words[] = { "threads", "clients", "procs" };

	for (int i = 0; i < 3; i++) {
		char text[512], want[256];
		char *plan;
		int rc;

		snprintf(text, sizeof(text),
			 "fsplan: 1\n"
			 "filesystems:\n"
			 "  - type: ext4\n"
			 "phases:\n"
			 "  - use: tiobench\n"
			 "    matrix: {%s: [1, 4]}\n", words[i]);
		plan = e2e_write(dir, "plan.yaml", text);
		rc = e2e_fsplan((const char *[]){ "check", plan, NULL });
		snprintf(want, sizeof(want), "plan.yaml:6:14: phase 'tiobench' "
			 "has no parameter '%s' (did you mean 'workers'?",
			 words[i]);
		cr_expect_eq(rc, 2);
		cr_expect(strstr(e2e_err, want), "%s", e2e_err);
	}
	e2e_cleanup();
}
