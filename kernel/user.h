/* Running one ring-3 program at a time (the first step towards processes: issue 3). */
#ifndef KERNEL_USER_H
#define KERNEL_USER_H

#include "kernel/trap.h"

struct percpu {
	uint64_t kernel_rsp; /* loaded by syscall_entry */
	uint64_t user_rsp;   /* scratch for the user %rsp */
};

void syscall_init(void);
long do_syscall(struct pt_regs *regs);
#define SIGILL 4
#define SIGTRAP 5
#define SIGBUS 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGSEGV 11
#define SIGTERM 15

void user_fault(struct pt_regs *regs, uint64_t address);
void user_exception(struct pt_regs *regs);
const char *signal_name(int sig);
const char *current_program(void);
/* Load the program at path, run it to its end; prints "run: LINE: exit N" or "killed by". */
int run_program(const char *line);

long user_enter(struct pt_regs *regs);
void __noreturn user_leave(long code);

#endif
