/* Self-tests of the locks (docs/locking.md): the read-write semaphore with sleeping kernel
 * threads (readers together, writers alone, FIFO order, downgrade), the ticket spinlock, and
 * in the LOCKDEBUG=1 build each misuse the checker must catch, provoked on purpose. */
#include "kernel/errno.h"
#include "kernel/lib/string.h"
#include "kernel/locking/rwsem.h"
#include "kernel/locking/smp_lock.h"
#include "kernel/locking/spinlock.h"
#include "kernel/sched/sched.h"
#include "kernel/test/ktest.h"
#include "mm/mm_types.h"

static struct rw_semaphore test_sem;
static volatile int readers_in, writers_in, max_readers, violations;
static volatile int log_order[16], nlog;

static void log_event(int who)
{
	if (nlog < 16)
		log_order[nlog++] = who;
}

/* A reader: in for a few ticks, asleep while holding it, never beside a writer. */
static int rw_reader(void *arg)
{
	down_read(&test_sem);
	log_event((int)(long)arg);
	readers_in++;
	if (readers_in > max_readers)
		max_readers = readers_in;
	if (writers_in)
		violations++;
	current->state = TASK_UNINTERRUPTIBLE;
	schedule_timeout(3);
	if (writers_in)
		violations++;
	readers_in--;
	up_read(&test_sem);
	return 0;
}

/* A writer: alone for a few ticks, asleep while holding it. */
static int rw_writer(void *arg)
{
	down_write(&test_sem);
	log_event((int)(long)arg);
	if (readers_in || writers_in)
		violations++;
	writers_in++;
	current->state = TASK_UNINTERRUPTIBLE;
	schedule_timeout(3);
	if (readers_in || writers_in != 1)
		violations++;
	writers_in--;
	up_write(&test_sem);
	return 0;
}

static void reap_all(void)
{
	int status;

	while (do_wait4(-1, &status, 0) > 0)
		;
}

static void rw_reset(void)
{
	init_rwsem(&test_sem);
	readers_in = writers_in = max_readers = violations = nlog = 0;
}

/* Three readers hold it at once (each sleeps inside), then two writers one at a time. */
KTEST(rwsem_readers_share_writers_exclude)
{
	rw_reset();
	for (long i = 0; i < 3; i++)
		KT_CHECK(kernel_thread(rw_reader, (void *)(i + 1), "reader") != NULL);
	for (long i = 0; i < 2; i++)
		KT_CHECK(kernel_thread(rw_writer, (void *)(i + 10), "writer") != NULL);
	reap_all();
	KT_CHECK(max_readers == 3);
	KT_CHECK(violations == 0);
	KT_CHECK(nlog == 5);
	KT_CHECK(!rwsem_is_locked(&test_sem));
}

/* FIFO: with a reader inside and a writer queued, a later reader waits behind the writer
 * (rwsem-spinlock's fairness: writers never starve). Order: reader 1, writer 10, reader 2. */
KTEST(rwsem_fifo_writer_not_starved)
{
	rw_reset();
	KT_CHECK(kernel_thread(rw_reader, (void *)1L, "reader") != NULL);
	schedule(); /* reader 1 is in, asleep */
	KT_CHECK(kernel_thread(rw_writer, (void *)10L, "writer") != NULL);
	schedule(); /* the writer queues */
	KT_CHECK(kernel_thread(rw_reader, (void *)2L, "reader") != NULL);
	reap_all();
	KT_CHECK(nlog == 3);
	KT_CHECK(log_order[0] == 1 && log_order[1] == 10 && log_order[2] == 2);
	KT_CHECK(max_readers == 1);
	KT_CHECK(violations == 0);
}

/* downgrade_write lets the queued readers in at once, while a queued writer still waits. */
KTEST(rwsem_downgrade_write)
{
	rw_reset();
	down_write(&test_sem);
	KT_CHECK(!down_read_trylock(&test_sem));
	KT_CHECK(kernel_thread(rw_reader, (void *)1L, "reader") != NULL);
	schedule();
	KT_CHECK(nlog == 0); /* asleep behind the writer */
	KT_CHECK(kernel_thread(rw_writer, (void *)10L, "writer") != NULL);
	schedule();
	downgrade_write(&test_sem);
	schedule();
	KT_CHECK(nlog == 1 && log_order[0] == 1); /* the reader is in beside us */
	KT_CHECK(readers_in == 1);
	up_read(&test_sem);
	reap_all();
	KT_CHECK(nlog == 2 && log_order[1] == 10);
	KT_CHECK(violations == 0);
	KT_CHECK(down_write_trylock(&test_sem));
	up_write(&test_sem);
}

/* The ticket lock: trylock fails while held, tickets are served in order, unlock frees. */
KTEST(spinlock_ticket)
{
	static DEFINE_SPINLOCK(l);
	uint64_t flags;

	KT_CHECK(!spin_is_locked(&l));
	spin_lock(&l);
	KT_CHECK(spin_is_locked(&l));
	KT_CHECK(!spin_trylock(&l));
	spin_unlock(&l);
	KT_CHECK(spin_trylock(&l));
	spin_unlock(&l);
	spin_lock_irqsave(&l, flags);
	KT_CHECK(!(local_irq_save() & 0x200)); /* interrupts off inside */
	spin_unlock_irqrestore(&l, flags);
	KT_CHECK(l.raw.tickets.head == l.raw.tickets.tail && l.raw.tickets.head == 3);
}

