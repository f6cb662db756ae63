/* packfiles: what pack and rerun share — the files a manifest names. */
#ifndef FSPLAN_PACKFILES_H
#define FSPLAN_PACKFILES_H

#include <jansson.h>
#include <stddef.h>

#include "util/diag.h"

/* One file of a run's code: where it was, its place under files/ (or a
 * work directory), its sha256 as the manifest recorded it, its kind. */
struct packfile {
	const char *path;	/* absolute, as the manifest has it */
	char *rel;		/* "plan/REL", "lib/REL" or "abs/PATH" */
	const char *sha;
	const char *kind;
};

struct packlist {
	struct packfile *f;
	size_t n;
	char root[4096];	/* the plan's tree: its directory, or the
				 * one above that holds its modules too */
	const char *plan_rel;	/* the plan's rel among f, or NULL */
};

/*
 * The plan and every file of man's code list, each given its place
 * (under plan/ when in root, under lib/ when in libdir, else abs/).
 * The strings point into man, which must outlive l. 0, or -1 with d.
 */
int packfiles_list(json_t *man, const char *libdir, struct packlist *l,
		   struct diag *d);
/* The phase library the run read, from man's code list (the folder of
 * its fsplan.lua, or above a parser's parse/) into buf: 0, or -1 when
 * the run read none. */
int packfiles_libdir(json_t *man, char *buf, size_t len);
void packfiles_free(struct packlist *l);

/*
 * Copy src (a regular file, never through a link) to dir/rel, making the
 * folders between, checking its sha256 against f's: a different one is
 * refused with the file's name. 0, or -1 with d.
 */
int packfiles_copy(const struct packfile *f, const char *src,
		   const char *dir, struct diag *d);

/* mkdir -p of dir/rel's folders. 0, or -1 with errno. */
int packfiles_mkdirs(const char *dir, const char *rel);

/* Remove the tree at dir (links as links, never followed). */
void packfiles_rmtree(const char *dir);

/* Run argv (a program by path or PATH) with env added when not NULL,
 * its stdout to out_fd unless < 0; its exit status, or -1. */
int packfiles_spawn(const char *const *argv, const char *env, int out_fd);

#endif
