/* What signal.c (sending) and deliver.c (taking) share: the two pending sets a signal waits in,
 * and which signals the default action ignores. Not in signal.h: they need struct task_struct,
 * and kernel/sched/sched.h includes signal.h before it declares it. */
#ifndef KERNEL_SIGNAL_INTERNAL_H
#define KERNEL_SIGNAL_INTERNAL_H

#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"

/* Default action "ignore". (SIGCONT's own work, resuming, is done when it is sent.) */
static inline bool sig_kernel_ignore(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH;
}

/* The pending set of t a signal goes to: the thread's or the process's. */
static inline uint64_t *pending_set(struct task_struct *t, bool shared)
{
	return shared ? &t->signal->shared_pending : &t->pending;
}

/* The siginfo kept for pending standard signal sig of that set. */
static inline struct ksiginfo *pending_info(struct task_struct *t, bool shared, int sig)
{
	return shared ? &t->signal->shared_info[sig - 1] : &t->sigstate.info[sig - 1];
}

#endif
