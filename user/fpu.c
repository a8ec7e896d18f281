/* fpu: FPU/SSE state is per process. Two children run side by side, each holding its own pattern
 * in xmm0-xmm15 across sched_yield calls and busy loops (timer preemption), and repeating an SSE
 * and an x87 sum that must come out bit-identical every time; one of them switches MXCSR and the
 * x87 control word to round-toward-zero, which must not leak into the other or the parent. */
#define UTEST_NAME "fpu"
#include "utest.h"
#include <sched.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#define MXCSR_DEFAULT 0x1f80u
#define MXCSR_RZ 0x7f80u /* rounding control 11: toward zero */
#define FCW_DEFAULT 0x037fu
#define FCW_RZ 0x0f7fu

static volatile int terms = 300000;
static double ref_d;
static long double ref_ld;

static double sum_d(void) /* SSE2 doubles */
{
	double s = 0;
	for (int k = terms; k >= 1; k--)
		s += 1.0 / ((double)k * k);
	return s;
}

static long double sum_ld(void) /* x87 long doubles */
{
	long double s = 0;
	for (int k = terms; k >= 1; k--)
		s += 1.0L / ((long double)k * k);
	return s;
}

static unsigned mxcsr(void) /* control bits only: the sums set the sticky precision flag */
{
	unsigned v;
	__asm__ volatile("stmxcsr %0" : "=m"(v));
	return v & ~0x3fu;
}

static unsigned fcw(void)
{
	unsigned short v;
	__asm__ volatile("fnstcw %0" : "=m"(v));
	return v;
}

/* load xmm0-15 from in, do rounds x (sched_yield; spin), store xmm0-15 to out */
static void hold_xmm(const uint64_t *in, uint64_t *out, unsigned long rounds, unsigned long spin)
{
#define LD(n) "movdqu " #n "*16(%[in]), %%xmm" #n "\n\t"
#define ST(n) "movdqu %%xmm" #n ", " #n "*16(%[out])\n\t"
	__asm__ volatile(LD(0) LD(1) LD(2) LD(3) LD(4) LD(5) LD(6) LD(7) LD(8) LD(9) LD(10) LD(11)
			 LD(12) LD(13) LD(14) LD(15)
			 "1: mov $24, %%eax\n\t" /* SYS_sched_yield */
			 "syscall\n\t"
			 "mov %[spin], %%rdx\n\t"
			 "2: dec %%rdx\n\t"
			 "jnz 2b\n\t"
			 "dec %[rounds]\n\t"
			 "jnz 1b\n\t" ST(0) ST(1) ST(2) ST(3) ST(4) ST(5) ST(6) ST(7) ST(8) ST(9)
			     ST(10) ST(11) ST(12) ST(13) ST(14) ST(15)
			 : [rounds] "+r"(rounds)
			 : [in] "r"(in), [out] "r"(out), [spin] "r"(spin)
			 : "rax", "rcx", "rdx", "r11", "memory", "cc", "xmm0", "xmm1", "xmm2",
			   "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
			   "xmm12", "xmm13", "xmm14", "xmm15");
#undef LD
#undef ST
}

static int child(int id)
{
	unsigned want_csr = id ? MXCSR_RZ : MXCSR_DEFAULT, want_cw = id ? FCW_RZ : FCW_DEFAULT;
	uint64_t in[32], out[32];
	double d0;
	long double ld0;
	int i, round;

	if (id) {
		unsigned short cw = FCW_RZ;
		__asm__ volatile("ldmxcsr %0" ::"m"(want_csr));
		__asm__ volatile("fldcw %0" ::"m"(cw));
	}
	d0 = sum_d();
	ld0 = sum_ld();
	/* round-toward-zero must really be in effect in child 1, and only there */
	CHECK(id ? d0 != ref_d : d0 == ref_d);
	CHECK(id ? ld0 != ref_ld : ld0 == ref_ld);
	for (i = 0; i < 32; i++)
		in[i] = 0x0101010101010101ULL * (uint64_t)(id * 32 + i + 1) ^ (uint64_t)i << 56;
	for (round = 0; round < 8; round++) {
		memset(out, 0, sizeof(out));
		hold_xmm(in, out, 10, 2000000); /* 20M spin iterations: spans timer ticks */
		CHECK(memcmp(in, out, sizeof(in)) == 0);
		CHECK_EQ(mxcsr(), want_csr);
		CHECK_EQ(fcw(), want_cw);
		CHECK(sum_d() == d0);
		CHECK(sum_ld() == ld0);
		sched_yield();
	}
	return utest_done();
}

int main(void)
{
	unsigned ftz = MXCSR_DEFAULT | 0x8000, dflt = MXCSR_DEFAULT;
	pid_t pid[3];
	int i, st;

	CHECK_EQ(mxcsr(), MXCSR_DEFAULT);
	CHECK_EQ(fcw(), FCW_DEFAULT);
	ref_d = sum_d();
	ref_ld = sum_ld();
	CHECK(ref_d > 1.6449 && ref_d < 1.6450);
	CHECK(ref_ld != (long double)ref_d); /* x87 extended precision, not doubles */
	fflush(stdout);

	/* fork copies the FPU state: a child sees the parent's MXCSR */
	__asm__ volatile("ldmxcsr %0" ::"m"(ftz));
	pid[2] = fork();
	if (pid[2] == 0)
		_exit(mxcsr() == ftz ? 0 : 1);
	__asm__ volatile("ldmxcsr %0" ::"m"(dflt));
	CHECK(pid[2] > 0);

	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			_exit(child(i));
		CHECK(pid[i] > 0);
	}
	for (i = 0; i < 3; i++) {
		st = -1;
		CHECK_EQ(wait4(pid[i], &st, 0, NULL), pid[i]);
		if (!CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			fprintf(stderr, "fpu: child %d: status %#x\n", i, st);
	}
	CHECK_EQ(mxcsr(), MXCSR_DEFAULT);
	CHECK_EQ(fcw(), FCW_DEFAULT);
	CHECK(sum_d() == ref_d);
	CHECK(sum_ld() == ref_ld);
	return utest_done();
}
