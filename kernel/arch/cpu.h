/* CPU protection features (kernel/arch/cpu.c). */
#ifndef KERNEL_CPU_H
#define KERNEL_CPU_H

#include "kernel/compiler.h"

extern uint8_t smap_enabled;
void cpu_protection_init(void); /* SMEP, SMAP, UMIP when CPUID has them */

/* Traps can arrive inside a user copy (AC set): the handler must not inherit the access.
 * Inline: it runs on every trap (docs/bench.md, "Design choices, measured"). */
static inline void smap_clac(void)
{
	if (smap_enabled)
		asm volatile("clac" ::: "memory");
}

#endif
