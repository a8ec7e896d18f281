/* The self-test runner: finds the KTEST() descriptors the linker gathered into .ktest, runs
 * the ones asked for and reports them in TAP form on the console. */
#include "kernel/arch/smp.h"
#include "kernel/lib/cmdline.h"
#include "kernel/lib/string.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/test/ktest.h"

extern const struct ktest __ktest_start[], __ktest_end[];

static int failures_in_test;

void ktest_fail(const char *file, int line, const char *cond)
{
	printk("#   %s:%d: KT_CHECK(%s) failed\n", file, line, cond);
	failures_in_test++;
}

/* ktest=all: every test of kind all; ktest=bench: the benchmarks; a name: that test alone,
 * whatever its kind. */
static bool selected(const struct ktest *t, const char *want)
{
	if (strcmp(want, "all") == 0)
		return t->kind == KTEST_KIND_ALL;
	if (strcmp(want, "bench") == 0)
		return t->kind == KTEST_KIND_BENCH;
	return strcmp(want, t->name) == 0;
}

static void list_tests(void)
{
	static const char *const kinds[] = { "", " (by name only)", " (bench)" };

	for (const struct ktest *t = __ktest_start; t < __ktest_end; t++) {
		if (t->min_cpus > 1)
			printk("ktest: %s%s (needs %d CPUs)\n", t->name, kinds[t->kind],
			       t->min_cpus);
		else
			printk("ktest: %s%s\n", t->name, kinds[t->kind]);
	}
}

bool ktest_run(void)
{
	char want[64];
	int planned = 0, n = 0, passed = 0, failed = 0, skipped = 0;
	int online = num_online_cpus();

	if (!cmdline_get("ktest", want, sizeof(want)))
		return false;
	if (strcmp(want, "list") == 0) {
		list_tests();
		qemu_exit(QEMU_EXIT_SUCCESS);
		return true;
	}
	for (const struct ktest *t = __ktest_start; t < __ktest_end; t++)
		planned += selected(t, want);
	printk("1..%d\n", planned); /* the TAP plan: every test below, run or skipped */
	/* On the boot CPU, with every kernel thread a test starts (they inherit the mask): the
	 * tests that sleep and wake threads count on their order on one CPU, and the SMP and
	 * TLB tests drive the other CPUs through IPIs, which needs them idle. The ring-3 suite
	 * on 2 and 4 CPUs is where tasks run everywhere. */
	set_cpus_allowed(current, 1UL);
	for (const struct ktest *t = __ktest_start; t < __ktest_end; t++) {
		if (!selected(t, want))
			continue;
		n++;
		/* A test that drives other CPUs checks nothing without them: a skip, not a pass */
		if (online < t->min_cpus) {
			printk("ok %d - ktest %s # SKIP needs %d CPUs, %d online\n", n, t->name,
			       t->min_cpus, online);
			skipped++;
			continue;
		}
		failures_in_test = 0;
		printk("# ktest %s\n", t->name);
		t->fn();
		if (failures_in_test)
			failed++;
		else
			passed++;
		printk("%sok %d - ktest %s\n", failures_in_test ? "not " : "", n, t->name);
	}
	if (planned == 0)
		printk("ktest: no test called '%s' (ktest=list lists them)\n", want);
	printk("ktest: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
	/* a run in which nothing passed proved nothing: skips alone are not a success */
	qemu_exit(passed && !failed ? QEMU_EXIT_SUCCESS : QEMU_EXIT_FAILURE);
	return true;
}
