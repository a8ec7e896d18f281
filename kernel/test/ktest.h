/* Kernel self-tests, run at boot with the ktest= parameter (ktest=all, ktest=bench, ktest=NAME,
 * ktest=list). Each test is a function registered with KTEST(); it fails if any KT_CHECK fails,
 * and the runner prints one TAP line per test and ends QEMU with the verdict. */
#ifndef KERNEL_KTEST_H
#define KERNEL_KTEST_H

#include "kernel/compiler.h"

/* Which runs include a test besides ktest=NAME */
enum ktest_kind {
	KTEST_KIND_ALL,	    /* ktest=all */
	KTEST_KIND_BY_NAME, /* destructive (panics, overflows): runs only when named */
	KTEST_KIND_BENCH,   /* prints figures, checks little: ktest=bench (make bench) */
};

struct ktest {
	const char *name;
	void (*fn)(void);
	enum ktest_kind kind;
	int min_cpus; /* fewer online: reported as a TAP skip, never run */
};

/* The descriptor's symbol names its kind (ktest_desc_X runs in ktest=all, ktest_byname_X only
 * when named, ktest_bench_X in ktest=bench), so the test scripts can count the tests of a built
 * kernel with nm. */
#define KTEST_DEFINE(tname, desc, tkind, ncpus)                                          \
	static void ktest_##tname(void);                                                 \
	static const struct ktest desc##tname                                            \
		__attribute__((section(".ktest"), used, aligned(8))) = { #tname,         \
									 ktest_##tname,  \
									 tkind, ncpus }; \
	static void ktest_##tname(void)

#define KTEST(tname) KTEST_DEFINE(tname, ktest_desc_, KTEST_KIND_ALL, 1)
#define KTEST_BY_NAME(tname) KTEST_DEFINE(tname, ktest_byname_, KTEST_KIND_BY_NAME, 1)
/* A test whose checks mean something only with other CPUs to drive (IPIs, TLB shootdowns):
 * tests/lib/ktest.sh greps these to know which tests a boot with fewer CPUs must skip. */
#define KTEST_SMP(tname, ncpus) KTEST_DEFINE(tname, ktest_desc_, KTEST_KIND_ALL, ncpus)
#define KTEST_SMP_BY_NAME(tname, ncpus)                                                  \
	KTEST_DEFINE(tname, ktest_byname_, KTEST_KIND_BY_NAME, ncpus)
#define KTEST_BENCH(tname, ncpus) KTEST_DEFINE(tname, ktest_bench_, KTEST_KIND_BENCH, ncpus)

void ktest_fail(const char *file, int line, const char *cond);

#define KT_CHECK(cond)                                      \
	do {                                                \
		if (!(cond))                                \
			ktest_fail(__FILE__, __LINE__, #cond); \
	} while (0)

/* Run the tests the ktest= parameter names; returns false when none was asked for. */
bool ktest_run(void);

#endif
