/* Signal numbers (Linux x86-64) and the few ways faultline delivers one (kernel/signal.c). */
#ifndef KERNEL_SIGNAL_H
#define KERNEL_SIGNAL_H

#include "kernel/compiler.h"

#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGTTIN 21
#define SIGTTOU 22
#define SIGURG 23
#define SIGWINCH 28
#define NSIG 64

struct task_struct;
struct pt_regs;

const char *signal_name(int sig);
void send_sig(int sig, struct task_struct *t);
long sys_kill(int64_t pid, int64_t sig);
/* The current process dies of sig now (the caller has printed why). */
void __noreturn force_sig(int sig);
/* A ring-3 page fault nothing can satisfy: report it, SIGSEGV. */
void __noreturn user_fault(struct pt_regs *regs, uint64_t address);
/* Any other exception from ring 3: report it, with Linux's signal for it. */
void __noreturn user_exception(struct pt_regs *regs);

#endif
