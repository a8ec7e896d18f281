/* Self-tests of the other CPUs: each online AP runs a function sent by IPI and reports its
 * CPU number and APIC id, each AP's timer ticks, the IPI round trip (docs/smp.md), and a panic
 * that must stop the APs. These need an AP (KTEST_SMP); only the local paths run on one CPU. */
#include "kernel/arch/percpu.h"
#include "kernel/arch/smp.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/test/ktest.h"
#include "kernel/time/time.h"

static volatile int seen_cpu[NR_CPUS];
static volatile uint32_t seen_apic[NR_CPUS];
static volatile bool seen_idle[NR_CPUS]; /* `current` there was that CPU's own idle task */
static volatile int calls;

static void report_cpu(void *arg)
{
	int me = smp_processor_id();

	seen_cpu[me] = me + 1;
	seen_apic[me] = this_cpu_ptr()->apic_id;
	seen_idle[me] = current == cpu_data[me].idle && current->pid == 0;
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	(void)arg;
}

static void nop(void *arg)
{
	(void)arg;
}

/* smp_call_function: each other online CPU runs the function once, on itself, where `current`
 * (read through that CPU's GS) is its own idle task. */
KTEST_SMP(smp_call_function_every_cpu, 2)
{
	int others = num_online_cpus() - 1;

	for (int i = 0; i < NR_CPUS; i++)
		seen_cpu[i] = 0;
	calls = 0;
	smp_call_function(report_cpu, NULL, true);
	KT_CHECK(calls == others);
	for (int cpu = 1; cpu < NR_CPUS; cpu++)
		if (cpu_online(cpu)) {
			KT_CHECK(seen_cpu[cpu] == cpu + 1);
			KT_CHECK(seen_apic[cpu] == cpu_data[cpu].apic_id);
			KT_CHECK(seen_idle[cpu]);
		}
	KT_CHECK(seen_cpu[0] == 0); /* not the caller */
	printk("# smp: %d other CPU%s answered\n", others, others == 1 ? "" : "s");
}

/* smp_call_function_single: the calling CPU runs the function directly, and -ENXIO for a
 * CPU that is not up or past NR_CPUS. Meaningful on one CPU too. */
KTEST(smp_call_function_single_local)
{
	int me = smp_processor_id();

	seen_cpu[me] = 0;
	KT_CHECK(smp_call_function_single(me, report_cpu, NULL, true) == 0);
	KT_CHECK(seen_cpu[me] == me + 1);
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		if (!cpu_online(cpu))
			KT_CHECK(smp_call_function_single(cpu, report_cpu, NULL, true) == -ENXIO);
	KT_CHECK(smp_call_function_single(NR_CPUS, nop, NULL, true) == -ENXIO);
	KT_CHECK(smp_call_function_single(-1, nop, NULL, true) == -ENXIO);
}

/* smp_call_function_single to each other online CPU: it runs there, on that CPU; then the
 * round trip to CPU 1. */
KTEST_SMP(smp_call_function_single_each, 2)
{
	uint64_t t0, t1;
	int n = 0;

	for (int cpu = 1; cpu < NR_CPUS; cpu++) {
		if (!cpu_online(cpu))
			continue;
		seen_cpu[cpu] = 0;
		seen_apic[cpu] = 0;
		KT_CHECK(smp_call_function_single(cpu, report_cpu, NULL, true) == 0);
		KT_CHECK(seen_cpu[cpu] == cpu + 1);
		KT_CHECK(seen_apic[cpu] == cpu_data[cpu].apic_id);
	}
	KT_CHECK(cpu_online(1));
	if (!cpu_online(1))
		return;
	/* The round trip: send, the AP's handler runs, the sender sees the slot freed. */
	t0 = rdtsc();
	for (; n < 100; n++)
		smp_call_function_single(1, nop, NULL, true);
	t1 = rdtsc();
	printk("# smp: IPI round trip to CPU 1: %lu TSC cycles (mean of %d)\n", (t1 - t0) / n, n);
}

/* Every AP's local APIC timer interrupts it about HZ times a second. */
KTEST_SMP(smp_ap_timer_ticks, 2)
{
	uint64_t before[NR_CPUS], start = jiffies;

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		before[cpu] = cpu_data[cpu].ticks;
	while (jiffies < start + 5)
		schedule_timeout(1);
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		if (cpu_online(cpu)) {
			KT_CHECK(cpu_data[cpu].ticks >= before[cpu] + 3);
			if (cpu_data[cpu].ticks < before[cpu] + 3)
				printk("# smp: CPU %d ticked %lu times in 5 jiffies\n", cpu,
				       cpu_data[cpu].ticks - before[cpu]);
		}
}

static volatile int spinning;

/* Run on the APs through an IPI: spin with interrupts off (as a CPU stuck in the kernel
 * would), so that only an NMI can stop it. */
static void spin_irqs_off(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&spinning, 1, __ATOMIC_RELEASE);
	for (;;)
		asm volatile("pause");
}

/* Destructive: the APs spin with interrupts off, then this CPU panics; the panic must stop
 * them all first ("smp: N of N other CPUs stopped") so that its text is the only output. */
KTEST_SMP_BY_NAME(smp_panic_stop, 2)
{
	smp_call_function(spin_irqs_off, NULL, false);
	while (__atomic_load_n(&spinning, __ATOMIC_ACQUIRE) < num_online_cpus() - 1)
		asm volatile("pause");
	panic("smp_panic_stop: %d other CPUs spinning with interrupts off", spinning);
}
