/* progress: the run's one progress line on stderr, and its ETA. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "run/progress.h"
#include "run/run.h"
#include "util/clock.h"

int progress_columns(void)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	char *end;
	long n;

	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	if (env && *env) {
		n = strtol(env, &end, 10);
		if (!*end && n > 0 && n < 10000)
			return (int)n;
	}
	return 80;
}

/* "MM:SS", or "H:MM:SS" from an hour on. */
static void clock_text(char *buf, size_t len, double s)
{
	long t = s > 0 ? (long)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60,
			 t % 60);
	else
		snprintf(buf, len, "%02ld:%02ld", t / 60, t % 60);
}

/* Whether byte b starts a character (not a UTF-8 continuation). */
static int starts_char(unsigned char b)
{
	return (b & 0xc0) != 0x80;
}

/* The first n bytes of s, or fewer so as not to split a character. */
static size_t whole_chars(const char *s, size_t n)
{
	size_t len = strlen(s);

	if (n >= len)
		return len;
	while (n && !starts_char((unsigned char)s[n]))
		n--;
	return n;
}

void progress_format(char *buf, size_t len, int cols, size_t n, size_t of,
		     const char *id, double elapsed, double eta,
		     size_t unknown)
{
	char head[48], tail[96], el[24], left[24];
	size_t room = cols > 1 ? (size_t)cols - 1 : 1, fixed, idlen, a, b;

	snprintf(head, sizeof(head), "[%zu/%zu] ", n, of);
	clock_text(el, sizeof(el), elapsed);
	clock_text(left, sizeof(left), eta);
	if (eta < 0 || (unknown && unknown == of - n + 1))
		snprintf(tail, sizeof(tail), "  %s elapsed", el);
	else
		snprintf(tail, sizeof(tail), "  %s elapsed, ETA %s%s", el,
			 left, unknown ? "+" : "");
	fixed = strlen(head) + strlen(tail);
	idlen = strlen(id);
	if (fixed + idlen <= room) {
		snprintf(buf, len, "%s%s%s", head, id, tail);
	} else if (fixed + 12 <= room) {
		/* the id's start (its config) and end (its phase) */
		a = whole_chars(id, (room - fixed - 3) / 2);
		b = room - fixed - 3 - a;
		while (b && !starts_char((unsigned char)id[idlen - b]))
			b--;
		snprintf(buf, len, "%s%.*s...%s%s", head, (int)a, id,
			 id + idlen - b, tail);
	} else {
		snprintf(buf, len, "%s%s%s", head, id, tail);
	}
	/* on a terminal narrower still: the line's end goes */
	buf[whole_chars(buf, room < len ? room : len - 1)] = '\0';
}

/* The line of c, naming what (c's id when NULL). */
static void show(struct run *r, const struct cell *c, int tick,
		 const char *what)
{
	int tty = isatty(STDERR_FILENO);
	double now = clock_now(), eta;
	size_t unknown;
	char line[512];

	if (!r->progress || !c || (tick && !tty))
		return;
	eta = eta_left(&r->eta, r->e, r->done, c, now,
		       &unknown);
	progress_format(line, sizeof(line), tty ? progress_columns() : 1000,
			r->n_run + 1, r->n_todo, what ? what : c->id,
			now - r->t_start, eta, unknown);
	if (tty)
		fprintf(stderr, "\r%s\033[K", line);
	else
		fprintf(stderr, "%s\n", line);
	fflush(stderr);
}

void progress_show(struct run *r, const struct cell *c, int tick)
{
	show(r, c, tick, NULL);
}

void progress_making(struct run *r, const struct cell *c,
		     const char *config)
{
	char what[256];

	snprintf(what, sizeof(what), "making %s", config);
	show(r, c, 0, what);
}

void progress_clear(const struct run *r)
{
	if (r->progress && isatty(STDERR_FILENO)) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}
