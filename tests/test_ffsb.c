/* test_ffsb: the ffsb phase end to end — the weighted choice, transactions
 * counted as ffsb counts them, the files a profile writes, and the 2008 plan
 * run tiny. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

static char dir[512];

static int run_plan(const char *body, char *rd, size_t len)
{
	static int runs;
	char text[8192];
	char *plan;

	snprintf(dir, sizeof(dir), "%s", e2e_tmpdir());
	snprintf(text, sizeof(text), "fsplan: 1\nname: ffsb\n"
		 "target: {image: 256M}\nfilesystems: [{type: ext4}]\n%s",
		 body);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, len, "%s/run%d", dir, ++runs);
	return e2e_fsplan((const char *[]){ "run", plan, "-o", rd, "-q",
					    NULL });
}

static void ok(const char *rd, const char *cell)
{
	const char *s = e2e_metric(rd, cell, "status");

	cr_assert(s && !strcmp(s, "ok"), "%s: %s (%s)", cell, s ? s : "none",
		  e2e_reason(rd, cell) ? e2e_reason(rd, cell) : "");
}

/* A metric that may be missing (an op that never ran has no rows). */
static double num0(const char *rd, const char *cell, const char *metric)
{
	return e2e_metric(rd, cell, metric) ? e2e_num(rd, cell, metric) : 0;
}

static int near(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fmax(fabs(a), fabs(b));
}

/* A rate over the seconds row, which results.csv has to the microsecond:
 * a 50 ms run's rate is only good to 1e-5 of itself. */
#define SECS_TOL(secs) (1e-6 / (secs) + 1e-9)

/*
 * stat, open_close and readall weighted 1, 2 and 5, two workers, 4000
 * ops each: each op's count is within 4 standard deviations of its share
 * of 8000 (the binomial's), % Op Weight says the same, and the same seed
 * gives the same counts again while another seed does not.
 */
