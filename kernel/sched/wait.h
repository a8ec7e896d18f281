/* Wait queues: a list of tasks asleep until some condition holds (a child exits, a page is
 * unlocked, a disk read completes). The sleeper re-checks its condition after every wake-up. */
#ifndef KERNEL_WAIT_H
#define KERNEL_WAIT_H

#include "kernel/lib/list.h"
#include "kernel/locking/spinlock.h"

struct task_struct;

/* lock guards task_list; interrupt handlers wake queues too, so it is taken irqsave. */
struct wait_queue_head {
	spinlock_t lock;
	struct list_head task_list;
};

#define __WAIT_QUEUE_HEAD_INITIALIZER(name)                                                 \
	{ .lock = __SPIN_LOCK_UNLOCKED(name.lock), .task_list = LIST_HEAD_INIT(name.task_list) }
#define DECLARE_WAIT_QUEUE_HEAD(name)                                                       \
	struct wait_queue_head name = __WAIT_QUEUE_HEAD_INITIALIZER(name)

struct wait_queue_entry {
	struct task_struct *task;
	struct list_head entry;
	/* What wake_up does for this entry: NULL wakes task; else this is called instead, with
	 * the queue's lock held, maybe from an interrupt (epoll's callback, Linux's func). key:
	 * 0, or POLLFREE (the queue is being freed: take w off it now). */
	void (*func)(struct wait_queue_entry *w, unsigned long key);
};

static inline void init_waitqueue_head(struct wait_queue_head *q)
{
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->task_list);
}

/* An entry for task t; its list node links to itself whenever it is not on a queue. */
static inline void init_wait(struct wait_queue_entry *w, struct task_struct *t)
{
	w->task = t;
	w->func = NULL;
	INIT_LIST_HEAD(&w->entry);
}

/* Queue wait on q and set current's state, before testing the condition: a wake_up that
 * comes between the test and schedule() then makes schedule() return at once. */
void prepare_to_wait(struct wait_queue_head *q, struct wait_queue_entry *wait, int state);
/* Back to TASK_RUNNING and off the queue (whether or not a wake_up came). */
void finish_wait(struct wait_queue_head *q, struct wait_queue_entry *wait);
/* Queue and unqueue w, with no change to current's state: an entry that stays queued while
 * its owner runs (an epoll item's, whose func is called by each wake_up). */
void add_wait_queue(struct wait_queue_head *q, struct wait_queue_entry *w);
void remove_wait_queue(struct wait_queue_head *q, struct wait_queue_entry *w);
/* Wake every task queued on q (or call its func with key). Safe from interrupt handlers. */
void __wake_up(struct wait_queue_head *q, unsigned long key);
static inline void wake_up(struct wait_queue_head *q)
{
	__wake_up(q, 0);
}

/* Anyone queued on q? Read without its lock: a hint (Linux's waitqueue_active). */
static inline bool waitqueue_active(const struct wait_queue_head *q)
{
	return !list_empty(&q->task_list);
}

/* Sleep until cond is true. 0, or -EINTR when a fatal signal arrives first. */
#define wait_event_interruptible(q, cond)                                                   \
	({                                                                                  \
		struct wait_queue_entry __w;                                                \
		int __ret = 0;                                                              \
		init_wait(&__w, current);                                                   \
		for (;;) {                                                                  \
			prepare_to_wait(&(q), &__w, TASK_INTERRUPTIBLE);                    \
			if (cond)                                                           \
				break;                                                      \
			if (signal_pending(current)) {                                      \
				__ret = -EINTR;                                             \
				break;                                                      \
			}                                                                   \
			schedule();                                                         \
		}                                                                           \
		finish_wait(&(q), &__w);                                                    \
		__ret;                                                                      \
	})

#endif
