/* test_files: a phase's files: put beside its work, read-only for runas,
 * recorded in the manifest and checked on --resume; check's warning. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

static const char job[] =
	"[w]\nrw=write\nsize=4m\nbs=64k\nfilename=fiofile\n";

/* A run of an exec phase `fio myjob.fio` from a 0700 plan directory, as
 * runas nobody: its exit status; rd gets the run directory. */
static int fio_run(const char *dir, const char *files, char *rd,
		   size_t len)
{
	char text[1024];

	snprintf(text, sizeof(text), "runas: nobody\nbetween: none\n"
		 "filesystems: [{type: tmpfs, mount: size=64M}]\n"
		 "phases:\n"
		 "  - name: fio\n"
		 "    exec: fio --output-format=terse myjob.fio && "
		 "stat -c '%%a %%U %%n' myjob.fio data/x.csv\n"
		 "%s", files);
	return e2e_run_plan(dir, "files", text, rd, len);
}

static void setup_dir(const char *dir)
{
	char path[512];
	struct stat st;

	cr_assert_eq(stat(dir, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700, "not a private directory");
	e2e_write(dir, "myjob.fio", job);
	snprintf(path, sizeof(path), "%s/data", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	e2e_write(dir, "data/x.csv", "a,b\n1,2\n");
	if (access("/usr/bin/fio", X_OK))
		cr_skip_test("fio is not installed");
}

Test(files, fio_job_beside_the_plan, .fini = fini, .timeout = 120)
{
	const char *dir = e2e_tmpdir();
	char rd[256], path[512], sha[65];
	const char *out;
	const char *cell = "tmpfs::size=64M/fio#1";
	int rc;

	e2e_require_root();
	setup_dir(dir);
	rc = fio_run(dir, "    files: [myjob.fio, data/x.csv]\n", rd,
		     sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s",
			 e2e_reason(rd, cell));
	snprintf(path, sizeof(path), "%s/exec/000001-tmpfs__size_64M_fio_1"
		 ".out", rd);
	out = e2e_read(path);
	cr_expect(strstr(out, "444 nobody myjob.fio\n"), "%s", out);
	/* it wrote its 4 MiB: the job file is the one it ran */
	cr_expect(strstr(out, ";4096;"), "%s", out);
	cr_expect(strstr(out, "444 nobody data/x.csv\n"), "%s", out);
	/* fio's terse line: version 3, the job's name */
	cr_expect(strstr(out, "3;fio-"), "%s", out);
	/* its sha256 in the manifest's code, as a file */
	snprintf(path, sizeof(path), "%s/myjob.fio", dir);
	e2e_digest(path, sha);
	snprintf(path, sizeof(path), "%s/manifest.json", rd);
	cr_expect(strstr(e2e_read(path), sha), "no sha256 %s in the manifest",
		  sha);
	cr_expect(strstr(e2e_read(path), "\"kind\": \"file\""));
	/* a resume after the file changed is refused, naming it */
	e2e_write(dir, "myjob.fio", "[w]\nrw=read\nsize=4m\n"
		  "filename=fiofile\n");
	rc = e2e_fsplan((const char *[]){ "run", "--resume", rd, "-q",
					  NULL });
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "myjob.fio changed since the run started"),
		  "%s", e2e_err);
}

/* Without files: the same phase fails: nobody cannot read a 0700 home,
 * and the work directory has no myjob.fio; check said so before. */
Test(files, without_files_it_fails_and_check_warns, .fini = fini,
     .timeout = 120)
{
	const char *dir = e2e_tmpdir();
	char rd[256], plan[512];
	int rc;

	e2e_require_root();
	setup_dir(dir);
	rc = fio_run(dir, "", rd, sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "tmpfs::size=64M/fio#1", "status"),
			 "failed");
	snprintf(plan, sizeof(plan), "%s/plan.yaml", dir);
	rc = e2e_fsplan((const char *[]){ "check", plan, NULL });
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "warning: phase fio names myjob.fio, a "
			 "file beside the plan that its files: leave out"),
		  "%s", e2e_err);
	/* stat's operand too */
	cr_expect(strstr(e2e_err, "names data/x.csv"), "%s", e2e_err);
}

