/* POSIX timers (kernel/time/posix-timers.c): what the tick, signal delivery, exit and exec
 * ask of them. */
#ifndef KERNEL_TIME_POSIX_TIMERS_H
#define KERNEL_TIME_POSIX_TIMERS_H

struct ksiginfo;
struct signal_struct;

/* A timer's signal says so in its ksiginfo's trapno (Linux's si_sys_private), which no
 * rt_sigqueueinfo can forge: only such a signal arms its timer again. */
#define POSIX_TIMER_SIGNAL 0x7f1e5UL

/* The boot CPU's tick: a timer is due (the events thread then sends its signal). */
void posix_timer_tick(void);
/* A timer's signal sig is being delivered to current: its periodic timer goes on, the periods
 * missed meanwhile become info's si_overrun and timer_getoverrun's answer. Returns sig, so
 * that dequeue_signal ends in a tail call (no frame on the signal path). */
int posix_timer_deliver(int sig, struct ksiginfo *info);
/* The process sig is ending or exec'ing: its timers go. */
void exit_itimers(struct signal_struct *sig);

#endif
