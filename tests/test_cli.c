/* test_cli: the real fsplan binary — exit codes, silence, error display, help.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

struct out {
	char so[65536];
	char se[8192];
	int status;
};

static void slurp(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += r;
	buf[n] = '\0';
}

/* Run fsplan with args; stdout and stderr go to temp files. */
static void run(struct out *o, const char *const *args)
{
	const char *bin = getenv("FSPLAN_BIN");
	char *argv[32];
	FILE *fo = tmpfile(), *fe = tmpfile();
	int n = 0, status;
	pid_t pid;

	cr_assert_not_null(bin, "FSPLAN_BIN is not set (run through make)");
	argv[n++] = (char *)bin;
	while (*args && n < 31)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(fileno(fo), 1);
		dup2(fileno(fe), 2);
		execv(bin, argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	o->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	lseek(fileno(fo), 0, SEEK_SET);
	lseek(fileno(fe), 0, SEEK_SET);
	slurp(fileno(fo), o->so, sizeof(o->so));
	slurp(fileno(fe), o->se, sizeof(o->se));
	fclose(fo);
	fclose(fe);
}

static const char *write_plan(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/fsplan-cli-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static struct out o;

Test(cli, check_is_silent_on_a_good_plan)
{
	run(&o, (const char *[]){ "check", "../plans/quick.yaml", NULL });
	cr_expect_eq(o.status, 0, "stderr: %s", o.se);
	cr_expect_str_empty(o.so);
	cr_expect_str_empty(o.se);
}

Test(cli, check_shows_place_line_and_caret)
{
	const char *plan = write_plan("fsplan: 1\n"
				      "filesystems:\n"
				      "  - type: ext4\n"
				      "    mout: noatime\n"
				      "phases: [{exec: 'true'}]\n");
	char want[256];

	run(&o, (const char *[]){ "check", plan, NULL });
	unlink(plan);
	cr_expect_eq(o.status, 2);
	snprintf(want, sizeof(want), "%s:4:5: unknown key 'mout' in a "
		 "filesystem (did you mean 'mount'?)\n"
		 "      mout: noatime\n"
		 "      ^\n", plan);
	cr_expect_str_eq(o.se, want);
	cr_expect_str_empty(o.so);
}

/* The mkfs tools' own dry runs (xfs -N, ext4 -n) warn of a config whose
 * every cell would fail at mkfs: the image too small, an option unknown. */
Test(cli, check_warns_of_a_mkfs_that_refuses_the_config)
{
	const char *plan = write_plan("fsplan: 1\n"
				      "target: {image: 256M}\n"
				      "filesystems:\n"
				      "  - {type: xfs}\n"
				      "  - {type: ext4, mkfs: ['', '-O nosuch']}\n"
				      "phases: [{exec: 'true'}]\n");

	run(&o, (const char *[]){ "check", plan, NULL });
	cr_expect_eq(o.status, 0, "a warning is no error: %s", o.se);
	cr_expect(strstr(o.se, ":4:12: warning: xfs: a dry run of 'mkfs.xfs' "
			 "on a 256M image fails, so every cell of it would: "
			 "Filesystem must be larger than 300MB."), "%s", o.se);
	cr_expect(strstr(o.se, ":5:12: warning: ext4:-O nosuch: a dry run of "
			 "'mkfs.ext4 -O nosuch' on a 256M image fails"),
		  "%s", o.se);
	cr_expect_null(strstr(o.se, "ext4: a dry run"), "%s", o.se);
	unlink(plan);
	plan = write_plan("fsplan: 1\n"
			  "target: {image: 320M}\n"
			  "filesystems: [{type: xfs}, {type: ext4}]\n"
			  "phases: [{exec: 'true'}]\n");
	run(&o, (const char *[]){ "check", plan, NULL });
	unlink(plan);
	cr_expect_eq(o.status, 0);
	cr_expect_str_empty(o.se);
}

Test(cli, expand_prints_one_line_per_cell)
{
	int lines = 0;

	run(&o, (const char *[]){ "expand", "../plans/quick.yaml", NULL });
	cr_expect_eq(o.status, 0, "stderr: %s", o.se);
	for (char *p = o.so; (p = strchr(p, '\n')); p++)
		lines++;
	cr_expect_eq(lines, 8);
	cr_expect(strstr(o.so, "1\text4::defaults/write#1\tmkfs.ext4 LOOPDEV\t"
			 "mount -t ext4 -o defaults LOOPDEV MOUNTPOINT\n"),
		  "%s", o.so);
}

Test(cli, expand_with_defines_and_filters)
{
	run(&o, (const char *[]){ "expand", "../examples/journal-size.yaml",
				  "-D", "size=16M", "--only", "journal_mb=64",
				  NULL });
	cr_expect_eq(o.status, 0, "stderr: %s", o.se);
	cr_expect_str_eq(o.so, "2\text4-j64/write/journal_mb=64#1\t"
			 "mkfs.ext4 -J size=64 LOOPDEV\tmount -t ext4 -o "
			 "data=journal LOOPDEV MOUNTPOINT\n");
	run(&o, (const char *[]){ "expand", "../examples/journal-size.yaml",
				  "--shard", "2/2", NULL });
	cr_expect_eq(o.status, 0);
	cr_expect(strstr(o.so, "ext4-j64/") && !strstr(o.so, "ext4-j16/"),
		  "%s", o.so);
}

Test(cli, usage_errors_exit_2)
{
	run(&o, (const char *[]){ "check", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.se, "PLAN file is required"), "%s", o.se);
	run(&o, (const char *[]){ "chek", "x", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.se, "did you mean 'check'"), "%s", o.se);
	run(&o, (const char *[]){ "check", "../plans/quick.yaml", "-D",
				  "sise=1G", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.se, "no parameter 'sise' (did you mean 'size'?)"),
		  "%s", o.se);
	run(&o, (const char *[]){ "expand", "../plans/quick.yaml", "--shard",
				  "3/2", NULL });
	cr_expect_eq(o.status, 2);
	run(&o, (const char *[]){ "check", "/nonexistent.yaml", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.se, "/nonexistent.yaml: No such file"), "%s",
		  o.se);
}

Test(cli, help_and_version)
{
	run(&o, (const char *[]){ "--help", NULL });
	cr_expect_eq(o.status, 0);
	cr_expect(strstr(o.so, "expand"));
	run(&o, (const char *[]){ "expand", "--help", NULL });
	cr_expect_eq(o.status, 0);
	cr_expect(strstr(o.so, "--shard K/N"), "%s", o.so);
	run(&o, (const char *[]){ "help", "check", NULL });
	cr_expect_eq(o.status, 0);
	cr_expect(strstr(o.so, "usage: fsplan check"), "%s", o.so);
	run(&o, (const char *[]){ "version", NULL });
	cr_expect_eq(o.status, 0);
	cr_expect(!strncmp(o.so, "fsplan ", 7), "%s", o.so);
}

/* ---- one option parser: the same option means the same in every command */

static const char *const plan_cmds[] = { "check", "expand", "run" };

Test(cli, a_repeated_define_is_an_error_in_every_command)
{
	for (size_t i = 0; i < 3; i++) {
		run(&o, (const char *[]){ plan_cmds[i], "../plans/quick.yaml",
					  "-D", "size=1G", "--define",
					  "size=2G", NULL });
		cr_expect_eq(o.status, 2, "%s", plan_cmds[i]);
		cr_expect(strstr(o.se, "-D size is given twice") &&
			  strstr(o.se, "see 'fsplan help"), "%s: %s",
			  plan_cmds[i], o.se);
		cr_expect_str_empty(o.so);
	}
}

Test(cli, define_and_its_long_name_reach_the_plan_in_every_command)
{
	for (size_t i = 0; i < 3; i++) {
		run(&o, (const char *[]){ plan_cmds[i], "../plans/quick.yaml",
					  "--define", "sise=1G", NULL });
		cr_expect_eq(o.status, 2, "%s", plan_cmds[i]);
		cr_expect(strstr(o.se, "no parameter 'sise'"), "%s: %s",
			  plan_cmds[i], o.se);
		run(&o, (const char *[]){ plan_cmds[i], "../plans/quick.yaml",
					  "-D", "novalue", NULL });
		cr_expect_eq(o.status, 2);
		cr_expect(strstr(o.se, "-D takes name=value, not 'novalue'"),
			  "%s: %s", plan_cmds[i], o.se);
	}
}

Test(cli, help_prints_the_commands_help_and_exits_0_everywhere)
{
	static const char *const cmds[] = { "check", "expand", "run",
					    "report", "version", "help" };
	char want[64];

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		run(&o, (const char *[]){ cmds[i], "--help", NULL });
		snprintf(want, sizeof(want), "usage: fsplan %s", cmds[i]);
		cr_expect_eq(o.status, 0, "%s --help: %s", cmds[i], o.se);
		cr_expect(!strncmp(o.so, want, strlen(want)), "%s: %s",
			  cmds[i], o.so);
		cr_expect_str_empty(o.se, "%s: %s", cmds[i], o.se);
		run(&o, (const char *[]){ "help", cmds[i], NULL });
		cr_expect_eq(o.status, 0);
		cr_expect(!strncmp(o.so, want, strlen(want)), "help %s: %s",
			  cmds[i], o.so);
	}
}

Test(cli, usage_errors_read_alike_in_every_command)
{
	static const char *const cmds[] = { "check", "expand", "run",
					    "report" };
	char want[128];

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(want, sizeof(want), "fsplan %s: unknown option "
			 "'--bogus'\n(see 'fsplan help %s')\n", cmds[i],
			 cmds[i]);
		run(&o, (const char *[]){ cmds[i], "x", "--bogus", NULL });
		cr_expect_eq(o.status, 2, "%s", cmds[i]);
		cr_expect_str_eq(o.se, want);
		run(&o, (const char *[]){ cmds[i], "x", "y", NULL });
		cr_expect_eq(o.status, 2, "%s", cmds[i]);
		cr_expect(strstr(o.se, "only, not also 'y'"), "%s: %s",
			  cmds[i], o.se);
	}
	/* a value missing, a single-valued option twice: same words */
	run(&o, (const char *[]){ "run", "x", "-o", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.se, "fsplan run: '-o' needs a value"), "%s", o.se);
	run(&o, (const char *[]){ "report", "x", "-o", NULL });
	cr_expect_eq(o.status, 2);
	cr_expect(strstr(o.se, "fsplan report: '-o' needs a value"), "%s",
		  o.se);
	run(&o, (const char *[]){ "run", "x", "-o", "a", "--output", "b",
				  NULL });
	cr_expect(o.status == 2 && strstr(o.se, "-o is given twice"), "%s",
		  o.se);
	run(&o, (const char *[]){ "report", "x", "-o", "a", "-o", "b",
				  NULL });
	cr_expect(o.status == 2 && strstr(o.se, "-o is given twice"), "%s",
		  o.se);
	run(&o, (const char *[]){ "expand", "x", "--shard", "1/2", "--shard",
				  "2/2", NULL });
	cr_expect(o.status == 2 && strstr(o.se, "--shard is given twice"),
		  "%s", o.se);
	run(&o, (const char *[]){ "report", "x", "--fromat", "csv", NULL });
	cr_expect(strstr(o.se, "did you mean '--format'?"), "%s", o.se);
	run(&o, (const char *[]){ "version", "x", NULL });
	cr_expect(o.status == 2 && strstr(o.se, "takes no arguments"), "%s",
		  o.se);
}

