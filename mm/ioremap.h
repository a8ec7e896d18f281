/* Device registers in the kernel's address space: ioremap maps a physical range (a PCI
 * memory BAR) uncached, and virt_to_phys gives the bus address of kernel memory for DMA. */
#ifndef MM_IOREMAP_H
#define MM_IOREMAP_H

#include "kernel/compiler.h"

/* Map [phys, phys + size) uncached (PCD|PWT) into the kernel's ioremap area; the pointer
 * keeps phys's offset within its page. NULL if the area is full or a table cannot be had.
 * Mappings are never undone (drivers keep theirs for the life of the boot). Call it before
 * the first process exists: only then do all address spaces see the new kernel tables. */
volatile void *ioremap(uint64_t phys, uint64_t size);

/* The physical address of a kernel pointer: the direct map or the kernel image. */
uint64_t virt_to_phys(const void *va);

/* 32-bit register access that the compiler neither merges nor reorders. */
static inline uint32_t readl(const volatile void *addr)
{
	return *(const volatile uint32_t *)addr;
}

static inline void writel(uint32_t v, volatile void *addr)
{
	*(volatile uint32_t *)addr = v;
}

#endif
