/* design: two-level screening designs, their generators and aliases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells/design.h"
#include "util/mix.h"

/*
 * The minimum-aberration 2^(k-p) fractions of the textbooks (Box, Hunter
 * and Hunter; Montgomery's table of selected fractional designs; NIST
 * e-Handbook 5.3.3.4.7), k <= 11: each generated factor, in letter order
 * after the k-p base factors, is the product of the base letters given.
 * The resolution is recomputed from the words (design_make), and a test
 * holds it to the table's.
 */
static const struct frac {
	int k, p, res;
	const char *gen[DESIGN_MAX_GEN];
} fracs[] = {
	{ 3, 1, 3, { "AB" } },
	{ 4, 1, 4, { "ABC" } },
	{ 5, 1, 5, { "ABCD" } },
	{ 5, 2, 3, { "AB", "AC" } },
	{ 6, 1, 6, { "ABCDE" } },
	{ 6, 2, 4, { "ABC", "BCD" } },
	{ 6, 3, 3, { "AB", "AC", "BC" } },
	{ 7, 1, 7, { "ABCDEF" } },
	{ 7, 2, 4, { "ABCD", "ABDE" } },
	{ 7, 3, 4, { "ABC", "BCD", "ACD" } },
	{ 7, 4, 3, { "AB", "AC", "BC", "ABC" } },
	{ 8, 2, 5, { "ABCD", "ABEF" } },
	{ 8, 3, 4, { "ABC", "ABD", "BCDE" } },
	{ 8, 4, 4, { "BCD", "ACD", "ABC", "ABD" } },
	{ 9, 2, 6, { "ACDFG", "BCEFG" } },
	{ 9, 3, 4, { "ABCD", "ACEF", "CDEF" } },
	{ 9, 4, 4, { "BCDE", "ACDE", "ABDE", "ABCE" } },
	{ 9, 5, 3, { "ABC", "BCD", "ACD", "ABD", "ABCD" } },
	{ 10, 3, 5, { "ABCG", "BCDE", "ACDF" } },
	{ 10, 4, 4, { "BCDF", "ACDF", "ABDE", "ABCE" } },
	{ 10, 5, 4, { "ABCD", "ABCE", "ABDE", "ACDE", "BCDE" } },
	{ 10, 6, 3, { "ABC", "BCD", "ACD", "ABD", "ABCD", "AB" } },
	{ 11, 4, 5, { "ABCG", "BCDE", "ACDF", "ABCDEFG" } },
	{ 11, 5, 4, { "CDE", "ABCD", "ABF", "BDEF", "ADEF" } },
	{ 11, 6, 4, { "ABC", "BCD", "CDE", "ACD", "ADE", "BDE" } },
	{ 11, 7, 3, { "ABC", "BCD", "ACD", "ABD", "ABCD", "AB", "AC" } },
};

/* Plackett and Burman's first rows; the others are its cyclic shifts,
 * the last all minus. */
static const struct pb {
	int n;
	const char *row;
} pbs[] = {
	{ 12, "++-+++---+-" },
	{ 20, "++--++++-+-+----++-" },
	{ 24, "+++++-+-++--++--+-+----" },
};

char design_letter(int j)
{
	return (char)('A' + j + (j >= 8));
}

static int letter_index(char c)
{
	return c - 'A' - (c > 'I');
}

static unsigned word_mask(const char *w)
{
	unsigned m = 0;

	for (; *w; w++)
		m |= 1u << letter_index(*w);
	return m;
}

static int popcount(unsigned m)
{
	return __builtin_popcount(m);
}

/* The letters of mask m, in order, in buf (at least 24 bytes). */
static void mask_letters(unsigned m, char *buf)
{
	int n = 0;

	for (int j = 0; j < DESIGN_MAX_K; j++)
		if (m & (1u << j))
			buf[n++] = design_letter(j);
	buf[n] = '\0';
}

/* The defining relation's words of a design's generators ("E = ABC":
 * the word ABCE): every product of them, 2^n_gen - 1 words. */