/* fsplan check of a plan on a 1G image of ext4 with these phases:
 * its exit status, output in o. */
static int check_phases_text(const char *phases)
{
	char text[1024];
	const char *plan;

	snprintf(text, sizeof(text), "fsplan: 1\ntarget: {image: 1G}\n"
		 "filesystems: [{type: ext4}]\nphases:\n%s", phases);
	plan = e2e_write(e2e_tmpdir(), "plan.yaml", text);
	run(&o, (const char *[]){ "check", plan, NULL });
	return o.status;
}

/* ctx.repeats and ctx.order, at check and in the run alike: a phase's
 * own repeat, else the plan's; the plan's order. */
Test(cli, ctx_has_the_repetitions_and_the_order)
{
	const char *dir = e2e_tmpdir(), *plan;
	char rd[512], text[1024];

	e2e_write(dir, "reps.lua",
		  "return { params = { want = 1, order = 'configs' },\n"
		  "  check = function(ctx)\n"
		  "    if ctx.repeats ~= ctx.params.want or\n"
		  "       ctx.order ~= ctx.params.order then\n"
		  "      error(('got %d %s'):format(ctx.repeats, ctx.order), 0)\n"
		  "    end\n"
		  "  end,\n"
		  "  worker = function(w, ctx) end,\n"
		  "  report = function(r, ctx)\n"
		  "    return { repeats = ctx.repeats,\n"
		  "             rounds = ctx.order == 'rounds' and 1 or 0 }\n"
		  "  end }\n");
	cr_expect_eq(check_phases_text("  - {use: reps.lua}\n"), 0, "%s",
		     o.se);
	cr_expect_eq(check_phases_text("  - {use: reps.lua, repeat: 3, with: "
				       "{want: 3}}\n"), 0, "%s", o.se);
	cr_expect_eq(check_phases_text("  - {use: reps.lua, repeat: {min: 2, "
				       "max: 5, ci: 5%}, with: {want: 5}}\n"),
		     0, "%s", o.se);
	cr_expect_eq(check_phases_text("  - {use: reps.lua, with: {want: 2}}\n"),
		     2);
	cr_expect(strstr(o.se, "got 1 configs"), "%s", o.se);
	e2e_require_root();
	snprintf(text, sizeof(text), "fsplan: 1\nrepeat: 2\norder: rounds\n"
		 "target: {dir: %s}\n"
		 "phases: [{use: reps.lua, with: {want: 2, order: rounds}}]\n",
		 dir);
	plan = e2e_write(dir, "plan.yaml", text);
	snprintf(rd, sizeof(rd), "%s/run", dir);
	run(&o, (const char *[]){ "run", plan, "-o", rd, "-q", NULL });
	cr_expect_eq(o.status, 0, "%s", o.se);
	cr_expect_str_eq(e2e_metric(rd, "dir/reps#2", "repeats"), "2");
	cr_expect_str_eq(e2e_metric(rd, "dir/reps#2", "rounds"), "1");
	e2e_cleanup();
}

