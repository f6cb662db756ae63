/* libsrc: the phase library: where it is, its sources read once by root. */
#ifndef FSPLAN_LIBSRC_H
#define FSPLAN_LIBSRC_H

#include <stddef.h>

/* A library file larger than this is left to be read from disk. */
#define LIBSRC_MAX (4u << 20)

/*
 * The directory phase modules and parsers are loaded from, absolute:
 * $FSPLAN_LIB, else lua/ beside the binary (a build tree runs its own
 * library), else the installed FSPLAN_DATADIR/lua. Found once.
 */
const char *libsrc_dir(void);

/*
 * Read every .lua file of libdir and libdir/parse, and every .sh file of
 * libdir/exec (the scripts of exec modules, phase.h), into memory (once:
 * later calls do nothing), before the phase children fork, so require()
 * and the parsers work in a child whose runas cannot reach the library
 * (a checkout in a 0700 home). 0, or -1 with errno.
 */
int libsrc_load(const char *libdir);

/* The text read for this path (as libsrc_load built it), or NULL. */
const char *libsrc_get(const char *path, size_t *len);

/*
 * Keep path's text too (a phase module beside the plan), so that every
 * phase run of the run runs the text its start read, whatever happens to
 * the file later. 0, or -1 with errno (then it is read when it runs).
 */
int libsrc_keep(const char *path);

/* Whether path was read at the start or is a regular file: 1 or 0. */
int libsrc_exists(const char *path);

/*
 * The path of an exec module's script name (phase.h): exec/name beside
 * module when the module is not the library's and that file is there (a
 * module beside the plan brings its own script), else the library's
 * exec/name. malloc'd; NULL out of memory.
 */
char *libsrc_exec_path(const char *module, const char *name);

/* fn for every file libsrc_load and libsrc_keep read: its path and text, in the order
 * read. */
void libsrc_each(void (*fn)(void *ctx, const char *path, const char *text,
			    size_t len), void *ctx);

void libsrc_free(void);

#endif
