/* Traps: the register frame every interrupt and exception saves (struct pt_regs, in the order
 * kernel/arch/entry.S pushes it), the vector numbers, and the dispatch interface. */
#ifndef KERNEL_TRAP_H
#define KERNEL_TRAP_H

#include "kernel/compiler.h"
#include "kernel/irq.h"

struct pt_regs {
	uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	uint64_t rax, rcx, rdx, rsi, rdi;
	uint64_t vector;     /* pushed by the stub */
	uint64_t error_code; /* pushed by the CPU, or 0 by the stub; a system call's number */
	uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

enum {
	X86_TRAP_DE = 0,   /* divide error */
	X86_TRAP_DB = 1,   /* debug */
	X86_TRAP_NMI = 2,  /* non-maskable interrupt */
	X86_TRAP_BP = 3,   /* breakpoint (int3) */
	X86_TRAP_OF = 4,   /* overflow */
	X86_TRAP_BR = 5,   /* bound range */
	X86_TRAP_UD = 6,   /* invalid opcode */
	X86_TRAP_NM = 7,   /* device not available */
	X86_TRAP_DF = 8,   /* double fault */
	X86_TRAP_TS = 10,  /* invalid TSS */
	X86_TRAP_NP = 11,  /* segment not present */
	X86_TRAP_SS = 12,  /* stack segment fault */
	X86_TRAP_GP = 13,  /* general protection */
	X86_TRAP_PF = 14,  /* page fault */
	X86_TRAP_MF = 16,  /* x87 floating point */
	X86_TRAP_AC = 17,  /* alignment check */
	X86_TRAP_MC = 18,  /* machine check */
	X86_TRAP_XF = 19,  /* SIMD floating point */
	X86_TRAP_VE = 20,  /* virtualization */
	X86_TRAP_CP = 21,  /* control protection */
	NR_VECTORS = 256,
};

/* Page-fault error code bits (Intel SDM vol. 3, 4.7). */
#define PF_PROT (1u << 0)  /* 0: page not present, 1: protection violation */
#define PF_WRITE (1u << 1) /* the access was a write */
#define PF_USER (1u << 2)  /* the access came from ring 3 */
#define PF_RSVD (1u << 3)  /* a reserved bit was set in a paging entry */
#define PF_INSTR (1u << 4) /* the access was an instruction fetch */

void trap_init(void);                      /* IDT loaded, exceptions routed */
void trap_load_idt(void);                  /* an AP: load the same IDT */
void trap_dispatch(struct pt_regs *regs);  /* called by kernel/arch/entry.S for every vector */
const char *trap_name(uint64_t vector);

/* An expected kernel fault (self-tests only): while armed, a fault in ring 0 resumes at
 * the point fault_catch_call() returned from, with its return value 1. */
struct fault_catch {
	uint64_t vector, error_code, cr2, rip;
};
/* Call fn(arg) with the catcher armed. Returns 0 if fn returned normally, 1 if it faulted
 * (the details are stored in *fc). Implemented in kernel/arch/entry.S. */
int fault_catch_call(void (*fn)(void *), void *arg, struct fault_catch *fc);
bool fault_catch_handle(struct pt_regs *regs); /* true if the catcher took this fault */

#endif
