/* Read-write semaphores (Linux's <linux/rwsem.h>): many readers or one writer, and a task
 * that cannot have it sleeps. Waiters are served strictly in arrival order, as 2.6.23's
 * rwsem-spinlock.c: a reader arriving behind a queued writer waits too, so writers never
 * starve. The uncontended paths are one compare-and-exchange or one atomic add (inline). */
#ifndef KERNEL_RWSEM_H
#define KERNEL_RWSEM_H

#include "kernel/lib/list.h"
#include "kernel/locking/spinlock.h"
#include "kernel/sched/sched.h"

/*
 * count: the readers holding it in the low 30 bits, RWSEM_WRITER while a writer holds it,
 * RWSEM_WAITERS while wait_list is not empty. The fast paths succeed only while WAITERS is
 * clear; everything else happens under wait_lock, which also guards wait_list and WAITERS.
 * Both flags sit in the low 32 bits so that the fast paths test them with one instruction
 * (the page fault takes it: docs/bench.md, "Design choices, measured").
 */
#define RWSEM_READER 1L
#define RWSEM_READER_MASK 0x3fffffffL
#define RWSEM_WAITERS (1L << 30)
#define RWSEM_WRITER (1L << 31)

struct rw_semaphore {
	atomic_long_t count;
	spinlock_t wait_lock;
	struct list_head wait_list;
	struct task_struct *owner; /* the writer, for the fault path's deadlock check */
	struct lockdep_map dep_map; /* (empty without LOCKDEBUG) */
};

#ifdef CONFIG_LOCKDEBUG
void __init_rwsem(struct rw_semaphore *sem, const char *name, const void *key);
#define init_rwsem(sem)                                                                     \
	do {                                                                                \
		static char __key;                                                          \
		__init_rwsem((sem), #sem, &__key);                                          \
	} while (0)
#else
void __init_rwsem(struct rw_semaphore *sem);
#define init_rwsem(sem) __init_rwsem(sem)
#endif

void rwsem_down_read_slow(struct rw_semaphore *sem);
void rwsem_down_write_slow(struct rw_semaphore *sem);
void rwsem_wake(struct rw_semaphore *sem);

static inline bool __down_read_trylock(struct rw_semaphore *sem)
{
	long c = atomic_long_read(&sem->count);

	return !(c & (RWSEM_WRITER | RWSEM_WAITERS)) &&
	       atomic_long_cmpxchg(&sem->count, c, c + RWSEM_READER) == c;
}

static inline bool __down_write_trylock(struct rw_semaphore *sem)
{
	if (atomic_long_cmpxchg(&sem->count, 0, RWSEM_WRITER) != 0)
		return false;
	sem->owner = current;
	return true;
}

/*
 * Take it for reading; sleeps (uninterruptibly) while a writer holds it or waits for it.
 * One atomic add (the fault path's cost: a compare-and-exchange loop costs more,
 * docs/bench.md); a reader that finds a writer or waiters takes its count back in the slow
 * path.
 */
static inline void down_read(struct rw_semaphore *sem)
{
	lock_acquire(&sem->dep_map, LOCK_READ, false);
	if (__builtin_expect(atomic_long_fetch_add(RWSEM_READER, &sem->count) &
			     (RWSEM_WRITER | RWSEM_WAITERS), 0))
		rwsem_down_read_slow(sem);
}

/* Take it for reading if that needs no wait: true when taken. */
static inline bool down_read_trylock(struct rw_semaphore *sem)
{
	if (!__down_read_trylock(sem))
		return false;
	lock_acquire(&sem->dep_map, LOCK_READ, true);
	return true;
}

static inline void up_read(struct rw_semaphore *sem)
{
	long c;

	lock_release(&sem->dep_map);
	c = atomic_long_fetch_add(-RWSEM_READER, &sem->count);
	/* The last reader out, with someone queued: hand it over. (No writer can hold it while
	 * a reader does, but a reader's passing add in down_read may make c look busier.) */
	if (__builtin_expect(c == RWSEM_WAITERS + RWSEM_READER, 0))
		rwsem_wake(sem);
}

/* Take it for writing: sleeps until no reader and no other writer holds it. */
static inline void down_write(struct rw_semaphore *sem)
{
	lock_acquire(&sem->dep_map, LOCK_WRITE, false);
	if (!__down_write_trylock(sem))
		rwsem_down_write_slow(sem);
}

static inline bool down_write_trylock(struct rw_semaphore *sem)
{
	if (!__down_write_trylock(sem))
		return false;
	lock_acquire(&sem->dep_map, LOCK_WRITE, true);
	return true;
}

void up_write_slow(struct rw_semaphore *sem);

static inline void up_write(struct rw_semaphore *sem)
{
	lock_release(&sem->dep_map);
	sem->owner = NULL;
	if (atomic_long_cmpxchg(&sem->count, RWSEM_WRITER, 0) != RWSEM_WRITER)
		up_write_slow(sem);
}

/* A writer becomes a reader without letting any other writer in between; the readers
 * queued at the front of the line get in with it. */
void downgrade_write(struct rw_semaphore *sem);

/* The writer holding it now, if any (NULL for readers or none). */
static inline bool rwsem_is_write_owner(struct rw_semaphore *sem, struct task_struct *t)
{
	return sem->owner == t;
}

static inline bool rwsem_is_locked(struct rw_semaphore *sem)
{
	return atomic_long_read(&sem->count) & (RWSEM_READER_MASK | RWSEM_WRITER);
}

#endif
