/* The tick's counter and what every CPU's tick does (Linux 2.6.23's kernel/timer.c): jiffies,
 * and update_process_times, which charges the tick to the running task and its time slice. */
#include "kernel/process/rusage.h"
#include "kernel/sched/sched.h"
#include "kernel/time/tick.h"
#include "kernel/time/time.h"

volatile uint64_t jiffies;

void update_process_times(struct pt_regs *regs)
{
	account_process_tick(regs);
	scheduler_tick();
}
