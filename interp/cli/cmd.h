/* cmd: what cli/'s command files (cmd_NAME.c, one a command) and main share. */
#ifndef FSPLAN_CMD_H
#define FSPLAN_CMD_H

#include <signal.h>
#include <stdio.h>

#include "cells/cellopts.h"
#include "util/diag.h"
#include "util/opts.h"

struct plan;
struct expansion;
struct runas;
struct diag;

/*
 * A command: its name, synopsis, help and options, and what runs it
 * (argv[0] is its name; it returns the exit status). main's table lists
 * one of these a command; help and the overview are made from it.
 */
struct command {
	const struct opts_cmd *cmd;
	int (*fn)(int argc, char **argv);
};

/* The command named name in main's table, or NULL. */
const struct command *main_command(const char *name);

/* fsplan --help: what fsplan is, every command's synopsis and summary. */
void main_usage(FILE *f);

/* check, expand and run: a plan, its parameters and the filters. */
struct plan_opts {
	struct cell_opts cells;
	const char *plan;
};

/*
 * Load o's plan, resolve, expand and check it (every phase's module, the
 * runas user, the commands' paths), with its warnings; Ctrl-C stops it.
 * 0, or the exit status with the error printed and *p, *e NULL.
 */
int cmd_load(struct plan_opts *o, struct plan **p, struct expansion **e);

/*
 * cmd_load's two halves, for run, which checks its filters and that it
 * is root between them. The plan: loaded, resolved, expanded, with the
 * devices resolved, its cells selected by o's filters (with select) and
 * every phase's module checked; stop is the caller's flag, set by its
 * own signal handler (NULL: Ctrl-C handled here). Then the runas user
 * and the commands' paths, and the warnings. Each: 0, or the exit
 * status with the error printed (unless stop is set) and *p, *e NULL.
 */
int cmd_load_plan(struct plan_opts *o, int select,
		  volatile sig_atomic_t *stop, struct plan **p,
		  struct expansion **e);
int cmd_load_user(struct plan **p, struct expansion **e, struct runas *who,
		  volatile sig_atomic_t *stop);

/* A failure below cli/, printed and released; its exit status by its
 * kind: 2 input (usage or plan), 3 refused, 1 otherwise. */
int cmd_fail(struct diag *d);

/* The commands of this folder: options and help, and the function. */
/* What report/ returned to a command: each line of notes (warnings the
 * user must see either way) as "fsplan NAME: line"; a failure as
 * "fsplan NAME: message" and the lines of its detail (report/'s messages
 * have no place in a plan; cmd_fail prints a plan's place and caret). */
void cmd_notes(FILE *f, const char *name, const struct strbuf *notes);
void cmd_fail_named(FILE *f, const char *name, const struct diag *d);

/* The commands of this folder: options and help, and the function. */
extern const struct opts_cmd check_cmd, expand_cmd, run_cmd, report_cmd,
	effects_cmd, compare_cmd, merge_cmd, version_cmd, help_cmd,
	history_cmd;
int cmd_check(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_expand(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_effects(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_history(int argc, char **argv);
extern const struct opts_cmd pack_cmd, rerun_cmd;
int cmd_pack(int argc, char **argv);
int cmd_rerun(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_help(int argc, char **argv);

#endif
