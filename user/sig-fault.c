/* sig-fault: every kind of fault reaches a handler with Linux's siginfo and sigcontext:
 * SIGSEGV SEGV_MAPERR (no mapping, a kernel address) and SEGV_ACCERR (a read-only page, which
 * the handler makes writable so that the write restarts and succeeds), SIGBUS BUS_ADRERR past
 * the end of a file, SIGFPE FPE_INTDIV, SIGILL ILL_ILLOPN, SIGTRAP from int3, SIGSEGV from a
 * privileged instruction. Then, in children: a fault inside the SIGSEGV handler (the signal
 * is blocked there), a fault with SIGSEGV blocked, a frame that cannot be written (unmapped
 * alternate stack) and a stack overflow caught on the alternate stack.
 * usage: sig-fault [-v]   -v tells the faults that become SIGSEGV and SIGBUS (user/narrate.h):
 * each one's address, error bits and VMA (or none), and what the handler was told */
#define _GNU_SOURCE
#define UTEST_NAME "sig-fault"
#include "utest.h"
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>
#include "vmstat.h"
#include "narrate.h"

#define PAGE 4096UL

static sigjmp_buf jb;
static volatile int got_sig, got_code;
static volatile uintptr_t got_addr, got_rip, got_cr2, got_trapno, got_err;
static volatile int fix_by_mprotect;
static pid_t main_pid;
static char altstack[65536] __attribute__((aligned(16)));
static volatile uintptr_t low_addr = 8; /* page 0: never mapped */

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	narrate_sig(sig, si, ctx); /* told when the step ends: in the write barrier, after it */
	got_sig = sig;
	got_code = si->si_code;
	got_addr = (uintptr_t)si->si_addr;
	got_rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	got_cr2 = (uintptr_t)uc->uc_mcontext.gregs[REG_CR2];
	got_trapno = (uintptr_t)uc->uc_mcontext.gregs[REG_TRAPNO];
	got_err = (uintptr_t)uc->uc_mcontext.gregs[REG_ERR];
	if (fix_by_mprotect) { /* the write barrier's move: let the write through, restart it */
		mprotect((void *)(got_addr & ~(PAGE - 1)), PAGE, PROT_READ | PROT_WRITE);
		return;
	}
	if (sig == SIGTRAP)
		return; /* int3 resumes after itself */
	if (getpid() != main_pid)
		_exit(7); /* a child never jumps back into main's tests */
	narrate_end(); /* the step never ends where it began */
	siglongjmp(jb, 1);
}

static void catch_sig(int sig, int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | flags;
	sigaction(sig, &sa, NULL);
}

/* expect: the last handler run saw sig with code */
#define EXPECT(sig, code)                                                                          \
	do {                                                                                       \
		CHECK_EQ(got_sig, sig);                                                            \
		CHECK_EQ(got_code, code);                                                          \
	} while (0)

static void __attribute__((noinline)) recurse(volatile char *p)
{
	volatile char buf[1024];

	buf[0] = *p;
	if (buf[0] != 99) /* never, but the compiler cannot know */
		recurse(buf);
	buf[1] = 0;
}

