/* devword: the words of mkfs and mount options that would name a device. */
#ifndef FSPLAN_DEVWORD_H
#define FSPLAN_DEVWORD_H

#include <stddef.h>

#include "util/diag.h"

/*
 * A rule says whether one candidate of an option string names a device:
 * cand is a whole word, an item of a comma list, the argument glued to a
 * short option (-d/dev/x) or the value after key= (key is then the key,
 * else NULL). 1 with d saying why ("is a path under /dev", a refusal),
 * 0 it does not.
 */
typedef int (*devword_rule)(void *ctx, const char *cand, const char *key,
			    struct diag *d);

/*
 * The text rule, which reads no host state: a path under /dev (however
 * written: //dev/x, /./dev/x), or the value of an option that names a
 * device of its own (xfs logdev=, rtdev= and mkfs's name=, ext4 mkfs
 * -J device= and mount journal_path= and journal_dev=, btrfs device=).
 */
int devword_text(void *ctx, const char *cand, const char *key,
		 struct diag *d);

/* The refusal: mkfs or mount, the word, where ${...} made it ("" when
 * written so), why. */
#define DEVWORD_REFUSED "%s option '%s'%s %s: mkfs and mount options " \
			"may name no device, fsplan guards only the target " \
			"(see OPTIONS THAT NAME A DEVICE in fsplan-plan(5))"

/* What named a device: the word (key=value for a key's), where it
 * starts in the option string, and why (the rule's refusal: why.msg). */
struct devword {
	char *word;		/* malloc'd; devword_free */
	size_t off;
	struct diag why;
};

/*
 * Look through opts, mkfs options (words as the shell splits them) or
 * mount options (mount: one comma list), for the first candidate rule
 * says names a device: 1 with w filled, 0 none, -1 out of memory.
 */
int devword_find(const char *opts, int mount, devword_rule rule, void *ctx,
		 struct devword *w);
void devword_free(struct devword *w);

#endif
