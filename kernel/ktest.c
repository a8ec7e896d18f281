/* The self-test runner: finds the KTEST() descriptors the linker gathered into .ktest, runs
 * the ones asked for and reports them in TAP form on the console. */
#include "kernel/cmdline.h"
#include "kernel/ktest.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/string.h"

extern const struct ktest __ktest_start[], __ktest_end[];

static int failures_in_test;

void ktest_fail(const char *file, int line, const char *cond)
{
	printk("#   %s:%d: KT_CHECK(%s) failed\n", file, line, cond);
	failures_in_test++;
}

bool ktest_run(void)
{
	char want[64];
	int n = 0, failed = 0;

	if (!cmdline_get("ktest", want, sizeof(want)))
		return false;
	if (strcmp(want, "list") == 0) {
		for (const struct ktest *t = __ktest_start; t < __ktest_end; t++)
			printk("ktest: %s%s\n", t->name, t->by_name_only ? " (by name only)" : "");
		qemu_exit(QEMU_EXIT_SUCCESS);
		return true;
	}
	/* On the boot CPU, with every kernel thread a test starts (they inherit the mask): the
	 * tests that sleep and wake threads count on their order on one CPU, and the SMP and
	 * TLB tests drive the other CPUs through IPIs, which needs them idle. The ring-3 suite
	 * on 2 and 4 CPUs is where tasks run everywhere. */
	set_cpus_allowed(current, 1UL);
	for (const struct ktest *t = __ktest_start; t < __ktest_end; t++) {
		bool all = strcmp(want, "all") == 0 && !t->by_name_only;

		if (!all && strcmp(want, t->name) != 0)
			continue;
		failures_in_test = 0;
		printk("# ktest %s\n", t->name);
		t->fn();
		n++;
		failed += failures_in_test != 0;
		printk("%sok %d - ktest %s\n", failures_in_test ? "not " : "", n, t->name);
	}
	if (n == 0)
		printk("ktest: no test called '%s' (ktest=list lists them)\n", want);
	printk("ktest: %d passed, %d failed\n", n - failed, failed);
	qemu_exit(n && !failed ? QEMU_EXIT_SUCCESS : QEMU_EXIT_FAILURE);
	return true;
}
