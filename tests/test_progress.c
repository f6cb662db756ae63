/* test_progress: the run's progress line — one line at the terminal's
 * width, redrawn in place — and its ETA from the measured phase runs. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"
#include "cells/expand.h"
#include "plan/plan.h"
#include "run/eta.h"
#include "run/progress.h"

static void fini(void)
{
	e2e_cleanup();
}

Test(progress, long_id_cut_in_the_middle)
{
	char id[200], line[512];

	memset(id, 'x', sizeof(id) - 1);
	id[sizeof(id) - 1] = '\0';
	memcpy(id, "ext4:-b 4096", 12);
	memcpy(id + sizeof(id) - 10, "/write#12", 9);
	progress_format(line, sizeof(line), 80, 3, 12, id, 75, 261, 0);
	cr_expect_leq(strlen(line), 79, "%zu: %s", strlen(line), line);
	cr_expect(strstr(line, "[3/12] ext4:-b 4096"), "%s", line);
	cr_expect(strstr(line, "...x"), "%s", line);
	cr_expect(strstr(line, "/write#12  01:15 elapsed, ETA 04:21"), "%s",
		  line);
	/* a narrow terminal: the line's end goes, never past the width */
	progress_format(line, sizeof(line), 20, 3, 12, id, 75, 261, 0);
	cr_expect_eq(strlen(line), 19, "%s", line);
	progress_format(line, sizeof(line), 80, 1, 2, "a/b#1", 3, -1, 2);
	cr_expect_str_eq(line, "[1/2] a/b#1  00:03 elapsed");
	progress_format(line, sizeof(line), 80, 1, 2, "a/b#1", 3725, 10, 0);
	cr_expect_str_eq(line, "[1/2] a/b#1  1:02:05 elapsed, ETA 00:10");
}

static int plan_of(const char *text, struct plan **p, struct expansion **e)
{
	struct diag d = { 0 };
	char *path = e2e_write(e2e_tmpdir(), "plan.yaml", text);

	if (plan_load(p, path, NULL, 0, &d) || expand_plan(*p, e, &d)) {
		cr_log_error("%s", d.msg);
		return -1;
	}
	return 0;
}

/* The ETA is per phase and parameters: a long phase's runs predict its
 * own later runs, not a short one's; a running cell counts down and is
 * not estimated anew while it runs. */
Test(progress, eta_per_phase_and_params, .fini = fini)
{
	struct plan *p = NULL;
	struct expansion *e = NULL;
	unsigned char done[16] = { 0 };
	struct eta t;
	size_t unk;
	double left;

	cr_assert_eq(plan_of("fsplan: 1\n"
			     "filesystems: [{type: ext4}, {type: xfs}]\n"
			     "phases:\n"
			     "  - {name: short, exec: 'true'}\n"
			     "  - {name: long, exec: 'sleep ${s}',"
			     " matrix: {s: [1, 2]}}\n", &p, &e), 0);
	cr_assert_eq(e->n_cells, 6);
	cr_assert_eq(eta_init(&t, e, 0), 0);
	cr_expect_lt(eta_expect(&t, &e->cells[0]), 0, "nothing known yet");
	/* config 1: short 1 s, long s=1 100 s, long s=2 200 s */
	eta_done(&t, &e->cells[0], 1, 1);
	eta_done(&t, &e->cells[1], 1, 101);
	eta_done(&t, &e->cells[2], 1, 301);
	for (int i = 0; i < 3; i++)
		done[i] = 1;
	left = eta_left(&t, e, done, &e->cells[3], 301, &unk);
	cr_expect_eq(unk, 0);
	cr_expect_float_eq(left, 301, 1e-9, "%g", left);
	/* 150 s into config 2's long s=1... */
	done[3] = 1;
	eta_done(&t, &e->cells[3], 1, 302);
	left = eta_left(&t, e, done, &e->cells[4], 302 + 150, &unk);
	/* its 100 s are spent: 0 left of it, never below; s=2's 200 */
	cr_expect_float_eq(left, 200, 1e-9, "%g", left);
	left = eta_left(&t, e, done, &e->cells[4], 302 + 50, &unk);
	cr_expect_float_eq(left, 250, 1e-9, "%g", left);
	eta_free(&t);
	expansion_free(e);
	plan_free(p);
}

