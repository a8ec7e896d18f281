/* sig-deliver: a handler runs as on Linux x86-64: siginfo, a ucontext whose mcontext holds the
 * interrupted registers and whose FPU area carries Linux's magic words, a 16-byte aligned frame,
 * a fresh FPU inside the handler and the old one back after; sa_mask, SA_NODEFER, SA_RESETHAND,
 * SIG_IGN, SA_ONSTACK on a sigaltstack, and registers the handler changes taking effect. */
#define _GNU_SOURCE
#define UTEST_NAME "sig-deliver"
#include "utest.h"
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

static volatile int hits, depth, max_depth, saw_usr2_blocked, onstack_ok, fresh_fpu;
static volatile uint32_t saved_mxcsr;
static volatile uintptr_t uc_addr, siptr;
static volatile int got_signo, got_code, got_pid;
static volatile unsigned long magic1, magic2;
static char altstack[65536] __attribute__((aligned(16)));

static uint32_t get_mxcsr(void)
{
	uint32_t m;

	asm volatile("stmxcsr %0" : "=m"(m));
	return m;
}

static void set_mxcsr(uint32_t m)
{
	asm volatile("ldmxcsr %0" ::"m"(m));
}

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	sigset_t now;
	const unsigned char *fp = (const unsigned char *)uc->uc_mcontext.fpregs;

	(void)sig;
	hits++;
	got_signo = si->si_signo;
	got_code = si->si_code;
	got_pid = si->si_pid;
	uc_addr = (uintptr_t)uc;
	siptr = (uintptr_t)si;
	sigprocmask(SIG_BLOCK, NULL, &now);
	saw_usr2_blocked = sigismember(&now, SIGUSR2) && sigismember(&now, SIGUSR1);
	fresh_fpu = get_mxcsr() == 0x1f80;
	saved_mxcsr = uc->uc_mcontext.fpregs->mxcsr;
	uint32_t xstate_size;

	memcpy((void *)&magic1, fp + 464, 4); /* sw_reserved: magic1, sizes, then magic2 */
	memcpy(&xstate_size, fp + 480, 4);    /* past the whole xsave area */
	if (xstate_size >= 576 && xstate_size < 65536)
		memcpy((void *)&magic2, fp + xstate_size, 4);
	set_mxcsr(0x1f80 | 0x2000); /* the handler's own FPU state must not leak out */
}

static void on_usr2_nodefer(int sig)
{
	depth++;
	if (depth > max_depth)
		max_depth = depth;
	if (hits++ == 0)
		raise(sig); /* with SA_NODEFER this nests at once */
	depth--;
}

static void on_onstack(int sig)
{
	char here;
	stack_t st;

	(void)sig;
	sigaltstack(NULL, &st);
	onstack_ok = (uintptr_t)&here >= (uintptr_t)altstack &&
		     (uintptr_t)&here < (uintptr_t)altstack + sizeof(altstack) &&
		     st.ss_flags == SS_ONSTACK;
	hits++;
}

/* The handler moves the interrupted code on: skip the 2-byte ud2, set rax. */
static void on_ill(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_RIP] += 2;
	uc->uc_mcontext.gregs[REG_RAX] = 0x1234;
	hits++;
}

static void set_action(int sig, void (*fn)(int), void (*act3)(int, siginfo_t *, void *), int flags,
		       int also_block)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	if (act3) {
		sa.sa_sigaction = act3;
		flags |= SA_SIGINFO;
	} else {
		sa.sa_handler = fn;
	}
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (also_block)
		sigaddset(&sa.sa_mask, also_block);
	CHECK_EQ(sigaction(sig, &sa, NULL), 0);
}

