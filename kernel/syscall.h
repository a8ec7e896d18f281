/* The system-call entry (kernel/syscall.S) and dispatch (kernel/syscall.c). */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H

#include "kernel/trap.h"

/* Per-CPU data, reached through %gs after swapgs (one CPU, so one of these). */
struct percpu {
	uint64_t kernel_rsp; /* loaded by syscall_entry: the top of current's kernel stack */
	uint64_t user_rsp;   /* scratch for the user %rsp */
};
extern struct percpu this_cpu;

void syscall_init(void);
long do_syscall(struct pt_regs *regs);
/* Enter ring 3 with the state in regs (kernel/switch.S). */
void __noreturn ret_to_user(struct pt_regs *regs);

#endif