/* A module's check(ctx) runs at fsplan check for every cell: what it
 * raises refuses the plan there, at the value the message names. */
Test(cli, check_runs_each_modules_check_on_every_cell)
{
	e2e_write(e2e_tmpdir(), "mine.lua",
		  "return { params = { depth = 1 },\n"
		  "  check = function(ctx)\n"
		  "    assert(ctx.checking and ctx.fs.type == 'ext4')\n"
		  "    if ctx.params.depth > 8 then\n"
		  "      error('depth: at most 8, not ' .. ctx.params.depth, 0)\n"
		  "    end\n"
		  "  end,\n"
		  "  worker = function(w, ctx) end }\n");
	cr_expect_eq(check_phases_text("  - {use: mine.lua, matrix: {depth: "
				       "[1, 16]}}\n"), 2);
	cr_expect(strstr(o.se, "plan.yaml:5:41: phase 'mine', cell "
			 "ext4/mine/depth=16#1: depth: at most 8, not 16"),
		  "%s", o.se);
	/* size auto is twice the RAM: a 200001k one is not whole MiB */
	cr_expect_eq(check_phases_text("  - {use: bonnie, with: {ram: 200001k}}\n"
				       "  - {use: tiobench, with: {ram: "
				       "200001k}}\n"), 0, "%s", o.se);
	cr_expect_eq(check_phases_text("  - {use: tiobench, with: {ram: 1G}}\n"),
		     2);
	cr_expect(strstr(o.se, "file_size 2 GiB does not fit the image of "
			 "1 GiB: it is twice the RAM"), "%s", o.se);
	e2e_cleanup();
}

