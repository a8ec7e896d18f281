/* ioremap: device memory mapped uncached in a window of the kernel virtual area, one range
 * after the other; and the kernel-pointer-to-physical conversion DMA needs. */
#include "kernel/printk/printk.h"
#include "mm/ioremap.h"
#include "mm/mm_init.h"
#include "mm/pgtable.h"

#define IOREMAP_BASE (VMAP_BASE + (2UL << 30)) /* after the framebuffer's gigabyte */
#define IOREMAP_SIZE (1UL << 30)

static uint64_t ioremap_next = IOREMAP_BASE;

volatile void *ioremap(uint64_t phys, uint64_t size)
{
	uint64_t start = ALIGN_DOWN(phys, PAGE_SIZE);
	uint64_t len = ALIGN_UP(phys + size, PAGE_SIZE) - start;
	uint64_t va = ioremap_next;

	if (!size || len > IOREMAP_BASE + IOREMAP_SIZE - va)
		return NULL;
	/* Registers must see every access, in order: never cached, never combined. */
	if (map_range(kernel_pgd, va, start, len, PAGE_KERNEL | _PAGE_PCD | _PAGE_PWT)) {
		printk("ioremap: cannot map %lx-%lx\n", start, start + len);
		return NULL;
	}
	ioremap_next += len;
	return (volatile void *)(va + (phys - start));
}

uint64_t virt_to_phys(const void *va)
{
	uint64_t v = (uint64_t)va;

	return v >= KERNEL_BASE ? __pa_symbol(v) : __pa(v);
}
