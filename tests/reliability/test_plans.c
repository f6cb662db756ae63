/* test_plans: hostile plans that check must refuse at their place — ${} bombs,
 * ids that collide, YAML tags, commands too long for execve. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../e2e.h"

static void fini(void)
{
	e2e_cleanup();
}

static int check(const char *text)
{
	return e2e_fsplan((const char *[]){ "check",
		e2e_write(e2e_tmpdir(), "plan.yaml", text), NULL });
}

/* A plan whose parameter b is 1000 bytes times copies (line 4), with
 * tmpfs and the phases (line 6). */
static const char *long_b(int copies, const char *phases)
{
	static char text[8192];
	size_t n;

	n = snprintf(text, sizeof(text), "fsplan: 1\nparams:\n  a: %01000d\n"
		     "  b: \"", 0);
	for (int k = 0; k < copies; k++)
		n += snprintf(text + n, sizeof(text) - n, "${a}");
	snprintf(text + n, sizeof(text) - n, "\"\nfilesystems: "
		 "[{type: tmpfs}]\n%s", phases);
	return text;
}

/* "a: 100 zeros", then b..j each ten copies of the one before: 10^11
 * bytes at j if nothing stops it. */
static char *bomb_plan(void)
{
	static char text[4096];
	size_t n;

	n = snprintf(text, sizeof(text), "fsplan: 1\nparams:\n  a: %0100d\n",
		     0);
	for (char c = 'b'; c <= 'j'; c++) {
		n += snprintf(text + n, sizeof(text) - n, "  %c: \"", c);
		for (int k = 0; k < 10; k++)
			n += snprintf(text + n, sizeof(text) - n, "${%c}",
				      c - 1);
		n += snprintf(text + n, sizeof(text) - n, "\"\n");
	}
	snprintf(text + n, sizeof(text) - n, "filesystems: [{type: tmpfs}]\n"
		 "phases: [{name: a, exec: 'echo ${j}'}]\n");
	return text;
}

/* The campaign's ten parameters grew check to 20 GiB. Run under an RSS
 * cap (ASan's hard_rss_limit_mb: make check's build is ASan's, which
 * RLIMIT_AS would stop at its start) and a 20 s clock: the old code is
 * killed by either, the new refuses at once. */
Test(plans_hostile, a_parameter_bomb_is_refused_fast_at_the_parameter,
     .fini = fini, .timeout = 60)
{
	const char *plan = e2e_write(e2e_tmpdir(), "plan.yaml", bomb_plan());
	const char *bin = getenv("FSPLAN_BIN");
	char err[] = "/tmp/fsplan-bomb-XXXXXX", buf[4096] = "";
	int fd = mkstemp(err), status = 0;
	struct timespec t0, t1;
	pid_t pid;
	FILE *f;

	cr_assert_geq(fd, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		const char *asan = getenv("ASAN_OPTIONS");
		char opts[1024];

		snprintf(opts, sizeof(opts), "%s%shard_rss_limit_mb=512",
			 asan ? asan : "", asan ? ":" : "");
		setenv("ASAN_OPTIONS", opts, 1);
		dup2(fd, 2);
		dup2(fd, 1);
		execl(bin, bin, "check", plan, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200 && !waitpid(pid, &status, WNOHANG); i++)
		usleep(100000);
	if (!waitpid(pid, &status, WNOHANG)) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		cr_assert_fail("check still ran after 20 s");
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	f = fdopen(fd, "r");
	rewind(f);
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
	fclose(f);
	unlink(err);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 2,
		  "status %#x: %s", status, buf);
	/* e is 10^6 bytes: f's second ${e} passes 1 MiB */
	cr_expect(strstr(buf, "plan.yaml:8:11: '${e}' makes this value "
			 "2000000 bytes or more: an expanded value is at most "
			 "1 MiB"), "%s", buf);
	cr_expect_lt(t1.tv_sec - t0.tv_sec, 10, "took %ld s",
		     (long)(t1.tv_sec - t0.tv_sec));
}

/* Per cell, an axis takes any of its values: the check takes the
 * longest, so what passes check passes every cell. Before, nothing
 * capped it, and the 1.2 MB command was "one the shell cannot parse". */
Test(plans_hostile, an_axis_value_that_makes_a_command_too_long_is_refused,
     .fini = fini)
{
	int rc = check(long_b(600, "phases: [{name: a, exec: 'echo ${v}${v}', "
			      "matrix: {v: [short, \"${b}\"]}}]\n"));

	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "plan.yaml:6:36: '${v}' makes this value "
			 "1200005 bytes or more: an expanded value is at most "
			 "1 MiB"), "%s", e2e_err);
}

/* The campaign's pair: x,n=1 with 1 and x with 1,n=1 were both
 * "tmpfs/a/m=x,n=1,n=1#1", and --resume skipped the second. */
