/* uf-stack: a stack overflow caught. Runaway recursion reaches the end of the 8 MiB stack; the
 * fault that follows could not push a frame onto the exhausted stack, so the SIGSEGV handler
 * runs on a sigaltstack, sees an address just below the stack, and jumps back to a safe point.
 * The program then carries on, and overflows and recovers a second time. */
#define _GNU_SOURCE
#define UTEST_NAME "uf-stack"
#include "utest.h"
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static sigjmp_buf recover;
static char altstack[65536] __attribute__((aligned(16)));
static volatile uintptr_t fault_addr, handler_sp, deepest;
static volatile long depth, max_depth;

static void on_overflow(int sig, siginfo_t *si, void *ctx)
{
	char here;

	(void)sig;
	(void)ctx;
	fault_addr = (uintptr_t)si->si_addr;
	handler_sp = (uintptr_t)&here;
	max_depth = depth;
	siglongjmp(recover, 1);
}

static void __attribute__((noinline)) recurse(void)
{
	volatile char frame[512];

	frame[0] = 1;
	depth++;
	deepest = (uintptr_t)frame;
	if (frame[0]) /* always, but the compiler cannot know */
		recurse();
	frame[1] = 0;
}

int main(void)
{
	stack_t st = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa;
	int round;

	CHECK_EQ(sigaltstack(&st, NULL), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	for (round = 0; round < 2; round++) {
		depth = 0;
		fault_addr = 0;
		if (sigsetjmp(recover, 1) == 0) {
			recurse();
			CHECK(0); /* not reached */
		}
		CHECK(handler_sp >= (uintptr_t)altstack &&
		      handler_sp < (uintptr_t)altstack + sizeof(altstack));
		CHECK(fault_addr != 0 && fault_addr < deepest && deepest - fault_addr < 65536);
		CHECK(max_depth > 1000); /* megabytes of stack were used first */
	}
	printf("uf-stack: overflow caught on the alternate stack twice, %ld frames deep\n",
	       (long)max_depth);
	return utest_done();
}
