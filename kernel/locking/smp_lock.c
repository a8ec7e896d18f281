/* The big kernel lock as a sleeping lock, as 2.6.23's with CONFIG_PREEMPT_BKL (lib/kernel_lock.c
 * over a semaphore): a task that finds it taken sleeps until the holder lets go of it, rather
 * than spin. schedule() lets go of it and takes it back, so a holder may sleep too. */
#include "kernel/locking/smp_lock.h"
#include "kernel/locking/spinlock.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/wait.h"

/*
 * The owner, or NULL when free, and the tasks waiting in arrival order, all under
 * kernel_sem_lock. up() frees the lock and wakes the first waiter, which then competes for it
 * with any task that comes along meanwhile: handing the lock to a task that is not running
 * yet would leave it idle until that task's CPU switches to it, while every other CPU queues
 * behind it (a lock convoy). A woken waiter that loses sets kernel_sem_handoff, and the next
 * up() hands the lock to it directly, so nobody waits for ever: Linux's mutex does the same
 * (MUTEX_FLAG_HANDOFF).
 *
 * Why not a spinlock: under QEMU's TCG with more virtual CPUs than host cores, a CPU spinning
 * for a lock whose holder's host thread is not running burns what the holder needs; the
 * fuzzer's four processes on four CPUs took over ten times as long (make test, ring3-smp4).
 */
static DEFINE_SPINLOCK(kernel_sem_lock);
static struct task_struct *kernel_sem_owner;
static LIST_HEAD(kernel_sem_waiters);
static bool kernel_sem_handoff;

/* Spins before a task sleeps for the lock, while its holder runs on another CPU. */
#define KERNEL_SEM_SPINS 4000

/* Queue me behind the others and sleep until the lock is free (or handed to me), then take
 * it. Called with kernel_sem_lock held (flags: its saved interrupt state); returns without. */
static __attribute__((noinline)) void kernel_sem_wait(struct task_struct *me, uint64_t flags)
{
	struct wait_queue_entry w;

	init_wait(&w, me);
	list_add_tail(&w.entry, &kernel_sem_waiters);
	for (bool woken = false; kernel_sem_owner && kernel_sem_owner != me; woken = true) {
		if (woken) /* woken, and another task took it first: the next up() hands over */
			kernel_sem_handoff = true;
		me->state = TASK_UNINTERRUPTIBLE;
		spin_unlock_irqrestore(&kernel_sem_lock, flags);
		schedule(); /* (lock_depth is -1 here: this schedule() leaves the lock alone) */
		spin_lock_irqsave(&kernel_sem_lock, flags);
	}
	list_del(&w.entry);
	kernel_sem_owner = me;
	spin_unlock_irqrestore(&kernel_sem_lock, flags);
}

static void kernel_sem_down(void)
{
	struct task_struct *me = current, *owner;
	uint64_t flags;

	/* Most system calls hold the lock a few microseconds: while the holder is running,
	 * a short spin is cheaper than a sleep and a wake-up (an adaptive mutex). Bounded, so
	 * a holder that waits for this CPU (a TLB shootdown) is answered soon after. (owner
	 * may exit meanwhile: its task_struct is kmalloc memory, which stays mapped.) */
	for (int i = 0; i < KERNEL_SEM_SPINS; i++) {
		owner = READ_ONCE(kernel_sem_owner);
		if (!owner || !READ_ONCE(owner->on_cpu))
			break;
		cpu_relax();
	}
	spin_lock_irqsave(&kernel_sem_lock, flags);
	if (!kernel_sem_owner) {
		kernel_sem_owner = me;
		spin_unlock_irqrestore(&kernel_sem_lock, flags);
		return;
	}
	kernel_sem_wait(me, flags);
}

/* Free the lock and wake the first waiter; or hand the lock to it, when it lost once. */
static __attribute__((noinline)) void kernel_sem_wake_first(void)
{
	struct task_struct *first =
		list_first_entry(&kernel_sem_waiters, struct wait_queue_entry, entry)->task;

	kernel_sem_owner = kernel_sem_handoff ? first : NULL;
	kernel_sem_handoff = false;
	wake_up_process(first);
}

static void kernel_sem_up(void)
{
	uint64_t flags;

	spin_lock_irqsave(&kernel_sem_lock, flags);
	BUG_ON(kernel_sem_owner != current);
	if (list_empty(&kernel_sem_waiters))
		kernel_sem_owner = NULL;
	else
		kernel_sem_wake_first();
	spin_unlock_irqrestore(&kernel_sem_lock, flags);
}

/* Taking it may sleep: lock_depth says "held" only once the task owns it, so a schedule()
 * while waiting does not let go of a lock it does not have. */
void lock_kernel(void)
{
	struct task_struct *t = current;

	if (t->lock_depth >= 0) {
		t->lock_depth++;
		return;
	}
	kernel_sem_down();
	t->lock_depth = 0;
}

void unlock_kernel(void)
{
	struct task_struct *t = current;

	BUG_ON(t->lock_depth < 0);
	if (--t->lock_depth < 0)
		kernel_sem_up();
}

void release_kernel_lock(struct task_struct *t)
{
	if (t->lock_depth >= 0)
		kernel_sem_up();
}

void reacquire_kernel_lock(struct task_struct *t)
{
	int depth = t->lock_depth;

	if (depth < 0)
		return;
	t->lock_depth = -1; /* while it waits, its own schedule() calls must not touch it */
	kernel_sem_down();
	t->lock_depth = depth;
}
