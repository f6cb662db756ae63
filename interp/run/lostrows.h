/* lostrows: what a killed run left short in results.csv, superseded when the
 * run goes on, so that the last row of every key is a current one. */
#ifndef FSPLAN_LOSTROWS_H
#define FSPLAN_LOSTROWS_H

#include "run/run.h"

/*
 * Before any config is made: read r->dir's results.csv and, where a run
 * that was killed left a set of rows short, append a row of value
 * SINK_LOST (sink.h) for each key whose last row is not current —
 *  - a config's figures: those an earlier make of it has and its latest
 *    lacks (a resume made it anew and was killed before its umount_s),
 *    and the umount_s (and umount_s_NAME) of a mount its latest make
 *    has none of (killed before the filesystem was unmounted);
 *  - a phase run's rows that no status row follows (killed while they
 *    were written): the resume runs it again, and what that run does not
 *    write again stays NA.
 * Each is logged and counted in r->n_lost; a config's figure is null in
 * the manifest. Returns 0, or -1 with d filled (results.csv unreadable).
 */
int lostrows_record(struct run *r, struct diag *d);

#endif