#ifdef CONFIG_LOCKDEBUG

/* Run fn with the checker told to expect one report; true when exactly one came. */
static bool caught(void (*fn)(void))
{
	int before = lockdep_reports;

	lockdep_expect++;
	fn();
	lockdep_expect--;
	return lockdep_reports == before + 1;
}

static DEFINE_SPINLOCK(lock_a);
static DEFINE_SPINLOCK(lock_b);

static void sleep_with_spinlock(void)
{
	spin_lock(&lock_a);
	schedule(); /* runnable: comes straight back */
	spin_unlock(&lock_a);
}

KTEST(lockdebug_schedule_with_spinlock)
{
	KT_CHECK(caught(sleep_with_spinlock));
}

static void recursion(void)
{
	spin_lock(&lock_a);
	spin_lock(&lock_a); /* caught and skipped: it would spin forever */
	spin_unlock(&lock_a);
}

KTEST(lockdebug_spinlock_recursion)
{
	KT_CHECK(caught(recursion));
	KT_CHECK(!spin_is_locked(&lock_a));
}

static void unlock_unlocked(void)
{
	spin_unlock(&lock_b);
}

static void copied_lock(void)
{
	spinlock_t copy = lock_b; /* a structure copied with its lock: lock_b's class, wrongly */

	spin_lock(&copy);
	spin_unlock(&copy);
}

static void zeroed_lock(void)
{
	spinlock_t zeroed;

	memset(&zeroed, 0, sizeof(zeroed)); /* as kzalloc leaves one no init call named */
	spin_lock(&zeroed);
	spin_unlock(&zeroed);
}

/* A lock not initialised where it lives would share a class with unrelated locks. */
KTEST(lockdebug_uninitialised_lock)
{
	KT_CHECK(caught(copied_lock));
	KT_CHECK(caught(zeroed_lock));
}

KTEST(lockdebug_unlock_unlocked)
{
	KT_CHECK(caught(unlock_unlocked));
}

static void unlock_other_cpu(void)
{
	spin_lock(&lock_b);
	lock_b.owner_cpu = 1; /* as if CPU 1 had taken it */
	spin_unlock(&lock_b);  /* caught: not released */
	lock_b.owner_cpu = smp_processor_id();
	spin_unlock(&lock_b);
}

KTEST(lockdebug_unlock_by_other_cpu)
{
	KT_CHECK(caught(unlock_other_cpu));
	KT_CHECK(!spin_is_locked(&lock_b));
}

static void a_then_b(void)
{
	spin_lock(&lock_a);
	spin_lock(&lock_b);
	spin_unlock(&lock_b);
	spin_unlock(&lock_a);
}

static void b_then_a(void)
{
	spin_lock(&lock_b);
	spin_lock(&lock_a);
	spin_unlock(&lock_a);
	spin_unlock(&lock_b);
}

/* A then B is recorded; B then A is an inversion, reported once and only once. */
KTEST(lockdebug_order_inversion)
{
	lockdep_reset_classes(&lock_a.dep_map, &lock_b.dep_map);
	KT_CHECK(!caught(a_then_b)); /* the first order is fine */
	KT_CHECK(caught(b_then_a));
	KT_CHECK(!caught(b_then_a)); /* said once */
	lockdep_reset_classes(&lock_a.dep_map, &lock_b.dep_map);
}

static struct rw_semaphore sem_x;

static void mmap_sem_read_after_write(void)
{
	down_write(&sem_x);
	/* A user copy's fault under mmap_sem for writing would do this: caught before it
	 * sleeps (the checker reports, then the semaphore itself would wait forever). */
	lock_acquire(&sem_x.dep_map, LOCK_READ, false);
	lock_release(&sem_x.dep_map);
	up_write(&sem_x);
}

KTEST(lockdebug_rwsem_recursion)
{
	init_rwsem(&sem_x);
	KT_CHECK(caught(mmap_sem_read_after_write));
}

static void user_return_with_mmap_sem(void)
{
	struct mm_struct *mm = current->mm;
	struct rw_semaphore *sem = mm ? &mm->mmap_sem : &sem_x;

	down_read(sem);
	lockdep_check_user_return(); /* what exit_to_user_mode runs first */
	up_read(sem);
}

KTEST(lockdebug_mmap_sem_held_to_user)
{
	/* Kernel threads run under the big kernel lock (kernel_thread_start), which a return to
	 * user mode must not hold either: let go of it, as the runner does before ring 3, so
	 * that mmap_sem is the one thing held. */
	int bkl = current->lock_depth;

	for (int i = 0; i <= bkl; i++)
		unlock_kernel();
	init_rwsem(&sem_x);
	KT_CHECK(caught(user_return_with_mmap_sem));
	lockdep_check_user_return(); /* nothing held now: no report (it would panic) */
	for (int i = 0; i <= bkl; i++)
		lock_kernel();
}

#endif
