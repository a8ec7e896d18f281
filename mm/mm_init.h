/* Boot-time memory set-up (mm/init.c) and the kernel's page tables. */
#ifndef MM_MM_INIT_H
#define MM_MM_INIT_H

#include "kernel/arch/multiboot2.h"
#include "mm/pgtable.h"

extern pgd_t *kernel_pgd; /* the tables every address space shares the upper half of */
void mm_init(const struct boot_info *bi);
/* True if va is mapped in the kernel's page tables (safe to read from a panic). */
bool kernel_addr_mapped(uint64_t va);

#endif
