/* execpath: the PATH of exec phases and parsers; check's missing tools. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/child.h"
#include "host/execpath.h"
#include "host/proc.h"
#include "util/words.h"

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
			argv = words_split(cmd, &argc, NULL);
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

/* The shell parses, runs nothing (-n); what it says goes to the pipe. */
static int syntax_body(void *arg)
{
	execl("/bin/sh", "sh", "-n", "-c", (const char *)arg, (char *)NULL);
	/* in the forked child: its stderr is the pipe parses() reads */
	fprintf(stderr, "cannot run /bin/sh\n");
	return 127;
}

/* The last non-blank line of text, into why. */
static void last_line(const char *text, char *why, size_t len)
{
	const char *end = text + strlen(text), *start;

	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (start = end; start > text && start[-1] != '\n'; start--)
		;
	/* dash's "sh: 1: " says nothing the place in the plan does not */
	if (!strncmp(start, "sh: ", 4) && strspn(start + 4, "0123456789") &&
	    start[4 + strspn(start + 4, "0123456789")] == ':')
		start += 4 + strspn(start + 4, "0123456789") + 1;
	start += strspn(start, " ");
	snprintf(why, len, "%.*s", (int)(end - start), start);
}

/* sh -n -c cmd: 0 if it parses, 1 with the shell's last line in why,
 * -1 if the shell could not be started. */
static int parses(const char *cmd, const struct runas *who, char *why,
		  size_t len)
{
	static const char *const env[] = { execpath_env, NULL };
	int rc;

	why[0] = '\0';
	if (geteuid() == 0) {
		/* as the user who will run it, with nothing kept */
		struct child_job job = {
			.runas = who, .workdir = "/", .out_fd = PROC_PIPE,
			.err_fd = PROC_PIPE, .timeout_s = 10, .env = env,
			.body = syntax_body, .arg = (void *)cmd,
		};
		struct child_result res;

		if (child_run(&job, NULL, &res))
			return -1;
		rc = res.ok ? 0 : 1;
		if (rc)
			last_line(res.report ? res.report : child_reason(&res),
				  why, len);
		child_result_free(&res);
	} else {
		struct proc_job job = {
			.body = syntax_body, .arg = (void *)cmd,
			.env = (char *const *)env,
			.out_fd = PROC_PIPE, .err_fd = PROC_PIPE, .pipe_at = -1,
			.timeout_s = 10, .log_fd = -1, .last = why,
			.last_len = len, .keep = 4096, .drain = 1,
			.kill_leftovers = 1,
		};
		struct proc_result res;

		if (proc_run(&job, &res))
			return -1;
		rc = proc_status(&res) ? 1 : 0;
		proc_result_free(&res);
	}
	return rc;
}

int execpath_syntax(const struct expansion *e, const struct runas *who,
		    struct diag *d)
{
	const struct plan *p = e->plan;

	for (int ph = 0; ph < p->n_phases; ph++) {
		const struct plan_phase *phase = &p->phases[ph];
		char *seen[16] = { NULL }, why[512];
		struct diag big = { 0 };
		int n_seen = 0, rc = 0;

		if (!phase->exec.s)
			continue;
		/* the commands of its cells differ only by ${...}: the
		 * first few distinct ones say whether the text parses */
		for (size_t i = 0; i < e->n_cells && !rc && n_seen < 16; i++) {
			char *cmd;
			int dup = 0;

			if (e->cells[i].phase != ph)
				continue;
			cmd = cell_exec(e, &e->cells[i]);
			if (!cmd)
				return diag_set(d, p->file, NULL,
						(struct pos){ 0, 0 },
						"out of memory");
			for (int k = 0; k < n_seen && !dup; k++)
				dup = !strcmp(seen[k], cmd);
			if (dup) {
				free(cmd);
				continue;
			}
			seen[n_seen++] = cmd;
			rc = proc_arg_too_long(strlen(cmd), &big) ? 2 :
			     parses(cmd, who, why, sizeof(why));
		}
		for (int k = 0; k < n_seen; k++)
			free(seen[k]);
		if (rc == 2)
			return diag_set(d, p->file, p->text, phase->exec.pos,
					"exec: %s", big.msg);
		if (rc < 0)
			return diag_set(d, p->file, p->text, phase->exec.pos,
					"exec: cannot start /bin/sh -n to "
					"check the command");
		if (rc)
			return diag_set(d, p->file, p->text, phase->exec.pos,
					"exec: the shell cannot parse this "
					"command: %s", why[0] ? why :
					"sh -n failed");
	}
	return 0;
}
