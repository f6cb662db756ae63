/* ns: the run's private mount and PID namespace, whose init runs the configs. */
#ifndef FSPLAN_NS_H
#define FSPLAN_NS_H

struct run;

/*
 * Run runner_main(r) as the init of a new mount and PID namespace, in a
 * child that dies with us, and wait for it, passing a stop signal
 * (r->stop) on. Returns its exit status (128 + signal if killed).
 */
int ns_run(struct run *r);

#endif
