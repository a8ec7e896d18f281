/* /proc/stat: the CPUs' time by kind in clock ticks (USER_HZ, 100, is HZ here), in all and per CPU,
 * the boot time, the processes made since boot, running and blocked: what top and vmstat
 * read. faultline charges each timer tick to user, system or idle; the other kinds are 0. */
#include "kernel/arch/percpu.h"
#include "kernel/arch/smp.h"
#include "kernel/fs/proc/internal.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"

static void stat_show(struct proc_text *t)
{
	struct timespec64 now = current_time();
	struct list_head *pos;
	int running = 0, blocked = 0;
	uint64_t user = 0, system = 0, idle = 0;

	list_for_each(pos, &all_tasks) {
		const struct task_struct *k = list_entry(pos, struct task_struct, tasks);

		running += k->state == TASK_RUNNING;
		blocked += k->state == TASK_UNINTERRUPTIBLE;
	}
	/* user nice system idle iowait irq softirq steal guest guest_nice: each CPU's ticks */
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		user += cpu_data[cpu].user_ticks;
		system += cpu_data[cpu].system_ticks;
		idle += cpu_data[cpu].idle_ticks;
	}
	proc_printf(t, "cpu  %lu 0 %lu %lu 0 0 0 0 0 0\n", user, system, idle);
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		if (cpu_online(cpu))
			proc_printf(t, "cpu%d %lu 0 %lu %lu 0 0 0 0 0 0\n", cpu,
				    cpu_data[cpu].user_ticks, cpu_data[cpu].system_ticks,
				    cpu_data[cpu].idle_ticks);
	proc_printf(t, "intr %lu\nctxt 0\nbtime %ld\nprocesses %d\nprocs_running %d\n"
		    "procs_blocked %d\n", jiffies, now.tv_sec - (int64_t)(jiffies / HZ),
		    last_pid(), running, blocked);
}

const struct proc_entry proc_stat = { "stat", 512 + 64 * NR_CPUS, stat_show, NULL };
