/* fuzz.h: what the files of the system-call fuzzer share: limits, the per-child results,
 * its random numbers and raw system call, and the state that setup, the argument pickers and
 * the call generator all use. The safety rules they keep are at the top of main.c. */
#ifndef FUZZ_H
#define FUZZ_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "../vmstat.h"
#include <stdint.h>
#include <time.h>

#define P	      4096UL
#define NPROC_MAX     16
#define TMAX	      4 /* threads=N: at most this many workers in each child */
#define TOTAL_NATIVE  200000
#define TOTAL_FL      200000
#define MAX_TRACKED   16
#define MAX_OWNED     40
#define TRACK_MAX_LEN (4UL << 20) /* bigger new mappings are unmapped again at once */
#define FILE_MAX      (4UL << 20) /* the scratch file is cut back when it grows past this */
#define NERR	      134

#define KDIRECT	 0xffff888000000000UL
#define KIMAGE	 0xffffffff80000000UL
#define KVMAP	 0xffffc90000000000UL
#define NONCANON 0x8000000000000000UL
#define LASTPAGE 0x00007ffffffff000UL /* faultline's last user page; above Linux's TASK_SIZE */

/* Each worker (a forked child, or each thread of one with threads=N) has its own copy of
 * the state marked WORKER: its random numbers, arena, descriptors, paths and the call being
 * made, so workers sharing an address space never touch each other's. */
#define WORKER __thread

/* ---------------------------------------------------------------- shared results */
struct cstats {
	long done, calls, ok, random, enosys_random, err[NERR], other_err, housekeeping;
	long fails;	  /* failed self-checks at the end */
	char why[256];	  /* the first of them */
};
extern WORKER struct cstats *me; /* this worker's, in the MAP_SHARED table */
extern WORKER int worker_sub; /* 0: a child's first thread; threads=N: 1..N-1 the others */

extern int smallfiles; /* file sizes and offsets below 1 MiB (main.c) */

/* ---------------------------------------------------------------- randomness */
extern WORKER uint64_t rs;

static inline uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 2685821657736338717ULL;
}

static inline uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define PICK(a)	 ((a)[below(NELEM(a))])

/* ---------------------------------------------------------------- raw system calls */
static inline long sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* a call of the fuzzer's own bookkeeping (not counted as a fuzz call) */
static inline long hk(long n, long a, long b, long c)
{
	me->housekeeping++;
	return sys6(n, a, b, c, 0, 0, 0);
}

static inline int is_err(long r)
{
	return r < 0 && r >= -4095;
}

/* ------------------------------------------------ edge values: the pickers' and the calls' own */
static const uint64_t bad_addrs[] = {
	1, 0xfff, 0x1001, 0x8000, 0xffff, /* below mmap's lowest address: never mapped */
	KDIRECT, KDIRECT + 0x100000, KIMAGE, KIMAGE + 0x100000, KVMAP, KVMAP + 0x6000,
	0xffffffffff600000UL, 0xfffffffffffff000UL, 0xffffffffffffffffUL, NONCANON,
	0x0000800000000000UL, 0x7fffffffffffffffUL, 0xdead000000000000UL,
};

static const int64_t ints[] = {
	0, 1, -1, 2, 3, 4, 7, 8, 16, 63, 64, 255, 256, 4095, 4096, 65536, 0x7fffffff,
	-0x80000000L, 0x80000000L, 0xffffffffL, 1L << 32, 1L << 40, 1L << 47, INT64_MIN,
	INT64_MAX, -4096,
};

/* ---------------------------------------------------------------- the fuzzer's memory */
#define ARENA_PAGES 48
extern WORKER uint64_t arena;	   /* the first interior page; guards at arena - P, arena_end */
extern WORKER uint64_t arena_end;  /* arena + ARENA_PAGES * P */
extern WORKER uint64_t holes[2];   /* interior pages unmapped at the start */
extern WORKER uint64_t unterm;	   /* a page of 'a's (no NUL) followed by a PROT_NONE page */
extern unsigned char sbuf[16384]; /* data the kernel may read, never written */

void track(uint64_t start, uint64_t len);
uint64_t ptr_bad(void);
uint64_t ptr_wr(uint64_t *maxlen);
uint64_t ptr_rd(uint64_t *maxlen);
uint64_t len_any(void);
uint64_t len_max(uint64_t maxlen);
long junk(void);
void range_own(uint64_t *start, uint64_t *len);
void range_any(uint64_t *start, uint64_t *len);

/* ---------------------------------------------------------------- descriptors and paths */
extern WORKER int scratch_fd, ro_fd, bin_fd, dir_fd;
extern WORKER int owned[MAX_OWNED], nowned;
extern int max_owned; /* MAX_OWNED shared out among a child's workers (threads=N) */
extern WORKER unsigned char protected_fd[1024]; /* not this worker's (stdin, other workers') */
extern WORKER char dir[128], scratch_path[160];

int fd_ok_to_change(long v);
long fd_bad(void);
void own(long fd);
void disown(long fd);
long fd_own(void);
long fd_any(void);
long fd_read(void);
long fd_write(void);
void paths_init(const char *argv0);
uint64_t path_ro(void);
uint64_t path_priv(void);
long oflags(void);

/* ---------------------------------------------------------------- the calls */
extern WORKER long a[6];
extern WORKER long nr;
extern uint64_t brk0; /* the brk of the child before its calls (musl's heap) */

void gen(void);
void after(long r);
void random_init(void);
void gen_random(void);

#endif
