/* sig-fuzz: signals at random. Children install actions with good and bad handler and
 * restorer addresses and random flags, set good and bad alternate stacks, send themselves
 * random signals, change their masks, let their handler scribble on its ucontext, and call
 * rt_sigreturn with forged frames. A child may end any way (exit, or killed by any signal);
 * what must hold is that every child is reaped, the parent is untouched, and (under
 * faultline) every frame comes back and the kernel's PTE check is clean.
 * Safe natively: a child signals only itself, and execution only ever resumes at its own
 * code, at the interrupted instruction or at landing(), which exits; every other rip forged is
 * one that cannot run (kernel, non-canonical, unmapped), so no random code makes system calls.
 * usage: sig-fuzz [CHILDREN [SEED]] */
#define _GNU_SOURCE
#define UTEST_NAME "sig-fuzz"
#include "utest.h"
#include "vmstat.h"
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define OPS 60
static uint64_t rng;
static char altstack[16384] __attribute__((aligned(16)));
static char *noaccess; /* a PROT_NONE page */
static uint64_t restorer; /* libc's, read back from a sigaction it installed */

struct kact { /* struct sigaction as rt_sigaction takes it */
	uint64_t handler, flags, restorer, mask;
};

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t below(uint64_t n)
{
	return rnd() % n;
}

/* any signal but the stop signals (faultline has no job control yet: they would stop the
 * child natively and be ignored under faultline) */
static int random_sig(void)
{
	int sig = (int)below(31) + 1;

	return sig >= SIGSTOP && sig <= SIGTTOU ? SIGUSR1 : sig;
}

static void __attribute__((noinline)) landing(void)
{
	_exit(0);
}

/* an address that cannot run or be used: kernel, non-canonical, unmapped, PROT_NONE */
static uint64_t bad_addr(void)
{
	static const uint64_t pool[] = { 0xffffffff80100000UL, 0xffff888000000000UL,
					 0x0000800000000000UL, 0x8000000000000000UL,
					 0xfffffffffffff000UL, 0x1000, 0 };

	if (below(4) == 0)
		return (uint64_t)noaccess + below(4096);
	return pool[below(sizeof(pool) / sizeof(pool[0]))];
}

/* the forgeable parts of a frame: selectors, flags, FPU pointer, MXCSR, rip, rsp, mask */
static void scribble(ucontext_t *uc)
{
	greg_t *g = uc->uc_mcontext.gregs;
	uint16_t *seg = (uint16_t *)&g[REG_CSGSFS];
	int n = (int)below(4);

	while (n--) {
		switch (below(9)) {
		case 0: seg[0] = (uint16_t)rnd(); break;
		case 1: seg[3] = (uint16_t)rnd(); break;
		case 2: g[REG_EFL] ^= (greg_t)(1UL << below(22)); break;
		case 3: uc->uc_mcontext.fpregs = below(2) ? (fpregset_t)bad_addr() : NULL; break;
		case 4:
			if (uc->uc_mcontext.fpregs)
				uc->uc_mcontext.fpregs->mxcsr ^= (uint32_t)(1UL << below(32));
			break;
		case 5: g[REG_RIP] = below(2) ? (greg_t)bad_addr() : (greg_t)(uintptr_t)landing;
			break;
		case 6: g[REG_RSP] = (greg_t)bad_addr(); break;
		case 7: uc->uc_flags ^= 1UL << below(4); break;
		default: uc->uc_sigmask.__bits[0] = rnd(); break;
		}
	}
}

static void handler(int sig, siginfo_t *si, void *ctx)
{
	static int calls;

	(void)si;
	if (++calls > 200)
		_exit(0); /* a fault the handler's return only repeats */
	if (below(3) == 0)
		scribble(ctx);
	if (below(8) == 0)
		raise(below(2) ? random_sig() : sig);
}

static void random_action(void)
{
	struct kact a = { 0 };
	int sig = (int)below(31) + 1;

	switch (below(6)) {
	case 0: a.handler = 0; break; /* SIG_DFL */
	case 1: a.handler = 1; break; /* SIG_IGN */
	case 2: a.handler = bad_addr(); break;
	default: a.handler = (uint64_t)(uintptr_t)handler; break;
	}
	a.flags = SA_SIGINFO | (rnd() & (SA_ONSTACK | SA_NODEFER | SA_RESETHAND | SA_RESTART));
	if (below(8))
		a.flags |= SA_RESTORER;
	a.restorer = below(6) ? restorer : bad_addr();
	a.mask = rnd();
	syscall(SYS_rt_sigaction, sig, &a, NULL, 8);
}