static int defining_words(const struct design *d, unsigned *words)
{
	unsigned gw[DESIGN_MAX_GEN];
	int n = 0;

	for (int i = 0; i < d->n_gen; i++)
		gw[i] = word_mask(d->gen[i] + 4) |
			1u << letter_index(d->gen[i][0]);
	for (unsigned s = 1; s < 1u << d->n_gen; s++) {
		unsigned w = 0;

		for (int i = 0; i < d->n_gen; i++)
			if (s & (1u << i))
				w ^= gw[i];
		words[n++] = w;
	}
	return n;
}

/* The length of the shortest word of the defining relation. */
static int gen_resolution(const struct design *d)
{
	unsigned words[1 << DESIGN_MAX_GEN];
	int n = defining_words(d, words), res = 99;

	for (int i = 0; i < n; i++)
		if (popcount(words[i]) < res)
			res = popcount(words[i]);
	return res;
}

/* The fraction with the most generators whose resolution is at least
 * res, or NULL: only the full design reaches it. */
static const struct frac *frac_for(int k, int res)
{
	const struct frac *best = NULL;

	for (size_t i = 0; i < sizeof(fracs) / sizeof(fracs[0]); i++)
		if (fracs[i].k == k && fracs[i].res >= res &&
		    (!best || fracs[i].p > best->p))
			best = &fracs[i];
	return best;
}

static int alloc_rows(struct design *d, int n, int k)
{
	d->n = n;
	d->k = k;
	d->x = calloc((size_t)n * k + 1, 1);
	return d->x ? 0 : -1;
}

/* 2^(k-p) in standard order: the base factors count in binary (A the
 * fastest), each generated one the product of its word's columns. */
static int make_frac(struct design *d, int k, const struct frac *f)
{
	int p = f ? f->p : 0, base = k - p;

	if (alloc_rows(d, 1 << base, k))
		return -1;
	for (int r = 0; r < d->n; r++) {
		signed char *x = &d->x[(size_t)r * k];

		for (int j = 0; j < base; j++)
			x[j] = (r >> j) & 1 ? 1 : -1;
		for (int g = 0; g < p; g++) {
			unsigned m = word_mask(f->gen[g]);
			int s = 1;

			for (int j = 0; j < base; j++)
				if (m & (1u << j))
					s *= x[j];
			x[base + g] = (signed char)s;
		}
	}
	for (int g = 0; g < p; g++)
		snprintf(d->gen[g], sizeof(d->gen[g]), "%c = %s",
			 design_letter(base + g), f->gen[g]);
	d->n_gen = p;
	d->resolution = p ? gen_resolution(d) : 0;
	return 0;
}

