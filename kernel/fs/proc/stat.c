/* /proc/stat: the CPU's time by kind in clock ticks (USER_HZ, 100, is HZ here), per CPU (one),
 * the boot time, the processes made since boot, running and blocked: what top and vmstat
 * read. faultline charges each timer tick to user, system or idle; the other kinds are 0. */
#include "kernel/fs/proc/internal.h"
#include "kernel/sched.h"
#include "kernel/time.h"

static void stat_show(struct proc_text *t)
{
	struct timespec64 now = current_time();
	struct list_head *pos;
	int running = 0, blocked = 0;

	list_for_each(pos, &all_tasks) {
		const struct task_struct *k = list_entry(pos, struct task_struct, tasks);

		running += k->state == TASK_RUNNING;
		blocked += k->state == TASK_UNINTERRUPTIBLE;
	}
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	for (int cpu = -1; cpu < 1; cpu++) {
		if (cpu < 0)
			proc_printf(t, "cpu ");
		else
			proc_printf(t, "cpu%d", cpu);
		proc_printf(t, " %lu 0 %lu %lu 0 0 0 0 0 0\n", cpu_user_ticks, cpu_system_ticks,
			    idle_ticks);
	}
	proc_printf(t, "intr %lu\nctxt 0\nbtime %ld\nprocesses %d\nprocs_running %d\n"
		    "procs_blocked %d\n", jiffies, now.tv_sec - (int64_t)(jiffies / HZ),
		    last_pid(), running, blocked);
}

const struct proc_entry proc_stat = { "stat", 512, stat_show };