static void random_altstack(void)
{
	stack_t st = { .ss_sp = altstack, .ss_size = sizeof(altstack) };

	switch (below(5)) {
	case 0: st.ss_sp = (void *)bad_addr(); break;
	case 1: st.ss_size = MINSIGSTKSZ; break;
	case 2: st.ss_flags = SS_DISABLE; break;
	case 3: st.ss_size = below(65536); break;
	}
	sigaltstack(&st, NULL);
}

/* rt_sigreturn on a frame that is all random, or a copy of a real one scribbled on */
static void forged_sigreturn(void)
{
	static uint64_t frame[128] __attribute__((aligned(16)));
	ucontext_t *uc = (ucontext_t *)&frame[1];
	uint64_t at = (uint64_t)(uintptr_t)frame;

	for (unsigned i = 0; i < 128; i++)
		frame[i] = below(2) ? rnd() : 0;
	if (below(2)) { /* plausible: user selectors, a safe rip and stack */
		memset(uc, 0, sizeof(*uc));
		uc->uc_mcontext.gregs[REG_CSGSFS] = 0x33 | (0x2bL << 48);
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)landing;
		uc->uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)&altstack[8192];
		uc->uc_flags = 6;
		scribble(uc);
	} else if (below(2)) {
		at = bad_addr();
	}
	if (uc->uc_mcontext.gregs[REG_RIP] != (greg_t)(uintptr_t)landing &&
	    (uint64_t)uc->uc_mcontext.gregs[REG_RIP] - 0x1000 < 0x7fff00000000UL)
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)bad_addr(); /* never random code */
	asm volatile("mov %0, %%rsp; mov $15, %%eax; syscall" ::"r"(at + 8) : "memory");
}

static void child(void)
{
	for (int sig = 1; sig < 32; sig++) { /* start with a handler for nearly everything */
		struct kact a = { (uint64_t)(uintptr_t)handler, SA_SIGINFO | SA_RESTORER, restorer,
				  0 };

		a.flags |= rnd() & (SA_ONSTACK | SA_NODEFER | SA_RESETHAND | SA_RESTART);
		if (below(8))
			syscall(SYS_rt_sigaction, sig, &a, NULL, 8);
	}
	for (int i = 0; i < OPS; i++) {
		sigset_t set;

		switch (below(10)) {
		case 0: case 1: case 2: random_action(); break;
		case 3: random_altstack(); break;
		case 4:
			sigemptyset(&set);
			set.__bits[0] = rnd();
			sigprocmask((int)below(3), &set, NULL);
			break;
		case 5: syscall(SYS_tgkill, getpid(), getpid(), random_sig()); break;
		case 6: kill(getpid(), random_sig()); break;
		case 7: if (below(10) == 0) forged_sigreturn(); break;
		default: raise(random_sig()); break;
		}
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	int nchild = argc > 1 ? atoi(argv[1]) : 400, exited = 0, killed = 0, watchdog = 0;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	struct fl_mm m0, m1;
	struct fl_check chk;
	struct sigaction sa;

	/* libc's restorer: install any handler, read the action back raw */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGUSR2, &sa, NULL);
	struct kact k;
	syscall(SYS_rt_sigaction, SIGUSR2, NULL, &k, 8);
	restorer = k.restorer;
	signal(SIGUSR2, SIG_DFL);
	noaccess = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(noaccess != MAP_FAILED);
	CHECK(restorer != 0);

	fflush(stdout);
	m0 = fl_mm_now();
	for (int i = 0; i < nchild; i++) {
		int st = 0;
		pid_t pid;

		rng = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i * 0x2545f4914f6cdd1dULL + 1;
		pid = fork();
		if (pid == 0)
			child();
		if (!CHECK(pid > 0))
			break;
		/* a watchdog: a child may block every signal it can and wait forever */
		for (int t = 0; t < 300 && waitpid(pid, &st, WNOHANG) == 0; t++)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		if (waitpid(pid, &st, WNOHANG) == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			watchdog++;
		}
		exited += WIFEXITED(st);
		killed += WIFSIGNALED(st);
	}
	m1 = fl_mm_now();
	CHECK_EQ(exited + killed, nchild);
	if (on_faultline())
		CHECK(frames_back("sig-fuzz", m0, m1, 8));
	CHECK_EQ(fl_check(&chk), 0);
	CHECK_EQ(chk.orphans + chk.bad_counts, 0);
	printf("sig-fuzz: %d children, seed %llu: %d exited, %d killed by a signal (%d by the "
	       "watchdog)\n", nchild, (unsigned long long)seed, exited, killed, watchdog);
	return utest_done();
}
