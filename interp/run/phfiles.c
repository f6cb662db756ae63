/* phfiles: a phase's files: — checked beside the plan, put into its work
 * directory read-only for runas, and the commands that name others. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/phfiles.h"
#include "util/file.h"
#include "util/sha256.h"
#include "util/strbuf.h"

int phfiles_path(const struct plan *p, const char *f, char *path,
		 size_t len)
{
	int n = snprintf(path, len, "%s/%s", p->dir, f);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Whether f is a regular file under the plan's directory: "" or why not
 * (why, len bytes). */
static void judge(const struct plan *p, const char *f, char *why,
		  size_t len)
{
	char path[PATH_MAX], *real = NULL;
	size_t dl = strlen(p->dir);
	struct stat st;

	*why = '\0';
	if (phfiles_path(p, f, path, sizeof(path)))
		snprintf(why, len, "its path is too long");
	else if (!(real = realpath(path, NULL)))
		snprintf(why, len, "%s", strerror(errno));
	else if (strncmp(real, p->dir, dl) ||
		 (real[dl] != '/' && strcmp(p->dir, "/")))
		snprintf(why, len, "it leads outside the plan's directory, to "
			 "%s", real);
	else if (stat(real, &st))
		snprintf(why, len, "%s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(why, len, "it is not a regular file");
	else if ((unsigned long long)st.st_size > PHFILES_MAX)
		snprintf(why, len, "it holds %lld bytes, more than the 64 MiB "
			 "a file of files: may", (long long)st.st_size);
	free(real);
}

int phfiles_check(const struct plan *p, struct diag *d)
{
	char why[PATH_MAX + 80], path[PATH_MAX];

	for (int i = 0; i < p->n_phases; i++) {
		struct plan_phase *ph = &p->phases[i];

		if (!ph->n_files)
			continue;
		free(ph->files_sha);
		ph->files_sha = calloc(ph->n_files, sizeof(*ph->files_sha));
		if (!ph->files_sha)
			return diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
		for (int k = 0; k < ph->n_files; k++) {
			const struct pstr *f = &ph->files[k];

			judge(p, f->s, why, sizeof(why));
			if (!*why && (phfiles_path(p, f->s, path, sizeof(path))
				      || sha256_file(path, ph->files_sha[k])))
				snprintf(why, sizeof(why), "cannot read it");
			if (*why)
				return diag_set(d, p->file, p->text, f->pos,
						"files: %s beside the plan (%s): "
						"%s", f->s, p->dir, why);
		}
	}
	return 0;
}

/* The directory of work/f's last part, made as needed (owned by who),
 * each part opened without following a link: its fd, or -errno. *name
 * gets f's last part. */
static int open_parent(const char *work, const char *f, const char **name,
		       const struct runas *who)
{
	int dfd = open(work, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;
	char part[NAME_MAX + 1];
	size_t len;

	if (dfd < 0)
		return -errno;
	while ((len = strcspn(f, "/")) && f[len] == '/') {
		snprintf(part, sizeof(part), "%.*s", (int)len, f);
		if (!mkdirat(dfd, part, 0755) &&
		    fchownat(dfd, part, who->uid, who->gid,
			     AT_SYMLINK_NOFOLLOW)) {
			close(dfd);
			return -errno;
		}
		fd = openat(dfd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
		close(dfd);
		if (fd < 0)
			return -errno;
		dfd = fd;
		f += len + 1;
	}
	*name = f;
	return dfd;
}

/* text (len bytes) as work/f, 0444, who's. 0 or -errno. */
static int put_one(const char *work, const char *f, const char *text,
		   size_t len, const struct runas *who)
{
	const char *name = NULL;
	int dfd = open_parent(work, f, &name, who), fd, err = 0;

	if (dfd < 0)
		return dfd;
	if (unlinkat(dfd, name, 0) && errno != ENOENT) {
		close(dfd);
		return -errno;
	}
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0444);
	if (fd < 0)
		err = -errno;
	else
		err = file_write_all(fd, text, len, NULL);
	if (!err && (fchown(fd, who->uid, who->gid) || fchmod(fd, 0444)))
		err = -errno;
	if (fd >= 0 && close(fd) && !err)
		err = -errno;
	close(dfd);
	return err;
}

int phfiles_put(const struct plan *p, const struct plan_phase *ph,
		const char *work, const struct runas *who, struct diag *d)
{
	char path[PATH_MAX], sha[65], *text;
	size_t len;
	int fd, more, err;

	for (int i = 0; i < ph->n_files; i++) {
		const char *f = ph->files[i].s;

		if (phfiles_path(p, f, path, sizeof(path)))
			return diag_fail(d, DIAG_INPUT, 0, "files: %s: its "
					 "path is too long", f);
		fd = file_open_regular(path);
		if (fd < 0)
			return diag_fail(d, DIAG_INPUT, 0, "files: %s: %s", path,
					 strerror(-fd));
		text = file_read_all(fd, PHFILES_MAX, &len, &more);
		err = text ? 0 : errno;
		close(fd);
		if (!text || more) {
			free(text);
			return diag_fail(d, DIAG_INPUT, 0, "files: %s: %s",
					 path, more ? "more than 64 MiB" :
					 strerror(err));
		}
		sha256_hex(text, len, sha);
		if (ph->files_sha && strcmp(sha, ph->files_sha[i])) {
			free(text);
			return diag_fail(d, DIAG_INPUT, 0, "files: %s changed "
					 "since the run started (sha256 %s "
					 "then, %s now): not put", path,
					 ph->files_sha[i], sha);
		}
		err = put_one(work, f, text, len, who);
		free(text);
		if (err)
			return diag_fail(d, DIAG_SYSTEM, 0, "files: %s into the "
					 "work directory: %s", f,
					 strerror(-err));
	}
	return 0;
}

/* Whether f is among ph's files:. */
static int listed(const struct plan_phase *ph, const char *f)
{
	for (int i = 0; i < ph->n_files; i++)
		if (!strcmp(ph->files[i].s, f))
			return 1;
	return 0;
}

/* Whether word (quotes taken off, or what follows an option's '=') is a
 * file beside the plan that ph's files: leave out: warned of. */
static int warn_word(const struct plan *p, const struct plan_phase *ph,
		     const char *word, size_t len, struct strbuf *said)
{
	char w[PATH_MAX], path[PATH_MAX];
	struct stat st;
	struct diag d;

	if (len && (*word == '\'' || *word == '"'))
		word++, len--;
	if (len && (word[len - 1] == '\'' || word[len - 1] == '"'))
		len--;
	if (!len || len >= sizeof(w))
		return 0;
	snprintf(w, sizeof(w), "%.*s", (int)len, word);
	if (*w == '-' && strchr(w, '='))
		memmove(w, strchr(w, '=') + 1, strlen(strchr(w, '=') + 1) + 1);
	while (!strncmp(w, "./", 2))	/* as files: writes it */
		memmove(w, w + 2, strlen(w + 2) + 1);
	if (!*w || *w == '/' || *w == '-' || strstr(w, "${") ||
	    listed(ph, w) || phfiles_path(p, w, path, sizeof(path)) ||
	    stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	/* once a phase: "\nWORD\n" in said */
	for (const char *at = said->p; at && (at = strstr(at, w)); at++)
		if (at[-1] == '\n' && at[strlen(w)] == '\n')
			return 0;
	strbuf_printf(said, "%s%s\n", said->len ? "" : "\n", w);
	diag_set(&d, p->file, p->text, ph->exec.pos, "warning: phase %s "
		 "names %s, a file beside the plan that its files: leave out: "
		 "the phase runs as %s in the filesystem under test, which "
		 "has it only if listed (add files: [%s])", ph->name, w,
		 p->runas, w);
	diag_print(&d);
	return 1;
}

int phfiles_warn(const struct plan *p)
{
	int n = 0;

	for (int i = 0; i < p->n_phases; i++) {
		const struct plan_phase *ph = &p->phases[i];
		const char *s = ph->exec.s;
		struct strbuf said = { 0 };

		while (s && *s) {
			size_t len;

			s += strspn(s, " \t\n;|&<>()");
			len = strcspn(s, " \t\n;|&<>()");
			n += warn_word(p, ph, s, len, &said);
			s += len;
		}
		free(said.p);
	}
	return n;
}
