/* timerfd (kernel/fs/timerfd.c): what the tick calls of it. */
#ifndef KERNEL_FS_TIMERFD_H
#define KERNEL_FS_TIMERFD_H

/* The boot CPU's tick, interrupts off: count the expirations of the armed timers that are
 * due and wake their readers (Linux's hrtimer callback, timerfd_tmrproc). */
void timerfd_tick(void);

#endif
