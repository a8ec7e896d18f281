/* fbench.h: what fbench.c and fbench_smp.c (/bin/fsmpbench) share: the page size, the fenced
 * TSC read, the timed one-byte touch and the anonymous mapping they fault (docs/bench.md). */
#ifndef FBENCH_H
#define FBENCH_H
#include <stdint.h>
#include <sys/mman.h>

#define PG 4096UL

static inline uint64_t tsc_now(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
	return (uint64_t)hi << 32 | lo;
}

/*
 * One access between two fenced TSC reads, all in one asm block so the compiler puts nothing
 * in between. The window from the first rdtsc to the second holds 7 instructions when
 * nothing faults (lfence, shl, or, mov, the access, lfence, rdtsc): the baseline.
 */
#define TIMED_ACCESS(insn)                                                                  \
	"lfence\n\trdtsc\n\tlfence\n\t"                                                     \
	"shl $32, %%rdx\n\tor %%rdx, %%rax\n\tmov %%rax, %%rcx\n\t" insn "\n\t"             \
	"lfence\n\trdtsc\n\tlfence\n\t"                                                     \
	"shl $32, %%rdx\n\tor %%rdx, %%rax\n\tsub %%rcx, %%rax\n\t"

static inline uint64_t timed_write(volatile char *p)
{
	uint64_t d, scratch;

	__asm__ volatile(TIMED_ACCESS("movb $1, (%[p])")
			 : "=&a"(d), "=&c"(scratch)
			 : [p] "r"(p)
			 : "rdx", "memory", "cc");
	return d;
}

static inline uint64_t timed_read(volatile char *p)
{
	uint64_t d, scratch;

	__asm__ volatile(TIMED_ACCESS("movzbl (%[p]), %%edx")
			 : "=&a"(d), "=&c"(scratch)
			 : [p] "r"(p)
			 : "rdx", "memory", "cc");
	return d;
}

/* n private anonymous pages, not yet touched; NULL on failure */
static inline char *map_anon(long n)
{
	char *p = mmap(NULL, (size_t)n * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_NOHUGEPAGE
	madvise(p, (size_t)n * PG, MADV_NOHUGEPAGE); /* Linux: 4 KiB faults, as faultline's */
#endif
	return p;
}

#endif