Test(ffsb, weighted_choice_follows_the_weights, .fini = fini, .timeout = 120)
{
	static const char *const op[] = { "stat", "open_close", "readall" };
	static const double weight[] = { 1, 2, 5 };
	char rd[600], rd2[600];
	int rc;

#define MIX "    with: {workers: 2, max_ops: 4000, seconds: 60s, " \
	    "num_files: 8, min_filesize: 4k, max_filesize: 4k, " \
	    "stat_weight: 1, open_close_weight: 2, readall_weight: 5}\n"
	e2e_require_root();
	rc = run_plan("seed: 7\nphases:\n"
		      "  - name: a\n    use: ffsb\n" MIX
		      "  - name: b\n    use: ffsb\n" MIX, rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	ok(rd, "ext4/a#1");
	ok(rd, "ext4/b#1");
	for (int i = 0; i < 3; i++) {
		char name[64];
		double n, p = weight[i] / 8, want = 8000 * p;
		double sd = sqrt(8000 * p * (1 - p));

		snprintf(name, sizeof(name), "%s_ops", op[i]);
		n = e2e_num(rd, "ext4/a#1", name);
		cr_expect(fabs(n - want) <= 4 * sd,
			  "%s: %.0f ops of 8000, want %.0f +- %.0f", op[i], n,
			  want, 4 * sd);
		cr_expect_eq(e2e_num(rd, "ext4/b#1", name), n,
			     "%s: the same seed, another count", op[i]);
		snprintf(name, sizeof(name), "%s_weight_pct", op[i]);
		cr_expect(near(e2e_num(rd, "ext4/a#1", name), 100 * n / 8000,
			       1e-9), "%s", name);
		/* a stat and an open_close are one transaction each, a
		 * readall of a 4 KiB file in 4 KiB reads one */
		snprintf(name, sizeof(name), "%s_transactions", op[i]);
		cr_expect_eq(e2e_num(rd, "ext4/a#1", name), n, "%s", name);
	}
	cr_expect_eq(e2e_num(rd, "ext4/a#1", "transactions"), 8000);
	cr_expect_eq(e2e_metric(rd, "ext4/a#1", "no_file_skips"), NULL);

	rc = run_plan("seed: 8\nphases:\n  - name: a\n    use: ffsb\n" MIX,
		      rd2, sizeof(rd2));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_neq(e2e_num(rd2, "ext4/a#1", "stat_ops"),
		      e2e_num(rd, "ext4/a#1", "stat_ops"),
		      "seed 8 chose as seed 7 did");
#undef MIX
}

/*
 * Every op on a fileset whose sizes the run does not change (10 KiB
 * files; writes inside them), with 4 KiB blocks: a readall is 2 reads
 * (the short third is not a transaction), a create of 10 KiB 3 writes
 * (the short last one is), a write of 6 KiB 2, a read of 8 KiB 2, a
 * random read of 8 KiB 2, the others one each — so each op's
 * transactions are its count times that, and the bytes follow.
 */
Test(ffsb, transactions_as_ffsb_counts_them, .fini = fini, .timeout = 120)
{
	static const struct { const char *op; double per; } t[] = {
		{ "readall", 2 }, { "create", 3 }, { "write", 2 },
		{ "write_fsync", 2 }, { "read", 2 }, { "delete", 1 },
		{ "stat", 1 }, { "metaop", 1 }, { "open_close", 1 },
		{ "createdir", 1 },
	};
	const char *c = "ext4/mix#1";
	double sum = 0, ops = 0, trans, secs, rbytes, wbytes;
	char rd[600];
	int rc;

	e2e_require_root();
	rc = run_plan("phases:\n  - name: mix\n    use: ffsb\n"
		      "    with: {max_ops: 600, seconds: 60s, num_files: 40,"
		      " num_dirs: 3, min_filesize: 10k, max_filesize: 10k,"
		      " read_size: 8k, write_size: 6k, read_blocksize: 4k,"
		      " write_blocksize: 4k, readall_weight: 3,"
		      " create_weight: 2, write_weight: 2,"
		      " write_fsync_weight: 1, read_weight: 2,"
		      " delete_weight: 1, stat_weight: 1, metaop_weight: 1,"
		      " open_close_weight: 1, createdir_weight: 1}\n"
		      "  - name: rnd\n    use: ffsb\n"
		      "    with: {max_ops: 50, seconds: 60s, num_files: 4,"
		      " min_filesize: 64k, max_filesize: 64k, read_size: 8k,"
		      " read_blocksize: 4k, read_random: true,"
		      " read_weight: 1}\n"
		      "  - name: app\n    use: ffsb\n"
		      "    with: {max_ops: 5, seconds: 60s, num_files: 1,"
		      " min_filesize: 10k, max_filesize: 10k,"
		      " write_size: 6k, write_blocksize: 4k,"
		      " append_weight: 1}\n", rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	ok(rd, c);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char name[64];
		double n;

		snprintf(name, sizeof(name), "%s_ops", t[i].op);
		n = num0(rd, c, name);
		cr_expect_gt(n, 0, "%s never ran", t[i].op);
		snprintf(name, sizeof(name), "%s_transactions", t[i].op);
		cr_expect_eq(num0(rd, c, name), n * t[i].per,
			     "%s: %.0f transactions of %.0f ops", t[i].op,
			     num0(rd, c, name), n);
		sum += n * t[i].per;
		ops += n;
	}
	cr_expect_eq(ops + num0(rd, c, "no_file_skips"), 600);
	trans = e2e_num(rd, c, "transactions");
	cr_expect_eq(trans, sum);
	secs = e2e_num(rd, c, "seconds");
	cr_expect(near(e2e_num(rd, c, "transactions_per_s"), trans / secs,
		       SECS_TOL(secs)), "transactions_per_s");
	cr_expect(near(e2e_num(rd, c, "readall_share_pct"),
		       100 * e2e_num(rd, c, "readall_transactions") / trans,
		       1e-9), "readall_share_pct");
	rbytes = e2e_num(rd, c, "readall_ops") * 10240 +
		 e2e_num(rd, c, "read_ops") * 8192;
	wbytes = e2e_num(rd, c, "create_ops") * 10240 +
		 (e2e_num(rd, c, "write_ops") +
		  e2e_num(rd, c, "write_fsync_ops")) * 6144;
	cr_expect_eq(e2e_num(rd, c, "bytes_read"), rbytes);
	cr_expect_eq(e2e_num(rd, c, "bytes_written"), wbytes);
	cr_expect(near(e2e_num(rd, c, "read_mbs"), rbytes / 1048576 / secs,
		       SECS_TOL(secs)), "read_mbs");
	cr_expect(near(e2e_num(rd, c, "write_mbs"), wbytes / 1048576 / secs,
		       SECS_TOL(secs)), "write_mbs");
	/* %User + %System over the threads' run */
	cr_expect(near(e2e_num(rd, c, "test_cpu_pct"),
		       e2e_num(rd, c, "user_pct") +
		       e2e_num(rd, c, "system_pct"), 1e-9), "test_cpu_pct");
	/* the kernel splits a thread's CPU into user and system by the
	 * ticks that land in each: a 0.2 s run may have none in either, but
	 * not in both */
	cr_expect_gt(e2e_num(rd, c, "test_cpu_pct"), 0);
	cr_expect_geq(e2e_num(rd, c, "system_pct"), 0);
	cr_expect_geq(e2e_num(rd, c, "user_pct"), 0);
	/* the final sync is timed, once a thread */
	cr_expect_eq(e2e_num(rd, c, "sync_ops"), 1);

	/* read_random: read_size / read_blocksize reads a read */
	ok(rd, "ext4/rnd#1");
	cr_expect_eq(e2e_num(rd, "ext4/rnd#1", "read_transactions"), 100);
	cr_expect_eq(e2e_num(rd, "ext4/rnd#1", "bytes_read"), 50 * 8192);
	/* append: 6 KiB in 4 KiB writes, the short one counted */
	ok(rd, "ext4/app#1");
	cr_expect_eq(e2e_num(rd, "ext4/app#1", "append_transactions"), 10);
	cr_expect_eq(e2e_num(rd, "ext4/app#1", "bytes_written"), 5 * 6144);
}

/* A phase that says what the fileset holds: files, bytes, sizes. */
static const char census[] =
	"return {\n"
	"  params = { dir = 'ffsb/data' },\n"
	"  worker = function(w, ctx)\n"
	"    local n, total, lo, hi = 0, 0, nil, 0\n"
	"    local function scan(d)\n"
	"      for _, name in ipairs(w:readdir(d) or {}) do\n"
	"        local st = assert(w:stat(d .. '/' .. name))\n"
	"        if st.isdir then scan(d .. '/' .. name) else\n"
	"          n, total = n + 1, total + st.size\n"
	"          lo = math.min(lo or st.size, st.size)\n"
	"          hi = math.max(hi, st.size)\n"
	"        end\n"
	"      end\n"
	"    end\n"
	"    scan(ctx.params.dir)\n"
	"    w:count('files', n)\n"
	"    w:count('total_bytes', total)\n"
	"    w:count('min_size', lo or 0)\n"
	"    w:count('max_size', hi)\n"
	"  end,\n"
	"}\n";

/*
 * The large-file profile (create only, 64 KiB writes) with two threads
 * and three creates each of 3 MiB + 4 KiB: six files of exactly that size
 * are on the filesystem afterwards (reuse keeps them), 49 transactions a
 * file (48 whole blocks and the short one), write_mbs their bytes over
 * the seconds; the writes inside a create are the create's, not rows of
 * their own.
 */
Test(ffsb, large_file_profile_writes_the_files_it_says, .fini = fini,
     .timeout = 120)
{
	const char *c = "ext4/large#1";
	double size = 3 * 1048576 + 4096, secs;
	char rd[600];
	int rc;

	e2e_require_root();
	snprintf(dir, sizeof(dir), "%s", e2e_tmpdir());
	e2e_write(dir, "census.lua", census);
	rc = run_plan("phases:\n  - name: large\n    use: ffsb\n"
		      "    with: {workers: 2, max_ops: 3, seconds: 60s,"
		      " num_files: 0, min_filesize: 3076k,"
		      " max_filesize: 3076k, create_weight: 1,"
		      " write_size: 64k, write_blocksize: 64k, reuse: true}\n"
		      "  - {name: census, use: census.lua}\n", rd, sizeof(rd));
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	ok(rd, c);
	cr_expect_eq(e2e_num(rd, c, "create_ops"), 6);
	cr_expect_eq(e2e_num(rd, c, "create_transactions"), 6 * 49);
	cr_expect_eq(e2e_num(rd, c, "transactions"), 6 * 49);
	cr_expect_eq(e2e_num(rd, c, "create_share_pct"), 100);
	cr_expect_eq(e2e_num(rd, c, "bytes_written"), 6 * size);
	secs = e2e_num(rd, c, "seconds");
	cr_expect(near(e2e_num(rd, c, "write_mbs"), 6 * size / 1048576 / secs,
		       SECS_TOL(secs)), "write_mbs %.9g, bytes over %g s %.9g",
		  e2e_num(rd, c, "write_mbs"), secs, 6 * size / 1048576 / secs);
	cr_expect_eq(e2e_metric(rd, c, "write_ops"), NULL,
		     "the stream inside a create made rows of its own");
	ok(rd, "ext4/census#1");
	cr_expect_eq(e2e_num(rd, "ext4/census#1", "files"), 6);
	cr_expect_eq(e2e_num(rd, "ext4/census#1", "total_bytes"), 6 * size);
	cr_expect_eq(e2e_num(rd, "ext4/census#1", "min_size"), size);
	cr_expect_eq(e2e_num(rd, "ext4/census#1", "max_size"), size);
}

/*
 * reuse: a fileset a phase run left is kept when it has num_files files
 * within the sizes (4 KiB files within 1-8 KiB: all still 4 KiB), made
 * anew when not (within 8-16 KiB), and without reuse teardown removes it.
 */
Test(ffsb, reuse_keeps_a_fileset_that_fits, .fini = fini, .timeout = 120)
{
	char rd[600];
	int rc;

	e2e_require_root();
	snprintf(dir, sizeof(dir), "%s", e2e_tmpdir());
	e2e_write(dir, "census.lua", census);
#define STAT "stat_weight: 1, max_ops: 1, num_files: 3"
	rc = run_plan("phases:\n"
		      "  - {name: a, use: ffsb, with: {" STAT ", reuse: true,"
		      " min_filesize: 4k, max_filesize: 4k}}\n"
		      "  - {name: b, use: ffsb, with: {" STAT ", reuse: true,"
		      " min_filesize: 1k, max_filesize: 8k}}\n"
		      "  - {name: kept, use: census.lua}\n"
		      "  - {name: c, use: ffsb, with: {" STAT ", reuse: true,"
		      " min_filesize: 8k, max_filesize: 16k}}\n"
		      "  - {name: remade, use: census.lua}\n"
		      "  - {name: d, use: ffsb, with: {" STAT ","
		      " min_filesize: 8k, max_filesize: 16k}}\n"
		      "  - {name: gone, use: census.lua}\n", rd, sizeof(rd));
#undef STAT
	cr_assert_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	cr_expect_eq(e2e_num(rd, "ext4/kept#1", "files"), 3);
	cr_expect_eq(e2e_num(rd, "ext4/kept#1", "min_size"), 4096);
	cr_expect_eq(e2e_num(rd, "ext4/kept#1", "max_size"), 4096);
	cr_expect_eq(e2e_num(rd, "ext4/remade#1", "files"), 3);
	cr_expect_geq(e2e_num(rd, "ext4/remade#1", "min_size"), 8192);
	cr_expect_lt(e2e_num(rd, "ext4/remade#1", "max_size"), 16384);
	cr_expect_eq(e2e_num(rd, "ext4/gone#1", "files"), 0);
}

/*
 * directio opens with O_DIRECT: 4 KiB random reads at 4 KiB-aligned
 * offsets (alignio) run; at any offset (ffsb's default) the kernel
 * would refuse them, so fsplan check says alignio is needed.
 */
Test(ffsb, directio_reads_need_alignio, .fini = fini, .timeout = 60)
{
	char rd[600];
	int rc;

	e2e_require_root();
#define RND "read_weight: 1, read_random: true, read_size: 16k, " \
	    "max_ops: 20, num_files: 2, min_filesize: 64k, max_filesize: 64k, " \
	    "directio: true"
	rc = e2e_check_phase("[{type: ext4}]", "ffsb", RND);
	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "directio: O_DIRECT needs aligned offsets: "
			 "set alignio: true"), "%s", e2e_err);
	rc = run_plan("phases:\n"
		      "  - {name: aligned, use: ffsb, with: {" RND ", "
		      "alignio: true}}\n", rd, sizeof(rd));
