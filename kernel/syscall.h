/* The system-call entry (kernel/arch/syscall.S) and dispatch (kernel/syscall.c). */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H

#include "kernel/arch/trap.h"

#include "kernel/arch/percpu.h" /* struct percpu: syscall_entry's kernel_rsp and user_rsp */

/* uname's nodename: the host name (core_pattern's %h, kernel/fs/coredump.c) */
#define UTS_NODENAME "faultline"

void syscall_init(void);
long do_syscall(struct pt_regs *regs);
/* Enter ring 3 with the state in regs (kernel/arch/switch.S). */
void __noreturn ret_to_user(struct pt_regs *regs);

#endif