int main(void)
{
	struct sigaction old;
	sigset_t now;
	stack_t st;
	long rax;
	volatile double x = 1.5;

	/* SA_SIGINFO, the frame, the FPU */
	set_action(SIGUSR1, NULL, on_usr1, 0, SIGUSR2);
	set_mxcsr(0x1f80 | 0x4000); /* round up: must be saved in the frame and come back */
	raise(SIGUSR1);
	CHECK_EQ(get_mxcsr(), 0x1f80 | 0x4000);
	set_mxcsr(0x1f80);
	CHECK_EQ(hits, 1);
	CHECK_EQ(got_signo, SIGUSR1);
	CHECK_EQ(got_code, SI_TKILL);
	CHECK_EQ(got_pid, getpid());
	CHECK_EQ(uc_addr % 16, 0);
	CHECK_EQ(siptr % 16, 0);
	CHECK(saw_usr2_blocked);
	CHECK(fresh_fpu);
	CHECK_EQ(saved_mxcsr, 0x1f80 | 0x4000);
	CHECK_EQ(magic1, 0x46505853);
	CHECK_EQ(magic2, 0x46505845);
	sigprocmask(SIG_BLOCK, NULL, &now);
	CHECK(!sigismember(&now, SIGUSR1) && !sigismember(&now, SIGUSR2));
	CHECK(x * 2 == 3.0);

	/* SA_NODEFER: the handler is re-entered by its own signal */
	hits = 0;
	set_action(SIGUSR2, on_usr2_nodefer, NULL, SA_NODEFER, 0);
	raise(SIGUSR2);
	CHECK_EQ(hits, 2);
	CHECK_EQ(max_depth, 2);
	/* without it, the second one waits until the first handler returns */
	hits = 0;
	max_depth = 0;
	set_action(SIGUSR2, on_usr2_nodefer, NULL, 0, 0);
	raise(SIGUSR2);
	CHECK_EQ(hits, 2);
	CHECK_EQ(max_depth, 1);

	/* SA_RESETHAND: one delivery, then the default action is back */
	hits = 0;
	set_action(SIGUSR2, on_usr2_nodefer, NULL, SA_RESETHAND | SA_NODEFER, 0);
	hits = 1; /* no nested raise */
	raise(SIGUSR2);
	CHECK_EQ(hits, 2);
	CHECK_EQ(sigaction(SIGUSR2, NULL, &old), 0);
	CHECK(old.sa_handler == SIG_DFL);

	/* SIG_IGN: nothing happens */
	signal(SIGUSR2, SIG_IGN);
	raise(SIGUSR2);
	CHECK_EQ(sigpending(&now), 0);
	CHECK(!sigismember(&now, SIGUSR2));

	/* sigaltstack and SA_ONSTACK */
	CHECK_EQ(sigaltstack(NULL, &st), 0);
	CHECK_EQ(st.ss_flags, SS_DISABLE);
	st.ss_sp = altstack;
	st.ss_size = 1024;
	st.ss_flags = 0;
	CHECK_ERR(sigaltstack(&st, NULL), ENOMEM);
	st.ss_size = sizeof(altstack);
	st.ss_flags = 12345;
	CHECK_ERR(sigaltstack(&st, NULL), EINVAL);
	st.ss_flags = 0;
	CHECK_EQ(sigaltstack(&st, NULL), 0);
	hits = 0;
	set_action(SIGUSR2, on_onstack, NULL, SA_ONSTACK, 0);
	raise(SIGUSR2);
	CHECK_EQ(hits, 1);
	CHECK(onstack_ok);
	CHECK_EQ(sigaltstack(NULL, &st), 0);
	CHECK_EQ(st.ss_flags, 0);
	CHECK(st.ss_sp == altstack);
	/* without SA_ONSTACK the handler stays on the normal stack */
	onstack_ok = 0;
	set_action(SIGUSR2, on_onstack, NULL, 0, 0);
	raise(SIGUSR2);
	CHECK(!onstack_ok);
	st.ss_flags = SS_DISABLE;
	CHECK_EQ(sigaltstack(&st, NULL), 0);

	/* registers the handler changes take effect at the return */
	hits = 0;
	set_action(SIGILL, NULL, on_ill, 0, 0);
	asm volatile("xor %%eax, %%eax; ud2; nop" : "=a"(rax));
	CHECK_EQ(hits, 1);
	CHECK_EQ(rax, 0x1234);

	/* SIGKILL and SIGSTOP cannot be caught or ignored */
	CHECK_ERR(sigaction(SIGKILL, &old, NULL), EINVAL);
	CHECK_ERR(signal(SIGSTOP, SIG_IGN) == SIG_ERR ? -1 : 0, EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, NULL, NULL, 4), EINVAL);
	return utest_done();
}
