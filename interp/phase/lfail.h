/* lfail: how the phase child fails — a struct diag from Lua's error text,
 * shaped, placed and sent to the parent. */
#ifndef FSPLAN_LFAIL_H
#define FSPLAN_LFAIL_H

#include "phase/luajob.h"
#include "phase/worker.h"
#include "util/diag.h"

/*
 * d (empty: zeroed or released) from text: kind, msg "what: " (what may
 * be NULL) and the text's first line, cut in the middle with a mark when
 * it does not fit; when the text says more than msg holds (more lines,
 * or a cut), detail is "what: " and the whole text, as the wire's
 * records want (results/metrics.h). Returns -1.
 */
int lfail_text(struct diag *d, enum diag_kind kind, const char *what,
	       const char *text);
/* d's whole text: its detail, or its message. */
const char *lfail_whole(const struct diag *d);

/* d to the parent, the report fd's one failure record, and its whole
 * text to stderr (the phase's exec/ file). 0, or -1 if the parent could
 * not be told. */
int lfail_send(const struct diag *d);

/*
 * A Lua phase's one way to fail: d, its text whole (lfail_whole) after
 * what (NULL: none), to the parent as one record and to stderr. It keeps
 * its own place in the plan; else a refusal that names a parameter
 * first, after the step ("setup: n: not 2"; lua/fsplan.lua's rule, the
 * library's refusals), points at the value the plan wrote (params_place),
 * as every error found late should (STYLE.md). A failure of the phase's
 * own code (DIAG_PHASE) after a step is the timeout's (DIAG_LIMIT,
 * "timeout: what: ...") once deadline (clock_now's) has passed; an
 * allocation it was refused names the budget, job's memory.
 */
void lfail_phase(const struct luajob *job, double deadline,
		 const char *what, const struct diag *d);

/*
 * A module that raised after an I/O error ("wrote nil bytes, expected
 * to write 1", dbench's) most likely raised because of it: d's first
 * line gets e's first one, "...; first I/O error: ENOSPC in write
 * (source/x)", and the reason has the cause. Nothing without one.
 */
void lfail_io_error(struct diag *d, const struct worker_errors *e);

#endif
