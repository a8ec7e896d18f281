/* Kernel self-tests, run at boot with the ktest= parameter (ktest=all, ktest=NAME, ktest=list).
 * Each test is a function registered with KTEST(); it fails if any KT_CHECK fails, and the
 * runner prints one TAP line per test and ends QEMU with the verdict. */
#ifndef KERNEL_KTEST_H
#define KERNEL_KTEST_H

#include "kernel/compiler.h"

struct ktest {
	const char *name;
	void (*fn)(void);
	bool by_name_only; /* destructive (panics, overflows): runs only when named */
};

/* The descriptor's symbol names its kind (ktest_desc_X runs in ktest=all, ktest_byname_X only
 * when named), so the test scripts can count the tests of a built kernel with nm. */
#define KTEST_DEFINE(tname, desc, only)                                                  \
	static void ktest_##tname(void);                                                 \
	static const struct ktest desc##tname                                            \
		__attribute__((section(".ktest"), used, aligned(8))) = { #tname,         \
									 ktest_##tname,  \
									 only };         \
	static void ktest_##tname(void)

#define KTEST(tname) KTEST_DEFINE(tname, ktest_desc_, false)
#define KTEST_BY_NAME(tname) KTEST_DEFINE(tname, ktest_byname_, true)

void ktest_fail(const char *file, int line, const char *cond);

#define KT_CHECK(cond)                                      \
	do {                                                \
		if (!(cond))                                \
			ktest_fail(__FILE__, __LINE__, #cond); \
	} while (0)

/* Run the tests the ktest= parameter names; returns false when none was asked for. */
bool ktest_run(void);

#endif
