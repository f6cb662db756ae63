/* runlog: append timestamped lines to a run's log.txt, one write each. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "run/runlog.h"
#include "util/strbuf.h"

static int log_fd = -1;
static int log_echo;

int runlog_open(const char *path, int echo)
{
	log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
		      O_CLOEXEC, 0644);
	log_echo = echo;
	return log_fd < 0 ? -errno : 0;
}

int runlog_fd(void)
{
	return log_fd;
}

/* A line's stamp, "YYYY-mm-dd HH:MM:SS.mmm ": 24 characters. */
#define STAMP_LEN 24

void runlog(const char *fmt, ...)
{
	static const char lost[] = "(a line of the log: out of memory)";
	struct strbuf line = { 0 };
	char stamp[STAMP_LEN + 8], fallback[STAMP_LEN + sizeof(lost) + 8];
	struct timeval tv;
	struct tm tm;
	const char *text;
	size_t n;
	va_list ap;
	ssize_t w;

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	n = strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(stamp + n, sizeof(stamp) - n, ".%03d ",
		 (int)(tv.tv_usec / 1000));
	strbuf_str(&line, stamp);
	/* a line holds whatever it names whole: a cell id is the plan's */
	va_start(ap, fmt);
	strbuf_vprintf(&line, fmt, ap);
	va_end(ap);
	strbuf_str(&line, "\n");
	text = line.p;
	n = line.len;
	if (line.oom) {
		snprintf(fallback, sizeof(fallback), "%s%s\n", stamp, lost);
		text = fallback;
		n = strlen(fallback);
	}
	w = log_fd >= 0 ? write(log_fd, text, n) : (ssize_t)n;
	if (w != (ssize_t)n) {
		/* a full disk, say: the log stops, and the user hears why */
		fprintf(stderr, "fsplan: log.txt: %s: no more is logged\n",
			strerror(w < 0 ? errno : ENOSPC));
		log_fd = -1;
	}
	/* over the progress line, which the next tick draws again */
	if (log_echo && n > STAMP_LEN && isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
	if (log_echo && n > STAMP_LEN)
		fwrite(text + STAMP_LEN, 1, n - STAMP_LEN, stderr);
	free(line.p);
}

void runlog_close(void)
{
	if (log_fd >= 0) {
		/* at the end, with nowhere left to say it: the log is the
		 * one file of the run whose tail may be lost to a crash */
		(void)fdatasync(log_fd);
		close(log_fd);
	}
	log_fd = -1;
}