/* A module that loops as it loads holds the check to its 30 s; Ctrl-C
 * stops it at once, check and run alike (130, no run directory). */
Test(cli, an_interrupt_stops_a_modules_check, .timeout = 60)
{
	const char *dir = e2e_tmpdir(), *plan;
	char rd[300];

	e2e_write(dir, "spin.lua", "while true do end\n"
		  "return { worker = function(w, ctx) end }\n");
	plan = e2e_write(dir, "plan.yaml", "fsplan: 1\n"
			 "filesystems: [{type: ext4}]\n"
			 "phases: [{use: spin.lua}]\n");
	snprintf(rd, sizeof(rd), "%s/run", dir);
	for (int i = 0; i < 2; i++) {
		const char *check[] = { "check", plan, NULL };
		const char *run_[] = { "run", plan, "-o", rd, "-q", NULL };
		pid_t pid = e2e_fsplan_bg(i ? run_ : check);
		struct timespec t0, t1;
		int status;

		cr_assert_gt(pid, 0);
		sleep(1);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		kill(pid, SIGINT);
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 130,
			  "%s: status %d", i ? "run" : "check", status);
		cr_expect_lt(t1.tv_sec - t0.tv_sec, 5, "%s took %ld s to stop",
			     i ? "run" : "check", (long)(t1.tv_sec - t0.tv_sec));
	}
	cr_expect_eq(access(rd, F_OK), -1, "the run made %s", rd);
	e2e_cleanup();
}

