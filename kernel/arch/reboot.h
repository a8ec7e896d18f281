/* Ending the machine (kernel/arch/reboot.c): what reboot(2) and the end of a boot call. */
#ifndef KERNEL_REBOOT_H
#define KERNEL_REBOOT_H

#include "kernel/compiler.h"

void __noreturn kernel_halt(void);	/* "System halted.", then hlt with interrupts off */
void __noreturn kernel_power_off(void); /* ACPI S5; halts if that fails */
void __noreturn kernel_restart(void);	/* ACPI reset register, 8042, triple fault */

#endif
