/* The load average (kernel/sched/loadavg.c): Linux's three exponentially-damped averages of the
 * number of runnable tasks, over 1, 5 and 15 minutes, in 11-bit fixed point. */
#ifndef KERNEL_LOADAVG_H
#define KERNEL_LOADAVG_H

#include "kernel/compiler.h"

#define FSHIFT 11
#define FIXED_1 (1UL << FSHIFT)
#define LOAD_INT(x) ((x) >> FSHIFT)
#define LOAD_FRAC(x) LOAD_INT(((x) & (FIXED_1 - 1)) * 100)

extern unsigned long avenrun[3];
/* From the timer tick: every 5 seconds, fold the runnable tasks into the averages. */
void calc_global_load(void);
/* Tasks running or waiting to run now (the idle task not counted), and all tasks. */
void count_tasks(int *running, int *total);

#endif
