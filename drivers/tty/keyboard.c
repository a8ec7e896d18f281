/* The PS/2 keyboard behind the i8042 controller (IRQ 1). The controller translates to
 * scancode set 1 (a USB keyboard arrives the same way through the firmware's legacy
 * emulation); drivers/tty/keymap.c makes bytes of them for tty1. */
#include "drivers/tty/keymap.h"
#include "drivers/tty/vt.h"
#include "kernel/arch/x86.h"
#include "kernel/initcall.h"
#include "kernel/irq.h"

#define I8042_DATA   0x60
#define I8042_STATUS 0x64
#define STATUS_OBF   0x01 /* a byte waits in the output buffer */
#define STATUS_AUX   0x20 /* ... and it is the mouse's */
#define KBD_IRQ	     1

static struct kbd_state kbd_state;

static void keyboard_interrupt(struct pt_regs *regs)
{
	(void)regs;
	for (int i = 0; i < 16; i++) {
		uint8_t status = inb(I8042_STATUS), sc;
		char out[KBD_MAX_BYTES];
		int n;

		if (!(status & STATUS_OBF))
			break;
		sc = inb(I8042_DATA);
		if (status & STATUS_AUX)
			continue;
		n = kbd_translate(&kbd_state, sc, out);
		if (n)
			vt_receive(out, (size_t)n);
	}
}

/* Whatever the firmware left in the buffer is dropped; then key presses interrupt. No
 * controller (status 0xff: nothing on the port) leaves the line masked. */
static void keyboard_init(void)
{
	if (inb(I8042_STATUS) == 0xff)
		return;
	for (int i = 0; i < 32 && (inb(I8042_STATUS) & STATUS_OBF); i++)
		(void)inb(I8042_DATA);
	irq_register(KBD_IRQ, keyboard_interrupt);
}
device_initcall(keyboard_init);
