/* The x86-64 virtual memory layout and the physical <-> virtual conversions.
 * All RAM is mapped at PAGE_OFFSET (the "direct map"); the kernel image at KERNEL_BASE. */
#ifndef MM_MMU_H
#define MM_MMU_H

#include "kernel/compiler.h"

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define PMD_SHIFT 21
#define PMD_SIZE (1UL << PMD_SHIFT)
#define PUD_SHIFT 30
#define PGDIR_SHIFT 39
#define PTRS_PER_TABLE 512

/* Layout (same places as Linux, so a student's intuition carries over):
 *   0x0000000000000000 - 0x00007fffffffffff  user space (lower half)
 *   0xffff888000000000 -                     direct map of all physical memory
 *   0xffffc90000000000 -                     kernel virtual area (vmap, self-test scratch)
 *   0xffffffff80000000 -                     kernel image, loaded at physical 1 MiB */
#define USER_TOP 0x0000800000000000UL
#define KERNEL_BASE 0xffffffff80000000UL
#define VMAP_BASE 0xffffc90000000000UL

#ifdef HOST_TEST
/* Host unit tests simulate "physical memory" with a malloc'd buffer at this address. */
extern uintptr_t host_phys_base;
#define PAGE_OFFSET host_phys_base
#else
#define PAGE_OFFSET 0xffff888000000000UL
#endif

/* Physical address -> pointer into the direct map, and back (direct-map pointers only). */
#define __va(pa) ((void *)((uintptr_t)(pa) + PAGE_OFFSET))
#define __pa(va) ((uintptr_t)(va) - PAGE_OFFSET)
/* Physical address of a symbol inside the kernel image. */
#define __pa_symbol(x) ((uintptr_t)(x) - KERNEL_BASE)

#define PFN_DOWN(x) ((x) >> PAGE_SHIFT)
#define PFN_UP(x) (((x) + PAGE_SIZE - 1) >> PAGE_SHIFT)
#define PFN_PHYS(pfn) ((uint64_t)(pfn) << PAGE_SHIFT)

#endif
