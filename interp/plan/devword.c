/* devword: the words of mkfs and mount options that would name a device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/devword.h"
#include "util/words.h"

/* Options whose value is a device of its own: an external log or
 * journal, a realtime section, a btrfs member. */
static const char *const device_keys[] = {
	"logdev", "rtdev",		/* xfs: mkfs -l/-r and mount */
	"name",				/* xfs: mkfs -d/-l/-r name= */
	"device",			/* ext4 mkfs -J device=, btrfs mount */
	"journal_path", "journal_dev",	/* ext4 mount */
	NULL
};

/* Whether the absolute path p is /dev or under it, by its text: the
 * slashes doubled, . and .. (at the root, .. is the root) skipped. */
static int under_dev(const char *p)
{
	if (*p != '/')
		return 0;
	for (;;) {
		while (*p == '/')
			p++;
		if (p[0] == '.' && (p[1] == '/' || !p[1]))
			p++;
		else if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]))
			p += 2;
		else
			break;
	}
	return !strncmp(p, "dev", 3) && (p[3] == '/' || !p[3]);
}

int devword_text(void *ctx, const char *cand, const char *key,
		 struct diag *d)
{
	(void)ctx;
	for (int i = 0; key && device_keys[i]; i++)
		if (!strcmp(key, device_keys[i])) {
			diag_fail(d, DIAG_REFUSED, 0, "names a device of its "
				  "own (%s=)", key);
			return 1;
		}
	if (!under_dev(cand))
		return 0;
	diag_fail(d, DIAG_REFUSED, 0, "is a path under /dev");
	return 1;
}

struct devword_scan {
	devword_rule rule;
	void *ctx;
	int mount;
	struct devword *w;
};

static int found(struct devword_scan *s, char *word, size_t off)
{
	s->w->word = word;
	s->w->off = off;
	return 1;
}

/* One candidate: the item as a whole, then (split) the value of its
 * key=value (a mount value in double quotes as the kernel's option
 * parser takes it: without them). */
static int item(struct devword_scan *s, const char *text, size_t n, size_t off,
		int split)
{
	struct devword *w = s->w;
	char *it = strndup(text, n), *eq, *v;
	size_t vl;

	if (!it)
		return -1;
	if (s->rule(s->ctx, it, NULL, &w->why))
		return found(s, it, off);
	eq = split ? strchr(it, '=') : NULL;
	if (eq) {
		*eq = '\0';
		v = eq + 1;
		vl = strlen(v);
		if (s->mount && vl >= 2 && v[0] == '"' && v[vl - 1] == '"') {
			v[vl - 1] = '\0';
			v++;
		}
		if (s->rule(s->ctx, v, it, &w->why)) {
			free(it);
			it = strndup(text, n);
			return it ? found(s, it, off) : -1;
		}
	}
	free(it);
	return 0;
}

/* A word at off: itself when it is a comma list, then each item. */
static int comma_list(struct devword_scan *s, const char *text, size_t off)
{
	const char *it = text;
	int rc;

	if (strchr(text, ',') &&
	    (rc = item(s, text, strlen(text), off, 0)))
		return rc;
	for (;;) {
		size_t n = strcspn(it, ",");

		if (n && (rc = item(s, it, n, off + (size_t)(it - text), 1)))
			return rc;
		if (!it[n])
			return 0;
		it += n + 1;
	}
}

int devword_find(const char *opts, int mount, devword_rule rule, void *ctx,
		 struct devword *w)
{
	struct devword_scan s = { rule, ctx, mount, w };
	const size_t *at;
	char **words;
	int rc = 0;

	w->word = NULL;
	w->off = 0;
	memset(&w->why, 0, sizeof(w->why));
	/* mount(2) gets the options as written: one comma list */
	if (mount)
		return comma_list(&s, opts, 0);
	words = words_split(opts, NULL, &at);
	if (!words)
		return -1;
	for (int i = 0; !rc && words[i]; i++) {
		const char *v = words[i];

		rc = comma_list(&s, v, at[i]);
		/* what getopt takes glued to a short option: -d/dev/x */
		if (!rc && v[0] == '-' && v[1] && v[1] != '-' && v[2])
			rc = comma_list(&s, v + 2, at[i] + 2);
	}
	free(words);
	return rc;
}

void devword_free(struct devword *w)
{
	free(w->word);
	w->word = NULL;
	diag_release(&w->why);
}
