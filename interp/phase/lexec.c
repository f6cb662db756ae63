/* lexec: an exec module's script run in the dropped child, its parameters in
 * its environment. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "phase/lexec.h"
#include "phase/libsrc.h"
#include "results/metrics.h"
#include "util/file.h"

/* FSPLAN_P_<name>=<value>, malloc'd; NULL when out of memory. */
static char *assignment(const char *name, const struct param_val *v)
{
	char num[64], *s;
	const char *text = num;

	switch (v ? v->type : PARAM_NUMBER) {
	case PARAM_STRING:
		text = v->str;
		break;
	case PARAM_BOOL:
		snprintf(num, sizeof(num), "%d", v->num != 0);
		break;
	default:
		snprintf(num, sizeof(num), "%.17g", v ? v->num : 0);
		break;
	}
	if (asprintf(&s, "FSPLAN_P_%s=%s", name, text) < 0)
		return NULL;
	return s;
}

/* The script's text: as root read it, or read now as runas. */
static char *script(const char *path, struct diag *d)
{
	size_t n;
	const char *kept = libsrc_get(path, &n);
	int fd, more = 0;
	char *text;

	if (kept)
		return strndup(kept, n);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		diag_fail(d, DIAG_SYSTEM, errno, "%s", path);
		return NULL;
	}
	text = file_read_all(fd, LIBSRC_MAX, &n, &more);
	close(fd);
	if (!text || more) {
		if (more)
			diag_fail(d, DIAG_INPUT, 0, "%s: too big", path);
		else
			diag_fail(d, DIAG_SYSTEM, errno, "%s", path);
		free(text);
		return NULL;
	}
	return text;
}

void lexec_run(const char *module, const struct phase_decl *decl,
	       const struct param_val *vals, int workers, struct diag *d)
{
	struct param_val w = { "workers", PARAM_NUMBER, workers, NULL };
	size_t n_env = 0, k = 0;
	char *path, *text, **env, *argv[5];

	path = libsrc_exec_path(module, decl->exec);
	if (!path)
		goto oom;
	text = script(path, d);
	free(path);
	if (!text)
		return;
	while (environ[n_env])
		n_env++;
	env = calloc(n_env + decl->n_params + 2, sizeof(*env));
	if (!env)
		goto oom;
	for (size_t i = 0; i < n_env; i++)
		env[k++] = environ[i];
	for (int i = 0; i < decl->n_params; i++)
		if (strcmp(decl->params[i].name, "workers") &&
		    !(env[k++] = assignment(decl->params[i].name, &vals[i])))
			goto oom;
	if (!(env[k++] = assignment("workers", &w)))
		goto oom;
	/* a successful exec closes the report pipe: that is the signal */
	fcntl(METRICS_REPORT_FD, F_SETFD, FD_CLOEXEC);
	/* $0 is the script's name: its messages say who they are */
	argv[0] = (char *)"sh";
	argv[1] = (char *)"-c";
	argv[2] = text;
	argv[3] = (char *)decl->exec;
	argv[4] = NULL;
	execve("/bin/sh", argv, env);
	diag_fail(d, DIAG_SYSTEM, errno, "cannot run /bin/sh");
	return;		/* the process exits next: nothing to free */
oom:
	diag_fail(d, DIAG_SYSTEM, 0, "out of memory");
}
