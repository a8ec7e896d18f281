/* The CPUs beyond the first: bringing them up (kernel/arch/smpboot.c), running a function on them
 * through an IPI, and stopping them when one CPU panics (kernel/arch/smp.c). */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "kernel/compiler.h"

extern volatile uint64_t cpu_online_mask; /* bit n: CPU n is up (NR_CPUS is 64) */

static inline bool cpu_online(int cpu)
{
	return (__atomic_load_n(&cpu_online_mask, __ATOMIC_ACQUIRE) >> cpu) & 1;
}

int num_online_cpus(void);

/* Boot CPU, after sched_init: start every CPU the MADT lists (nosmp, maxcpus=N). */
void smp_boot_cpus(void);
/* The function-call and reschedule IPIs' handlers, on the boot CPU before any AP starts. */
void smp_init_ipis(void);
/* RESCHEDULE_VECTOR to cpu (Linux's smp_send_reschedule): out of hlt, or into the kernel, where
 * it looks at the run queue (kernel/sched/sched.c). */
void smp_send_reschedule(int cpu);

/*
 * Run fn(arg) on CPU cpu, in its interrupt context (interrupts off there), through the
 * CALL_FUNCTION_VECTOR IPI; on this CPU directly when cpu is this one. With wait, return
 * once fn has returned there. 0, or -ENXIO when cpu is not online. Call with interrupts on
 * (two CPUs calling each other with them off would wait for each other forever).
 */
int smp_call_function_single(int cpu, void (*fn)(void *), void *arg, bool wait);
/* fn(arg) on every other online CPU (not this one), as above. */
void smp_call_function(void (*fn)(void *), void *arg, bool wait);

/* panic(): stop every other CPU with an NMI so that only the panic's text is printed. */
void smp_send_stop(void);
bool smp_stop_requested(void);
void __noreturn smp_stop_this_cpu(void);

#endif
