/* Cross-CPU function calls (one call slot per CPU, claimed with an atomic exchange: the
 * kernel has no spinlock yet, so its few atomics are __atomic builtins; the target runs the
 * function in its CALL_FUNCTION_VECTOR handler), the scheduler's RESCHEDULE IPI, and the NMI
 * that stops CPUs on a panic. */
#include "drivers/apic/apic.h"
#include "drivers/pit.h"
#include "kernel/arch/percpu.h"
#include "kernel/arch/smp.h"
#include "kernel/arch/trap.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/printk/printk.h"

volatile uint64_t cpu_online_mask = 1; /* the boot CPU */

struct call_single_data {
	void (*func)(void *);
	void *info;
	int busy; /* 1 from the sender's claim until the target has run func */
};

static struct call_single_data csd[NR_CPUS];
static volatile int stopping;
static int cpus_stopped; /* CPUs that took the stop NMI */

int num_online_cpus(void)
{
	uint64_t m = __atomic_load_n(&cpu_online_mask, __ATOMIC_ACQUIRE);
	int n = 0;

	for (; m; m &= m - 1) /* no popcnt instruction on every x86-64 */
		n++;
	return n;
}

static void call_function_interrupt(struct pt_regs *regs)
{
	struct percpu *p = this_cpu_ptr();
	struct call_single_data *c = &csd[p->cpu];

	(void)regs;
	apic_eoi();
	p->ipis++;
	if (!__atomic_load_n(&c->busy, __ATOMIC_ACQUIRE)) /* nothing queued: a stray IPI */
		return;
	c->func(c->info);
	__atomic_store_n(&c->busy, 0, __ATOMIC_RELEASE);
}

/* Claim cpu's slot, fill it and send the IPI; the caller waits for the slot if it wants. */
static void send_call(int cpu, void (*fn)(void *), void *arg)
{
	struct call_single_data *c = &csd[cpu];

	while (__atomic_exchange_n(&c->busy, 1, __ATOMIC_ACQUIRE))
		asm volatile("pause");
	c->func = fn;
	c->info = arg;
	__atomic_thread_fence(__ATOMIC_RELEASE); /* func and info before the IPI is seen */
	apic_send_ipi(cpu_data[cpu].apic_id,
		      APIC_DM_FIXED | APIC_INT_ASSERT | CALL_FUNCTION_VECTOR);
}

static void wait_call(int cpu)
{
	while (__atomic_load_n(&csd[cpu].busy, __ATOMIC_ACQUIRE))
		asm volatile("pause");
}

int smp_call_function_single(int cpu, void (*fn)(void *), void *arg, bool wait)
{
	if (cpu < 0 || cpu >= NR_CPUS || !cpu_online(cpu))
		return -ENXIO;
	if (cpu == smp_processor_id()) {
		uint64_t flags = local_irq_save();

		fn(arg);
		local_irq_restore(flags);
		return 0;
	}
	send_call(cpu, fn, arg);
	if (wait)
		wait_call(cpu);
	return 0;
}

void smp_call_function(void (*fn)(void *), void *arg, bool wait)
{
	int me = smp_processor_id();

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		if (cpu != me && cpu_online(cpu))
			send_call(cpu, fn, arg);
	for (int cpu = 0; wait && cpu < NR_CPUS; cpu++)
		if (cpu != me && cpu_online(cpu))
			wait_call(cpu);
}

/* RESCHEDULE_VECTOR: nothing to do but return: to ring 3 through exit_to_user_mode (signals,
 * need_resched), or out of the idle loop's hlt. */
static void reschedule_interrupt(struct pt_regs *regs)
{
	(void)regs;
	apic_eoi();
}

void smp_send_reschedule(int cpu)
{
	apic_send_ipi(cpu_data[cpu].apic_id, APIC_DM_FIXED | APIC_INT_ASSERT | RESCHEDULE_VECTOR);
}

void smp_init_ipis(void)
{
	set_vector_handler(CALL_FUNCTION_VECTOR, call_function_interrupt);
	set_vector_handler(RESCHEDULE_VECTOR, reschedule_interrupt);
}

/* An NMI reaches a CPU even with interrupts off, so a CPU spinning with them off stops too. */
void smp_send_stop(void)
{
	int me, others;

	if (!apic || num_online_cpus() < 2)
		return;
	me = smp_processor_id();
	stopping = 1;
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		if (cpu != me && cpu_online(cpu))
			apic_send_ipi(cpu_data[cpu].apic_id, APIC_DM_NMI | APIC_INT_ASSERT);
	/* Wait up to 100 ms for them to say so, as Linux does before its panic text. */
	others = num_online_cpus() - 1;
	for (int ms = 0; ms < 100 && __atomic_load_n(&cpus_stopped, __ATOMIC_ACQUIRE) < others;
	     ms++)
		pit_udelay(1000);
	printk("smp: %d of %d other CPUs stopped\n",
	       __atomic_load_n(&cpus_stopped, __ATOMIC_ACQUIRE), others);
}

bool smp_stop_requested(void)
{
	return stopping;
}

void smp_stop_this_cpu(void)
{
	__atomic_add_fetch(&cpus_stopped, 1, __ATOMIC_RELEASE);
	for (;;) {
		local_irq_disable();
		halt();
	}
}
