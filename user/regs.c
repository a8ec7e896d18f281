/* regs: what ring 3 sees in its registers after entering the kernel. Across a `syscall`
 * (getpid) every register but rax, rcx and r11 is unchanged (xmm0-15 too), rcx is the address
 * after the syscall instruction and r11 the rflags, as Linux's sysret ABI gives; nothing holds
 * a kernel-half address. Across a page fault and across timer interrupts everything is kept. */
#define _GNU_SOURCE
#define UTEST_NAME "regs"
#include "utest.h"
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* slots of in[]/out[]: the GPRs by number, then rsp, rflags before and after, xmm0-15 */
enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };
enum { FLAGS_BEFORE = 16, FLAGS_AFTER, RSP_BEFORE, XMM = 20, NSLOTS = XMM + 32 };
static const char *const names[16] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
				       "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15" };

/* regs_probe(in, out, mode): load every GPR but rsp (and xmm0-15) from in[], then
 * mode 0: syscall (rax = in[RAX] is its number); 1: write a byte at rax; 2: count rax down to
 * 0; then store them all in out[]. */
void regs_probe(const uint64_t *in, uint64_t *out, long mode);
extern const char regs_syscall_ret[];
__asm__(".text\n"
	".globl regs_probe\n"
	"regs_probe:\n"
	"	push %rbp; push %rbx; push %r12; push %r13; push %r14; push %r15\n"
	"	push %rsi\n"
	"	push %rdx\n"
	"	.irp n,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"	movdqu 160+16*\\n(%rdi), %xmm\\n\n"
	"	.endr\n"
	"	mov 0*8(%rdi), %rax\n"
	"	mov 1*8(%rdi), %rcx\n"
	"	mov 2*8(%rdi), %rdx\n"
	"	mov 3*8(%rdi), %rbx\n"
	"	mov 5*8(%rdi), %rbp\n"
	"	mov 6*8(%rdi), %rsi\n"
	"	mov 8*8(%rdi), %r8\n"
	"	mov 9*8(%rdi), %r9\n"
	"	mov 10*8(%rdi), %r10\n"
	"	mov 11*8(%rdi), %r11\n"
	"	mov 12*8(%rdi), %r12\n"
	"	mov 13*8(%rdi), %r13\n"
	"	mov 14*8(%rdi), %r14\n"
	"	mov 15*8(%rdi), %r15\n"
	"	mov 7*8(%rdi), %rdi\n"
	"	mov %rsp, regs_rsp_before(%rip)\n"
	"	cmpq $1, (%rsp)\n"
	"	je 1f\n"
	"	cmpq $2, (%rsp)\n"
	"	je 2f\n"
	"	pushfq; popq regs_flags_before(%rip)\n"
	"	syscall\n"
	".globl regs_syscall_ret\n"
	"regs_syscall_ret:\n"
	"	jmp 3f\n"
	"1:	pushfq; popq regs_flags_before(%rip)\n"
	"	movb $1, (%rax)\n"
	"	jmp 3f\n"
	"2:	dec %rax\n"
	"	jnz 2b\n"
	"	pushfq; popq regs_flags_before(%rip)\n"
	"3:	pushfq; popq regs_flags_after(%rip)\n"
	"	mov %rsp, regs_rsp_after(%rip)\n"
	"	push %rax\n"
	"	mov 16(%rsp), %rax\n"
	"	mov %rcx, 1*8(%rax)\n"
	"	mov %rdx, 2*8(%rax)\n"
	"	mov %rbx, 3*8(%rax)\n"
	"	mov %rbp, 5*8(%rax)\n"
	"	mov %rsi, 6*8(%rax)\n"
	"	mov %rdi, 7*8(%rax)\n"
	"	mov %r8, 8*8(%rax)\n"
	"	mov %r9, 9*8(%rax)\n"
	"	mov %r10, 10*8(%rax)\n"
	"	mov %r11, 11*8(%rax)\n"
	"	mov %r12, 12*8(%rax)\n"
	"	mov %r13, 13*8(%rax)\n"
	"	mov %r14, 14*8(%rax)\n"
	"	mov %r15, 15*8(%rax)\n"
	"	.irp n,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"	movdqu %xmm\\n, 160+16*\\n(%rax)\n"
	"	.endr\n"
	"	pop %rbx\n"
	"	mov %rbx, 0*8(%rax)\n"
	"	add $16, %rsp\n"
	"	pop %r15; pop %r14; pop %r13; pop %r12; pop %rbx; pop %rbp\n"
	"	ret\n");