Test(plans_hostile, axis_values_that_would_make_one_id_of_two_cells_are_refused,
     .fini = fini)
{
	static const struct {
		const char *value, *what;
	} bad[] = {
		{ "\"x,n=1\"", "','" }, { "\"a=b\"", "'='" },
		{ "\"a/b\"", "'/'" }, { "\"a#2\"", "'#'" },
		{ "\"a;b=1\"", "';'" }, { "\"a\\nb\"", "byte 0x0a" },
		{ "\"a\\tb\"", "byte 0x09" },
	};
	char text[512], want[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc;

		snprintf(text, sizeof(text), "fsplan: 1\n"
			 "matrix: {m: [x, %s], n: [\"1\"]}\n"
			 "filesystems: [{type: tmpfs}]\n"
			 "phases: [{name: a, exec: 'true'}]\n", bad[i].value);
		rc = check(text);
		snprintf(want, sizeof(want), "plan.yaml:2:");
		cr_expect_eq(rc, 2, "%s: exit %d: %s", bad[i].value, rc,
			     e2e_err);
		cr_expect(strstr(e2e_err, want), "%s: %s", bad[i].value,
			  e2e_err);
		snprintf(want, sizeof(want), ": axis 'm': the value '");
		cr_expect(strstr(e2e_err, want), "%s: %s", bad[i].value,
			  e2e_err);
		snprintf(want, sizeof(want), "' has %s; a value is part of "
			 "the cell ids", bad[i].what);
		cr_expect(strstr(e2e_err, want), "%s: %s", bad[i].value,
			  e2e_err);
	}
}

Test(plans_hostile, the_campaigns_colliding_matrix_is_refused_at_the_value,
     .fini = fini)
{
	int rc = check("fsplan: 1\n"
		       "matrix: {m: [\"x,n=1\", x], n: [\"1\", \"1,n=1\"]}\n"
		       "filesystems: [{type: tmpfs}]\n"
		       "phases: [{name: a, exec: 'true'}]\n");

	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "plan.yaml:2:16: axis 'm': the value "
			 "'x,n=1' has ','"), "%s", e2e_err);
}

/* Values made by ${...} and -D are checked once made. */
Test(plans_hostile, a_separator_from_a_parameter_or_d_is_refused,
     .fini = fini)
{
	const char *plan = e2e_write(e2e_tmpdir(), "plan.yaml",
				     "fsplan: 1\n"
				     "params: {p: \"1\"}\n"
				     "matrix: {m: [\"${p}\", \"2\"]}\n"
				     "filesystems: [{type: tmpfs}]\n"
				     "phases: [{name: a, exec: 'true'}]\n");
	int rc = e2e_fsplan((const char *[]){ "check", plan, "-D", "p=1/x",
					      NULL });

	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "plan.yaml:3:14: axis 'm': the value "
			 "'1/x' has '/'"), "%s", e2e_err);
	rc = e2e_fsplan((const char *[]){ "check", plan, NULL });
	cr_expect_eq(rc, 0, "exit %d: %s", rc, e2e_err);
}

/* libyaml hands a tag over on the node; the old loader read the text
 * under it as if untagged. Even !!str and the bare ! are refused: a
 * plan has no use for tags, and one rule is easier to trust. */
Test(plans_hostile, yaml_tags_are_refused_at_their_place, .fini = fini)
{
	static const struct {
		const char *line, *tag;
		int col;
	} tagged[] = {
		{ "name: !!binary aGVsbG8=", "!!binary", 7 },
		{ "name: !evil x", "!evil", 7 },
		{ "name: !!str x", "!!str", 7 },
		{ "name: ! x", "!", 7 },
		{ "name: &n !!int 5", "!!int", 7 },
		{ "params: !!map {a: 1}", "!!map", 9 },
		{ "params: {a: !<tag:x> 1}", "!<tag:x>", 13 },
	};
	char text[512], want[256];

	for (size_t i = 0; i < sizeof(tagged) / sizeof(tagged[0]); i++) {
		int rc;

		snprintf(text, sizeof(text), "fsplan: 1\n%s\n"
			 "filesystems: [{type: tmpfs}]\n"
			 "phases: [{name: a, exec: 'true'}]\n", tagged[i].line);
		rc = check(text);
		snprintf(want, sizeof(want), "plan.yaml:2:%d: YAML tag '%s': "
			 "a plan takes no tags", tagged[i].col, tagged[i].tag);
		cr_expect_eq(rc, 2, "%s: exit %d: %s", tagged[i].line, rc,
			     e2e_err);
		cr_expect(strstr(e2e_err, want), "%s: %s", tagged[i].line,
			  e2e_err);
	}
}

/* 200,000 bytes of command: execve says E2BIG (MAX_ARG_STRLEN is 128
 * KiB per argument), and the old check blamed the shell's parser. */
Test(plans_hostile, a_command_too_long_for_the_kernel_says_so, .fini = fini)
{
	int rc = check(long_b(200, "phases: [{name: a, exec: 'echo ${b}'}]\n"));

	cr_expect_eq(rc, 2, "exit %d: %s", rc, e2e_err);
	cr_expect(strstr(e2e_err, "plan.yaml:6:26: exec: the command line is "
			 "200005 bytes, more than the kernel takes (E2BIG"),
		  "%s", e2e_err);
	cr_expect_null(strstr(e2e_err, "cannot parse"), "%s", e2e_err);
}
