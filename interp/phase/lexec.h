/* lexec: an exec module's script run in the dropped child, its parameters in
 * its environment. */
#ifndef FSPLAN_LEXEC_H
#define FSPLAN_LEXEC_H

#include "phase/phase.h"
#include "util/diag.h"

/*
 * Replace this process (the dropped child, in the work directory) with
 * /bin/sh running the module's script, libsrc_exec_path(module,
 * decl->exec) (the text read at the start, else the file), with the
 * environment it has plus
 * FSPLAN_P_<name>=<value> for every declared parameter, typed (sizes in
 * bytes, durations in seconds, booleans 1 or 0) and FSPLAN_P_workers.
 * The report fd closes at the exec: the parent reads its exit status.
 * Returns only on failure, with d set.
 */
void lexec_run(const char *module, const struct phase_decl *decl,
	       const struct param_val *vals, int workers, struct diag *d);

#endif
