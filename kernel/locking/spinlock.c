/* The spinlock's slow path (waiting for a ticket) and, in the LOCKDEBUG=1 build, the checked
 * lock operations: recursion on one CPU, unlock of a free lock or of another CPU's lock, and
 * the lock-order record (kernel/locking/lockdep.c). */
#include "kernel/arch/percpu.h"
#include "kernel/locking/spinlock.h"
#include "kernel/sched/sched.h"

/* Spin until head reaches our ticket: each waiter is served in the order it arrived. */
void arch_spin_lock_wait(arch_spinlock_t *lock, uint16_t ticket)
{
	while ((uint16_t)READ_ONCE(lock->slock) != ticket)
		cpu_relax();
}

#ifdef CONFIG_LOCKDEBUG

void __spin_lock_init(spinlock_t *lock, const char *name, const void *key)
{
	lock->raw.slock = 0;
	lock->owner_cpu = -1;
	lock->owner = NULL;
	lockdep_init_map(&lock->dep_map, name, key);
}

void spin_lock(spinlock_t *lock)
{
	if (lock->owner_cpu == smp_processor_id() && arch_spin_is_locked(&lock->raw)) {
		lock_debug_report("spinlock recursion: %s taken again on CPU %d (held by pid %d)",
				  lock->dep_map.name, smp_processor_id(),
				  lock->owner ? lock->owner->pid : -1);
		return; /* (a self-test expected it: taking it would spin forever) */
	}
	lock_acquire(&lock->dep_map, LOCK_SPIN, false);
	arch_spin_lock(&lock->raw);
	lock->owner_cpu = smp_processor_id();
	lock->owner = current;
}

bool spin_trylock(spinlock_t *lock)
{
	if (!arch_spin_trylock(&lock->raw))
		return false;
	lock_acquire(&lock->dep_map, LOCK_SPIN, true);
	lock->owner_cpu = smp_processor_id();
	lock->owner = current;
	return true;
}

/* The checks of an unlock; false when it must not go ahead. */
static bool spin_unlock_ok(spinlock_t *lock)
{
	if (!arch_spin_is_locked(&lock->raw)) {
		lock_debug_report("spinlock %s unlocked while not locked", lock->dep_map.name);
		return false;
	}
	if (lock->owner_cpu != smp_processor_id()) {
		lock_debug_report("spinlock %s unlocked on CPU %d, taken on CPU %d",
				  lock->dep_map.name, smp_processor_id(), lock->owner_cpu);
		return false;
	}
	return true;
}

void spin_unlock(spinlock_t *lock)
{
	if (!spin_unlock_ok(lock))
		return;
	lock_release(&lock->dep_map);
	lock->owner_cpu = -1;
	lock->owner = NULL;
	arch_spin_unlock(&lock->raw);
}

void spin_unlock_handover(spinlock_t *lock)
{
	if (!spin_unlock_ok(lock))
		return;
	lock_release(&lock->dep_map); /* lockdep_switch_handover moved it to this task */
	lock->owner_cpu = -1;
	lock->owner = NULL;
	arch_spin_unlock(&lock->raw);
}

#endif
