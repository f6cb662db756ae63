/* test_enospc: a full disk is an I/O error, never a result — ext4, xfs and
 * tmpfs filled by a phase that ignores what its writes return. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

/* A phase that fills the disk and ignores the nil, msg its stream gets
 * back (the campaign's hole: recorded ok with the bytes that fitted). */
static const char fill[] =
	"return {\n"
	"  params = { bytes = \"1G\" },\n"
	"%s"
	"  worker = function(w, ctx)\n"
	"    local f = assert(w:open(\"fill.\" .. w.id, \"w\"))\n"
	"    f:stream{op = \"write\", block = \"1M\", bytes = ctx.params.bytes}\n"
	"    f:write(ctx.params.bytes, 4096)\n"
	"    f:close()\n"
	"  end,\n"
	"}\n";

static int run_fill(const char *filesystems, const char *tolerate,
		    char *rd, size_t len)
{
	const char *dir = e2e_tmpdir();
	char mod[1024], plan[1024];

	snprintf(mod, sizeof(mod), fill, tolerate);
	e2e_write(dir, "fill.lua", mod);
	snprintf(plan, sizeof(plan),
		 "fsplan: 1\n"
		 "target: {image: 320M}\n"
		 "between: [none]\n"
		 "filesystems:\n%s"
		 "phases:\n"
		 "  - use: fill.lua\n", filesystems);
	snprintf(rd, len, "%s/run", dir);
	return e2e_fsplan((const char *[]){ "run",
		e2e_write(dir, "plan.yaml", plan), "-o", rd, "-q", NULL });
}

Test(enospc, a_full_disk_fails_the_phase_run_on_three_filesystems,
     .fini = fini, .timeout = 240)
{
	static const char *const label[] = { "ext4", "xfs", "tmpfs::size=8M" };
	char rd[256], cell[64], log[300];
	int rc;

	e2e_require_root();
	rc = run_fill("  - {type: ext4}\n  - {type: xfs}\n"
		      "  - {type: tmpfs, mount: size=8M}\n", "", rd,
		      sizeof(rd));
	cr_expect_eq(rc, 1, "exit %d (1: some phase runs failed): %s", rc,
		     e2e_err);
	snprintf(log, sizeof(log), "%s/log.txt", rd);
	for (int i = 0; i < 3; i++) {
		const char *why;

		snprintf(cell, sizeof(cell), "%s/fill#1", label[i]);
		cr_expect_str_eq(e2e_metric(rd, cell, "status"), "failed",
				 "%s", cell);
		why = e2e_reason(rd, cell);
		/* the write after the stream may fit where the
		 * filesystem kept a reserve (ext4, xfs): 1 or 2 errors */
		cr_expect(why && strstr(why, " I/O error") &&
			  strstr(why, ", first: ENOSPC in write (fill.1: "
				 "No space left"),
			  "%s: %s", cell, why);
		/* the run log has the first errno and its message too */
		cr_expect(strstr(e2e_read(log), "ENOSPC in write"), "%s",
			  e2e_read(log));
		cr_expect_null(e2e_metric(rd, cell, "write_mbs"),
			       "a failed run's figures are not results");
	}
}

Test(enospc, tolerate_errors_keeps_the_run_and_counts_them, .fini = fini,
     .timeout = 120)
{
	char rd[256];
	int rc;

	e2e_require_root();
	rc = run_fill("  - {type: tmpfs, mount: size=8M}\n",
		      "  tolerate_errors = true,\n", rd, sizeof(rd));
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, "tmpfs::size=8M/fill#1", "status"),
			 "ok", "%s", e2e_reason(rd, "tmpfs::size=8M/fill#1"));
	/* the stream's failure and the write's after it */
	cr_expect_eq(e2e_num(rd, "tmpfs::size=8M/fill#1", "write_errors"), 2);
	cr_expect_gt(e2e_num(rd, "tmpfs::size=8M/fill#1", "write_bytes"),
		     4e6, "what fitted is still counted");
}

/* What a phase asks and the filesystem answers no to (dbench's
 * loadfile says an op must fail, bonnie stats what it deleted) is an
 * answer, not an I/O error: the run stays ok and counts none. */
Test(enospc, refusals_that_answer_are_not_io_errors, .fini = fini,
     .timeout = 60)
{
	const char *dir = e2e_tmpdir();
	const char *cell = "tmpfs::size=8M/ask#1";
	char rd[256];
	int rc;

	e2e_require_root();
	e2e_write(dir, "ask.lua",
		  "return {\n"
		  "  worker = function(w)\n"
		  "    assert(not w:stat('missing'))\n"
		  "    assert(not w:open('missing', 'r'))\n"
		  "    assert(not w:unlink('missing'))\n"
		  "    assert(not w:rename('missing', 'b'))\n"
		  "    assert(not w:readdir('missing'))\n"
		  "    assert(w:mkdir('d'))\n"
		  "    assert(not w:mkdir('d'))\n"
		  "    assert(w:open('d/f', 'w')):close()\n"
		  "    assert(not w:rmdir('d'))\n"
		  "    assert(not w:open('d/f', 'w', {excl = true}))\n"
		  "    assert(not w:files('create', {'d/f'}))\n"
		  "    local f = assert(w:open('d/f', 'rw'))\n"
		  "    assert(f:lock(0, 10)); assert(f:unlock(0, 10))\n"
		  "    assert(f:read(100, 10) == 0)\n"
		  "    f:close()\n"
		  "  end,\n"
		  "}\n");
	snprintf(rd, sizeof(rd), "%s/run", dir);
	rc = e2e_fsplan((const char *[]){ "run", e2e_write(dir, "plan.yaml",
		"fsplan: 1\nbetween: [none]\n"
		"filesystems: [{type: tmpfs, mount: size=8M}]\n"
		"phases: [{use: ask.lua}]\n"), "-o", rd, "-q", NULL });
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_str_eq(e2e_metric(rd, cell, "status"), "ok", "%s",
			 e2e_reason(rd, cell));
	cr_expect_null(e2e_metric(rd, cell, "stat_errors"));
	cr_expect_null(e2e_metric(rd, cell, "open_errors"));
	cr_expect_null(e2e_metric(rd, cell, "mkdir_errors"));
}