/* ---- one synopsis per command: --help, help CMD and fsplan(1) agree ----- */

#define MAX_SYN 4096

/* Append word to syn, one space between words, lower-cased: fsplan(1)
 * writes a placeholder in italics (plan), the help in capitals (PLAN). */
static void syn_add(char *syn, const char *word, size_t n)
{
	size_t len = strlen(syn);

	if (len && syn[len - 1] != '\n' && len + 1 < MAX_SYN)
		syn[len++] = ' ';
	for (size_t i = 0; i < n && len + 1 < MAX_SYN; i++)
		syn[len++] = (char)tolower((unsigned char)word[i]);
	syn[len] = '\0';
}

/* Append text's words to syn (whitespace collapsed). */
static void syn_words(char *syn, const char *text)
{
	while (*text) {
		size_t n;

		text += strspn(text, " \t");
		n = strcspn(text, " \t");
		if (n)
			syn_add(syn, text, n);
		text += n;
	}
}

/* A new form of a command's synopsis (compare has two). */
static void syn_form(char *syn)
{
	size_t len = strlen(syn);

	if (len && len + 1 < MAX_SYN) {
		syn[len] = '\n';
		syn[len + 1] = '\0';
	}
}

/* The synopsis of cmd in `fsplan --help`: a form starts "  CMD " at two
 * spaces, its continuation lines are indented 4 to 7, the one-line
 * summary 8 or more. */
static void syn_overview(const char *text, const char *cmd, char *syn)
{
	const char *s = strstr(text, "\ncommands:\n");
	size_t n = strlen(cmd);
	int in = 0;

	syn[0] = '\0';
	cr_assert_not_null(s, "no commands: in %s", text);
	for (s = strchr(s + 1, '\n') + 1; *s && *s != '\n';
	     s = strchr(s, '\n') + 1) {
		size_t ind = strspn(s, " "), len = strcspn(s, "\n");
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)len, s);
		if (ind == 2) {
			in = !strncmp(line + 2, cmd, n) &&
			     (line[2 + n] == ' ' || !line[2 + n]);
			if (in)
				syn_form(syn), syn_words(syn, line);
		} else if (in && ind >= 4 && ind < 8) {
			syn_words(syn, line);
		}
		if (!s[len])
			break;
	}
}

/* The synopsis of `fsplan help CMD`: "usage: fsplan " and the first form
 * up to the blank line; a further form starts "fsplan ". */
static void syn_help(const char *text, char *syn)
{
	const char *s = text;

	syn[0] = '\0';
	cr_assert(!strncmp(s, "usage: fsplan ", 14), "%s", text);
	s += 14;
	syn_form(syn);
	while (*s && *s != '\n') {
		size_t len = strcspn(s, "\n");
		char line[512];
		const char *l = line;

		snprintf(line, sizeof(line), "%.*s", (int)len, s);
		l += strspn(l, " ");
		if (s != text + 14 && !strncmp(l, "fsplan ", 7)) {
			syn_form(syn);
			l += 7;
		}
		syn_words(syn, l);
		s += len + (s[len] == '\n');
	}
}

/* A man(7) line as it reads: .B/.I words, .RB/.IR/.BR... arguments run
 * together, "quotes" kept as one argument, \- \fB \& and the like
 * undone. */
