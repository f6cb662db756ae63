/* ns: the run's private mount and PID namespace, whose init runs the configs.
 */
#ifndef FSPLAN_NS_H
#define FSPLAN_NS_H

struct run;

/*
 * Run init(r) as the init of a new mount and PID namespace, in a child
 * that dies with us, with r->mnt made there, and wait for it, passing a
 * stop signal (r->stop) on. Only the init keeps r->dev's fd. Returns its
 * exit status (128 + signal if killed).
 */
int ns_run(struct run *r, int (*init)(struct run *r));

#endif
