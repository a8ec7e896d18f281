/* Completions (kernel/sched/completion.h): a count of things done and a wait queue for the tasks
 * waiting for the next one. */
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/sched/completion.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"

void complete(struct completion *x)
{
	struct list_head *pos;
	uint64_t flags;

	spin_lock_irqsave(&x->wait.lock, flags);
	x->done++;
	list_for_each(pos, &x->wait.task_list)
		wake_up_process(list_entry(pos, struct wait_queue_entry, entry)->task);
	spin_unlock_irqrestore(&x->wait.lock, flags);
}

/* A fatal signal ends the sleep (today's Linux's TASK_KILLABLE; 2.6.23 slept uninterruptibly
 * here, and a killed vfork parent hung until its child left). */
int wait_for_completion_killable(struct completion *x)
{
	struct wait_queue_entry w;
	uint64_t flags;
	int ret = 0;

	init_wait(&w, current);
	for (;;) {
		prepare_to_wait(&x->wait, &w, TASK_INTERRUPTIBLE);
		if (__atomic_load_n(&x->done, __ATOMIC_ACQUIRE))
			break;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		schedule();
	}
	finish_wait(&x->wait, &w);
	if (!ret) {
		spin_lock_irqsave(&x->wait.lock, flags);
		x->done--;
		spin_unlock_irqrestore(&x->wait.lock, flags);
	}
	return ret;
}