static int make_pb(struct design *d, int k, int runs, char *err,
		   size_t errlen)
{
	const struct pb *pb = NULL;

	for (size_t i = 0; i < sizeof(pbs) / sizeof(pbs[0]); i++)
		if (runs ? pbs[i].n == runs : pbs[i].n - 1 >= k) {
			pb = &pbs[i];
			break;
		}
	if (!pb) {
		snprintf(err, errlen, runs ? "plackett-burman takes 12, 20 "
			 "or 24 runs" : "plackett-burman takes at most 23 "
			 "factors");
		return -1;
	}
	if (k > pb->n - 1) {
		snprintf(err, errlen, "plackett-burman %d holds at most %d "
			 "factors", pb->n, pb->n - 1);
		return -1;
	}
	if (alloc_rows(d, pb->n, k))
		goto oom;
	for (int r = 0; r < pb->n - 1; r++)
		for (int j = 0; j < k; j++)
			d->x[(size_t)r * k + j] =
				pb->row[(j - r + pb->n - 1) % (pb->n - 1)] ==
				'+' ? 1 : -1;
	memset(&d->x[(size_t)(pb->n - 1) * k], -1, (size_t)k);
	d->resolution = 3;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static int make_oat(struct design *d, int k)
{
	if (alloc_rows(d, k + 1, k))
		return -1;
	memset(d->x, -1, (size_t)(k + 1) * k);
	for (int j = 0; j < k; j++)
		d->x[(size_t)(j + 1) * k + j] = 1;
	d->resolution = 3;
	return 0;
}

int design_make(const struct plan_design *pd, int k, struct design *d,
		char *err, size_t errlen)
{
	int res = pd->resolution ? pd->resolution : 4;

	memset(d, 0, sizeof(*d));
	d->kind = pd->kind;
	if (k < 1 || k > DESIGN_MAX_K) {
		snprintf(err, errlen, "a design takes 1 to %d factors",
			 DESIGN_MAX_K);
		return -1;
	}
	switch (pd->kind) {
	case DESIGN_FULL:
	case DESIGN_FRACTIONAL:
		if (k > DESIGN_MAX_FRAC_K) {
			snprintf(err, errlen, "a %s design takes at most %d "
				 "factors", pd->kind == DESIGN_FULL ? "full" :
				 "fractional", DESIGN_MAX_FRAC_K);
			return -1;
		}
		if (res < 3 || res > 5) {
			snprintf(err, errlen, "resolution is 3, 4 or 5 (III, "
				 "IV, V)");
			return -1;
		}
		if (pd->kind == DESIGN_FULL)
			res = 99;
		if (make_frac(d, k, frac_for(k, res)))
			break;
		if (!d->n_gen)
			d->kind = DESIGN_FULL;
		return 0;
	case DESIGN_PB:
		return make_pb(d, k, pd->runs, err, errlen);
	case DESIGN_OAT:
		if (make_oat(d, k))
			break;
		return 0;
	default:
		snprintf(err, errlen, "no design");
		return -1;
	}
	snprintf(err, errlen, "out of memory");
	return -1;
}

void design_free(struct design *d)
{
	free(d->x);
	d->x = NULL;
}

/* Order terms by their number of letters, then by the letters. */
static int term_cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	char lx[DESIGN_MAX_K + 1], ly[DESIGN_MAX_K + 1];

	if (popcount(x) != popcount(y))
		return popcount(x) - popcount(y);
	mask_letters(x, lx);
	mask_letters(y, ly);
	return strcmp(lx, ly);
}

/* The chain of term t under the defining words, sorted: t and its
 * aliases of at most two letters, or when it has none its aliases of
 * three (the textbooks leave longer interactions out); how many. */
static int alias_chain(unsigned t, const unsigned *words, int n_words,
		       unsigned *chain)
{
	int n = 0, most = 2;

	for (int i = 0; i < n_words && most == 2; i++)
		if (popcount(t ^ words[i]) <= 2)
			most = 1;
	most = most == 1 ? 2 : 3;
	chain[n++] = t;
	for (int i = 0; i < n_words; i++)
		if (popcount(t ^ words[i]) <= most)
			chain[n++] = t ^ words[i];
	qsort(chain, n, sizeof(*chain), term_cmp);
	return n;
}

/* One chain's line: "A = BCE\n". */
static int chain_line(const unsigned *chain, int n, struct strbuf *b)
{
	char l[DESIGN_MAX_K + 1];
	int err = 0;

	for (int i = 0; i < n; i++) {
		mask_letters(chain[i], l);
		err |= strbuf_str(b, i ? " = " : "") | strbuf_str(b, l);
	}
	return err | strbuf_str(b, "\n");
}

int design_aliases(const struct design *d, struct strbuf *b)
{
	unsigned words[1 << DESIGN_MAX_GEN], chain[(1 << DESIGN_MAX_GEN) + 1];
	int n_words;

	if (d->kind == DESIGN_PB)
		return strbuf_str(b, "two-factor interactions are partly "
				  "aliased with main effects\n");
	if (d->kind == DESIGN_OAT)
		return strbuf_str(b, "each effect is measured against the "
				  "baseline alone\n");
	if (d->kind != DESIGN_FRACTIONAL)
		return 0;
	n_words = defining_words(d, words);
	for (int a = 0; a < d->k; a++)
	for (int c = a; c < d->k; c++) {
		unsigned t = 1u << a | 1u << c;
		int n = alias_chain(t, words, n_words, chain);

		/* each chain once: at its first term */
		if (n > 1 && chain[0] == t && chain_line(chain, n, b))
			return -1;
	}
	return 0;
}

void design_order(int n, uint64_t seed, int *order)
{
	uint64_t s = seed;

	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j, t;

		s = mix64(s + 0x9e3779b97f4a7c15ull);
		j = (int)(s % (uint64_t)(i + 1));
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
}
