/* Completions, as Linux's: one task sleeps until another says that something is done (a vfork
 * parent, until its child has let go of the memory they share). */
#ifndef KERNEL_COMPLETION_H
#define KERNEL_COMPLETION_H

#include "kernel/sched/wait.h"

struct completion {
	unsigned int done;           /* complete() calls not yet consumed by a waiter */
	struct wait_queue_head wait; /* its lock also guards done */
};

static inline void init_completion(struct completion *x)
{
	x->done = 0;
	init_waitqueue_head(&x->wait);
}

/* Mark x done and wake its waiters. The waker touches x only under x->wait.lock, and a waiter
 * returns only after taking that lock once more (finish_wait), so x may live on the waiter's
 * stack. Safe from interrupt handlers. */
void complete(struct completion *x);
/* Sleep until x is completed and consume it: 0; or -EINTR as soon as a fatal signal is
 * pending (SIGKILL, a group exit), with x not consumed. Other signals stay pending. */
int wait_for_completion_killable(struct completion *x);

#endif