/* What files: may name: a file under the plan's directory. */
Test(files, refused_paths, .fini = fini, .timeout = 60)
{
	static const char *const bad[][2] = {
		{ "/etc/passwd", "not a file's path relative" },
		{ "../x", "not a file's path relative" },
		{ "a/./b", "not a file's path relative" },
		{ "missing.fio", "No such file or directory" },
		{ "out", "leads outside the plan's directory" },
		{ "data", "not a regular file" },
	};
	const char *dir = e2e_tmpdir();
	char text[512], path[512];

	snprintf(path, sizeof(path), "%s/data", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/out", dir);
	cr_assert_eq(symlink("/etc/hostname", path), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "fsplan: 1\n"
			 "filesystems: [{type: tmpfs}]\n"
			 "phases: [{exec: 'true', files: ['%s']}]\n",
			 bad[i][0]);
		e2e_write(dir, "plan.yaml", text);
		snprintf(path, sizeof(path), "%s/plan.yaml", dir);
		cr_expect_eq(e2e_fsplan((const char *[]){ "check", path,
							  NULL }), 2,
			     "%s accepted", bad[i][0]);
		cr_expect(strstr(e2e_err, bad[i][1]), "%s: %s", bad[i][0],
			  e2e_err);
	}
}

/* A Lua phase takes files: too, and its ctx.input still reads from the
 * plan's directory (root's read before the drop). */
Test(files, lua_phase, .fini = fini, .timeout = 60)
{
	const char *dir = e2e_tmpdir(), *cell = "tmpfs::size=64M/m#1";
	char rd[256];
	int rc;

	e2e_require_root();
	chmod(e2e_write(dir, "data.txt", "the plan's\n"), 0600);
	e2e_write(dir, "m.lua", "return { params = { given = '' },\n"
		  "  worker = function(w, ctx)\n"
		  "    local t = assert(ctx.input('given'))\n"
		  "    w:count('input_read', t == \"the plan's\\n\" and 1 "
		  "or 0)\n"
		  "    local f = w:open('data.txt', 'r')\n"
		  "    w:count('work_copy', f and 1 or 0)\n"
		  "    if f then f:close() end\n"
		  "    w:count('writable', w:open('data.txt', 'w') and 1 "
		  "or 0)\n"
		  "  end }\n");
	rc = e2e_run_plan(dir, "lfiles", "between: none\n"
			  "filesystems: [{type: tmpfs, mount: size=64M}]\n"
			  "phases: [{use: m.lua, files: [data.txt],"
			  " with: {given: data.txt}}]\n", rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s",
			 e2e_reason(rd, cell));
	cr_expect_str_eq(e2e_metric(rd, cell, "input_read"), "1");
	cr_expect_str_eq(e2e_metric(rd, cell, "work_copy"), "1");
	cr_expect_str_eq(e2e_metric(rd, cell, "writable"), "0");
}

/* A file edited while the run goes on is not put: the phase runs record
 * what the manifest says they ran. */
Test(files, changed_mid_run_fails_the_later_runs, .fini = fini,
     .timeout = 60)
{
	const char *dir = e2e_tmpdir(), *cell = "tmpfs::size=64M/b#1";
	char rd[256], text[512], plan[512], log[512];
	int status, tries = 0;
	pid_t pid;

	e2e_require_root();
	e2e_write(dir, "x.txt", "before\n");
	snprintf(text, sizeof(text), "fsplan: 1\nname: mid\nbetween: none\n"
		 "filesystems: [{type: tmpfs, mount: size=64M}]\n"
		 "phases:\n"
		 "  - {name: a, exec: 'sleep 1.5', files: [x.txt]}\n"
		 "  - {name: b, exec: 'cat x.txt', files: [x.txt]}\n");
	snprintf(plan, sizeof(plan), "%s", e2e_write(dir, "plan.yaml", text));
	snprintf(rd, sizeof(rd), "%s/run", dir);
	snprintf(log, sizeof(log), "%s/log.txt", rd);
	pid = e2e_fsplan_bg((const char *[]){ "run", plan, "-o", rd, "-q",
					      NULL });
	cr_assert_gt(pid, 0);
	while (!strstr(e2e_read(log), "a#1: run") && tries++ < 200)
		usleep(50000);
	cr_assert_lt(tries, 200, "phase a never started");
	e2e_write(dir, "x.txt", "after\n");
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect_eq(WEXITSTATUS(status), 1);
	cr_expect_str_eq(e2e_metric(rd, "tmpfs::size=64M/a#1", "status"),
			 "ok");
	cr_expect_str_eq(e2e_metric(rd, cell, "status"), "failed");
	cr_expect(strstr(e2e_reason(rd, cell) ?: "", "x.txt changed since "
			 "the run started"), "%s", e2e_reason(rd, cell));
}
