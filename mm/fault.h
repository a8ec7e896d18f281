/* The page-fault entry point (mm/fault.c) and the helpers it shares. */
#ifndef MM_FAULT_H
#define MM_FAULT_H

#include "kernel/arch/trap.h"

struct vm_area_struct;

#define STACK_LIMIT (8UL << 20)       /* RLIMIT_STACK: how far a stack may grow */
#define STACK_GUARD_GAP (256UL << 12) /* kept free below a stack (Linux's stack_guard_gap) */

/* The last FAULT_RING_SIZE faults, oldest overwritten first: for gdb (`faults`) and tests. */
#define FAULT_RING_SIZE 64
struct fault_record {
	uint64_t seq;       /* 1 for the first fault since boot */
	int pid;
	uint64_t address, pgoff, error;
	uint64_t vm_start, vm_end; /* the VMA, or 0-0 when none covered the address */
	int result;         /* VM_FAULT_* bits, or -1 for a bad access (signal or oops) */
	bool nonlinear;     /* pgoff came from a file PTE */
	const char *op;     /* the VMA's op name: anon, file, device, none (static strings) */
};
extern struct fault_record fault_ring[FAULT_RING_SIZE];
extern uint64_t fault_ring_next;

/* #PF: demand paging, copy-on-write, stack growth, or a signal / oops (see mm/fault.c). */
void do_page_fault(struct pt_regs *regs, uint64_t address);
/* The error-code bits in words ("not-present write user"), into buf. */
const char *pf_bits(uint64_t error, char *buf, size_t n);
/* The fault trace (one printk line per fault): on from the faulttrace parameter, switched at
 * run time through /proc/sys/vm/faulttrace. */
bool faulttrace_enabled(void);
void set_faulttrace(bool on);
/* Grow the stack VMA vma down to address: 0, or -ENOMEM past the limit or the guard gap. */
int expand_stack(struct vm_area_struct *vma, uint64_t address);

#endif
