/* reboot(2), Linux's numbers and magic: power off (ACPI S5), restart, or halt the machine.
 * faultline has no users or capabilities, so any process may call it (Linux: CAP_SYS_BOOT). */
#include "drivers/acpi.h"
#include "kernel/arch/reboot.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/printk.h"
#include "kernel/syscalls.h"

#define LINUX_REBOOT_MAGIC1  0xfee1deadu
#define LINUX_REBOOT_MAGIC2  672274793u /* 0x28121969, and three more dates */
#define LINUX_REBOOT_MAGIC2A 85072278u
#define LINUX_REBOOT_MAGIC2B 369367448u
#define LINUX_REBOOT_MAGIC2C 537993216u

#define LINUX_REBOOT_CMD_RESTART   0x01234567u
#define LINUX_REBOOT_CMD_HALT	   0xcdef0123u
#define LINUX_REBOOT_CMD_CAD_ON	   0x89abcdefu
#define LINUX_REBOOT_CMD_CAD_OFF   0x00000000u
#define LINUX_REBOOT_CMD_POWER_OFF 0x4321fedcu

void __noreturn kernel_halt(void)
{
	printk("System halted.\n");
	for (;;) {
		local_irq_disable();
		halt();
	}
}

/* As Linux without a power-off driver: when ACPI cannot do it, halt instead. */
void __noreturn kernel_power_off(void)
{
	printk("reboot: Power down\n");
	acpi_poweroff();
	kernel_halt();
}

void __noreturn kernel_restart(void)
{
	printk("reboot: Restarting system\n");
	acpi_reboot();
}

long sys_reboot(uint64_t magic1, uint64_t magic2, uint64_t cmd, uint64_t arg)
{
	(void)arg; /* only LINUX_REBOOT_CMD_RESTART2 and KEXEC use it */
	/* The magic is compared as int, as Linux does: high bits of the registers are ignored. */
	magic2 = (uint32_t)magic2;
	if ((uint32_t)magic1 != LINUX_REBOOT_MAGIC1 ||
	    (magic2 != LINUX_REBOOT_MAGIC2 && magic2 != LINUX_REBOOT_MAGIC2A &&
	     magic2 != LINUX_REBOOT_MAGIC2B && magic2 != LINUX_REBOOT_MAGIC2C))
		return -EINVAL;
	switch ((uint32_t)cmd) {
	case LINUX_REBOOT_CMD_RESTART:
		kernel_restart();
	case LINUX_REBOOT_CMD_HALT:
		kernel_halt();
	case LINUX_REBOOT_CMD_POWER_OFF:
		kernel_power_off();
	case LINUX_REBOOT_CMD_CAD_ON: /* no Ctrl-Alt-Del handling to switch */
	case LINUX_REBOOT_CMD_CAD_OFF:
		return 0;
	default:
		return -EINVAL;
	}
}
