/* Wait queues (kernel/sched/wait.h). Each queue's lock is taken with interrupts off, because the
 * timer and device interrupts wake tasks too. Lock order: the queue's lock, then the run
 * queue's (wake_up_process). */
#include "kernel/arch/x86.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/wait.h"

void prepare_to_wait(struct wait_queue_head *q, struct wait_queue_entry *wait, int state)
{
	uint64_t flags;

	spin_lock_irqsave(&q->lock, flags);
	if (list_empty(&wait->entry))
		list_add_tail(&wait->entry, &q->task_list);
	current->state = state;
	spin_unlock_irqrestore(&q->lock, flags);
}

void finish_wait(struct wait_queue_head *q, struct wait_queue_entry *wait)
{
	uint64_t flags;

	current->state = TASK_RUNNING;
	spin_lock_irqsave(&q->lock, flags);
	list_del(&wait->entry); /* leaves it self-linked */
	spin_unlock_irqrestore(&q->lock, flags);
}

void add_wait_queue(struct wait_queue_head *q, struct wait_queue_entry *w)
{
	uint64_t flags;

	spin_lock_irqsave(&q->lock, flags);
	list_add_tail(&w->entry, &q->task_list);
	spin_unlock_irqrestore(&q->lock, flags);
}

void remove_wait_queue(struct wait_queue_head *q, struct wait_queue_entry *w)
{
	uint64_t flags;

	spin_lock_irqsave(&q->lock, flags);
	list_del(&w->entry);
	spin_unlock_irqrestore(&q->lock, flags);
}

void __wake_up(struct wait_queue_head *q, unsigned long key)
{
	struct list_head *pos, *n;
	uint64_t flags;

	spin_lock_irqsave(&q->lock, flags);
	list_for_each_safe(pos, n, &q->task_list) { /* a func may take its entry off */
		struct wait_queue_entry *w = list_entry(pos, struct wait_queue_entry, entry);

		if (w->func)
			w->func(w, key);
		else
			wake_up_process(w->task);
	}
	spin_unlock_irqrestore(&q->lock, flags);
}
