/* mountopts: requested mount words against those the kernel applied. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mountopts.h"
#include "util/units.h"

/* Words that ask for what a mount has anyway, or cannot be seen. */
static const char *const silent_words[] = {
	"", "defaults", "rw", "async", "suid", "dev", "exec", "atime",
	"diratime", "nomand", "loud", "silent", "norelatime",
	"nostrictatime", "nolazytime", "auto", "noauto", "user", "nouser",
};

/* s split at any of seps into a NULL-terminated vector, one allocation
 * (free() it), or NULL out of memory. */
static char **split(const char *s, const char *seps)
{
	size_t n = 2, len = strlen(s ? s : "");
	char **v, *c, *save = NULL;

	for (size_t i = 0; i < len; i++)
		n += strchr(seps, s[i]) != NULL;
	v = malloc(n * sizeof(*v) + len + 1);
	if (!v)
		return NULL;
	c = memcpy((char *)(v + n), s ? s : "", len + 1);
	n = 0;
	for (char *t = strtok_r(c, seps, &save); t;
	     t = strtok_r(NULL, seps, &save))
		v[n++] = t;
	v[n] = NULL;
	return v;
}

static int has(char **v, const char *w)
{
	for (; *v; v++)
		if (!strcmp(*v, w))
			return 1;
	return 0;
}

/* The word of v with w's key (key=...), or NULL. */
static const char *same_key(char **v, const char *w)
{
	size_t k = strcspn(w, "=");

	for (; *v; v++)
		if (!strncmp(*v, w, k) && (*v)[k] == '=')
			return *v;
	return NULL;
}

/* "no"+w when w has no "no", else w without it, in buf. */
static const char *negation(const char *w, char *buf, size_t len)
{
	if (!strncmp(w, "no", 2))
		snprintf(buf, len, "%s", w + 2);
	else
		snprintf(buf, len, "no%s", w);
	return buf;
}

/* Two values that say the same: equal, or the same size in other units
 * (logbsize=262144 and 256k). */
static int same_value(const char *a, const char *b)
{
	uint64_t x, y;

	a = strchr(a, '=') + 1;
	b = strchr(b, '=') + 1;
	return !strcmp(a, b) ||
	       (!units_size(a, &x) && !units_size(b, &y) && x == y);
}

/* What became of requested word w in applied (got): NULL kept, else the
 * word the kernel has instead ("" for none that can be seen). */
static const char *fate(const char *w, char **got, char *neg, size_t len)
{
	const char *k;

	for (size_t i = 0; i < sizeof(silent_words) / sizeof(*silent_words);
	     i++)
		if (!strcmp(w, silent_words[i]))
			return NULL;
	if (has(got, w))
		return NULL;
	/* one of a kind: the atime rule, ro or rw */
	if (!strcmp(w, "strictatime") || !strcmp(w, "noatime") ||
	    !strcmp(w, "relatime"))
		return has(got, "noatime") ? "noatime" :
		       has(got, "relatime") ? "relatime" :
		       strcmp(w, "strictatime") ? "strictatime" : NULL;
	if (!strcmp(w, "ro"))
		return has(got, "rw") ? "rw" : NULL;
	if (strchr(w, '=')) {
		k = same_key(got, w);
		return !k || same_value(w, k) ? NULL : k;
	}
	/* a word not shown is a default the kernel hides (commit=5) */
	return has(got, negation(w, neg, len)) ? neg : NULL;
}

/* The applied words that are neither in base nor asked for, nor what
 * became of an asked-for word: ", x added" for each, appended to out. */
static void added(char **want, char **got, char **base, struct strbuf *out)
{
	char neg[256];
	int n = 0;

	for (char **g = got; *g; g++) {
		int mine = has(base, *g) || has(want, *g) ||
			   has(want, negation(*g, neg, sizeof(neg))) ||
			   (strchr(*g, '=') && same_key(want, *g));

		for (char **h = got; !mine && h < g; h++)
			mine = !strcmp(*h, *g);
		if (mine)
			continue;
		strbuf_printf(out, ", %s", *g);
		n++;
	}
	if (n)
		strbuf_str(out, " added");
}

int mountopts_compare(const char *requested, const char *applied,
		  const char *base, struct strbuf *out)
{
	char **want = split(requested, ","), **got = split(applied, " ,");
	char **was = split(base ? base : "", " ,");
	char neg[256];
	int n = 0;

	for (char **w = want; want && got && *w; w++) {
		const char *f = fate(*w, got, neg, sizeof(neg));

		if (!f)
			continue;
		if (!strncmp(f, "no", 2) && !strcmp(f + 2, *w))
			strbuf_printf(out, "%s%s dropped", n ? ", " : "", *w);
		else
			strbuf_printf(out, "%s%s became %s", n ? ", " : "",
				      *w, f);
		n++;
	}
	if (n && base && was)
		added(want, got, was, out);
	free(want);
	free(got);
	free(was);
	return n > 0;
}
