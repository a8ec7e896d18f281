/* CPU protection features (kernel/cpu.c). */
#ifndef KERNEL_CPU_H
#define KERNEL_CPU_H

#include "kernel/compiler.h"

extern uint8_t smap_enabled;
void cpu_protection_init(void); /* SMEP, SMAP, UMIP when CPUID has them */
void smap_clac(void);           /* drop EFLAGS.AC (user access) on kernel entry */

#endif
