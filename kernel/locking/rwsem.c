/* The read-write semaphore's slow paths (kernel/locking/rwsem.h): the FIFO wait list under
 * wait_lock and the hand-over to the tasks at its front, in the manner of 2.6.23's
 * rwsem-spinlock.c. A waiter is granted the semaphore by whoever wakes it (the count already
 * includes it), so a woken task never has to compete again. */
#include "kernel/locking/rwsem.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"

struct rwsem_waiter {
	struct list_head list;
	struct task_struct *task; /* NULL once granted */
	bool write;
};

#ifdef CONFIG_LOCKDEBUG
void __init_rwsem(struct rw_semaphore *sem, const char *name, const void *key)
#else
void __init_rwsem(struct rw_semaphore *sem)
#endif
{
	sem->count.counter = 0;
	spin_lock_init(&sem->wait_lock);
	INIT_LIST_HEAD(&sem->wait_list);
	sem->owner = NULL;
#ifdef CONFIG_LOCKDEBUG
	lockdep_init_map(&sem->dep_map, name, key);
#endif
}

/*
 * Grant the semaphore to the front of the line. Called with wait_lock held and the
 * semaphore free of writers; readers_only (downgrade_write) stops at the first writer.
 * A writer is woken alone and only when no reader holds it; otherwise every reader up to
 * the first queued writer is woken together.
 */
static void __rwsem_do_wake(struct rw_semaphore *sem, bool readers_only)
{
	struct rwsem_waiter *w;

	while (!list_empty(&sem->wait_list)) {
		long c = atomic_long_read(&sem->count);
		struct task_struct *t;

		w = list_first_entry(&sem->wait_list, struct rwsem_waiter, list);
		if (w->write) {
			if (readers_only || (c & (RWSEM_READER_MASK | RWSEM_WRITER)))
				break;
			atomic_long_add_return(RWSEM_WRITER, &sem->count);
			sem->owner = w->task;
		} else {
			if (c & RWSEM_WRITER)
				break;
			atomic_long_add_return(RWSEM_READER, &sem->count);
		}
		list_del(&w->list);
		t = w->task;
		smp_mb(); /* the grant is visible before the sleeper can see task == NULL */
		WRITE_ONCE(w->task, NULL);
		wake_up_process(t);
		if (w->write)
			break;
	}
	if (list_empty(&sem->wait_list))
		atomic_long_add_return(-RWSEM_WAITERS, &sem->count);
}

/* Queue w at the back and sleep until someone grants it. wait_lock held on entry, dropped. */
static void rwsem_wait(struct rw_semaphore *sem, struct rwsem_waiter *w, uint64_t flags)
{
	if (list_empty(&sem->wait_list))
		atomic_long_add_return(RWSEM_WAITERS, &sem->count);
	list_add_tail(&w->list, &sem->wait_list);
	/* The holders may all have left before WAITERS was set: then nobody would wake us. */
	__rwsem_do_wake(sem, false);
	spin_unlock_irqrestore(&sem->wait_lock, flags);
	for (;;) {
		current->state = TASK_UNINTERRUPTIBLE;
		smp_mb();
		if (!READ_ONCE(w->task))
			break;
		schedule();
	}
	current->state = TASK_RUNNING;
}

/* down_read's add found a writer or waiters: take the add back (waking whoever that may
 * let in, as up_read would), then queue. Waiting for a semaphore this task holds for
 * writing would never end: said at once. */
void rwsem_down_read_slow(struct rw_semaphore *sem)
{
	struct rwsem_waiter w = { .task = current, .write = false };
	uint64_t flags;

	if (sem->owner == current)
		panic("down_read: pid %d (%s) holds this rw_semaphore for writing (%p): it would "
		      "wait for itself forever", current->pid, current->comm, (void *)sem);
	spin_lock_irqsave(&sem->wait_lock, flags);
	atomic_long_add_return(-RWSEM_READER, &sem->count);
	if (__down_read_trylock(sem)) { /* it came free meanwhile, and no one is queued */
		spin_unlock_irqrestore(&sem->wait_lock, flags);
		return;
	}
	rwsem_wait(sem, &w, flags);
}

void rwsem_down_write_slow(struct rw_semaphore *sem)
{
	struct rwsem_waiter w = { .task = current, .write = true };
	uint64_t flags;

	spin_lock_irqsave(&sem->wait_lock, flags);
	if (__down_write_trylock(sem)) {
		spin_unlock_irqrestore(&sem->wait_lock, flags);
		return;
	}
	rwsem_wait(sem, &w, flags);
}

/* The last reader left while someone waits. */
void rwsem_wake(struct rw_semaphore *sem)
{
	uint64_t flags;

	spin_lock_irqsave(&sem->wait_lock, flags);
	if (atomic_long_read(&sem->count) & RWSEM_WAITERS)
		__rwsem_do_wake(sem, false);
	spin_unlock_irqrestore(&sem->wait_lock, flags);
}

/* The writer leaves and someone waits (the fast path's cmpxchg saw WAITERS). */
void up_write_slow(struct rw_semaphore *sem)
{
	uint64_t flags;

	spin_lock_irqsave(&sem->wait_lock, flags);
	atomic_long_add_return(-RWSEM_WRITER, &sem->count);
	if (atomic_long_read(&sem->count) & RWSEM_WAITERS)
		__rwsem_do_wake(sem, false);
	spin_unlock_irqrestore(&sem->wait_lock, flags);
}

void downgrade_write(struct rw_semaphore *sem)
{
	uint64_t flags;

	lock_release(&sem->dep_map);
	lock_acquire(&sem->dep_map, LOCK_READ, true);
	spin_lock_irqsave(&sem->wait_lock, flags);
	sem->owner = NULL;
	atomic_long_add_return(RWSEM_READER - RWSEM_WRITER, &sem->count);
	if (atomic_long_read(&sem->count) & RWSEM_WAITERS)
		__rwsem_do_wake(sem, true);
	spin_unlock_irqrestore(&sem->wait_lock, flags);
}
