/* The load average: every LOAD_FREQ ticks each average moves towards the number of runnable
 * tasks by a fixed factor, e^(-5s/1min), e^(-5s/5min), e^(-5s/15min) in fixed point: Linux's
 * calc_load, so /proc/loadavg and uptime read the same kind of number as on Linux. */
#include "kernel/sched/loadavg.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"

#define LOAD_FREQ (5 * HZ + 1)
#define EXP_1 1884  /* FIXED_1 / exp(5 sec / 1 min) */
#define EXP_5 2014  /* FIXED_1 / exp(5 sec / 5 min) */
#define EXP_15 2037 /* FIXED_1 / exp(5 sec / 15 min) */

unsigned long avenrun[3];
static unsigned long next_sample = LOAD_FREQ;

static unsigned long calc_load(unsigned long load, unsigned long exp, unsigned long active)
{
	load = load * exp + active * (FIXED_1 - exp);
	return load >> FSHIFT;
}

void count_tasks(int *running, int *total)
{
	struct list_head *pos;

	*running = *total = 0;
	list_for_each(pos, &all_tasks) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (t->pid == 0 || t->state == EXIT_ZOMBIE)
			continue; /* the idle task; a zombie runs no more */
		(*total)++;
		*running += t->state == TASK_RUNNING;
	}
}

void calc_global_load(void)
{
	unsigned long active;
	int running, total;

	if (jiffies < next_sample)
		return;
	next_sample += LOAD_FREQ;
	count_tasks(&running, &total);
	active = (unsigned long)running * FIXED_1;
	avenrun[0] = calc_load(avenrun[0], EXP_1, active);
	avenrun[1] = calc_load(avenrun[1], EXP_5, active);
	avenrun[2] = calc_load(avenrun[2], EXP_15, active);
}
