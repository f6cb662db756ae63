/* opts: the one table-driven option parser and usage helper. */
#ifndef FSPLAN_OPTS_H
#define FSPLAN_OPTS_H

#include <stddef.h>
#include <stdio.h>

#include "util/diag.h"

/*
 * What an option does with its value. Every command that takes an option
 * takes it through the same entry kind, so the same option behaves the
 * same everywhere: a single-valued option given twice is an error, a
 * list keeps every value in order, --help (and -h) prints the command's
 * help and ends it with status 0.
 */
enum opt_kind {
	OPT_FLAG,	/* int at off, set to 1; no value */
	OPT_STRING,	/* const char * at off; given twice is an error */
	OPT_LIST,	/* struct opt_list at off: every value, in order */
	OPT_CALL,	/* call(arg, dst + off), which refuses with -1;
			 * given twice is an error unless repeat is set */
};

struct opt_list {
	const char **v;		/* malloc'd, NULL-ended; opts_free frees */
	int n;
};

/* Append v (kept, not copied) to l. 0, or -1 out of memory. */
int opts_list_add(struct opt_list *l, const char *v);

/* One entry of a command's table; a table ends with a NULL name. */
struct opt {
	const char *name;	/* the long name, without "--" */
	char letter;		/* the short one, or 0 */
	enum opt_kind kind;
	size_t off;		/* where the value goes in the caller's struct */
	/* OPT_CALL: store arg; -1 refuses it, with d (a usage error) */
	int (*call)(const char *arg, void *slot, struct diag *d);
	int repeat;		/* OPT_CALL: may be given more than once */
	void (*release)(void *slot);	/* OPT_CALL: what opts_free calls */
};

/* Table entries: field of type gets the value of --name (or -letter). */
#define OPT_FLAG_OF(name, letter, type, field) \
	{ name, letter, OPT_FLAG, offsetof(type, field), NULL, 0, NULL }
#define OPT_STRING_OF(name, letter, type, field) \
	{ name, letter, OPT_STRING, offsetof(type, field), NULL, 0, NULL }
#define OPT_LIST_OF(name, letter, type, field) \
	{ name, letter, OPT_LIST, offsetof(type, field), NULL, 0, NULL }
#define OPT_CALL_OF(name, letter, type, field, call) \
	{ name, letter, OPT_CALL, offsetof(type, field), call, 0, NULL }
#define OPT_END { NULL, 0, OPT_FLAG, 0, NULL, 0, NULL }

/*
 * A command's name, synopsis, help and options, and its one operand (PLAN,
 * RUNDIR). The synopsis is the one source of what `fsplan CMD --help`,
 * `fsplan --help`'s command list and fsplan(1)'s SYNOPSIS show (a test
 * holds the three alike).
 */
struct opts_cmd {
	const char *name;	/* "run" */
	/*
	 * "run PLAN [-D name=value]...": lines of at most 60 columns, no
	 * indent; a line that starts with the name starts another form
	 * of the command, any other line goes on the form before it.
	 */
	const char *usage;
	const char *help;	/* what --help prints under the usage */
	const struct opt *opts;	/* its options, or NULL: --help only */
	const char *operand;	/* "a PLAN file", or NULL: none taken */
	int operand_optional;	/* 1: it may be left out; OPERANDS_MANY:
				 * one or more (RUNDIR...), kept in a
				 * struct opt_list that opts_free frees */
	size_t operand_off;	/* const char * (or the list) in the
				 * caller's struct */
	const char *summary;	/* one line, fsplan --help's, under usage */
};

#define OPERANDS_MANY	2

/* opts_parse's answer when the command should go on. */
#define OPTS_GO		(-1)

/*
 * Parse argv (argv[0] is the command's name) into dst by c's table.
 * Returns OPTS_GO, or the status the command should exit with: 0 after
 * --help printed the help, EXIT_USAGE after a usage error was printed.
 * dst's lists are malloc'd: opts_free(c, dst) when done, whatever this
 * returned.
 */
int opts_parse(const struct opts_cmd *c, int argc, char **argv, void *dst);
void opts_free(const struct opts_cmd *c, void *dst);

/* "usage: fsplan USAGE", a blank line and the help, on stdout. */
void opts_help(const struct opts_cmd *c);

/*
 * c's synopsis on f: each form's first line after lead (the first form)
 * or again (a later one), each continuation line after indent spaces.
 */
void opts_synopsis(const struct opts_cmd *c, FILE *f, const char *lead,
		   const char *again, int indent);

/*
 * "fsplan CMD: message" and "(see 'fsplan help CMD')" on stderr.
 * Returns EXIT_USAGE, so a command can `return opts_usage(...)`.
 */
int opts_usage(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
