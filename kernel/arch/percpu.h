/* Per-CPU data: one struct percpu per CPU, reached through the GS base (kernel mode keeps it
 * there; syscall and trap entries swapgs from the user's). `current` is read through it. */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include "kernel/compiler.h"

#define NR_CPUS 64

struct task_struct;
struct tss;

/* The first two fields' offsets are used by kernel/arch/syscall.S (PERCPU_KERNEL_RSP/USER_RSP). */
struct percpu {
	uint64_t kernel_rsp;          /* loaded by syscall_entry: top of current's kernel stack */
	uint64_t user_rsp;            /* scratch for the user %rsp */
	struct percpu *self;          /* this structure's address: %gs:self is the pointer */
	struct task_struct *current_task; /* the task running on this CPU */
	struct task_struct *idle;     /* this CPU's idle task */
	struct tss *tss;              /* this CPU's TSS (kernel/arch/gdt.c) */
	int cpu;                      /* logical number: 0 is the boot CPU */
	uint32_t apic_id;             /* its local APIC's id (x2APIC id when in x2APIC mode) */
	volatile uint64_t ticks;      /* its local timer's interrupts so far */
	volatile uint64_t ipis;       /* function-call IPIs it has answered */
	bool need_resched;            /* schedule() before the next return to ring 3 */
	uint64_t user_ticks, system_ticks, idle_ticks; /* /proc/stat's cpuN line */
};

extern struct percpu cpu_data[NR_CPUS];
extern int nr_cpu_ids;          /* CPUs brought up (online) */

/* The current CPU's struct percpu. */
static inline struct percpu *this_cpu_ptr(void)
{
	struct percpu *p;

	asm volatile("mov %%gs:%c1, %0" : "=r"(p) : "i"(__builtin_offsetof(struct percpu, self)));
	return p;
}

static inline int smp_processor_id(void)
{
	int cpu;

	asm volatile("movl %%gs:%c1, %0" : "=r"(cpu) : "i"(__builtin_offsetof(struct percpu, cpu)));
	return cpu;
}

#ifdef HOST_TEST
extern struct task_struct *current;
#else
static inline struct task_struct *get_current(void)
{
	struct task_struct *t;

	asm("mov %%gs:%c1, %0" : "=r"(t) : "i"(__builtin_offsetof(struct percpu, current_task)));
	return t;
}
#define current get_current()
#endif

/* Point this CPU's GS base at cpu_data[cpu] and fill in its identity. */
void percpu_init_cpu(int cpu, struct task_struct *idle);

#endif
