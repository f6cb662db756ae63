/* execpath: the PATH exec phases and parsers get, and check's warning for a tool not on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/execpath.h"
#include "host/fs.h"

const char execpath_env[] = "PATH=" EXECPATH;

/* Words the shell runs itself, and prefixes whose next word is the tool. */
static const char *const builtins[] = {
	".", ":", "[", "alias", "break", "case", "cd", "continue", "echo",
	"eval", "exit", "export", "false", "for", "if", "printf", "pwd",
	"read", "return", "set", "shift", "test", "times", "trap", "true",
	"type", "ulimit", "umask", "unset", "until", "wait", "while", "{",
	"!",
};
static const char *const prefixes[] = { "exec", "command", "env", "nice",
					"time", "nohup", "stdbuf" };

static int in(const char *w, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(w, list[i]))
			return 1;
	return 0;
}

static int is_assignment(const char *w)
{
	size_t n = strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
			     "vwxyz0123456789_");

	return n > 0 && w[n] == '=' && !(w[0] >= '0' && w[0] <= '9');
}

static int runnable(const char *path, const struct runas *who)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) &&
	       privdrop_may(who, &st, X_OK);
}

/* The tool an exec command starts, or NULL when it cannot be told
 * (shell syntax, a builtin, a relative path into the work directory). */
static const char *tool_of(char **argv, int argc)
{
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (is_assignment(w) || w[0] == '-' ||
		    in(w, prefixes, sizeof(prefixes) / sizeof(*prefixes)))
			continue;
		if (strpbrk(w, "$`()<>|;&*?~") ||
		    in(w, builtins, sizeof(builtins) / sizeof(*builtins)))
			return NULL;
		if (strchr(w, '/') && w[0] != '/')
			return NULL;
		return w;
	}
	return NULL;
}

int execpath_find(const char *tool, const struct runas *who)
{
	char path[4096], dirs[] = EXECPATH, *save = NULL;

	if (tool[0] == '/')
		return runnable(tool, who);
	for (char *d = strtok_r(dirs, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s/%s", d, tool);
		if (runnable(path, who))
			return 1;
	}
	return 0;
}

int execpath_warn(const struct expansion *e, const struct runas *who)
{
	const struct plan *p = e->plan;
	int n = 0;

	for (int ph = 0; ph < p->n_phases; ph++) {
		const struct plan_phase *phase = &p->phases[ph];
		struct diag d = { 0 };
		char **argv = NULL, *cmd = NULL;
		const char *tool;
		int argc = 0;

		if (!phase->exec.s)
			continue;
		/* the first cell of the phase: the tool rarely varies */
		for (size_t i = 0; i < e->n_cells && !cmd; i++)
			if (e->cells[i].phase == ph)
				cmd = cell_exec(e, &e->cells[i]);
		if (cmd)
			argv = fs_split_words(cmd, &argc);
		tool = argv ? tool_of(argv, argc) : NULL;
		if (tool && !execpath_find(tool, who)) {
			diag_set(&d, p->file, p->text, phase->exec.pos,
				 "warning: '%s' is not a program %s can run "
				 "on the exec phases' PATH (%s)%s", tool,
				 who->name, EXECPATH,
				 tool[0] == '/' ? "" :
				 ": install it, or give its full path");
			diag_print(&d);
			n++;
		}
		free(argv);
		free(cmd);
	}
	return n;
}
