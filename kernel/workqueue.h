/* Work deferred from interrupt handlers to a kernel thread (2.6.23's schedule_work and its
 * `events` thread): what a handler may not do itself runs there, in task context, under the
 * big kernel lock, on whichever CPU the thread gets. */
#ifndef KERNEL_WORKQUEUE_H
#define KERNEL_WORKQUEUE_H

#include "kernel/lib/list.h"

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	struct list_head entry; /* on the worklist while pending */
	work_func_t func;
	bool pending;           /* queued and not yet started: scheduling it again does nothing */
};

#define DECLARE_WORK(n, f) struct work_struct n = { .entry = LIST_HEAD_INIT(n.entry), .func = (f) }

static inline void INIT_WORK(struct work_struct *work, work_func_t func)
{
	INIT_LIST_HEAD(&work->entry);
	work->func = func;
	work->pending = false;
}

/* Queue work for the events thread, from any context; false if it was already queued. */
bool schedule_work(struct work_struct *work);
/* Start the events thread (before the first interrupt handler schedules work). */
void workqueue_init(void);

#endif
