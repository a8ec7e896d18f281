/* The per-CPU areas: a static array of struct percpu, one per possible CPU, and the call that
 * makes one of them the running CPU's (its GS base). */
#include "kernel/arch/percpu.h"
#include "kernel/arch/x86.h"

struct percpu cpu_data[NR_CPUS];
int nr_cpu_ids = 1;

/* kernel/arch/syscall.S reaches these two by number (PERCPU_KERNEL_RSP, PERCPU_USER_RSP). */
_Static_assert(__builtin_offsetof(struct percpu, kernel_rsp) == 0, "syscall.S");
_Static_assert(__builtin_offsetof(struct percpu, user_rsp) == 8, "syscall.S");

/*
 * Make cpu_data[cpu] this CPU's per-CPU area: GS base at it (kernel mode's), the user's GS
 * base 0 in KERNEL_GS_BASE for the first swapgs, and idle as the running task. Called once
 * per CPU, first thing, before anything reads `current`.
 */
void percpu_init_cpu(int cpu, struct task_struct *idle)
{
	struct percpu *p = &cpu_data[cpu];

	p->self = p;
	p->cpu = cpu;
	p->current_task = idle;
	p->idle = idle;
	wrmsr(MSR_GS_BASE, (uint64_t)p);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
}
