/* Self-tests of trap dispatch and interrupts: each exception reaches its vector, the timer
 * ticks, and the deliberate failures (panic, stack overflow) that the harness checks by name. */
#include "kernel/arch/trap.h"
#include "kernel/bug.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/test/ktest.h"
#include "kernel/time/time.h"

static void do_ud2(void *arg)
{
	(void)arg;
	asm volatile("ud2");
}

static void do_int3(void *arg)
{
	(void)arg;
	asm volatile("int3");
}

static void do_divide(void *arg)
{
	volatile int zero = *(int *)arg;

	asm volatile("div %2" : : "a"(1), "d"(0), "r"(zero));
}

static void do_gp(void *arg)
{
	(void)arg;
	/* A non-canonical address is a #GP, not a #PF. */
	*(volatile uint64_t *)0x8000000000000000ULL = 1;
}

KTEST(exception_vectors)
{
	struct fault_catch fc;
	int zero = 0;

	KT_CHECK(fault_catch_call(do_ud2, NULL, &fc) == 1 && fc.vector == X86_TRAP_UD);
	KT_CHECK(fault_catch_call(do_int3, NULL, &fc) == 1 && fc.vector == X86_TRAP_BP);
	KT_CHECK(fault_catch_call(do_divide, &zero, &fc) == 1 && fc.vector == X86_TRAP_DE);
	KT_CHECK(fault_catch_call(do_gp, NULL, &fc) == 1 && fc.vector == X86_TRAP_GP);
}

/* The PIT interrupt arrives: jiffies advances while we spin with interrupts on. */
KTEST(timer_ticks)
{
	uint64_t start = jiffies;

	for (uint64_t i = 0; i < 2000000000ULL && jiffies < start + 3; i++)
		asm volatile("pause");
	KT_CHECK(jiffies >= start + 3);
}

KTEST(snprintf_in_kernel)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%d|%5u|%-4x|%08lx|%s|%c|%p", -42, 7u, 0xabu, 0x1234UL, "ok",
		 'z', (void *)0xffffffff80100000UL);
	KT_CHECK(strcmp(buf, "-42|    7|ab  |00001234|ok|z|0xffffffff80100000") == 0);
}

/* Deliberate kernel bug: the harness checks the oops names the fault, the registers and this
 * function in the backtrace. noinline keeps each frame in the trace. */
static __attribute__((noinline, noclone)) void ktest_panic_deref(volatile uint64_t *p)
{
	*p = 0xbad;
}

static __attribute__((noinline, noclone)) void ktest_panic_caller(void)
{
	ktest_panic_deref((volatile uint64_t *)0xdead000);
	asm volatile("" ::: "memory");
}

KTEST_BY_NAME(panic)
{
	ktest_panic_caller();
	KT_CHECK(!"the write to an unmapped address should not return");
}

/* Unbounded recursion: the boot stack overflows into its guard page, the #PF cannot be
 * delivered on that stack, and the #DF handler must report it from its IST stack. */
static volatile uint64_t recurse_limit = UINT64_MAX; /* volatile: the compiler must recurse */

static __attribute__((noinline)) uint64_t recurse(uint64_t n)
{
	volatile uint8_t pad[512];

	pad[0] = (uint8_t)n;
	if (n == recurse_limit)
		return 0;
	return recurse(n + 1) + pad[0];
}

KTEST_BY_NAME(stack_overflow)
{
	KT_CHECK(recurse(0) == 0);
}

KTEST_BY_NAME(kernel_panic_call)
{
	panic("deliberate panic from ktest (%d)", 42);
}

/* A broken invariant: BUG_ON stops the kernel with "kernel BUG at file:line!", the registers
 * as they were at the BUG_ON and the backtrace through this function. */
static volatile int bug_condition = 1;

static __attribute__((noinline, noclone)) void ktest_bug_on_caller(void)
{
	BUG_ON(bug_condition);
	asm volatile("" ::: "memory");
}

KTEST_BY_NAME(bug_on)
{
	ktest_bug_on_caller();
	KT_CHECK(!"BUG_ON should not return");
}

/* WARN_ON reports and goes on, and gives the condition's value. */
KTEST(warn_on_reports_and_goes_on)
{
	int n = 0;

	if (WARN_ON(bug_condition))
		n++;
	if (WARN_ON(!bug_condition))
		n += 10;
	for (int i = 0; i < 3; i++)
		if (WARN_ON_ONCE(bug_condition))
			n++;
	KT_CHECK(n == 4);
}
