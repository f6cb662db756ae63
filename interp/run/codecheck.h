/* codecheck: the files a run's code is made of, with their sha256s — recorded
 * when the run starts, checked when it resumes. */
#ifndef FSPLAN_CODECHECK_H
#define FSPLAN_CODECHECK_H

#include <jansson.h>

#include "cells/expand.h"
#include "util/diag.h"

/*
 * What the phases of e's selected cells run and read, for manifest.json's
 * "code": an array of {"kind", "path", "sha256"} — each phase module
 * (kind "module") as the run's start read it (libsrc_keep: what every
 * phase run runs), the phase library as libsrc_load read it (a "module",
 * an "exec script" of exec/, a "parser" of parse/) when a phase uses it,
 * and each file a Lua phase's with: or matrix value names ("input", as
 * ctx.input reads it). NULL when out of memory.
 */
json_t *codecheck_json(const struct expansion *e);

/*
 * --resume of dir: 0 when every file its manifest's "code" records is
 * the same now (a manifest without "code" records none), else -1 with d
 * naming the first that is not: "module PATH changed since the run
 * started: sha256 AAA in the manifest, BBB now", or that it is gone, or
 * that one is there that was not.
 */
int codecheck_resume(const struct expansion *e, const char *dir,
		     struct diag *d);

#endif
