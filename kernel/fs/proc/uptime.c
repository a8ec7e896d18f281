/* /proc/uptime: seconds since boot and seconds the CPU spent idle, with two decimals, as
 * Linux prints them (the idle figure summed over CPUs). */
#include "kernel/fs/proc/internal.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"

static void uptime_show(struct proc_text *t)
{
	uint64_t up = jiffies, idle = 0;

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		idle += cpu_data[cpu].idle_ticks;

	proc_printf(t, "%lu.%02lu %lu.%02lu\n", up / HZ, up % HZ * 100 / HZ, idle / HZ,
		    idle % HZ * 100 / HZ);
}

const struct proc_entry proc_uptime = { "uptime", 64, uptime_show, NULL };
