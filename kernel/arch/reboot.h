/* Ending the machine (kernel/arch/reboot.c): what reboot(2) and the end of a boot call. */
#ifndef KERNEL_REBOOT_H
#define KERNEL_REBOOT_H

#include "kernel/compiler.h"

void __noreturn kernel_halt(void);	/* "System halted.", then hlt with interrupts off */
void __noreturn kernel_power_off(void); /* pm_power_off (ACPI S5); halts if that fails */
void __noreturn kernel_restart(void);	/* pm_restart (ACPI reset register), 8042, triple fault */

/* What a driver offers to end the machine: drivers/acpi.c sets both when it starts. Each
 * returns if the machine is still on. (Linux has pm_power_off; its restart calls ACPI's
 * acpi_reboot by name, which would make kernel/arch/ include a driver's header.) */
extern void (*pm_power_off)(void);
extern void (*pm_restart)(void);

#endif
