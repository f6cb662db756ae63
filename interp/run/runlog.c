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

void runlog(const char *fmt, ...)
{
	char stamp[64];
	struct strbuf b = { 0 };
	struct timeval tv;
	struct tm tm;
	va_list ap;
	const char *line;
	ssize_t w;
	int n;

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	/* a line as long as what it says (a phase's whole reason) */
	strbuf_printf(&b, "%s.%03d ", stamp, (int)(tv.tv_usec / 1000));
	va_start(ap, fmt);
	strbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	strbuf_str(&b, "\n");
	line = b.oom ? "(out of memory writing a line of the log)\n" : b.p;
	n = (int)strlen(line);
	w = log_fd >= 0 ? write(log_fd, line, n) : n;
	if (w != n) {
		/* a full disk, say: the log stops, and the user hears why */
		fprintf(stderr, "fsplan: log.txt: %s: no more is logged\n",
			strerror(w < 0 ? errno : ENOSPC));
		log_fd = -1;
	}
	if (log_echo && !b.oom)
		fprintf(stderr, "%.*s", n - 24, line + 24);
	free(b.p);
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
