/* groups: which configs a report cannot tell apart — Welch, Holm, letters. */
#include <stdlib.h>
#include <string.h>

#include "report/groups.h"
#include "results/stats.h"

static const double *holm_p;

static int by_p(const void *a, const void *b)
{
	double x = holm_p[*(const size_t *)a], y = holm_p[*(const size_t *)b];

	return x < y ? -1 : x > y;
}

int groups_holm(const double *p, size_t m, double alpha, char *reject)
{
	size_t *at = calloc(m + 1, sizeof(*at));

	if (!at)
		return -1;
	for (size_t i = 0; i < m; i++) {
		at[i] = i;
		reject[i] = 0;
	}
	holm_p = p;
	qsort(at, m, sizeof(*at), by_p);
	for (size_t k = 0; k < m; k++) {
		if (!(p[at[k]] <= alpha / (double)(m - k)))
			break;		/* this one and every larger p hold */
		reject[at[k]] = 1;
	}
	free(at);
	return 0;
}

/*
 * The letters as columns (Piepho's insert-and-absorb): a column is the
 * set of configs that share its letter, col[c * n + i]. Start with one
 * column of every config; for each pair that differs, a column holding
 * both becomes two (one without each); a column inside another goes.
 */
struct cols {
	char *in;
	size_t n, k, cap;
};

/* A column more: a copy of from (NULL: c's column own, by its index,
 * as realloc may move it), without config drop (n: none). */
static int col_add(struct cols *c, const char *from, size_t own, size_t drop)
{
	if (c->k == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 8;
		char *in = realloc(c->in, cap * c->n);

		if (!in)
			return -1;
		c->in = in;
		c->cap = cap;
	}
	if (from == NULL)
		from = c->in + own * c->n;
	memcpy(c->in + c->k * c->n, from, c->n);
	if (drop < c->n)
		c->in[c->k * c->n + drop] = 0;
	c->k++;
	return 0;
}

/* Whether column a is inside column b. */
static int inside(const struct cols *c, size_t a, size_t b)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->in[a * c->n + i] && !c->in[b * c->n + i])
			return 0;
	return 1;
}

static void absorb(struct cols *c)
{
	for (size_t a = 0; a < c->k; a++)
		for (size_t b = 0; b < c->k; b++)
			if (a != b && inside(c, a, b)) {
				memmove(c->in + a * c->n, c->in + (a + 1) *
					c->n, (c->k - a - 1) * c->n);
				c->k--;
				a--;	/* a's place holds the next one */
				break;
			}
}

static int split(struct cols *c, size_t i, size_t j)
{
	size_t k0 = c->k;

	for (size_t a = 0; a < k0; a++) {
		char *col = c->in + a * c->n;

		if (!col[i] || !col[j])
			continue;
		if (col_add(c, NULL, a, j))
			return -1;
		col = c->in + a * c->n;	/* realloc may move it */
		col[i] = 0;
	}
	absorb(c);
	return 0;
}

/* Whether column a comes before column b: the first config (best first)
 * that is in one and not the other is in a. So 'a' is the column of the
 * best config, and between two that share it, the one with the better
 * configs after it. */
static int before(const struct cols *c, size_t a, size_t b)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->in[a * c->n + i] != c->in[b * c->n + i])
			return c->in[a * c->n + i];
	return a < b;
}

static void name_letters(struct cols *c, const char *ok,
			 char (*letters)[GROUPS_LEN])
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char *used = calloc(c->k + 1, 1);
	size_t l = 0;

	for (size_t i = 0; i < c->n; i++)
		strcpy(letters[i], ok[i] ? "" : "-");
	/* letters in the columns' order (before) */
	for (size_t done = 0; used && done < c->k; done++, l++) {
		size_t best = c->k;

		for (size_t a = 0; a < c->k; a++)
			if (!used[a] && (best == c->k || before(c, a, best)))
				best = a;
		used[best] = 1;
		for (size_t i = 0; i < c->n; i++) {
			size_t len = strlen(letters[i]);

			if (c->in[best * c->n + i] && len + 1 < GROUPS_LEN) {
				letters[i][len] = l < 52 ? abc[l] : '*';
				letters[i][len + 1] = '\0';
			}
		}
	}
	free(used);
}

int groups_letters(const struct res_stats *s, size_t n, double alpha,
		   char (*letters)[GROUPS_LEN])
{
	size_t m = 0, t = 0, none = 0;
	double *p = calloc(n * n + 1, sizeof(*p));
	char *reject = calloc(n * n + 1, 1), *ok = calloc(n + 1, 1);
	struct cols c = { NULL, n, 0, 0 };
	int rc = -1;

	if (!p || !reject || !ok)
		goto out;
	for (size_t i = 0; i < n; i++)
		none += !(ok[i] = s[i].n >= 2);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			struct stats_welch w;

			if (!ok[i] || !ok[j])
				continue;
			/* no verdict from figures that make none: alike */
			p[m++] = stats_welch(s[i].n, s[i].mean, s[i].sd,
					     s[j].n, s[j].mean, s[j].sd, 0.95,
					     &w) ? 1 : w.p;
		}
	/* the first column: every config tested (n = 0: nothing to drop) */
	if (groups_holm(p, m, alpha, reject) || (n && col_add(&c, ok, 0, n)))
		goto out;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (ok[i] && ok[j] && reject[t++] && split(&c, i, j))
				goto out;
	name_letters(&c, ok, letters);
	rc = (int)none;
out:
	free(p);
	free(reject);
	free(ok);
	free(c.in);
	return rc;
}
