/* /proc/loadavg: the 1, 5 and 15 minute load averages (kernel/sched/loadavg.c), the runnable and
 * total tasks, and the newest pid, as Linux prints them. */
#include "kernel/fs/proc/internal.h"
#include "kernel/sched/loadavg.h"
#include "kernel/sched/sched.h"

static void loadavg_show(struct proc_text *t)
{
	int running, total;

	count_tasks(&running, &total);
	proc_printf(t, "%lu.%02lu %lu.%02lu %lu.%02lu %d/%d %d\n", LOAD_INT(avenrun[0]),
		    LOAD_FRAC(avenrun[0]), LOAD_INT(avenrun[1]), LOAD_FRAC(avenrun[1]),
		    LOAD_INT(avenrun[2]), LOAD_FRAC(avenrun[2]), running, total, last_pid());
}

const struct proc_entry proc_loadavg = { "loadavg", 64, loadavg_show, NULL };
