/* reboot(2), Linux's numbers and magic: power off (ACPI S5), restart, or halt the machine.
 * faultline has no users or capabilities, so any process may call it (Linux: CAP_SYS_BOOT). */
#include "kernel/arch/reboot.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/printk/printk.h"
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

void (*pm_power_off)(void);
void (*pm_restart)(void);

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
	if (pm_power_off)
		pm_power_off();
	kernel_halt();
}

/* The 8042's "pulse output line 0" command: bit 0 of its output port is the CPU's reset. */
static void kbd_reset(void)
{
	for (int i = 0; i < 100000 && (inb(0x64) & 2); i++) /* input buffer full: wait */
		io_delay(1);
	outb(0x64, 0xfe);
}

/* The driver's way first (ACPI's reset register), then the PC's own, as Linux's
 * native_machine_emergency_restart tries them. */
void __noreturn kernel_restart(void)
{
	static const struct {
		uint16_t limit;
		uint64_t base;
	} __packed no_idt = { 0, 0 };

	printk("reboot: Restarting system\n");
	local_irq_disable();
	if (pm_restart)
		pm_restart();
	printk("reboot: through the keyboard controller (0x64 <- 0xfe)\n");
	kbd_reset();
	io_delay(500000);
	/* No IDT: the breakpoint cannot be delivered, nor the #DF after it: a triple fault. */
	printk("reboot: by a triple fault (empty IDT, int3)\n");
	asm volatile("lidt %0; int3" : : "m"(no_idt));
	for (;;)
		halt();
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