uint64_t regs_flags_before, regs_flags_after, regs_rsp_before, regs_rsp_after;

#define KERNEL_HALF 0xffff800000000000ULL

/* user-half patterns, distinct per slot and per seed */
static void fill(uint64_t *in, uint64_t seed)
{
	int i;

	for (i = 0; i < NSLOTS; i++)
		in[i] = 0x00005a0000000000ULL | seed << 16 | (uint64_t)(i + 1) << 8 | (uint64_t)i;
}

/* every slot but those in skip (a mask of GPR numbers) must be as loaded */
static void check_same(const char *what, const uint64_t *in, const uint64_t *out, unsigned skip)
{
	int i;

	for (i = 0; i < 16; i++) {
		if (i == RSP)
			continue;
		if (!CHECK(out[i] < KERNEL_HALF))
			fprintf(stderr, "regs:   %s: %s = %#llx, a kernel-half value\n", what,
				names[i], (unsigned long long)out[i]);
		if (skip & (1u << i))
			continue;
		if (!CHECK(out[i] == in[i]))
			fprintf(stderr, "regs:   %s: %s = %#llx, want %#llx\n", what, names[i],
				(unsigned long long)out[i], (unsigned long long)in[i]);
	}
	for (i = XMM; i < NSLOTS; i++)
		if (!CHECK(out[i] == in[i]))
			fprintf(stderr, "regs:   %s: xmm%d %s half = %#llx, want %#llx\n", what,
				(i - XMM) / 2, (i & 1) ? "high" : "low", (unsigned long long)out[i],
				(unsigned long long)in[i]);
	CHECK_EQ(regs_rsp_after, regs_rsp_before);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	uint64_t in[NSLOTS], out[NSLOTS];
	long pg = sysconf(_SC_PAGESIZE), n;
	unsigned char *page;
	double t0, t;
	int round;

	/* a system call: rax gets the result, rcx the return address, r11 the rflags */
	for (round = 1; round <= 3; round++) {
		fill(in, 0x1111 * round);
		in[RAX] = SYS_getpid;
		memset(out, 0, sizeof(out));
		regs_probe(in, out, 0);
		check_same("syscall", in, out, 1u << RAX | 1u << RCX | 1u << R11);
		CHECK_EQ(out[RAX], getpid());
		CHECK_EQ(out[RCX], (uintptr_t)regs_syscall_ret);
		CHECK_EQ(out[R11], regs_flags_before);
		CHECK_EQ(regs_flags_after, regs_flags_before);
	}

	/* a page fault on a fresh page: everything kept */
	page = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(page != MAP_FAILED))
		return utest_done();
	for (round = 0; round < 4; round++) {
		fill(in, 0x2222 + round);
		in[RAX] = (uintptr_t)(page + round * pg + 123);
		regs_probe(in, out, 1);
		check_same("page fault", in, out, 0);
		CHECK_EQ(page[round * pg + 123], 1);
		CHECK_EQ(regs_flags_after, regs_flags_before);
	}

	/* a spin long enough for several 100 Hz timer interrupts: all kept but the counter */
	for (n = 1 << 16;; n *= 2) {
		fill(in, 0x3333);
		in[RAX] = n;
		t0 = now();
		regs_probe(in, out, 2);
		t = now() - t0;
		check_same("timer", in, out, 1u << RAX);
		CHECK_EQ(out[RAX], 0);
		if (t >= 0.03 || n >= 1L << 36)
			break;
	}
	CHECK(t >= 0.03);
	printf("regs: spun %ld iterations in %.0f ms\n", n, t * 1000);
	return utest_done();
}
