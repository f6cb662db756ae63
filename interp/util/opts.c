/* opts: a command's options parsed by its table, the same for every one. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/exitcode.h"
#include "util/opts.h"

#define MAX_OPTS 32	/* options of one command, --help included */
#define VAL_LONG 256	/* getopt_long's val of entry i without a letter */

int opts_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fsplan %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'fsplan help %s')\n", cmd);
	return EXIT_USAGE;
}

void opts_synopsis(const struct opts_cmd *c, FILE *f, const char *lead,
		   const char *again, int indent)
{
	size_t name = strlen(c->name);

	for (const char *s = c->usage; *s; ) {
		size_t len = strcspn(s, "\n");

		if (s == c->usage)
			fputs(lead, f);
		else if (!strncmp(s, c->name, name) &&
			 (s[name] == ' ' || s[name] == '\n' || !s[name]))
			fputs(again, f);
		else
			fprintf(f, "%*s", indent, "");
		fprintf(f, "%.*s\n", (int)len, s);
		s += len + (s[len] == '\n');
	}
}

void opts_help(const struct opts_cmd *c)
{
	/* continuation lines start under the first operand */
	opts_synopsis(c, stdout, "usage: fsplan ", "       fsplan ",
		      (int)(strlen("usage: fsplan ") + strlen(c->name) + 1));
	printf("\n%s", c->help);
}

static size_t count(const struct opts_cmd *c)
{
	size_t n = 0;

	while (c->opts && c->opts[n].name)
		n++;
	return n;
}

/* getopt_long's tables for c: --help and -h first, then c's entries. */
static void tables(const struct opts_cmd *c, size_t n, struct option *longs,
		   char *shorts)
{
	char *s = shorts;

	*s++ = ':';	/* a missing value is ':', not '?' */
	*s++ = 'h';
	longs[0] = (struct option){ "help", no_argument, NULL, 'h' };
	for (size_t i = 0; i < n; i++) {
		const struct opt *o = &c->opts[i];
		int arg = o->kind == OPT_FLAG ? no_argument : required_argument;

		longs[i + 1] = (struct option){ o->name, arg, NULL,
			o->letter ? o->letter : VAL_LONG + (int)i };
		if (o->letter) {
			*s++ = o->letter;
			if (arg == required_argument)
				*s++ = ':';
		}
	}
	longs[n + 1] = (struct option){ NULL, 0, NULL, 0 };
	*s = '\0';
}

/* The entry getopt_long's val stands for, or -1. */
static int entry(const struct opts_cmd *c, size_t n, int val)
{
	if (val >= VAL_LONG && val < VAL_LONG + (int)n)
		return val - VAL_LONG;
	for (size_t i = 0; i < n; i++)
		if (c->opts[i].letter && c->opts[i].letter == val)
			return (int)i;
	return -1;
}

/* How the user spelled entry o: "-D" or "--shard". */
static void spelling(const struct opt *o, char *buf, size_t len)
{
	if (o->letter)
		snprintf(buf, len, "-%c", o->letter);
	else
		snprintf(buf, len, "--%s", o->name);
}

static int unknown(const struct opts_cmd *c, size_t n, const char *arg)
{
	const char *names[MAX_OPTS];
	const char *hint;
	char word[64];

	if (strncmp(arg, "--", 2))
		return opts_usage(c->name, "unknown option '%s'", arg);
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg + 2, "="),
		 arg + 2);
	names[0] = "help";
	for (size_t i = 0; i < n; i++)
		names[i + 1] = c->opts[i].name;
	hint = diag_suggest(word, names, n + 1);
	if (hint)
		return opts_usage(c->name, "unknown option '%s' (did you mean "
				  "'--%s'?)", arg, hint);
	return opts_usage(c->name, "unknown option '%s'", arg);
}

int opts_list_add(struct opt_list *l, const char *v)
{
	const char **nv = realloc(l->v, (l->n + 2) * sizeof(*nv));

	if (!nv)
		return -1;
	l->v = nv;
	l->v[l->n++] = v;
	l->v[l->n] = NULL;
	return 0;
}

/* Entry o takes arg (given before `given` times). */
static int take(const struct opts_cmd *c, const struct opt *o, int given,
		const char *arg, char *dst)
{
	struct diag d = { 0 };
	char name[64];
	void *slot = dst + o->off;

	spelling(o, name, sizeof(name));
	if (given && (o->kind == OPT_STRING ||
		      (o->kind == OPT_CALL && !o->repeat)))
		return opts_usage(c->name, "%s is given twice", name);
	switch (o->kind) {
	case OPT_FLAG:
		*(int *)slot = 1;
		break;
	case OPT_STRING:
		*(const char **)slot = arg;
		break;
	case OPT_LIST:
		if (opts_list_add(slot, arg))
			return opts_usage(c->name, "%s", "out of memory");
		break;
	case OPT_CALL:
		if (o->call(arg, slot, &d))
			return opts_usage(c->name, "%s", d.msg[0] ? d.msg :
					  "bad value");
		break;
	}
	return OPTS_GO;
}

/* The operand, after the options (getopt_long moved them to the end). */
static int operand(const struct opts_cmd *c, int argc, char **argv,
		   char *dst)
{
	int left = argc - optind;

	if (!c->operand && left)
		return opts_usage(c->name, "takes no arguments, not '%s'",
				  argv[optind]);
	if (!c->operand)
		return OPTS_GO;
	if (!left && c->operand_optional != 1)
		return opts_usage(c->name, "a %s is required", c->operand);
	if (c->operand_optional == OPERANDS_MANY) {
		for (int i = optind; i < argc; i++)
			if (opts_list_add((struct opt_list *)(dst + c->operand_off),
				argv[i]))
				return opts_usage(c->name, "%s",
						  "out of memory");
		return OPTS_GO;
	}
	if (left > 1)
		return opts_usage(c->name, "one %s only, not also '%s'",
				  c->operand, argv[optind + 1]);
	*(const char **)(dst + c->operand_off) = left ? argv[optind] : NULL;
	return OPTS_GO;
}

int opts_parse(const struct opts_cmd *c, int argc, char **argv, void *dst)
{
	struct option longs[MAX_OPTS + 1];
	char shorts[2 * MAX_OPTS + 2];
	int given[MAX_OPTS] = { 0 };
	size_t n = count(c);
	int ch, rc;

	if (n + 1 > MAX_OPTS)
		return opts_usage(c->name, "%s", "too many options in its "
				  "table (a bug)");
	tables(c, n, longs, shorts);
	optind = 0;	/* a full reset: a process may parse more than once */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		int i = entry(c, n, ch);

		if (ch == 'h' && i < 0) {
			opts_help(c);
			return EXIT_OK;
		}
		if (ch == ':')
			return opts_usage(c->name, "'%s' needs a value",
					  argv[optind - 1]);
		if (i < 0)
			return unknown(c, n, argv[optind - 1]);
		rc = take(c, &c->opts[i], given[i]++, optarg, dst);
		if (rc != OPTS_GO)
			return rc;
	}
	return operand(c, argc, argv, dst);
}

static void list_free(struct opt_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void opts_free(const struct opts_cmd *c, void *dst)
{
	if (c->operand_optional == OPERANDS_MANY)
		list_free((struct opt_list *)((char *)dst + c->operand_off));
	for (size_t i = 0; i < count(c); i++) {
		const struct opt *o = &c->opts[i];
		void *slot = (char *)dst + o->off;

		if (o->kind == OPT_LIST)
			list_free(slot);
		else if (o->kind == OPT_CALL && o->release)
			o->release(slot);
	}
}
