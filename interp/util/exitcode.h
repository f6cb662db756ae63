/* exitcode: fsplan's exit statuses (DESIGN.md section 1), defined once for
 * every command. */
#ifndef FSPLAN_EXITCODE_H
#define FSPLAN_EXITCODE_H

enum exit_code {
	EXIT_OK = 0,		/* every phase run succeeded */
	EXIT_FAILED = 1,	/* some phase runs failed; the rest ran */
	EXIT_USAGE = 2,		/* usage or plan error: nothing ran */
	EXIT_REFUSED = 3,	/* refused for safety: nothing ran */
};

/* Stopped by signal sig (130 for SIGINT, 143 for SIGTERM): what finished
 * is kept. */
#define EXIT_INTERRUPTED(sig)	(128 + (sig))

#endif
