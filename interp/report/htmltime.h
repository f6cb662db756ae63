/* htmltime: a phase's behaviour over time on the html page, as SVG charts. */
#ifndef FSPLAN_REPORT_HTMLTIME_H
#define FSPLAN_REPORT_HTMLTIME_H

#include <jansson.h>
#include <stdio.h>

#include "report/overtime.h"
#include "results/results.h"

/*
 * For runs (a phase's ok runs) with steady rows: the steady table
 * (overtime_table), then a chart of the key series over time, a path
 * per config (<path class="fsplan-series">: the runs' mean), each run a
 * faint one (fsplan-rep) when there are several, the windows the steady
 * test held over shaded (fsplan-steady); under it the device's MiB/s and
 * the dirty and writeback MiB per config. phases: manifest.json's, for
 * a phase's steady window (phases[].steady.window_s; else the run's
 * last half, the test's own default). Nothing for a phase without
 * steady rows. 0, or -1 out of memory.
 */
int htmltime_phase(FILE *f, const struct overtime *o,
		   const struct res_run *const *runs, size_t n,
		   json_t *phases, const char *phase);

#endif
