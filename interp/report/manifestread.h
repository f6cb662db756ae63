/* manifestread: what report, compare and merge read of a run's manifest.json.
 */
#ifndef FSPLAN_MFREAD_H
#define FSPLAN_MFREAD_H

#include <jansson.h>

#include "util/strbuf.h"

/* The value at a dotted path of o ("system.kernel"), or NULL; the
 * string there ("plan.sha256"), or dflt. */
json_t *manifestread_get(json_t *o, const char *path);
const char *manifestread_str(json_t *o, const char *path, const char *dflt);

/* The key of phase as the manifest's phases record it, into names
 * (NULL-ended, borrowed from phases; at most max); how many, 0 when none. */
int manifestread_key(json_t *phases, const char *phase, const char **names,
	       int max);

/* Whether o, a phase of the manifest's phases, uses the library module
 * name ("tiobench", or a path ending in /tiobench.lua); the same of the
 * phase named phase. */
int manifestread_uses(json_t *o, const char *name);
int manifestread_phase_uses(json_t *phases, const char *phase, const char *name);

/* The value phase gives key in its with: (as the manifest's phases record
 * it), or NULL: also when it is a ${name} left for the parameters, which
 * a cell's rows say better. Borrowed from phases. */
const char *manifestread_with(json_t *phases, const char *phase, const char *key);
/* Whether phase's with: gives key at all (a ${name} too). */
int manifestread_gives(json_t *phases, const char *phase, const char *key);

/* What the run measured on, in a line for the reader: "loop
 * images of 512 MiB, read and written by direct I/O (...)", the
 * configs whose images were buffered named; "device /dev/sdb";
 * "directory /mnt/x", appended to out; nothing when the manifest does
 * not say. */
void manifestread_target(json_t *m, struct strbuf *out);

/* What mkfs made of config conf (its mkfs_applied) in short, "key=value"
 * words: ext's features, inode and block size, journal; xfs's isize,
 * bsize, agcount, log; btrfs's nodesize, sectorsize, csum, incompat
 * flags; appended to out; nothing when the manifest has none. */
void manifestread_mkfs_applied(json_t *conf, struct strbuf *out);

/* The plan's parameters after -D (plan.params of manifest m) as
 * "k=v k=v", or "(none)", appended to out. */
void manifestread_params(json_t *m, struct strbuf *out);

/* Whether manifests a and b record the same parameters. */
int manifestread_same_params(json_t *a, json_t *b);

#endif
