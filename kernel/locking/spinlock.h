/* Spinlocks (Linux's <linux/spinlock.h> names): a ticket lock, so waiting CPUs get the lock
 * in the order they asked for it. The _irq/_irqsave forms also turn interrupts off, for data
 * that interrupt handlers touch too. In the LOCKDEBUG=1 build each operation also checks its
 * use (kernel/locking/spinlock.c) and feeds the order validator (kernel/locking/lockdep.h). */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include "kernel/arch/atomic.h"
#include "kernel/arch/x86.h"
#include "kernel/bug.h"
#include "kernel/locking/lockdep.h"

/* slock: the low 16 bits are the ticket now served (head), the high 16 the next ticket to
 * hand out (tail). Free when head == tail. */
typedef union {
	volatile uint32_t slock;
	struct {
		volatile uint16_t head, tail;
	} tickets;
} arch_spinlock_t;

typedef struct {
	arch_spinlock_t raw;
#ifdef CONFIG_LOCKDEBUG
	int owner_cpu; /* -1 when free */
	struct task_struct *owner;
	struct lockdep_map dep_map;
#endif
} spinlock_t;

#ifdef CONFIG_LOCKDEBUG
#define __SPIN_LOCK_UNLOCKED(lockname)                                                      \
	{ .raw = { .slock = 0 }, .owner_cpu = -1, .owner = NULL,                            \
	  .dep_map = LOCKDEP_MAP_INIT(#lockname, &(lockname), &(lockname).dep_map) }
#else
#define __SPIN_LOCK_UNLOCKED(lockname) { .raw = { .slock = 0 } }
#endif
#define DEFINE_SPINLOCK(x) spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

#ifdef HOST_TEST
/* Host unit tests run kernel files in one user-mode thread: no interrupts to turn off (cli
 * would fault in ring 3) and never a wait. */
static inline void arch_spin_lock_wait(arch_spinlock_t *lock, uint16_t ticket)
{
	(void)lock, (void)ticket;
}
#define spin_irq_save() 0UL
#define spin_irq_restore(flags) ((void)(flags))
#define spin_irq_disable() ((void)0)
#define spin_irq_enable() ((void)0)
#else
void arch_spin_lock_wait(arch_spinlock_t *lock, uint16_t ticket);
#define spin_irq_save() local_irq_save()
#define spin_irq_restore(flags) local_irq_restore(flags)
#define spin_irq_disable() local_irq_disable()
#define spin_irq_enable() local_irq_enable()
#endif

static inline void arch_spin_lock(arch_spinlock_t *lock)
{
	uint32_t t = 0x10000;

	asm volatile("lock; xaddl %0,%1" : "+r"(t), "+m"(lock->slock) : : "memory");
	if (__builtin_expect((uint16_t)t != (uint16_t)(t >> 16), 0))
		arch_spin_lock_wait(lock, t >> 16);
}

static inline bool arch_spin_trylock(arch_spinlock_t *lock)
{
	uint32_t old = lock->slock;

	if ((uint16_t)old != (uint16_t)(old >> 16))
		return false;
	return cmpxchg(&lock->slock, old, old + 0x10000) == old;
}

/* Only the holder moves head, so a 16-bit increment cannot disturb the tail. */
static inline void arch_spin_unlock(arch_spinlock_t *lock)
{
	asm volatile("lock; incw %0" : "+m"(lock->tickets.head) : : "memory");
}

static inline bool arch_spin_is_locked(const arch_spinlock_t *lock)
{
	uint32_t v = lock->slock;

	return (uint16_t)v != (uint16_t)(v >> 16);
}

#ifdef CONFIG_LOCKDEBUG
void __spin_lock_init(spinlock_t *lock, const char *name, const void *key);
/* One class per call site, as Linux's spin_lock_init: every mm's page_table_lock is one. */
#define spin_lock_init(lock)                                                                \
	do {                                                                                \
		static char __key;                                                          \
		__spin_lock_init((lock), #lock, &__key);                                    \
	} while (0)
void spin_lock(spinlock_t *lock);
bool spin_trylock(spinlock_t *lock);
void spin_unlock(spinlock_t *lock);
/* The unlock of a lock taken by another task: the run queue's, after a context switch. */
void spin_unlock_handover(spinlock_t *lock);
#else
static inline void spin_lock_init(spinlock_t *lock)
{
	lock->raw.slock = 0;
}
static inline void spin_lock(spinlock_t *lock)
{
	arch_spin_lock(&lock->raw);
}
static inline bool spin_trylock(spinlock_t *lock)
{
	return arch_spin_trylock(&lock->raw);
}
static inline void spin_unlock(spinlock_t *lock)
{
	arch_spin_unlock(&lock->raw);
}
static inline void spin_unlock_handover(spinlock_t *lock)
{
	arch_spin_unlock(&lock->raw);
}
#endif

static inline bool spin_is_locked(spinlock_t *lock)
{
	return arch_spin_is_locked(&lock->raw);
}

#define assert_spin_locked(lock) BUG_ON(!spin_is_locked(lock))

/* For data an interrupt handler also takes, where interrupts are known to be on. */
static inline void spin_lock_irq(spinlock_t *lock)
{
	spin_irq_disable();
	spin_lock(lock);
}

static inline void spin_unlock_irq(spinlock_t *lock)
{
	spin_unlock(lock);
	spin_irq_enable();
}

/* The same where interrupts may already be off: flags keeps their state. */
#define spin_lock_irqsave(lock, flags)                                                      \
	do {                                                                                \
		(flags) = spin_irq_save();                                                  \
		spin_lock(lock);                                                            \
	} while (0)

static inline void spin_unlock_irqrestore(spinlock_t *lock, uint64_t flags)
{
	spin_unlock(lock);
	spin_irq_restore(flags);
}

#endif
