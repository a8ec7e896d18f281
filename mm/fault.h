/* The page-fault entry point. Until the VMA issue lands there are no user mappings to fault
 * in, so every fault is either an expected one in a self-test or a kernel bug. */
#ifndef MM_FAULT_H
#define MM_FAULT_H

#include "kernel/trap.h"

void do_page_fault(struct pt_regs *regs, uint64_t address);
/* True if va is mapped in the kernel's page tables (safe to read from a panic). */
bool kernel_addr_mapped(uint64_t va);

#endif
