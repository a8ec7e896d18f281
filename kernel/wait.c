/* Wait queues (kernel/wait.h). Interrupts are off while a queue changes, because the timer
 * and device interrupts wake tasks too. */
#include "kernel/sched.h"
#include "kernel/wait.h"
#include "kernel/x86.h"

void prepare_to_wait(struct wait_queue_head *q, struct wait_queue_entry *wait, int state)
{
	uint64_t flags = local_irq_save();

	if (list_empty(&wait->entry))
		list_add_tail(&wait->entry, &q->task_list);
	current->state = state;
	local_irq_restore(flags);
}

void finish_wait(struct wait_queue_head *q, struct wait_queue_entry *wait)
{
	uint64_t flags = local_irq_save();

	(void)q;
	current->state = TASK_RUNNING;
	list_del(&wait->entry); /* leaves it self-linked */
	local_irq_restore(flags);
}

void wake_up(struct wait_queue_head *q)
{
	uint64_t flags = local_irq_save();
	struct list_head *pos;

	list_for_each(pos, &q->task_list)
		wake_up_process(list_entry(pos, struct wait_queue_entry, entry)->task);
	local_irq_restore(flags);
}
