/* What the kernel provides that host unit tests of mm/ code must stand in for: the simulated
 * physical memory base, printk, and a panic() that a test can expect (EXPECT_PANIC). Include
 * it after the kernel sources under test. */
#ifndef TESTS_HOST_KSTUBS_H
#define TESTS_HOST_KSTUBS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uintptr_t host_phys_base;

static jmp_buf panic_env;
static int panic_expected;
static char panic_msg[256];

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

/* Reclaim (mm/vmscan.c, mm/lru.c) is not under test here: no watermarks, nothing to free. */
struct page;
struct task_struct;
unsigned long pages_min, pages_low, pages_high;
void wakeup_kswapd(void)
{
}
unsigned long try_to_free_pages(unsigned long nr, unsigned int gfp)
{
	(void)nr, (void)gfp;
	return 0;
}
void lru_cache_del(struct page *page)
{
	(void)page;
}
#ifdef KERNEL_SCHED_H
/* The task the code under test runs as (alloc_pages reads its flags); a test that needs a
 * task of its own defines current itself. */
static struct task_struct kstubs_task;
__attribute__((weak)) struct task_struct *current = &kstubs_task;
#endif
bool oom_task_is_victim(const struct task_struct *t)
{
	(void)t;
	return true;
}
void out_of_memory(unsigned int gfp_mask, int order)
{
	(void)gfp_mask, (void)order;
}

/* A panic the test expects jumps back into EXPECT_PANIC; any other one ends the test. */
void panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(panic_msg, sizeof(panic_msg), fmt, ap);
	va_end(ap);
	if (panic_expected) {
		panic_expected = 0;
		longjmp(panic_env, 1);
	}
	fprintf(stderr, "unexpected panic: %s\n", panic_msg);
	abort();
}

/* Run stmt, which must panic with a message containing text. */
#define EXPECT_PANIC(stmt, text)                                                           \
	do {                                                                               \
		panic_msg[0] = '\0';                                                       \
		panic_expected = 1;                                                        \
		if (setjmp(panic_env) == 0) {                                              \
			stmt;                                                              \
			panic_expected = 0;                                                \
			printf("#   %s:%d: %s did not panic\n", __FILE__, __LINE__, #stmt);   \
			check_failed_in_test++;                                            \
		} else if (!strstr(panic_msg, text)) {                                     \
			printf("#   %s:%d: panic \"%s\" lacks \"%s\"\n", __FILE__, __LINE__,   \
			       panic_msg, text);                                           \
			check_failed_in_test++;                                            \
		}                                                                          \
	} while (0)

#ifdef MM_RMAP_H
/* mm/vma.c keeps VMAs on their anon_vma's list (mm/rmap.c, not built here): host tests make no
 * anonymous pages, so no VMA has an anon_vma to link. */
void anon_vma_link(struct vm_area_struct *vma)
{
	(void)vma;
}
void anon_vma_unlink(struct vm_area_struct *vma)
{
	(void)vma;
}
void __anon_vma_merge(struct vm_area_struct *vma, struct vm_area_struct *next)
{
	(void)vma;
	(void)next;
}
#endif

/* xorshift64: a fixed, reproducible pseudo-random sequence (seed rng_state first). */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

#endif
