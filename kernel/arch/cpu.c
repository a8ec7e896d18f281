/* CPU protection features, switched on when CPUID reports them: SMEP (the kernel never runs
 * user pages), SMAP (the kernel touches user pages only inside the uaccess routines, between
 * stac and clac), UMIP (ring 3 cannot read the GDT/IDT addresses with sgdt/sidt). */
#include "kernel/arch/cpu.h"
#include "kernel/arch/x86.h"
#include "kernel/printk/printk.h"

#define CR4_UMIP (1UL << 11)
#define CR4_SMEP (1UL << 20)
#define CR4_SMAP (1UL << 21)

uint8_t smap_enabled; /* read by kernel/arch/uaccess.S: stac/clac #UD on CPUs without SMAP */

void cpu_protection_init(void)
{
	uint32_t a, b, c, d, max;
	uint64_t cr4;

	cpuid(0, &max, &b, &c, &d);
	if (max < 7) {
		printk("cpu: no CPUID leaf 7: SMEP, SMAP and UMIP are not available\n");
		return;
	}
	cpuid(7, &a, &b, &c, &d);
	asm volatile("mov %%cr4, %0" : "=r"(cr4));
	if (b & (1u << 7))
		cr4 |= CR4_SMEP;
	if (b & (1u << 20))
		cr4 |= CR4_SMAP;
	if (c & (1u << 2))
		cr4 |= CR4_UMIP;
	asm volatile("mov %0, %%cr4" ::"r"(cr4) : "memory");
	smap_enabled = (cr4 & CR4_SMAP) != 0;
	printk("cpu: SMEP %s, SMAP %s, UMIP %s (NX on since boot)\n",
	       (cr4 & CR4_SMEP) ? "on" : "not available", smap_enabled ? "on" : "not available",
	       (cr4 & CR4_UMIP) ? "on" : "not available");
}

