/* The events thread: one kernel thread that runs the work interrupt handlers queued, in the
 * order they queued it. A handler cannot take the big kernel lock (its CPU may be the holder)
 * nor sleep; the thread can do both. */
#include "kernel/bug.h"
#include "kernel/locking/spinlock.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/workqueue.h"

static DEFINE_SPINLOCK(worklist_lock); /* irqsave: handlers queue work */
static LIST_HEAD(worklist);
static struct task_struct *events_thread;

bool schedule_work(struct work_struct *work)
{
	uint64_t flags;
	bool queued = false;

	spin_lock_irqsave(&worklist_lock, flags);
	if (!work->pending) {
		work->pending = true;
		list_add_tail(&work->entry, &worklist);
		queued = true;
	}
	spin_unlock_irqrestore(&worklist_lock, flags);
	if (queued && events_thread)
		wake_up_process(events_thread);
	return queued;
}

/* Take one work item at a time; sleep when the list is empty. The state is set before the
 * test so that a schedule_work in between makes schedule() return at once. */
static int worker_thread(void *arg)
{
	(void)arg;
	for (;;) {
		struct work_struct *work = NULL;
		uint64_t flags;

		spin_lock_irqsave(&worklist_lock, flags);
		current->state = TASK_INTERRUPTIBLE;
		if (!list_empty(&worklist)) {
			work = list_first_entry(&worklist, struct work_struct, entry);
			list_del(&work->entry);
			work->pending = false;
			current->state = TASK_RUNNING;
		}
		spin_unlock_irqrestore(&worklist_lock, flags);
		if (work)
			work->func(work); /* (kernel threads hold the big kernel lock) */
		else
			schedule();
	}
	return 0;
}

void workqueue_init(void)
{
	events_thread = kernel_thread(worker_thread, NULL, "events/0");
	BUG_ON(!events_thread);
	if (!list_empty(&worklist))
		wake_up_process(events_thread);
}