/* Everything fsplan wrote to the pty, until it exited. */
static size_t drain(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len) {
		r = read(fd, buf + n, len - 1 - n);
		if (r > 0)
			n += (size_t)r;
		else if (r < 0 && errno == EINTR)
			continue;
		else
			break;	/* EIO: the child side is closed */
	}
	buf[n] = '\0';
	return n;
}

/* A run on an 80-column terminal with cell ids longer than that: no line
 * between \r and \n is wider than 80, and the progress line is drawn
 * again over itself (\r, erase to the end of the line), not wrapped. */
Test(progress, pty_80_columns, .fini = fini, .timeout = 120)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	static char out[1 << 16];
	const char *bin = getenv("FSPLAN_BIN"), *dir;
	char plan[512], rd[512], text[1024];
	int fd, status, draws = 0, wide = 0;
	pid_t pid;

	e2e_require_root();
	cr_assert_not_null(bin);
	dir = e2e_tmpdir();
	snprintf(text, sizeof(text), "fsplan: 1\nname: pty\n"
		 "between: none\n"
		 "filesystems:\n"
		 "  - {type: tmpfs, mount: 'size=64M,nr_inodes=20000,"
		 "mode=0755,huge=never,noatime,nodiratime,nosuid'}\n"
		 "phases:\n"
		 "  - name: a_phase_with_a_rather_long_name_indeed\n"
		 "    exec: 'sleep ${t}'\n"
		 "    matrix: {t: [2.5, 0.2]}\n");
	snprintf(plan, sizeof(plan), "%s", e2e_write(dir, "plan.yaml", text));
	snprintf(rd, sizeof(rd), "%s/run", dir);
	pid = forkpty(&fd, NULL, NULL, &ws);
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		unsetenv("COLUMNS");
		execl(bin, bin, "run", plan, "-o", rd, (char *)NULL);
		_exit(127);
	}
	drain(fd, out, sizeof(out));
	close(fd);
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "fsplan run: %#x: %s", status, out);
	for (char *s = out, *end; *s; s = *end ? end + 1 : end) {
		char seg[4096];
		size_t len;

		end = s + strcspn(s, "\r\n");
		len = (size_t)(end - s);
		snprintf(seg, sizeof(seg), "%.*s", (int)len, s);
		if (!strncmp(seg, "\033[K", 3))
			memmove(seg, seg + 3, strlen(seg + 3) + 1);
		if (strstr(seg, "\033[K"))
			len = (size_t)(strstr(seg, "\033[K") - seg);
		else
			len = strlen(seg);
		/* the summary names the run directory: a line of its own */
		if (!strncmp(seg, "fsplan: ", 8))
			continue;
		wide += len > 80;
		if (seg[0] == '[') {
			draws++;
			cr_expect(s > out && s[-1] == '\r', "not redrawn in "
				  "place: %s", seg);
			cr_expect(strstr(seg, "elapsed"), "%s", seg);
		}
	}
	cr_expect_eq(wide, 0, "%d lines wider than 80:\n%s", wide, out);
	/* the 2.5 s cell's line, redrawn each second */
	cr_expect_geq(draws, 3, "%d draws:\n%s", draws, out);
	cr_expect(strstr(out, "ETA"), "no ETA after the first cell:\n%s", out);
	cr_expect(strstr(out, "..."), "the long id not cut:\n%s", out);
	/* mkfs and mount are no phase: the line says the config is made */
	cr_expect(strstr(out, "] making tmpfs"), "%s", out);
}
