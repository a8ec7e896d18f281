/* The big kernel lock: a spinlock that a task may hold across a sleep, because schedule() drops
 * it and takes it back (Linux 2.6.23's lib/kernel_lock.c, the spinlock variant). */
#include "kernel/sched.h"
#include "kernel/smp_lock.h"
#include "kernel/spinlock.h"
#include "kernel/x86.h"

static arch_spinlock_t kernel_flag;

/*
 * Take the lock, answering interrupts while waiting even if the caller had them off: the
 * holder may be waiting for this CPU to acknowledge a TLB shootdown. Only reacquire (after a
 * sleep, when nothing can assume interrupts stayed off) calls it with interrupts off.
 */
static void __lock_kernel(void)
{
	if (arch_spin_trylock(&kernel_flag))
		return;
	if (local_irq_save() & X86_EFLAGS_IF) {
		local_irq_enable();
		arch_spin_lock(&kernel_flag);
		return;
	}
	/* (Not "sti; pause; cli": the interrupt window after sti's shadow is one instruction,
	 * which QEMU's TCG never checks. Spin with interrupts really on instead.) */
	while (!arch_spin_trylock(&kernel_flag)) {
		local_irq_enable();
		while (arch_spin_is_locked(&kernel_flag))
			cpu_relax();
		local_irq_disable();
	}
}

void lock_kernel(void)
{
	struct task_struct *t = current;

	if (++t->lock_depth == 0)
		__lock_kernel();
}

void unlock_kernel(void)
{
	struct task_struct *t = current;

	BUG_ON(t->lock_depth < 0);
	if (--t->lock_depth < 0)
		arch_spin_unlock(&kernel_flag);
}

bool kernel_locked(void)
{
	return current->lock_depth >= 0;
}

void release_kernel_lock(struct task_struct *t)
{
	if (t->lock_depth >= 0)
		arch_spin_unlock(&kernel_flag);
}

void reacquire_kernel_lock(struct task_struct *t)
{
	if (t->lock_depth >= 0)
		__lock_kernel();
}