#undef RND
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
	ok(rd, "ext4/aligned#1");
	cr_expect_eq(e2e_num(rd, "ext4/aligned#1", "read_transactions"), 80);
}

/* What ffsb would assert or run forever on is a failed run that says why. */
/* Profiles ffsb would assert on are refused before anything runs, at
 * the plan's place (the module's check). */
Test(ffsb, impossible_profiles_are_refused_with_the_reason, .fini = fini,
     .timeout = 60)
{
	static const struct { const char *with, *want; } cases[] = {
		{ "num_files: 1", "no operation has a weight" },
		{ "num_files: 4, min_filesize: 4k, max_filesize: 8k, "
		  "write_size: 16k, write_weight: 1", "write_weight: files may "
		  "be as small as min_filesize 4 KiB, under the write_size of "
		  "16 KiB" },
		{ "workers: 2, num_files: 1, stat_weight: 1",
		  "leaves a worker no file" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = e2e_check_phase("[{type: ext4}]", "ffsb",
					 cases[i].with);

		cr_expect_eq(rc, 2, "%s: exit %d", cases[i].with, rc);
		cr_expect(strstr(e2e_err, "cell ext4/ffsb#1: ") &&
			  strstr(e2e_err, cases[i].want), "%s: '%s' lacks '%s'",
			  cases[i].with, e2e_err, cases[i].want);
	}
}

/*
 * plans/ext4-2008.yaml as its header says to run it quick, on its three
 * filesystems (not the ext4 feature configs): every cell, both profiles
 * and three thread counts ran, on a filesystem of its own, with the
 * study's figures in its rows.
 */
Test(ffsb, the_2008_plan_runs_tiny, .fini = fini, .timeout = 240)
{
	static const char *const fs[] = {
		"ext3:-I 128:data=writeback",
		"ext4:-I 256:data=writeback", "xfs:-f:defaults" };
	static const int threads[] = { 1, 2, 4 };
	char rd[600], cell[256];
	const char *man;
	int rc;

	e2e_require_root();
	snprintf(rd, sizeof(rd), "%s/run", e2e_tmpdir());
	rc = e2e_fsplan((const char *[]){
		"run", "../plans/ext4-2008.yaml", "-o", rd, "-q",
		"--only", "type=ext3", "--only", "type=xfs",
		"--only", "type=ext4,mkfs=-I 256",
		"-D", "image=512M", "-D", "large_file=4M", "-D", "large_ops=2",
		"-D", "small_files=32", "-D", "small_dirs=4",
		"-D", "small_max=32k", "-D", "small_ops=300",
		"-D", "large_seconds=1s",
		"-D", "small_seconds=1s", "-D", "t_mid=2", "-D", "t_high=4",
		NULL });
	cr_assert_eq(rc, 0, "exit %d: %s%s", rc, e2e_err, e2e_failed(rd));
	for (int f = 0; f < 3; f++)
		for (int t = 0; t < 3; t++) {
			int n = threads[t];

			snprintf(cell, sizeof(cell), "%s/large_file/threads=%d,"
				 "profile=large_file#1", fs[f], n);
			ok(rd, cell);
			cr_expect_eq(e2e_num(rd, cell, "bytes_written"),
				     n * 2 * 4.0 * 1048576, "%s", cell);
			cr_expect_eq(e2e_num(rd, cell, "create_transactions"),
				     n * 2 * 64, "%s", cell);
			cr_expect_gt(e2e_num(rd, cell, "write_mbs"), 0);
			cr_expect_gt(e2e_num(rd, cell, "test_cpu_pct"), 0);
			snprintf(cell, sizeof(cell), "%s/small_file/threads=%d,"
				 "profile=small_file#1", fs[f], n);
			ok(rd, cell);
			cr_expect_gt(e2e_num(rd, cell, "transactions_per_s"), 0,
				     "%s", cell);
			cr_expect_gt(e2e_num(rd, cell, "readall_transactions"),
				     0, "%s", cell);
			cr_expect_eq(e2e_num(rd, cell, "threads"), n);
			cr_expect_eq(e2e_num(rd, cell, "files_start"), 32);
		}
	/* every run on a filesystem made for it: 18 mkfs */
	cr_expect_eq(e2e_count(rd, "mkfs_s"), 18);
	/* and the report prints the study's table */
	rc = e2e_fsplan((const char *[]){ "report", rd, NULL });
	cr_expect_eq(rc, 0, "report: exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_out, "\nlarge_file: write MB/s (MiB) and %CPU\n"
			 "threads  "), "%s", e2e_out);
	cr_expect(strstr(e2e_out, "\nsmall_file: transactions/s and %CPU\n"),
		  "%s", e2e_out);
	cr_expect(strstr(e2e_out, "\nxfs:-f:defaults    "), "%s", e2e_out);
	man = e2e_read(strcat(rd, "/manifest.json"));
	cr_expect(strstr(man, "rw,relatime rw,data=writeback"),
		  "ext3/ext4's applied options are in the manifest");
}