/* children: each must end as expected */
static void expect_child(void (*fn)(void), int sig, const char *what)
{
	int st = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		fn();
		_exit(1);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	if (sig && !CHECK(WIFSIGNALED(st) && WTERMSIG(st) == sig))
		fprintf(stderr, "sig-fault:   %s: status 0x%x\n", what, st);
	if (!sig && !CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		fprintf(stderr, "sig-fault:   %s: status 0x%x\n", what, st);
}

static void fault_in_handler(int sig)
{
	(void)sig;
	*(volatile int *)(low_addr + 8) = 1;
}

static void child_fault_in_handler(void)
{
	signal(SIGSEGV, fault_in_handler);
	*(volatile int *)low_addr = 1;
}

static void child_fault_blocked(void)
{
	sigset_t s;

	catch_sig(SIGSEGV, 0);
	sigemptyset(&s);
	sigaddset(&s, SIGSEGV);
	sigprocmask(SIG_BLOCK, &s, NULL);
	*(volatile int *)low_addr = 1;
}

static void child_no_room_for_frame(void)
{
	stack_t st = { .ss_size = 4 * PAGE };

	st.ss_sp = mmap(NULL, 4 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sigaltstack(&st, NULL);
	catch_sig(SIGUSR1, SA_ONSTACK);
	raise(SIGUSR1);
}

static void child_overflow(void)
{
	stack_t st = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	char c = 0;

	sigaltstack(&st, NULL);
	catch_sig(SIGSEGV, SA_ONSTACK);
	main_pid = getpid(); /* jb is this child's now */
	if (sigsetjmp(jb, 1) == 0)
		recurse(&c);
	_exit(got_sig == SIGSEGV && got_code == SEGV_MAPERR ? 0 : 5);
}

int main(int argc, char **argv)
{
	char path[] = "/tmp/sig-fault.XXXXXX";
	volatile char *p;
	volatile int zero = 0, r;
	int fd;

	narrate_opt(argc, argv);
	main_pid = getpid();
	catch_sig(SIGSEGV, 0);
	catch_sig(SIGBUS, 0);
	catch_sig(SIGFPE, 0);
	catch_sig(SIGILL, 0);
	catch_sig(SIGTRAP, 0);

	/* no mapping */
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap((void *)p, PAGE);
	if (sigsetjmp(jb, 1) == 0)
		STEP(p + 5, "writes to a page just unmapped")
			p[5] = 1;
	EXPECT(SIGSEGV, SEGV_MAPERR);
	CHECK_EQ(got_addr, (uintptr_t)p + 5);
	CHECK_EQ(got_cr2, (uintptr_t)p + 5);
	CHECK_EQ(got_trapno, 14);
	CHECK((got_err & 6) == 6); /* a write from user mode */

	/* a kernel address */
	got_sig = 0;
	if (sigsetjmp(jb, 1) == 0)
		r = *(volatile int *)0xffffffff80100000UL;
	EXPECT(SIGSEGV, SEGV_MAPERR);
	CHECK_EQ(got_addr, 0xffffffff80100000UL);

	/* read-only: the handler unprotects, the write restarts and lands */
	p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	got_sig = 0;
	fix_by_mprotect = 1;
	STEP(p + 100, "writes to a PROT_READ page: the handler mprotects it, the write restarts")
		p[100] = 42;
	fix_by_mprotect = 0;
	EXPECT(SIGSEGV, SEGV_ACCERR);
	CHECK_EQ(got_addr, (uintptr_t)p + 100);
	CHECK_EQ(p[100], 42);
	munmap((void *)p, PAGE);

	/* past the end of a file */
	fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK_EQ(ftruncate(fd, 100), 0);
	p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	got_sig = 0;
	if (sigsetjmp(jb, 1) == 0)
		STEP(p + PAGE + 1, "reads page 1 of a 100-byte file's MAP_SHARED mapping")
			r = p[PAGE + 1];
	EXPECT(SIGBUS, BUS_ADRERR);
	CHECK_EQ(got_addr, (uintptr_t)p + PAGE + 1);
	munmap((void *)p, 2 * PAGE);
	close(fd);
	unlink(path);

	/* divide by zero: si_addr is the instruction */
	got_sig = 0;
	if (sigsetjmp(jb, 1) == 0)
		r = 7 / zero;
	EXPECT(SIGFPE, FPE_INTDIV);
	CHECK_EQ(got_addr, got_rip);
	CHECK_EQ(got_trapno, 0);

	/* ud2 */
	got_sig = 0;
	if (sigsetjmp(jb, 1) == 0)
		asm volatile("ud2");
	EXPECT(SIGILL, ILL_ILLOPN);
	CHECK_EQ(got_addr, got_rip);
	CHECK_EQ(got_trapno, 6);

	/* int3: SI_KERNEL, rip just past it */
	got_sig = 0;
	asm volatile("int3");
	EXPECT(SIGTRAP, SI_KERNEL);
	CHECK_EQ(got_trapno, 3);

	/* a privileged instruction: #GP, SIGSEGV SI_KERNEL, no address */
	got_sig = 0;
	if (sigsetjmp(jb, 1) == 0)
		asm volatile("hlt");
	EXPECT(SIGSEGV, SI_KERNEL);
	CHECK_EQ(got_addr, 0);
	CHECK_EQ(got_trapno, 13);
	(void)r;

	expect_child(child_fault_in_handler, SIGSEGV, "a fault in the SIGSEGV handler");
	expect_child(child_fault_blocked, SIGSEGV, "a fault with SIGSEGV blocked");
	expect_child(child_no_room_for_frame, SIGSEGV, "no room for the frame");
	expect_child(child_overflow, 0, "stack overflow caught on the alternate stack");
	return utest_done();
}
