/* Consoles are the places printk writes to: COM1 always, then the VGA text screen when GRUB
 * left the machine in text mode, or the framebuffer console (drivers/fbcon.c, drivers/fb.h). */
#ifndef DRIVERS_CONSOLE_H
#define DRIVERS_CONSOLE_H

#include "kernel/compiler.h"

struct console {
	const char *name;
	void (*write)(const char *s, size_t n);
	struct console *next;
};

void register_console(struct console *con);
void console_write(const char *s, size_t n);

void serial_init(void);
void vga_init(uint64_t phys, uint32_t cols, uint32_t rows);

#endif
