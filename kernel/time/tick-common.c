/* The periodic tick (Linux 2.6.23's kernel/time/tick-common.c): what the boot CPU's timer
 * interrupt does, whichever driver raises it (the local APIC timer, else the PIT). */
#include "kernel/fs/timerfd.h"
#include "kernel/sched/sched.h"
#include "kernel/time/tick.h"
#include "kernel/time/time.h"
#include "mm/filemap.h"

/* One tick of the kernel's clock, on the boot CPU only: jiffies, timeouts, real timers, the
 * load average, the timerfds that are due, a writeback pass when one is due; then the boot
 * CPU's own update_process_times. */
void tick_periodic(struct pt_regs *regs)
{
	jiffies++;
	run_timers();
	timerfd_tick();
	wb_timer_tick();
	update_process_times(regs);
}