static void man_line(const char *line, char *out, size_t len)
{
	int joined = line[0] == '.' && strlen(line) > 3 && line[3] == ' ' &&
		     strchr("BIR", line[1]) && strchr("BIR", line[2]);
	size_t n = 0;
	int quote = 0;

	if (line[0] == '.') {
		line += strcspn(line, " ");
		line += strspn(line, " ");
	}
	for (const char *p = line; *p && n + 1 < len; p++) {
		if (*p == '"') {
			quote = !quote;
		} else if (*p == ' ' && !quote && joined) {
			continue;
		} else if (*p == '\\' && p[1] == 'f' && p[2]) {
			p += 2;
		} else if (*p == '\\' && p[1] == '&') {
			p++;
		} else if (*p == '\\' && p[1]) {
			out[n++] = *++p;	/* \- \\ \  */
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
}

/* The synopsis of cmd in fsplan(1)'s SYNOPSIS: its forms, from
 * ".B fsplan CMD" to the next .PP. */
static void syn_man(const char *cmd, char *syn)
{
	const char *root = getenv("FSPLAN_ROOT");
	char path[4096], line[512], want[64], text[512];
	int in_syn = 0, in = 0;
	FILE *f;

	syn[0] = '\0';
	cr_assert_not_null(root, "FSPLAN_ROOT is not set (run through make)");
	snprintf(path, sizeof(path), "%s/man/fsplan.1", root);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	snprintf(want, sizeof(want), ".B fsplan %s", cmd);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, ".SH", 3)) {
			in_syn = !strcmp(line, ".SH SYNOPSIS");
			in = 0;
			continue;
		}
		if (!in_syn)
			continue;
		if (!strncmp(line, ".B fsplan ", 10)) {
			in = !strcmp(line, want);
			if (in) {
				syn_form(syn);
				syn_words(syn, cmd);
			}
			continue;
		}
		if (!strncmp(line, ".PP", 3))
			in = 0;
		else if (in) {
			man_line(line, text, sizeof(text));
			syn_words(syn, text);
		}
	}
	fclose(f);
}

/* Every "--format" choice list in syn, one per line. */
static void formats(const char *syn, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (const char *s = strstr(syn, "--format "); s;
	     s = strstr(s + 1, "--format ")) {
		size_t k = strcspn(s + 9, " ]\n");

		n += snprintf(out + n, len - n, "%.*s\n", (int)k, s + 9);
		if (n >= len)
			break;
	}
}

Test(cli, every_synopsis_is_the_same_in_help_overview_and_man_page)
{
	static char overview[65536];
	char names[32][32], a[MAX_SYN], b[MAX_SYN], c[MAX_SYN];
	char fa[512], fb[512], fc[512];
	const char *s;
	int n = 0;

	run(&o, (const char *[]){ "--help", NULL });
	cr_assert_eq(o.status, 0);
	snprintf(overview, sizeof(overview), "%s", o.so);
	/* the commands: the overview's table, each name once */
	s = strstr(overview, "\ncommands:\n");
	cr_assert_not_null(s, "%s", overview);
	for (s = strchr(s + 1, '\n') + 1; *s && *s != '\n' && n < 32;
	     s = strchr(s, '\n') + 1) {
		size_t k = strcspn(s + 2, " \n");
		int seen = 0;

		if (strspn(s, " ") == 2) {
			snprintf(names[n], sizeof(names[n]), "%.*s", (int)k,
				 s + 2);
			for (int i = 0; i < n; i++)
				seen |= !strcmp(names[i], names[n]);
			n += !seen;
		}
		if (!strchr(s, '\n'))
			break;
	}
	cr_assert_geq(n, 8, "%d commands in %s", n, overview);
	for (int i = 0; i < n; i++) {
		syn_overview(overview, names[i], a);
		run(&o, (const char *[]){ "help", names[i], NULL });
		cr_expect_eq(o.status, 0, "help %s: %s", names[i], o.se);
		syn_help(o.so, b);
		syn_man(names[i], c);
		formats(a, fa, sizeof(fa));
		formats(b, fb, sizeof(fb));
		formats(c, fc, sizeof(fc));
		cr_expect_str_eq(fa, fb, "%s --format: --help\n%s\nhelp %s\n%s",
				 names[i], fa, names[i], fb);
		cr_expect_str_eq(fb, fc, "%s --format: help\n%s\nfsplan(1)\n%s",
				 names[i], fb, fc);
		cr_expect_str_eq(a, b, "%s: --help\n%s\nhelp %s\n%s",
				 names[i], a, names[i], b);
		cr_expect_str_eq(b, c, "%s: help\n%s\nfsplan(1)\n%s",
				 names[i], b, c);
	}
}
