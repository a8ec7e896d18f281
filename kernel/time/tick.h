/* The tick, as a timer driver sees it (drivers/pit.c, drivers/apic/lapic.c): what its interrupt
 * handler calls each time it fires. Linux: the clock event device's event_handler. */
#ifndef KERNEL_TIME_TICK_H
#define KERNEL_TIME_TICK_H

struct pt_regs;

/* The boot CPU's timer interrupt (kernel/time/tick-common.c): one jiffy. */
void tick_periodic(struct pt_regs *regs);
/* Every other CPU's timer interrupt (kernel/time/timer.c): its running task's time and time
 * slice. */
void update_process_times(struct pt_regs *regs);

#endif
