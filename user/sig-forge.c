/* sig-forge: rt_sigreturn trusts nothing in the frame. Each child forges one thing in the
 * ucontext its handler returns through (or calls rt_sigreturn with a frame where none can be),
 * and must die of SIGSEGV, alone: ring-0 code and stack selectors, a kernel or non-canonical
 * rip or rsp, an unreadable FPU area or frame, reserved MXCSR bits. IOPL bits in RFLAGS are
 * dropped, so the child's `cli` still faults. Every other child and the parent carry on. */
#define _GNU_SOURCE
#define UTEST_NAME "sig-forge"
#include "utest.h"
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#define KERNEL_ADDR 0xffffffff80100000UL

enum forgery {
	CS_KERNEL, CS_NULL, SS_KERNEL, SS_NULL, RIP_NONCANON, RIP_NONCANON_HIGH, RIP_KERNEL,
	RSP_KERNEL, FPSTATE_KERNEL, MXCSR_RESERVED, IOPL3, FRAME_KERNEL, FRAME_NONCANON,
	FRAME_UNMAPPED, NFORGED
};
static const char *const names[NFORGED] = {
	"cs = kernel CS", "cs = 0", "ss = kernel DS", "ss = 0", "rip = 0x0000800000000000",
	"rip = 0x8000000000000000", "rip = kernel text", "rsp = kernel address",
	"fpstate = kernel address", "reserved MXCSR bits", "IOPL 3 in rflags",
	"frame at a kernel address", "frame at a non-canonical address",
	"frame at an unmapped page",
};
static enum forgery which;

/* Where a forged rip or rsp would otherwise resume: uses the stack, then must not get here. */
static void __attribute__((noinline)) resumed(void)
{
	volatile char buf[64];

	buf[0] = 1;
	if (which == IOPL3) {
		uint64_t fl;

		asm volatile("pushfq; popq %0" : "=r"(fl));
		if (fl & 0x3000)
			_exit(3); /* IOPL was granted */
		asm volatile("cli"); /* IOPL 0: #GP, SIGSEGV */
	}
	_exit(2 + buf[0]);
}

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	greg_t *g = uc->uc_mcontext.gregs;
	uint16_t *seg = (uint16_t *)&g[REG_CSGSFS]; /* cs, gs, fs, ss */

	(void)sig;
	(void)si;
	switch (which) {
	case CS_KERNEL: seg[0] = 0x10; break;
	case CS_NULL: seg[0] = 0; break;
	case SS_KERNEL: seg[3] = 0x18; break;
	case SS_NULL: seg[3] = 0; break;
	case RIP_NONCANON: g[REG_RIP] = 0x0000800000000000L; break;
	case RIP_NONCANON_HIGH: g[REG_RIP] = (greg_t)0x8000000000000000UL; break;
	case RIP_KERNEL: g[REG_RIP] = (greg_t)KERNEL_ADDR; break;
	case RSP_KERNEL:
		g[REG_RSP] = (greg_t)KERNEL_ADDR;
		g[REG_RIP] = (greg_t)(uintptr_t)resumed;
		break;
	case FPSTATE_KERNEL: uc->uc_mcontext.fpregs = (fpregset_t)KERNEL_ADDR; break;
	case MXCSR_RESERVED: uc->uc_mcontext.fpregs->mxcsr |= 0xffff0000; break;
	case IOPL3:
		g[REG_EFL] |= 0x3000;
		g[REG_RIP] = (greg_t)(uintptr_t)resumed;
		break;
	default: break;
	}
}

/* rt_sigreturn with %rsp = frame + 8, as the restorer would call it */
static void sigreturn_at(uint64_t frame)
{
	asm volatile("mov %0, %%rsp; mov $15, %%eax; syscall" ::"r"(frame + 8) : "memory");
}

static void child(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	switch (which) {
	case FRAME_KERNEL: sigreturn_at(KERNEL_ADDR); break;
	case FRAME_NONCANON: sigreturn_at(0x0000900000000000UL); break;
	case FRAME_UNMAPPED: sigreturn_at(0x1000); break;
	default: raise(SIGUSR1); break;
	}
	_exit(1); /* the forged frame was accepted and ran on */
}

int main(void)
{
	for (which = 0; which < NFORGED; which++) {
		int st = 0;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0)
			child();
		CHECK(pid > 0);
		CHECK_EQ(waitpid(pid, &st, 0), pid);
		if (!CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV))
			fprintf(stderr, "sig-forge:   %s: status 0x%x\n", names[which], st);
	}
	printf("sig-forge: %d forged frames, each ended in SIGSEGV for its process only\n",
	       NFORGED);
	return utest_done();
}
