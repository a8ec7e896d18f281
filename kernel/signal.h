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

#define SIG_DFL 0
#define SIG_IGN 1
#define sigmask(sig) (1UL << ((sig) - 1))

struct task_struct;
struct pt_regs;

/* Linux's struct sigaction as rt_sigaction passes it on x86-64. */
struct k_sigaction {
	uint64_t sa_handler;
	uint64_t sa_flags;
	uint64_t sa_restorer;
	uint64_t sa_mask;
};

long sys_rt_sigaction(int64_t sig, uint64_t uact, uint64_t uoact, uint64_t sigsetsize);
long sys_rt_sigprocmask(int64_t how, uint64_t uset, uint64_t uoset, uint64_t sigsetsize);
/* Act on the first pending, unblocked signal: every action ends the process. */
void __noreturn do_signal(void);

const char *signal_name(int sig);
void send_sig(int sig, struct task_struct *t);
long sys_kill(int64_t pid, int64_t sig);
/* The current process dies of sig now (the caller has printed why). */
void __noreturn force_sig(int sig);
/* Any other exception from ring 3: report it, with Linux's signal for it. */
void __noreturn user_exception(struct pt_regs *regs);

#endif
